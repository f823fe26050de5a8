package wasmguest

import (
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/eddy-sql/eddy/internal/wasm/wire"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// serve answers one request of the engine (see package wire).
func serve(req []byte) []byte {
	d := &wire.Decoder{B: req}
	call := d.Byte()
	f, err := lookup(d.Int())
	if err != nil {
		return internalError(err)
	}
	switch call {
	case wire.CallEval, wire.CallTimer, wire.CallProcTimer:
		return f.host.run(call, d)
	case wire.CallChangelog:
		return f.changelog(d)
	case wire.CallDerive:
		return f.derive(d)
	case wire.CallStateJSON:
		return f.stateJSON(d)
	case wire.CallStateParse:
		return f.stateParse(d)
	}
	return internalError(fmt.Errorf("unknown call %d", call))
}

func stackTrace() string { return string(debug.Stack()) }

// planning answers carry no ops and no state: OpEnd, zero entries, then
// the result.
func answer(body func(e *wire.Encoder)) []byte {
	var e wire.Encoder
	e.Byte(wire.OpEnd)
	e.Uvarint(0)
	body(&e)
	return e.B
}

// guarded runs f, turning a panic into a ResultPanic answer.
func guarded(f func(e *wire.Encoder)) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			out = answer(func(e *wire.Encoder) {
				e.Byte(wire.ResultPanic)
				e.String(fmt.Sprint(r))
				e.String(stackTrace())
			})
		}
	}()
	return answer(f)
}

func decodeArgs(d *wire.Decoder) map[string]types.Value {
	n := d.Count()
	args := make(map[string]types.Value, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		name := d.String()
		args[name] = d.Value()
	}
	return args
}

func (f *function) changelog(d *wire.Decoder) []byte {
	var cc ptf.ChangelogContext
	n := d.Count()
	for i := 0; i < n && d.Err() == nil; i++ {
		cc.Tables = append(cc.Tables, d.Mode())
	}
	cc.Required = d.Mode()
	cc.Args = decodeArgs(d)
	n = d.Count()
	if n > 0 {
		cc.PartitionBy = make([][]int, n)
	}
	for i := 0; i < n && d.Err() == nil; i++ {
		if d.Bool() {
			cc.PartitionBy[i] = d.Ints()
			if cc.PartitionBy[i] == nil {
				cc.PartitionBy[i] = []int{}
			}
		}
	}
	if err := d.Err(); err != nil {
		return internalError(err)
	}
	return guarded(func(e *wire.Encoder) {
		m := f.def.ProducedMode(cc)
		e.Byte(wire.ResultOK)
		e.Mode(m)
	})
}

func (f *function) derive(d *wire.Decoder) []byte {
	var oc ptf.OutputContext
	n := d.Count()
	oc.Tables = make(map[string]ptf.TableSemantics, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		name := d.String()
		oc.Tables[name] = wire.DecodeTableSemantics(d)
	}
	oc.Args = decodeArgs(d)
	if err := d.Err(); err != nil {
		return internalError(err)
	}
	if f.def.DeriveOutput == nil {
		return internalError(fmt.Errorf("function %s has no DeriveOutput", f.id))
	}
	return guarded(func(e *wire.Encoder) {
		s, err := f.def.DeriveOutput(oc)
		if err != nil {
			e.Byte(wire.ResultError)
			e.Error(err)
			return
		}
		e.Byte(wire.ResultOK)
		e.Schema(s)
	})
}

// valueEntry returns the value-state entry at index i.
func (f *function) valueEntry(i int) (ptf.StateEntry, error) {
	if i < 0 || i >= len(f.def.State) || f.def.State[i].StateKind() != ptf.ValueStateKind {
		return nil, fmt.Errorf("function %s has no value-state entry %d", f.id, i)
	}
	return f.def.State[i], nil
}

func (f *function) stateJSON(d *wire.Decoder) []byte {
	s, err := f.valueEntry(d.Int())
	b := d.View()
	if err == nil {
		err = d.Err()
	}
	if err != nil {
		return internalError(err)
	}
	return guarded(func(e *wire.Encoder) {
		v, err := s.DecodeState(b)
		var js []byte
		if err == nil {
			js, err = json.Marshal(v)
		}
		if err != nil {
			e.Byte(wire.ResultError)
			e.Error(err)
			return
		}
		e.Byte(wire.ResultOK)
		e.Bytes(js)
	})
}

func (f *function) stateParse(d *wire.Decoder) []byte {
	s, err := f.valueEntry(d.Int())
	js := d.View()
	if err == nil {
		err = d.Err()
	}
	if err != nil {
		return internalError(err)
	}
	return guarded(func(e *wire.Encoder) {
		v := s.NewState()
		err := json.Unmarshal(js, v)
		var enc encoded
		if err == nil {
			enc, err = encodeState(s, v)
		}
		if err != nil {
			e.Byte(wire.ResultError)
			e.Error(err)
			return
		}
		e.Byte(wire.ResultOK)
		e.Bool(enc.empty)
		e.Bytes(enc.b)
	})
}
