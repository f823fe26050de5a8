package runtime

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// FunctionHost runs one process table function call outside a job, with
// the exact semantics of the runtime (state rules, TTL, timers, output
// assembly). The PTF test harness (package ptftest) is built on it.
type FunctionHost struct {
	op *ptfOp
	// OnCollect, when set, sees every row the function collected, before
	// the key prefix, pass-through columns and rowtime are added.
	OnCollect func(kind types.RowKind, vals []types.Value)
	// OnTimer, when set, sees every timer as it fires.
	OnTimer func(key []types.Value, t TimerInfo)
}

// TimerInfo is a pending timer.
type TimerInfo struct {
	Name   string // "" for unnamed timers
	Time   time.Time
	Domain ptf.TimerDomain
}

func timerInfo(e timerEntry) TimerInfo {
	ti := TimerInfo{Name: e.name, Time: timeOf(e.t)}
	if e.proc {
		ti.Domain = ptf.ProcessingTime
	}
	return ti
}

// NewFunctionHost creates a host for spec. State lives in be under ns;
// timers persisted there earlier are restored.
func NewFunctionHost(spec *jobgraph.PTF, ns string, be state.Backend, clock Clock, emit func(types.Row) error) (*FunctionHost, error) {
	h := &FunctionHost{}
	op, err := newPTFOp(spec, ns, be, clock, emit)
	if err != nil {
		return nil, err
	}
	op.onCollect = func(k types.RowKind, v []types.Value) {
		if h.OnCollect != nil {
			h.OnCollect(k, v)
		}
	}
	op.onFire = func(key []types.Value, e timerEntry) {
		if h.OnTimer != nil {
			h.OnTimer(key, timerInfo(e))
		}
	}
	h.op = op
	return h, nil
}

// Process calls the function for one row of table input (its position
// among the call's table arguments).
func (h *FunctionHost) Process(input int, row types.Row) error {
	return h.op.processRow(input, &row)
}

// Watermark advances the watermark of table input and fires due timers.
func (h *FunctionHost) Watermark(input int, t time.Time) error {
	ns, err := timerNanos(t)
	if err != nil {
		return err
	}
	return h.op.advance(input, ns)
}

// End ends the input as a job does: it sends the maximum watermark on
// every table, firing all event-time timers, then fires the
// processing-time timers the clock has passed (the others stay).
func (h *FunctionHost) End() error {
	for i := range h.op.spec.Tables {
		if err := h.op.advance(h.op.spec.Tables[i].Input, MaxWatermark); err != nil {
			return err
		}
	}
	return h.op.OnProcessingTime(MaxWatermark)
}

// ProcessingTime fires the processing-time timers due at now, as a job
// does when its clock moves (the host's clock should read now).
func (h *FunctionHost) ProcessingTime(now time.Time) error {
	ns, err := timerNanos(now)
	if err != nil {
		return err
	}
	return h.op.OnProcessingTime(ns)
}

// Flush writes cached state and timers to the backend (a checkpoint).
func (h *FunctionHost) Flush() error { return h.op.flush() }

func (h *FunctionHost) keyOf(key []types.Value) string {
	return string(types.AppendRow(nil, types.Row{Values: key}))
}

// Timers returns the pending timers of a key: the event-time ones in
// firing order, then the processing-time ones in firing order.
func (h *FunctionHost) Timers(key ...types.Value) []TimerInfo {
	var out []TimerInfo
	k := h.keyOf(key)
	for _, t := range append(h.op.timers.pending(k), h.op.ptimers.pending(k)...) {
		out = append(out, timerInfo(t))
	}
	return out
}

// ValueState returns the value (a *T) of a value-state entry of a key, or
// false when the key has none (absent, expired or cleared).
func (h *FunctionHost) ValueState(e ptf.StateEntry, key ...types.Value) (any, bool, error) {
	i := h.op.stateIndex(e)
	if i < 0 {
		return nil, false, fmt.Errorf("unknown state entry %s", e.StateName())
	}
	k := h.keyOf(key)
	if ks := h.op.lookup(k); ks != nil && ks.ents[i].loaded {
		v := ks.ents[i].val
		if v == nil || (h.op.ttl[i] > 0 && h.op.now()-ks.ents[i].wtime >= h.op.ttl[i]) {
			return nil, false, nil
		}
		return v, true, nil
	}
	b, ok, err := h.op.kv.Get(h.op.ns, e.StateName(), []byte(k))
	if err != nil || !ok || len(b) < 8 {
		return nil, false, err
	}
	if w := int64(binary.BigEndian.Uint64(b)); h.op.ttl[i] > 0 && h.op.now()-w >= h.op.ttl[i] {
		return nil, false, nil // expired
	}
	v, err := e.DecodeState(b[8:])
	return v, err == nil, err
}

// SetValueState replaces the value state of a key (v must be a *T of the
// entry's type).
func (h *FunctionHost) SetValueState(e ptf.StateEntry, v any, key ...types.Value) error {
	i := h.op.stateIndex(e)
	if i < 0 {
		return fmt.Errorf("unknown state entry %s", e.StateName())
	}
	h.op.keyVals = append(h.op.keyVals[:0], key...)
	h.op.keyBuf = types.AppendRow(h.op.keyBuf[:0], types.Row{Values: key})
	h.op.enterKey()
	ks := h.op.curKS
	ks.ents[i].val, ks.ents[i].loaded, ks.ents[i].dirty, ks.ents[i].wtime = v, true, true, h.op.now()
	ks.ents[i].before = nil // encoded again at the next flush
	h.op.markDirty(ks)
	return nil
}

// ClearValueState removes the value state of a key.
func (h *FunctionHost) ClearValueState(e ptf.StateEntry, key ...types.Value) error {
	return h.SetValueState(e, nil, key...)
}

// Spec returns the planned call.
func (h *FunctionHost) Spec() *jobgraph.PTF { return h.op.spec }

// EvalOnce calls Eval once for a function without table arguments.
func (h *FunctionHost) EvalOnce() error { return h.op.evalOnce() }
