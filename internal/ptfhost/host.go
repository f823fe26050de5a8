package ptfhost

import (
	"fmt"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/runtime"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// Mode is the changelog a table argument carries.
type Mode uint8

const (
	// Append tables carry inserts only.
	Append Mode = iota
	// Upsert tables carry +I/+U/-D by their upsert key.
	Upsert
	// Retract tables carry +I/-U/+U/-D.
	Retract
)

// OrderSpec is one ORDER BY item of a table argument.
type OrderSpec struct {
	Column string
	Desc   bool
	// Nulls is "FIRST", "LAST" or "" for Flink's default.
	Nulls string
}

// TableSpec describes the table passed to one table argument.
type TableSpec struct {
	// Arg is the argument name; Schema the table's columns.
	Arg    string
	Schema *types.Schema
	// PartitionBy lists the PARTITION BY columns.
	PartitionBy []string
	// Mode is the table's changelog; UpsertKey its upsert key columns.
	Mode      Mode
	UpsertKey []string
	// TimeAttribute is the watermarked column, if any.
	TimeAttribute string
	// OrderBy lists the ORDER BY items.
	OrderBy []OrderSpec
}

// Call is one call of a function: what SQL's f(...) says.
type Call struct {
	// Name is the function name used in messages and as the default uid.
	Name string
	Def  *ptf.Definition
	// Tables are the table arguments; table i is input i.
	Tables []TableSpec
	// Scalars are the scalar arguments by name.
	Scalars map[string]types.Value
	// OnTime lists the on_time DESCRIPTOR columns; UID the uid argument.
	OnTime []string
	UID    string
	// Required is what the consumer of the output requires.
	Required ptf.ChangelogMode
	// StateTTL is 'table.exec.state.ttl' for entries declared with
	// ptf.DefaultTTL.
	StateTTL time.Duration
}

// Timer is a pending or firing timer.
type Timer struct {
	Name   string
	Time   time.Time
	Domain ptf.TimerDomain
}

// Host drives one call: rows and watermarks in, rows out, with state in
// memory that Snapshot and Restore checkpoint.
type Host struct {
	call  Call
	be    *state.Memory
	clock *runtime.ManualClock
	fh    *runtime.FunctionHost
	// Emit receives every output row, as the runtime emits it; an error
	// fails the call that emitted the row.
	Emit func(types.Row) error
	// OnCollect sees every row the function collected.
	OnCollect func(kind types.RowKind, vals []types.Value)
	// OnTimer sees every timer as it fires.
	OnTimer func(key []types.Value, t Timer)
}

// New plans the call and opens a host whose processing time starts at
// start.
func New(call Call, start time.Time) (*Host, error) {
	h := &Host{call: call, be: state.NewMemory(), clock: &runtime.ManualClock{T: start}}
	if err := h.open(); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *Host) open() error {
	tables := make([]plan.TableSpec, len(h.call.Tables))
	for i, t := range h.call.Tables {
		p := plan.TableSpec{Arg: t.Arg, Schema: t.Schema, PartitionBy: t.PartitionBy, UpsertKey: t.UpsertKey, TimeAttribute: t.TimeAttribute}
		switch t.Mode {
		case Upsert:
			p.Mode = jobgraph.Upsert
		case Retract:
			p.Mode = jobgraph.Retract
		default:
			p.Mode = jobgraph.Append
		}
		for _, o := range t.OrderBy {
			p.OrderBy = append(p.OrderBy, plan.OrderSpec{Column: o.Column, Desc: o.Desc, Nulls: o.Nulls})
		}
		tables[i] = p
	}
	spec, err := plan.BuildPTF(h.call.Name, h.call.Def, tables, h.call.Scalars, h.call.OnTime, h.call.UID, h.call.Required)
	if err != nil {
		return err
	}
	spec.StateTTL = int64(h.call.StateTTL)
	fh, err := runtime.NewFunctionHost(spec, "ptftest", h.be, h.clock, func(r types.Row) error {
		if h.Emit != nil {
			return h.Emit(r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fh.OnCollect = func(k types.RowKind, v []types.Value) {
		if h.OnCollect != nil {
			h.OnCollect(k, v)
		}
	}
	fh.OnTimer = func(key []types.Value, t runtime.TimerInfo) {
		if h.OnTimer != nil {
			h.OnTimer(key, Timer{Name: t.Name, Time: t.Time, Domain: t.Domain})
		}
	}
	h.fh = fh
	return nil
}

// Schema returns the output schema.
func (h *Host) Schema() *types.Schema { return h.fh.Spec().Out }

// Produced returns the changelog mode the function produces in this call.
func (h *Host) Produced() ptf.ChangelogMode { return h.fh.Spec().Produced }

// TableCount returns the number of table inputs of the planned call.
func (h *Host) TableCount() int { return len(h.fh.Spec().Tables) }

// Delivered returns the row kinds input i delivers to the function.
func (h *Host) Delivered(input int) (ptf.ChangelogMode, bool) {
	for _, t := range h.fh.Spec().Tables {
		if t.Input == input {
			return t.Delivered, true
		}
	}
	return ptf.ChangelogMode{}, false
}

// Process feeds one row to input i.
func (h *Host) Process(input int, row types.Row) error { return h.fh.Process(input, row) }

// Watermark advances the watermark of input i and fires due timers.
func (h *Host) Watermark(input int, t time.Time) error { return h.fh.Watermark(input, t) }

// End sends the maximum watermark on every input.
func (h *Host) End() error { return h.fh.End() }

// EvalOnce calls Eval once, for a function without table arguments.
func (h *Host) EvalOnce() error { return h.fh.EvalOnce() }

// Advance moves processing time forward and fires the processing-time
// timers due by then, as a job does when its clock moves.
func (h *Host) Advance(d time.Duration) error {
	h.clock.Advance(d)
	return h.fh.ProcessingTime(h.clock.T)
}

// Now returns the current processing time.
func (h *Host) Now() time.Time { return h.clock.T }

// Timers returns the pending timers of a key in firing order.
func (h *Host) Timers(key ...types.Value) []Timer {
	var out []Timer
	for _, t := range h.fh.Timers(key...) {
		out = append(out, Timer{Name: t.Name, Time: t.Time, Domain: t.Domain})
	}
	return out
}

// ValueState returns a value-state entry of a key (a *T) and whether the
// key has one.
func (h *Host) ValueState(e ptf.StateEntry, key ...types.Value) (any, bool, error) {
	return h.fh.ValueState(e, key...)
}

// SetValueState sets a value-state entry of a key.
func (h *Host) SetValueState(e ptf.StateEntry, v any, key ...types.Value) error {
	return h.fh.SetValueState(e, v, key...)
}

// ClearValueState removes a value-state entry of a key.
func (h *Host) ClearValueState(e ptf.StateEntry, key ...types.Value) error {
	return h.fh.ClearValueState(e, key...)
}

// Snapshot checkpoints the function's state and timers.
func (h *Host) Snapshot() ([]byte, error) {
	if err := h.fh.Flush(); err != nil {
		return nil, fmt.Errorf("flushing state: %w", err)
	}
	return h.be.Snapshot(), nil
}

// Restore replaces state and timers with a snapshot and reopens the
// operator, as a restart from a checkpoint does: watermarks start again
// from none, processing time goes on.
func (h *Host) Restore(snap []byte) error {
	if err := h.be.Restore(snap); err != nil {
		return fmt.Errorf("restoring state: %w", err)
	}
	return h.open()
}
