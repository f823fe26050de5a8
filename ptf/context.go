package ptf

import (
	"fmt"
	"time"

	"github.com/eddy-sql/eddy/types"
)

// Host is implemented by engines and test harnesses to run a function. A
// Host serves one call at a time; it is not used concurrently.
type Host interface {
	// Arg returns the value of a scalar argument (NULL when omitted).
	Arg(name string) (types.Value, bool)
	// Emit receives a row the function collected. vals is only valid
	// during the call; the host copies what it keeps.
	Emit(kind types.RowKind, vals []types.Value)
	// Time is time() of the call: the row's on_time value in Eval, the
	// timer's time in OnTimer (in the timer's domain).
	Time() (time.Time, bool)
	CurrentWatermark() (time.Time, bool)
	TableWatermark() (time.Time, bool)
	// RegisterTimer registers a timer; name "" registers an unnamed timer.
	RegisterTimer(name string, t time.Time) error
	ClearTimer(name string)
	ClearUnnamedTimer(t time.Time)
	ClearAllTimers()
	ClearState(name string)
	ClearAllState()
	// ValueState returns the value (a *T) of a value-state entry.
	ValueState(e StateEntry) any
	// ViewState returns the ListHost or MapHost of a view entry.
	ViewState(e StateEntry) any
	// CurrentTimer is the firing timer in OnTimer; name "" is unnamed.
	CurrentTimer() (name string, t time.Time, ok bool)
	// TimerDomain is the domain of the firing timer; ok is false outside
	// OnTimer.
	TimerDomain() (d TimerDomain, ok bool)
	// RegisterProcessingTimer registers a processing-time timer; name ""
	// registers an unnamed one (an Eddy extension, see
	// Context.RegisterOnProcessingTime).
	RegisterProcessingTimer(name string, t time.Time) error
	ClearProcessingTimer(name string)
	ClearUnnamedProcessingTimer(t time.Time)
	// CurrentProcessingTime is the engine's processing time: its clock,
	// which tests control.
	CurrentProcessingTime() time.Time
	// Key is the partition key of the call (nil without PARTITION BY).
	Key() []types.Value
	// TableSemantics describes a table argument of the call.
	TableSemantics(arg string) (TableSemantics, bool)
	// StateTTL returns the effective TTL of a state entry and the time left
	// for the current key's value (see Context.StateTTL).
	StateTTL(name string) (ttl, remaining time.Duration, err error)
	// ChangelogMode is the mode the function produces in this call.
	ChangelogMode() ChangelogMode
	// Fail records an error; the call fails with the first one.
	Fail(err error)
}

// TableSemantics describes a table argument as the planner resolved it.
type TableSemantics struct {
	// Schema of the table (after any cast to a typed argument).
	Schema *types.Schema
	// PartitionBy holds the positions of the PARTITION BY columns.
	PartitionBy []int
	// TimeColumn is the position of the on_time column, or -1.
	TimeColumn int
	// Changelog is the mode delivered to the function.
	Changelog ChangelogMode
	// OrderBy holds the positions of the ORDER BY columns (Flink's
	// orderByColumns); empty without ORDER BY. The first is the time
	// column the rows arrive sorted by.
	OrderBy []int
	// OrderByDesc and OrderByNullsFirst give, per OrderBy column, its
	// direction (Flink's orderByDirections: ASC_NULLS_LAST is
	// desc=false, nullsFirst=false).
	OrderByDesc       []bool
	OrderByNullsFirst []bool
}

// Context is what a function sees during Eval and OnTimer. It is valid only
// during the call.
type Context struct {
	h   Host
	buf []types.Value
}

// NewContext wraps a Host. Engines call it once per operator instance and
// reuse the Context for every call.
func NewContext(h Host) *Context { return &Context{h: h} }

// Host returns the engine side of the call. It is for engines that run a
// function in another runtime and forward the call through its Host (Eddy's
// WebAssembly host does); functions use the Context's methods instead.
func (c *Context) Host() Host { return c.h }

