package wasm

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/eddy-sql/eddy/internal/wasm/wire"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// eval runs Eval (in != nil) or OnTimer in inst: one request with
// everything the call needs, one response with everything it did, which
// is replayed on the engine's host in order.
func (p *proxy) eval(inst *instance, ctx *ptf.Context, in *ptf.Input) error {
	h, ok := ctx.Host().(engineHost)
	if !ok {
		return p.wrap(fmt.Errorf("its host (%T) cannot run WebAssembly functions", ctx.Host()))
	}
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if err := inst.broken(); err != nil {
		return p.wrap(err)
	}
	e := &inst.req
	e.B = e.B[:0]
	call := wire.CallTimer
	if in != nil {
		call = wire.CallEval
	} else if d, _ := h.TimerDomain(); d == ptf.ProcessingTime {
		call = wire.CallProcTimer
	}
	e.Byte(call)
	e.Int(p.index)
	for len(inst.gens) <= p.index {
		inst.gens = append(inst.gens, setupGen{})
	}
	g := &inst.gens[p.index]
	if g.ctx != ctx {
		g.ctx = ctx
		g.gen++
		e.Uvarint(g.gen)
		e.Bool(true)
		p.setup(ctx, h, e)
	} else {
		e.Uvarint(g.gen)
		e.Bool(false)
	}
	t, hasT := h.Time()
	wm, hasWM := h.CurrentWatermark()
	twm, hasTWM := h.TableWatermark()
	var flags byte
	// The key of an Eval of a polymorphic table is the row's PARTITION BY
	// columns: the guest takes it from the row (typed tables are cast, so
	// their key is sent).
	keyFromRow := in != nil && in.Arg != "" && p.polymorphic(in.Arg)
	if keyFromRow {
		flags |= wire.FlagKeyFromRow
	}
	if hasT {
		flags |= wire.FlagTime
	}
	if hasWM {
		flags |= wire.FlagWatermark
	}
	if hasTWM {
		flags |= wire.FlagTableWatermark
	}
	e.Byte(flags)
	if hasT {
		e.Time(t)
	}
	if hasWM {
		e.Time(wm)
	}
	if hasTWM {
		e.Time(twm)
	}
	if in == nil {
		name, tt, _ := h.CurrentTimer()
		e.String(name)
		e.Time(tt)
	}
	if !keyFromRow {
		e.Values(h.Key())
	}
	if in != nil {
		e.Int(p.tableIndex(in.Arg))
		e.Byte(byte(in.Row.Kind))
		e.Values(in.Row.Values)
	}
	for _, ent := range p.entries {
		if ent.kind != ptf.ValueStateKind {
			continue
		}
		v, _ := h.PeekValueState(ent).(*rawValue)
		if v == nil || v.empty {
			e.Bool(false)
			continue
		}
		e.Bool(true)
		e.Bytes(v.b)
	}

	inst.call = callState{p: p, ctx: ctx, h: h, views: inst.call.views[:0]}
	inst.cur = &inst.call
	defer func() { inst.cur = nil }()
	resp, err := inst.roundTrip(e.B)
	if err != nil {
		return p.wrap(err)
	}
	d := &wire.Decoder{B: resp}
	if err := inst.replay(inst.cur, d, true); err != nil {
		return p.wrap(inst.poison(fmt.Errorf("%w: %v", ErrNotFunctionModule, err)))
	}
	// The final encodings of the value-state entries the function read:
	// ValueState marks them read (the engine then writes them back) and
	// returns the cached value, which takes the guest's encoding.
	n := d.Count()
	for i := 0; i < n && d.Err() == nil; i++ {
		idx, empty, b := d.Int(), d.Bool(), d.View()
		if d.Err() != nil || idx >= len(p.entries) || p.entries[idx].kind != ptf.ValueStateKind {
			d.Fail("state entry %d", idx)
			break
		}
		v, _ := h.ValueState(p.entries[idx]).(*rawValue)
		if v == nil {
			continue
		}
		if v.empty != empty || !bytes.Equal(v.b, b) {
			// A new slice: the engine may keep the old one (the TTL
			// change check compares against it).
			v.b, v.empty = bytes.Clone(b), empty
		}
	}
	result := d.Byte()
	var callErr error
	var panicked *guestPanic
	switch result {
	case wire.ResultOK:
	case wire.ResultError:
		callErr = d.Error()
		if callErr == nil {
			d.Fail("error result without an error")
		}
	case wire.ResultPanic:
		panicked = &guestPanic{msg: d.String(), stack: d.String()}
	default:
		d.Fail("result %d", result)
	}
	if err := d.Err(); err != nil {
		return p.wrap(inst.poison(fmt.Errorf("%w: %v", ErrNotFunctionModule, err)))
	}
	if panicked != nil {
		panic(panicked)
	}
	return callErr
}

