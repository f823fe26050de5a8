package runtime

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// aggMaterialize applies a retract changelog to a table keyed by the
// first nk values, failing when a retraction does not retract the row
// alive for its key or an insertion finds one alive, and returns the
// table as key -> row.
func aggMaterialize(t *testing.T, rows []types.Row, nk int) map[string]string {
	t.Helper()
	table := map[string]string{}
	for i, r := range rows {
		k := fmt.Sprint(r.Values[:nk])
		v := fmt.Sprint(r.Values)
		cur, alive := table[k]
		switch r.Kind {
		case types.Insert, types.UpdateAfter:
			require.False(t, alive, "row %d %s%v: key %s is alive (%s)", i, r.Kind, r.Values, k, cur)
			table[k] = v
		default:
			require.True(t, alive, "row %d %s%v: key %s is not alive", i, r.Kind, r.Values, k)
			require.Equal(t, cur, v, "row %d: %s does not retract the row alive", i, r.Kind)
			delete(table, k)
		}
	}
	return table
}

// aggRunMiniBatch feeds rows to an aggregate with mini-batch mb; before a
// row in flushAt it flushes (a checkpoint), and before one in restoreAt
// it flushes and rebuilds the operator over the same KV.
func aggRunMiniBatch(t *testing.T, spec *jobgraph.Aggregate, rows []types.Row, flushAt, restoreAt map[int]bool) []types.Row {
	t.Helper()
	kv := state.NewMemory()
	out := &collectOut{}
	oc := OpContext{NS: "agg", KV: kv, Clock: &ManualClock{}, Out: out}
	op, err := newAggregateOp(spec, allAggSchema, oc)
	require.NoError(t, err)
	for i, row := range rows {
		switch {
		case restoreAt[i]:
			require.NoError(t, op.Flush())
			op, err = newAggregateOp(spec, allAggSchema, oc)
			require.NoError(t, err)
		case flushAt[i]:
			require.NoError(t, op.Flush())
		}
		require.NoError(t, op.Process(0, row))
	}
	require.NoError(t, op.Watermark(0, MaxWatermark))
	return out.rows
}

// TestAggregateMiniBatch: on random updating input, for every function,
// a mini-batch aggregate emits a valid retract changelog (each -U/-D
// retracts the row alive for its group) whose final table is that of the
// row-at-a-time aggregate, with at most as many rows; with bundles of one
// row it emits exactly the same changelog; checkpoints and restores in the
// middle of bundles change nothing.
func TestAggregateMiniBatch(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 7))
		rows := aggRandomChangelog(r, 300)
		for _, keys := range [][]int{{0}, nil} {
			plain := &jobgraph.Aggregate{Keys: keys, Calls: allAggCalls()}
			want := aggRunMiniBatch(t, plain, rows, nil, nil)
			wantTable := aggMaterialize(t, want, len(keys))

			one := *plain
			one.MiniBatch = jobgraph.MiniBatch{Size: 1, Latency: int64(time.Second)}
			require.Equal(t, fmt.Sprint(want), fmt.Sprint(aggRunMiniBatch(t, &one, rows, nil, nil)), "bundles of one row, seed %d", seed)

			batched := *plain
			batched.MiniBatch = jobgraph.MiniBatch{Size: int64(2 + r.IntN(40)), Latency: int64(time.Second)}
			flushAt, restoreAt := map[int]bool{}, map[int]bool{}
			for i := range rows {
				switch r.IntN(25) {
				case 0:
					flushAt[i] = true
				case 1:
					restoreAt[i] = true
				}
			}
			for _, run := range []struct {
				name            string
				flush, restores map[int]bool
			}{{"uninterrupted", nil, nil}, {"checkpoints", flushAt, nil}, {"restores", nil, restoreAt}} {
				got := aggRunMiniBatch(t, &batched, rows, run.flush, run.restores)
				require.Equal(t, wantTable, aggMaterialize(t, got, len(keys)), "%s, size %d, keys %v, seed %d", run.name, batched.MiniBatch.Size, keys, seed)
				require.LessOrEqual(t, len(got), len(want), "%s, seed %d", run.name, seed)
			}
		}
	}
}

// TestAggregateMiniBatchBundles: a bundle closes at its size, at a
// checkpoint, once open for the latency on the processing-time clock,
// and at the end of the input; within it a group's updates fold into one.
func TestAggregateMiniBatchBundles(t *testing.T) {
	schema := types.NewSchema(types.Field{Name: "k", Type: types.Int}, types.Field{Name: "v", Type: types.Int})
	spec := &jobgraph.Aggregate{Keys: []int{0}, Calls: []jobgraph.AggCall{
		{Func: jobgraph.AggCountStar, Filter: -1, Type: types.BigInt.NonNull()},
		{Func: jobgraph.AggSum, Args: []int{1}, Filter: -1, Type: types.Int},
	}, MiniBatch: jobgraph.MiniBatch{Size: 4, Latency: int64(2 * time.Second)}}
	clock := &ManualClock{T: time.Unix(100, 0)}
	out := &collectOut{}
	op, err := newAggregateOp(spec, schema, OpContext{NS: "agg", KV: state.NewMemory(), Clock: clock, Out: out})
	require.NoError(t, err)
	feed := func(kind types.RowKind, k, v int64) {
		t.Helper()
		require.NoError(t, op.Process(0, types.Row{Kind: kind, Values: []types.Value{types.NewInt(k), types.NewInt(v)}}))
	}
	// Size: the fourth row closes the bundle.
	feed(types.Insert, 1, 10)
	feed(types.Insert, 2, 5)
	feed(types.Insert, 1, 20)
	require.Empty(t, out.take())
	feed(types.Insert, 1, 30)
	require.Equal(t, "+I[1 3 60]\n+I[2 1 5]\n", out.take())
	// A checkpoint closes the open bundle; an unchanged result emits nothing.
	feed(types.Insert, 2, 7)
	feed(types.Delete, 2, 7)
	feed(types.Insert, 3, 1)
	require.NoError(t, op.Flush())
	require.Equal(t, "+I[3 1 1]\n", out.take())
	// Processing time: the bundle opened at 100 s closes at 102 s.
	feed(types.Delete, 3, 1)
	feed(types.Insert, 1, 1)
	require.NoError(t, op.OnProcessingTime(clock.Now().UnixNano()+int64(time.Second)))
	require.Empty(t, out.take())
	require.NoError(t, op.OnProcessingTime(clock.Now().UnixNano()+int64(2*time.Second)))
	require.Equal(t, "-D[3 1 1]\n-U[1 3 60]\n+U[1 4 61]\n", out.take())
	// A group whose rows all go within one bundle emits nothing; the end
	// of the input closes the bundle.
	feed(types.Insert, 4, 1)
	feed(types.Delete, 4, 1)
	feed(types.Insert, 5, 2)
	require.NoError(t, op.Watermark(0, 50))
	require.Empty(t, out.take(), "a watermark does not close the bundle")
	require.NoError(t, op.Watermark(0, MaxWatermark))
	require.Equal(t, "+I[5 1 2]\n", out.take())
}