// Arg returns the value of the named scalar argument (NULL when omitted).
func (c *Context) Arg(name string) types.Value {
	v, _ := c.h.Arg(name)
	return v
}

// Collect emits an insert (+I) row with the function's output columns.
func (c *Context) Collect(vals ...types.Value) { c.CollectKind(types.Insert, vals...) }

// CollectKind emits a row of the given kind; the kind must be in the
// function's changelog mode.
func (c *Context) CollectKind(kind types.RowKind, vals ...types.Value) {
	c.buf = append(c.buf[:0], vals...)
	c.h.Emit(kind, c.buf)
}

// Time returns time() of the call: the row's on_time value in Eval, the
// timer's time in OnTimer; ok is false when the call has no time. For a
// processing-time timer (see TimerDomain) it is the timer's processing
// time, which is also the rowtime of the rows the call collects.
func (c *Context) Time() (t time.Time, ok bool) { return c.h.Time() }

// CurrentWatermark returns the function's watermark, the minimum over its
// inputs; ok is false before every input has sent one.
func (c *Context) CurrentWatermark() (time.Time, bool) { return c.h.CurrentWatermark() }

// TableWatermark returns the watermark of the table of the current row; ok
// is false in OnTimer and before a watermark arrived.
func (c *Context) TableWatermark() (time.Time, bool) { return c.h.TableWatermark() }

// RegisterOnTime registers (or replaces) the named event-time timer of the
// current key. A time at or before the watermark is allowed and fires at
// the next watermark advance; MaxTime fires when the input ends.
//
// The error is a value for the function to handle: ErrTimersNotSupported,
// ErrEmptyTimerName or ErrTimerOutOfRange (test with errors.Is). The timer
// is not registered then; return the error to fail the call.
func (c *Context) RegisterOnTime(name string, t time.Time) error {
	if name == "" {
		return ErrEmptyTimerName
	}
	return c.h.RegisterTimer(name, t)
}

// RegisterOnTimeUnnamed registers an unnamed timer; one per key and time.
// Its error is as RegisterOnTime's.
func (c *Context) RegisterOnTimeUnnamed(t time.Time) error { return c.h.RegisterTimer("", t) }

// ClearTimer deletes the named event-time timer of the current key, if
// any (ClearProcessingTimer deletes a processing-time one).
func (c *Context) ClearTimer(name string) { c.h.ClearTimer(name) }

// ClearTimerAt deletes the unnamed event-time timer at t of the current
// key, if any.
func (c *Context) ClearTimerAt(t time.Time) { c.h.ClearUnnamedTimer(t) }

// ClearAllTimers deletes every timer of the current key, now: event-time
// and processing-time ones.
func (c *Context) ClearAllTimers() { c.h.ClearAllTimers() }

// TimerDomain is the time a timer fires on: the watermark (EventTime, the
// timers of Flink's PTFs) or the engine's clock (ProcessingTime, an Eddy
// extension).
type TimerDomain uint8

const (
	// EventTime timers fire when the function's watermark reaches them.
	EventTime TimerDomain = iota
	// ProcessingTime timers fire when the engine's clock passes them.
	ProcessingTime
)

// String returns "EVENT_TIME" or "PROCESSING_TIME", as Flink's TimeDomain.
func (d TimerDomain) String() string {
	switch d {
	case EventTime:
		return "EVENT_TIME"
	case ProcessingTime:
		return "PROCESSING_TIME"
	}
	return fmt.Sprintf("TimerDomain(%d)", uint8(d))
}

