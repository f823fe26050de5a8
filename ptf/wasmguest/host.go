package wasmguest

import (
	"errors"
	"fmt"
	"time"

	"github.com/eddy-sql/eddy/internal/wasm/wire"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// guestHost is the ptf.Host a function runs against inside the module. It
// answers from the request (times, key, value state) and the setup, and
// records what the function does as ops of the response; views and
// StateTTL ask the engine through host callbacks.
type guestHost struct {
	f *function

	// setup (see wire.Setup)
	gen      uint64
	args     map[string]wire.NamedValue
	tables   map[string]ptf.TableSemantics
	byIndex  []ptf.TableSemantics // like f.tables (zero when absent)
	produced ptf.ChangelogMode
	timersOK bool

	// the current call
	flags        byte
	t, wm, twm   time.Time
	timer        bool
	procTimer    bool // the firing timer is a processing-time timer
	timerName    string
	timerTime    time.Time
	key          []types.Value
	keyFromRow   bool // the key comes from the row (wire.FlagKeyFromRow)
	row          []types.Value
	slots        []slot
	reuse        []ptf.StateSlot // per entry, the reusable value (nil when the entry has none)
	out          wire.Encoder    // the ops so far (since the last callback)
	req          wire.Encoder    // a callback's request
	encodedState []encoded
	strs         wire.Interner // the strings of keys and rows
}

// slot is the value of one value-state entry in the current call.
type slot struct {
	present  bool   // the engine has a value for the key
	enc      []byte // its encoding (aliases the request)
	val      any
	decoded  bool
	accessed bool
}

var emptySchema = types.NewSchema()

// noTable is the semantics of a table argument the setup did not name.
var noTable ptf.TableSemantics

func newGuestHost(f *function) *guestHost {
	h := &guestHost{f: f, slots: make([]slot, len(f.def.State)), reuse: make([]ptf.StateSlot, len(f.def.State))}
	// The module serves one call at a time and the engine keeps only the
	// encodings, so each value-state entry decodes into one value reused
	// from call to call (valid during the call, as the Context).
	for i, s := range f.def.State {
		if se, ok := s.(ptf.SlotEntry); ok && s.StateKind() == ptf.ValueStateKind {
			h.reuse[i] = se.NewSlot()
		}
	}
	return h
}

func (h *guestHost) applySetup(gen uint64, s wire.Setup) {
	h.gen = gen
	h.args = make(map[string]wire.NamedValue, len(s.Args))
	for _, a := range s.Args {
		h.args[a.Name] = a
	}
	h.tables = make(map[string]ptf.TableSemantics, len(s.Tables))
	for _, t := range s.Tables {
		if t.Present {
			h.tables[t.Name] = t.TableSemantics
		}
	}
	h.byIndex = make([]ptf.TableSemantics, len(h.f.tables))
	for i, name := range h.f.tables {
		h.byIndex[i] = h.tables[name]
	}
	h.produced, h.timersOK = s.Produced, s.TimersOK
}

// run serves an Eval or OnTimer request.
func (h *guestHost) run(call byte, d *wire.Decoder) []byte {
	gen := d.Uvarint()
	if d.Bool() {
		s := wire.DecodeSetup(d)
		if d.Err() == nil {
			h.applySetup(gen, s)
		}
	} else if gen != h.gen {
		return internalError(fmt.Errorf("request of setup generation %d without its setup (the module has %d)", gen, h.gen))
	}
	h.flags = d.Byte()
	if h.flags&wire.FlagTime != 0 {
		h.t = d.Time()
	}
	if h.flags&wire.FlagWatermark != 0 {
		h.wm = d.Time()
	}
	if h.flags&wire.FlagTableWatermark != 0 {
		h.twm = d.Time()
	}
	h.timer = call == wire.CallTimer || call == wire.CallProcTimer
	h.procTimer = call == wire.CallProcTimer
	if h.timer {
		h.timerName, h.timerTime = d.String(), d.Time()
	}
	h.keyFromRow = h.flags&wire.FlagKeyFromRow != 0
	if !h.keyFromRow {
		h.key = d.ValuesInterned(h.key[:0], &h.strs)
	}
	in := ptf.Input{Row: ptf.Row{Schema: emptySchema}}
	if call == wire.CallEval {
		ti := d.Int()
		kind := types.RowKind(d.Byte())
		// The row's values reuse one slice from call to call (allocating
		// costs more in a module than natively): like the Context, a row
		// is valid during the call; state and collected rows copy what
		// they keep.
		h.row = d.ValuesInterned(h.row[:0], &h.strs)
		vals := h.row
		if ti > 0 {
			if ti > len(h.f.tables) {
				return internalError(fmt.Errorf("table argument %d of %d", ti, len(h.f.tables)))
			}
			arg, ts := h.f.tables[ti-1], &noTable
			if ti <= len(h.byIndex) {
				ts = &h.byIndex[ti-1]
			}
			if h.keyFromRow {
				// Copied before the call, as the engine does: the
				// function may change the row.
				h.key = h.key[:0]
				for _, k := range ts.PartitionBy {
					if k >= 0 && k < len(vals) {
						h.key = append(h.key, vals[k])
					}
				}
			}
			in = ptf.Input{Arg: arg, Row: ptf.Row{Kind: kind, Values: vals, Schema: ts.Schema}}
			if in.Row.Schema == nil {
				in.Row.Schema = emptySchema
			}
		}
	}
	for i, s := range h.f.def.State {
		h.slots[i] = slot{}
		if s.StateKind() == ptf.ValueStateKind && d.Bool() {
			h.slots[i].present, h.slots[i].enc = true, d.View()
		}
	}
	if err := d.Err(); err != nil {
		return internalError(err)
	}
	h.out.B = h.out.B[:0]
	err, panicked, msg, stack := h.invoke(in)
	h.writeState()
	h.out.Byte(wire.OpEnd)
	h.writeAccessed()
	switch {
	case panicked:
		h.out.Byte(wire.ResultPanic)
		h.out.String(msg)
		h.out.String(stack)
	case err != nil:
		h.out.Byte(wire.ResultError)
		h.out.Error(err)
	default:
		h.out.Byte(wire.ResultOK)
	}
	return h.out.B
}

// invoke calls Eval or OnTimer, turning a panic into its message and
// stack, formatted as the engine formats the panics of compiled-in
// functions.
func (h *guestHost) invoke(in ptf.Input) (err error, panicked bool, msg, stack string) {
	defer func() {
		if r := recover(); r != nil {
			panicked, msg, stack = true, fmt.Sprint(r), stackTrace()
		}
	}()
	if h.timer {
		if h.f.def.OnTimer != nil {
			err = h.f.def.OnTimer(h.f.ctx)
		}
		return err, false, "", ""
	}
	return h.f.def.Eval(h.f.ctx, in), false, "", ""
}

// encoded is the final encoding of an accessed value-state entry.
type encoded struct {
	i     int
	empty bool
	b     []byte
}

// writeState encodes the accessed value-state entries into scratch before
// the end of the ops, so that an encoding failure is an op (it fails the
// call, as a compiled-in function's fails its checkpoint).
func (h *guestHost) writeState() {
	h.encodedState = h.encodedState[:0]
	for i := range h.slots {
		sl := &h.slots[i]
		if !sl.accessed {
			continue
		}
		s := h.f.def.State[i]
		enc, err := h.encodeSlot(i, sl.val)
		if err != nil {
			h.Fail(fmt.Errorf("encoding state %s: %w", s.StateName(), err))
			continue
		}
		h.encodedState = append(h.encodedState, enc)
		h.encodedState[len(h.encodedState)-1].i = i
	}
}

// encodeSlot encodes the value of entry i, through its StateSlot when it
// has one (the encoding is then valid until the next call).
func (h *guestHost) encodeSlot(i int, v any) (enc encoded, err error) {
	st := h.reuse[i]
	if st == nil || v == nil {
		return encodeState(h.f.def.State[i], v)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	b, empty, err := st.Store(v)
	return encoded{empty: empty, b: b}, err
}

func encodeState(s ptf.StateEntry, v any) (enc encoded, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	if v == nil || s.IsEmptyState(v) {
		return encoded{empty: true}, nil
	}
	b, err := s.EncodeState(v)
	return encoded{b: b}, err
}

func (h *guestHost) writeAccessed() {
	h.out.Uvarint(uint64(len(h.encodedState)))
	for _, e := range h.encodedState {
		h.out.Uvarint(uint64(e.i))
		h.out.Bool(e.empty)
		h.out.Bytes(e.b)
	}
}

// internalError is the response to a request the guest cannot serve.
func internalError(err error) []byte {
	var e wire.Encoder
	e.Byte(wire.OpEnd)
	e.Uvarint(0)
	e.Byte(wire.ResultError)
	e.Error(fmt.Errorf("internal error in the function module: %w", err))
	return e.B
}

// callback sends the ops so far and a request to the engine and returns
// its answer (valid until the next callback).
func (h *guestHost) callback() (*wire.Decoder, error) {
	ans, err := hostCall(h.out.B, h.req.B)
	h.out.B = h.out.B[:0]
	if err != nil {
		return nil, err
	}
	return &wire.Decoder{B: ans}, nil
}

// --- ptf.Host ---

func (h *guestHost) Arg(name string) (types.Value, bool) {
	a, ok := h.args[name]
	if !ok || !a.Present {
		return types.Null, false
	}
	return a.Value, true
}

func (h *guestHost) Emit(kind types.RowKind, vals []types.Value) {
	h.out.Byte(wire.OpEmit)
	h.out.Byte(byte(kind))
	h.out.Values(vals)
}

func (h *guestHost) Time() (time.Time, bool) {
	return h.t, h.flags&wire.FlagTime != 0
}

func (h *guestHost) CurrentWatermark() (time.Time, bool) {
	return h.wm, h.flags&wire.FlagWatermark != 0
}

func (h *guestHost) TableWatermark() (time.Time, bool) {
	return h.twm, h.flags&wire.FlagTableWatermark != 0
}

func (h *guestHost) RegisterTimer(name string, t time.Time) error {
	if !h.timersOK {
		return ptf.ErrTimersNotSupported
	}
	if err := checkTimerTime(t); err != nil {
		return err
	}
	h.out.Byte(wire.OpRegisterTimer)
	h.out.String(name)
	h.out.Time(t)
	return nil
}

// checkTimerTime is the engine's range check of timer times.
func checkTimerTime(t time.Time) error {
	if t.Equal(ptf.MaxTime) {
		return nil
	}
	if t.Before(ptf.MinTime) || t.After(ptf.MaxNanoTime) {
		return fmt.Errorf("%w: %s is outside [%s, %s]; use ptf.MaxTime for a timer that fires when the input ends",
			ptf.ErrTimerOutOfRange, t.UTC().Format(time.RFC3339Nano), ptf.MinTime.Format(time.RFC3339Nano), ptf.MaxNanoTime.Format(time.RFC3339Nano))
	}
	return nil
}

func (h *guestHost) ClearTimer(name string) {
	h.out.Byte(wire.OpClearTimer)
	h.out.String(name)
}

func (h *guestHost) ClearUnnamedTimer(t time.Time) {
	h.out.Byte(wire.OpClearUnnamed)
	h.out.Time(t)
}

func (h *guestHost) ClearAllTimers() { h.out.Byte(wire.OpClearAllTimer) }

func (h *guestHost) RegisterProcessingTimer(name string, t time.Time) error {
	if !h.timersOK {
		return ptf.ErrTimersNotSupported
	}
	if err := checkTimerTime(t); err != nil {
		return err
	}
	h.out.Byte(wire.OpRegisterProcTimer)
	h.out.String(name)
	h.out.Time(t)
	return nil
}

func (h *guestHost) ClearProcessingTimer(name string) {
	h.out.Byte(wire.OpClearProcTimer)
	h.out.String(name)
}

func (h *guestHost) ClearUnnamedProcessingTimer(t time.Time) {
	h.out.Byte(wire.OpClearProcUnnamed)
	h.out.Time(t)
}

// CurrentProcessingTime asks the engine for its clock: requests do not
// carry it, since most calls never read it.
func (h *guestHost) CurrentProcessingTime() time.Time {
	h.req.B = h.req.B[:0]
	h.req.Byte(wire.HostProcessingTime)
	d, err := h.callback()
	if err != nil {
		h.Fail(err)
		return time.Time{}
	}
	t := d.Time()
	if err := d.Err(); err != nil {
		h.Fail(err)
	}
	return t
}

func (h *guestHost) TimerDomain() (ptf.TimerDomain, bool) {
	switch {
	case !h.timer:
		return ptf.EventTime, false
	case h.procTimer:
		return ptf.ProcessingTime, true
	}
	return ptf.EventTime, true
}

func (h *guestHost) ClearState(name string) {
	h.out.Byte(wire.OpClearState)
	h.out.String(name)
}

func (h *guestHost) ClearAllState() { h.out.Byte(wire.OpClearAllState) }

func (h *guestHost) stateIndex(e ptf.StateEntry) int {
	for i, s := range h.f.def.State {
		if s == e || s.StateName() == e.StateName() {
			return i
		}
	}
	return -1
}

func (h *guestHost) ValueState(e ptf.StateEntry) any {
	i := h.stateIndex(e)
	if i < 0 {
		h.Fail(fmt.Errorf("Unknown state entry: %s", e.StateName()))
		return e.NewState()
	}
	sl := &h.slots[i]
	sl.accessed = true
	if st := h.reuse[i]; st != nil {
		if !sl.decoded {
			sl.decoded = true
			if sl.present {
				v, err := st.Load(sl.enc)
				if err != nil {
					h.Fail(err)
				}
				sl.val = v
			} else {
				sl.val = st.Reset()
			}
		}
		return sl.val
	}
	if !sl.decoded {
		sl.decoded = true
		if sl.present {
			v, err := e.DecodeState(sl.enc)
			if err != nil {
				h.Fail(err)
			}
			sl.val = v
		}
	}
	if sl.val == nil {
		sl.val = e.NewState()
	}
	return sl.val
}

func (h *guestHost) ViewState(e ptf.StateEntry) any {
	h.req.B = h.req.B[:0]
	h.req.Byte(wire.HostViewOpen)
	h.req.String(e.StateName())
	h.req.Byte(byte(e.StateKind()))
	handle := -1
	if d, err := h.callback(); err != nil {
		h.Fail(err)
	} else {
		handle = int(d.Varint())
		if err := d.Err(); err != nil {
			h.Fail(err)
		}
	}
	v := &view{h: h, handle: handle}
	if e.StateKind() == ptf.MapStateKind {
		return mapView{v}
	}
	return listView{v}
}

func (h *guestHost) CurrentTimer() (string, time.Time, bool) {
	if !h.timer {
		return "", time.Time{}, false
	}
	return h.timerName, h.timerTime, true
}

func (h *guestHost) Key() []types.Value { return h.key }

func (h *guestHost) TableSemantics(arg string) (ptf.TableSemantics, bool) {
	if t, ok := h.tables[arg]; ok {
		return t, true
	}
	h.Fail(fmt.Errorf("Unknown table argument: %s", arg))
	return ptf.TableSemantics{}, false
}

func (h *guestHost) StateTTL(name string) (ttl, remaining time.Duration, err error) {
	h.req.B = h.req.B[:0]
	h.req.Byte(wire.HostStateTTL)
	h.req.String(name)
	d, err := h.callback()
	if err != nil {
		return 0, 0, err
	}
	ttl, remaining = time.Duration(d.Varint()), time.Duration(d.Varint())
	err = d.Error()
	return ttl, remaining, errors.Join(err, d.Err())
}

func (h *guestHost) ChangelogMode() ptf.ChangelogMode { return h.produced }

func (h *guestHost) Fail(err error) {
	if err == nil {
		return
	}
	h.out.Byte(wire.OpFail)
	h.out.Error(err)
}
