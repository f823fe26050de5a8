package runtime

import (
	"testing"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func matRow(kind types.RowKind, k int64, v string) types.Row {
	return types.Row{Kind: kind, Values: []types.Value{types.NewInt(k), types.NewString(v)}}
}

// The upsert materializer shows the last alive row of each key, and a run
// restored from a flush in the middle emits exactly what an uninterrupted
// run emits.
func TestMaterializeRestore(t *testing.T) {
	in := []types.Row{
		matRow(types.Insert, 1, "a"), matRow(types.Insert, 1, "b"), matRow(types.Insert, 2, "x"),
		matRow(types.Delete, 1, "a"), // not the shown row: nothing downstream
		matRow(types.UpdateBefore, 1, "b"), matRow(types.UpdateAfter, 1, "c"),
		matRow(types.Delete, 2, "x"), matRow(types.Delete, 9, "never"),
		matRow(types.Insert, 1, "d"), matRow(types.Delete, 1, "d"),
	}
	spec := &jobgraph.Materialize{Key: []int{0}}
	run := func(split int) string {
		kv := state.NewMemory()
		out := &collectOut{}
		op := newMaterializeOp(spec, OpContext{NS: "m", KV: kv, Out: out})
		for i, r := range in {
			if i == split {
				require.NoError(t, op.Flush())
				op = newMaterializeOp(spec, OpContext{NS: "m", KV: kv, Out: out})
			}
			require.NoError(t, op.Process(0, r))
		}
		return out.take()
	}
	want := run(-1)
	require.Equal(t, "+I[1 a]\n+U[1 b]\n+I[2 x]\n-D[1 b]\n+I[1 c]\n-D[2 x]\n+U[1 d]\n+U[1 c]\n", want)
	for split := 1; split < len(in); split++ {
		require.Equal(t, want, run(split), "restored at row %d", split)
	}
}

// ON CONFLICT DO NOTHING shows the first alive row of each key; an update
// (-U, +U) of the shown row keeps its place; DO ERROR fails on a second
// alive row. Restoring from a flush between any two rows but inside an
// update pair (which upstream operators emit in one call, so a
// checkpoint never falls between them) emits what an uninterrupted run
// emits.
func TestMaterializeConflictStrategies(t *testing.T) {
	in := []types.Row{
		matRow(types.Insert, 1, "a"), matRow(types.Insert, 1, "b"), matRow(types.Insert, 2, "x"),
		matRow(types.UpdateBefore, 1, "a"), matRow(types.UpdateAfter, 1, "a2"), // the shown row changes in place
		matRow(types.Delete, 1, "b"),                                     // never shown: nothing downstream
		matRow(types.UpdateBefore, 2, "x"), matRow(types.Insert, 1, "c"), // a lone -U: a delete
		matRow(types.Delete, 1, "a2"), // the shown row goes: the next one shows
		matRow(types.Delete, 1, "c"),
	}
	spec := &jobgraph.Materialize{Key: []int{0}, Conflict: jobgraph.ConflictNothing, Table: "t"}
	run := func(split int) string {
		kv := state.NewMemory()
		out := &collectOut{}
		op := newMaterializeOp(spec, OpContext{NS: "m", KV: kv, Out: out})
		for i, r := range in {
			if i == split {
				require.NoError(t, op.Flush())
				op = newMaterializeOp(spec, OpContext{NS: "m", KV: kv, Out: out})
			}
			require.NoError(t, op.Process(0, r))
		}
		require.NoError(t, op.Flush())
		return out.take()
	}
	want := run(-1)
	require.Equal(t, "+I[1 a]\n+I[2 x]\n+U[1 a2]\n-D[2 x]\n+U[1 c]\n-D[1 c]\n", want)
	for split := 1; split < len(in); split++ {
		if in[split-1].Kind == types.UpdateBefore && in[split].Kind == types.UpdateAfter {
			continue
		}
		require.Equal(t, want, run(split), "restored at row %d", split)
	}

	strict := &jobgraph.Materialize{Key: []int{0}, Conflict: jobgraph.ConflictError, Table: "t"}
	op := newMaterializeOp(strict, OpContext{NS: "e", KV: state.NewMemory(), Out: &collectOut{}})
	require.NoError(t, op.Process(0, matRow(types.Insert, 1, "a")))
	require.NoError(t, op.Process(0, matRow(types.UpdateBefore, 1, "a")))
	require.NoError(t, op.Process(0, matRow(types.UpdateAfter, 1, "b")))
	err := op.Process(0, matRow(types.Insert, 1, "c"))
	require.ErrorContains(t, err, "ON CONFLICT DO ERROR")
}
