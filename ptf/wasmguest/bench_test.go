package wasmguest

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/wasm/wire"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// orderRequests registers OrderStatusTracker and returns an Eval request
// with the setup (to send first) and one without, for a SHIPPED event of
// an order whose state is status.
func orderRequests(status string) (first, next []byte) {
	Register("examples.OrderStatusTracker", examples.OrderStatusTracker)
	var e wire.Encoder
	build := func(setup bool, status string) []byte {
		e.B = e.B[:0]
		e.Byte(wire.CallEval)
		e.Int(len(registry.funcs) - 1)
		e.Uvarint(1)
		e.Bool(setup)
		if setup {
			s := wire.Setup{Tables: []wire.Table{{Name: "input", Present: true, TableSemantics: ptf.TableSemantics{
				Schema: types.NewSchema(types.Field{Name: "order_id", Type: types.Type{ID: types.TypeInt}}, types.Field{Name: "event_type", Type: types.Type{ID: types.TypeVarChar, Length: 2147483647}}), TimeColumn: -1}}},
				Produced: ptf.UpsertFullDeletes(), TimersOK: true}
			s.Encode(&e)
		}
		e.Byte(wire.FlagTime)
		e.Time(time.Unix(1, 0))
		e.Values([]types.Value{types.NewInt(101)})
		e.Int(1)
		e.Byte(byte(types.Insert))
		e.Values([]types.Value{types.NewInt(101), types.NewString("SHIPPED")})
		e.Bool(true)
		st, _ := examples.OrderStatusTracker.State[0].EncodeState(&examples.OrderState{Status: status})
		e.Bytes(st)
		return append([]byte(nil), e.B...)
	}
	return build(true, status), build(false, status)
}

func BenchmarkServeEval(b *testing.B) {
	first, req := orderRequests("PENDING")
	serve(first)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		serve(req)
	}
}

// A call that reads and writes value state, collects a row and returns
// allocates nothing in the module: state decodes into a reused value
// (ptf.StateSlot) and the strings of rows and state are interned.
func TestServeEvalDoesNotAllocate(t *testing.T) {
	first, req := orderRequests("PENDING")
	serve(first)
	if n := testing.AllocsPerRun(200, func() { serve(req) }); n != 0 {
		t.Fatalf("an Eval call allocates %v times", n)
	}
}

func BenchmarkServeNoop(b *testing.B) {
	Register("test.Noop", &ptf.Definition{Args: []ptf.Arg{ptf.Table("input", ptf.SetSemantic)}, Output: "ROW<x STRING>", Eval: func(*ptf.Context, ptf.Input) error { return nil }})
	var e wire.Encoder
	build := func(setup bool) []byte {
		e.B = e.B[:0]
		e.Byte(wire.CallEval)
		e.Int(len(registry.funcs) - 1)
		e.Uvarint(1)
		e.Bool(setup)
		if setup {
			s := wire.Setup{Tables: []wire.Table{{Name: "input", Present: true, TableSemantics: ptf.TableSemantics{
				Schema: types.NewSchema(types.Field{Name: "order_id", Type: types.Type{ID: types.TypeInt}}, types.Field{Name: "event_type", Type: types.Type{ID: types.TypeVarChar, Length: 2147483647}}), TimeColumn: -1}}},
				Produced: ptf.InsertOnly(), TimersOK: true}
			s.Encode(&e)
		}
		e.Byte(wire.FlagTime)
		e.Time(time.Unix(1, 0))
		e.Values([]types.Value{types.NewInt(101)})
		e.Int(1)
		e.Byte(byte(types.Insert))
		e.Values([]types.Value{types.NewInt(101), types.NewString("SHIPPED")})
		return append([]byte(nil), e.B...)
	}
	serve(build(true))
	req := build(false)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		serve(req)
	}
}

// BenchmarkStateSlot is the state path of a call of OrderStatusTracker:
// load the value into the slot, change it, test and encode it.
func BenchmarkStateSlot(b *testing.B) {
	e := examples.OrderStatusTracker.State[0]
	s := e.(ptf.SlotEntry).NewSlot()
	enc, _ := e.EncodeState(&examples.OrderState{Status: "PENDING"})
	b.ReportAllocs()
	for range b.N {
		x, _ := s.Load(enc)
		x.(*examples.OrderState).Status = "SHIPPED"
		_, _, _ = s.Store(x)
	}
}
