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