// RegisterOnProcessingTime registers (or replaces) the named
// processing-time timer of the current key: OnTimer runs for the key once
// the engine's clock (CurrentProcessingTime) reaches t. This is an Eddy
// extension; Flink's PTFs have event-time timers only.
//
// Processing-time timers are a namespace of their own: a processing-time
// and an event-time timer may share a name. They are checkpointed with the
// state like event-time timers and fire in (time, key, name) order, an
// unnamed timer first. A time at or before the current processing time
// fires at the next advance of the clock. The end of a bounded input
// fires only those the clock has passed, none ahead of time (Flink does
// not fire processing-time timers at the end of input either); a timer at
// MaxTime never fires.
//
// The errors are as RegisterOnTime's: ErrTimersNotSupported,
// ErrEmptyTimerName or ErrTimerOutOfRange, and the timer is not
// registered then.
func (c *Context) RegisterOnProcessingTime(name string, t time.Time) error {
	if name == "" {
		return ErrEmptyTimerName
	}
	return c.h.RegisterProcessingTimer(name, t)
}

// RegisterOnProcessingTimeUnnamed registers an unnamed processing-time
// timer; one per key and time. Its error is as RegisterOnProcessingTime's.
func (c *Context) RegisterOnProcessingTimeUnnamed(t time.Time) error {
	return c.h.RegisterProcessingTimer("", t)
}

// ClearProcessingTimer deletes the named processing-time timer of the
// current key, if any.
func (c *Context) ClearProcessingTimer(name string) { c.h.ClearProcessingTimer(name) }

// ClearProcessingTimerAt deletes the unnamed processing-time timer at t of
// the current key, if any.
func (c *Context) ClearProcessingTimerAt(t time.Time) { c.h.ClearUnnamedProcessingTimer(t) }

// CurrentProcessingTime returns the engine's processing time: the clock
// processing-time timers and state TTL run on. Engines inject the clock,
// so tests control it (ptftest's SetProcessingTime).
func (c *Context) CurrentProcessingTime() time.Time { return c.h.CurrentProcessingTime() }

// TimerDomain returns the domain of the firing timer: EventTime or
// ProcessingTime; ok is false outside OnTimer. In OnTimer, Time returns
// the timer's time in that domain.
func (c *Context) TimerDomain() (d TimerDomain, ok bool) { return c.h.TimerDomain() }

// ClearState removes the named state entry of the current key when the
// call returns; changes made to it in this call are discarded.
func (c *Context) ClearState(name string) { c.h.ClearState(name) }

// ClearAllState removes every state entry of the current key when the call
// returns.
func (c *Context) ClearAllState() { c.h.ClearAllState() }

// ClearAll clears all state and all timers (of both domains) of the
// current key.
func (c *Context) ClearAll() {
	c.h.ClearAllTimers()
	c.h.ClearAllState()
}

// CurrentTimer returns the name of the firing timer ("" for an unnamed
// one); ok is false outside OnTimer. TimerDomain tells an event-time timer
// from a processing-time one of the same name.
func (c *Context) CurrentTimer() (name string, ok bool) {
	name, _, ok = c.h.CurrentTimer()
	return name, ok
}

// Key returns the partition key of the current call.
func (c *Context) Key() []types.Value { return c.h.Key() }

// TableSemantics describes the named table argument.
func (c *Context) TableSemantics(arg string) (TableSemantics, bool) { return c.h.TableSemantics(arg) }

// StateTTL returns the time to live of the named state entry as the call
// runs it (the declared TTL, or 'table.exec.state.ttl' for DefaultTTL; 0
// when the entry never expires), and for a value-state entry the time
// left until the current key's value expires unless written again (0 when
// the key has no value or the entry never expires). Like Flink's
// StateTtlConfig.getTtl, it lets a function see what the engine applies.
// The error is ErrUnknownState for an entry the function did not declare.
func (c *Context) StateTTL(name string) (ttl, remaining time.Duration, err error) {
	return c.h.StateTTL(name)
}

// ChangelogMode returns the changelog mode the function produces.
func (c *Context) ChangelogMode() ChangelogMode { return c.h.ChangelogMode() }

func (c *Context) fail(err error) {
	if err != nil {
		c.h.Fail(err)
	}
}