// planningCall sends a request without ops or state (Changelog,
// DeriveOutput, state conversions) to the shared instance and decodes
// the result with ok.
func (p *proxy) planningCall(build func(e *wire.Encoder), ok func(d *wire.Decoder)) error {
	inst, err := p.m.sharedInstance()
	if err != nil {
		return p.wrap(err)
	}
	inst.mu.Lock()
	defer inst.mu.Unlock()
	e := &inst.req
	e.B = e.B[:0]
	build(e)
	resp, err := inst.roundTrip(e.B)
	if err != nil {
		return p.wrap(err)
	}
	d := &wire.Decoder{B: resp}
	if d.Byte() != wire.OpEnd || d.Int() != 0 {
		d.Fail("a planning answer with ops")
	}
	var callErr error
	switch r := d.Byte(); r {
	case wire.ResultOK:
		ok(d)
	case wire.ResultError:
		callErr = d.Error()
	case wire.ResultPanic:
		msg := d.String()
		_ = d.String()
		callErr = fmt.Errorf("panicked: %s", msg)
	default:
		d.Fail("result %d", r)
	}
	if err := d.Err(); err != nil {
		return p.wrap(inst.poison(fmt.Errorf("%w: %v", ErrNotFunctionModule, err)))
	}
	if callErr != nil {
		return p.wrap(callErr)
	}
	return nil
}

func (p *proxy) changelog(cc ptf.ChangelogContext) (mode ptf.ChangelogMode, err error) {
	err = p.planningCall(func(e *wire.Encoder) {
		e.Byte(wire.CallChangelog)
		e.Int(p.index)
		e.Uvarint(uint64(len(cc.Tables)))
		for _, m := range cc.Tables {
			e.Mode(m)
		}
		e.Mode(cc.Required)
		encodeArgs(e, cc.Args)
		e.Uvarint(uint64(len(cc.PartitionBy)))
		for _, k := range cc.PartitionBy {
			e.Bool(k != nil)
			if k != nil {
				e.Ints(k)
			}
		}
	}, func(d *wire.Decoder) { mode = d.Mode() })
	return mode, err
}

func (p *proxy) derive(oc ptf.OutputContext) (s *types.Schema, err error) {
	err = p.planningCall(func(e *wire.Encoder) {
		e.Byte(wire.CallDerive)
		e.Int(p.index)
		names := sortedKeys(oc.Tables)
		e.Uvarint(uint64(len(names)))
		for _, n := range names {
			e.String(n)
			wire.EncodeTableSemantics(e, oc.Tables[n])
		}
		encodeArgs(e, oc.Args)
	}, func(d *wire.Decoder) { s = d.Schema() })
	if err == nil && s == nil {
		err = p.wrap(errors.New("DeriveOutput returned no schema"))
	}
	return s, err
}

func (p *proxy) stateJSON(entry int, b []byte) (js []byte, err error) {
	err = p.planningCall(func(e *wire.Encoder) {
		e.Byte(wire.CallStateJSON)
		e.Int(p.index)
		e.Int(entry)
		e.Bytes(b)
	}, func(d *wire.Decoder) { js = d.Bytes() })
	return js, err
}

func (p *proxy) stateParse(entry int, js []byte) (b []byte, empty bool, err error) {
	err = p.planningCall(func(e *wire.Encoder) {
		e.Byte(wire.CallStateParse)
		e.Int(p.index)
		e.Int(entry)
		e.Bytes(js)
	}, func(d *wire.Decoder) { empty, b = d.Bool(), d.Bytes() })
	return b, empty, err
}

func encodeArgs(e *wire.Encoder, args map[string]types.Value) {
	names := sortedKeys(args)
	e.Uvarint(uint64(len(names)))
	for _, n := range names {
		e.String(n)
		e.Value(args[n])
	}
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
