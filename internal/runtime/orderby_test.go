package runtime

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func TestOrderMapKeyOrder(t *testing.T) {
	var keys [][]byte
	times := []int64{math.MinInt64, -5_000_000, -1, 0, 1, 1_000_000, math.MaxInt64}
	for _, ts := range times {
		for _, seq := range []uint64{0, 1, 1 << 40} {
			keys = append(keys, orderMapKey(ts, seq))
		}
	}
	require.True(t, slices.IsSortedFunc(keys, func(a, b []byte) int { return slices.Compare(a, b) }), "byte order is (time, seq) order")
	for _, k := range keys[:3] {
		ts, _, err := parseOrderMapKey(k)
		require.NoError(t, err)
		require.Equal(t, int64(math.MinInt64), ts)
	}
	ts, seq, err := parseOrderMapKey(orderMapKey(-7, 42))
	require.NoError(t, err)
	require.Equal(t, []any{int64(-7), uint64(42)}, []any{ts, seq})
	_, _, err = parseOrderMapKey([]byte{1, 2})
	require.Error(t, err)
}

// TestKeyOwnerMatchesRoute: keyOwner sends a key to the subtask Job.route
// sends its rows to.
func TestKeyOwnerMatchesRoute(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 7} {
		j := &Job{routes: [][]int{{2, 0}}, subtasks: make([]*subtask, n)}
		for i := range 200 {
			row := types.Row{Values: []types.Value{types.NewString(string(rune('a' + i%26))), types.Null, types.NewInt(int64(i))}}
			key := []types.Value{row.Values[2], row.Values[0]}
			owner := j.route(0, row)
			for s := range n {
				require.Equal(t, s == owner, keyOwner(n, s)(key), "n=%d key=%v", n, key)
			}
		}
	}
}

// orderSpec is a call ordering table input ROW<k BIGINT, ts TIMESTAMP(3)>
// by ts, partitioned by k, whose function emits k.
func orderSpec() *jobgraph.PTF {
	schema := types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "ts", Type: types.Timestamp(3)})
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<k BIGINT>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			ctx.Collect(in.Row.Values[0])
			return nil
		},
	}
	return &jobgraph.PTF{
		Name: "f", UID: "f", Def: def, Produced: ptf.InsertOnly(),
		Tables: []jobgraph.PTFTable{{
			Arg: "input", SetSemantic: true, Keys: []int{0}, TimeColumn: -1, Schema: schema,
			Delivered: ptf.InsertOnly(), OrderBy: []int{1}, OrderDesc: []bool{false}, OrderNullsFirst: []bool{false},
		}},
		FuncOut: types.NewSchema(types.Field{Name: "k", Type: types.BigInt}),
		Out:     types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "k0", Type: types.BigInt}),
	}
}

// TestOrderByRestoreOwnedKeys: subtasks sharing a namespace each restore
// only the buffered rows of their own keys, so each row is flushed once.
func TestOrderByRestoreOwnedKeys(t *testing.T) {
	be := state.NewMemory()
	clock := &ManualClock{T: time.Unix(0, 0)}
	spec := orderSpec()
	const n = 3
	// Before the restart, one subtask per key owner buffers its rows.
	for s := range n {
		op, err := newPTFOp(spec, "ns", be, clock, func(types.Row) error { return nil }, withKeyOwner(keyOwner(n, s)))
		require.NoError(t, err)
		for k := range int64(30) {
			if !keyOwner(n, s)([]types.Value{types.NewInt(k)}) {
				continue
			}
			for _, ts := range []int64{3, 1, 2} {
				row := types.Row{Values: []types.Value{types.NewInt(k), types.NewTimestamp(ts * int64(time.Second))}}
				require.NoError(t, op.processRow(0, &row))
			}
		}
		require.NoError(t, op.flush())
	}
	// After it, each subtask flushes the rows of its own keys, in order.
	seen := map[int64][]int64{}
	for s := range n {
		var out []types.Row
		op, err := newPTFOp(spec, "ns", be, clock, func(r types.Row) error { out = append(out, r); return nil }, withKeyOwner(keyOwner(n, s)))
		require.NoError(t, err)
		require.NoError(t, op.advance(0, MaxWatermark))
		for _, r := range out {
			k := r.Values[0].Int()
			require.True(t, keyOwner(n, s)(r.Values[:1]), "subtask %d flushed key %d it does not own", s, k)
			seen[k] = append(seen[k], k)
		}
		require.Positive(t, len(out))
	}
	require.Len(t, seen, 30)
	for k, rows := range seen {
		require.Len(t, rows, 3, "key %d", k)
	}
	// Flushed rows are gone from the state.
	var out []types.Row
	op, err := newPTFOp(spec, "ns", be, clock, func(r types.Row) error { out = append(out, r); return nil })
	require.NoError(t, err)
	require.NoError(t, op.advance(0, MaxWatermark))
	require.Empty(t, out)
}
