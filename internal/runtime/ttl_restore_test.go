package runtime

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// ttlRun feeds rows to the operator build makes, the clock moving step
// before each row, restoring from a flush before row split (-1: never),
// and returns what it emitted.
func ttlRun(t *testing.T, build func(OpContext) (Operator, error), rows []types.Row, step time.Duration, split int) string {
	t.Helper()
	kv := state.NewMemory()
	out := &collectOut{}
	clock := &ManualClock{T: time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)}
	oc := OpContext{NS: "ttl", KV: kv, Out: out, Clock: clock}
	op, err := build(oc)
	require.NoError(t, err)
	for i, r := range rows {
		if i == split {
			require.NoError(t, op.Flush())
			op, err = build(oc)
			require.NoError(t, err)
		}
		clock.Advance(step)
		require.NoError(t, op.Process(0, r))
	}
	return out.take()
}

// checkTTLRestore: a run restored between any two rows emits what an
// uninterrupted run emits (the rows' times survive the state), and the
// TTL changes the result (want without and with it differ).
func checkTTLRestore(t *testing.T, name string, build func(ttl int64) func(OpContext) (Operator, error), rows []types.Row) {
	t.Helper()
	step := 25 * time.Minute
	ttl := int64(time.Hour)
	want := ttlRun(t, build(ttl), rows, step, -1)
	require.NotEqual(t, ttlRun(t, build(0), rows, step, -1), want, "%s: the TTL changes nothing", name)
	for split := 1; split < len(rows); split++ {
		require.Equal(t, want, ttlRun(t, build(ttl), rows, step, split), "%s restored at row %d", name, split)
	}
}

func ttlRow(kind types.RowKind, k string, id, v int64) types.Row {
	return types.Row{Kind: kind, Values: []types.Value{types.NewString(k), types.NewInt(id), types.NewInt(v)}}
}

// TestTTLRestore: Top-N, deduplication and the sink upsert materializer
// with a state TTL restore the times of their rows.
func TestTTLRestore(t *testing.T) {
	rows := []types.Row{
		ttlRow(types.Insert, "a", 1, 10), ttlRow(types.Insert, "b", 2, 5), ttlRow(types.Insert, "a", 3, 7),
		ttlRow(types.Insert, "a", 4, 3), ttlRow(types.Insert, "b", 5, 4), ttlRow(types.Insert, "a", 6, 8),
		ttlRow(types.Insert, "b", 7, 1), ttlRow(types.Insert, "a", 8, 2),
	}
	sch := types.NewSchema(types.Field{Name: "k", Type: types.String},
		types.Field{Name: "id", Type: types.Int}, types.Field{Name: "v", Type: types.Int})
	for _, strategy := range []jobgraph.RankStrategy{jobgraph.AppendFastStrategy, jobgraph.RetractStrategy} {
		checkTTLRestore(t, "rank "+strategy.String(), func(ttl int64) func(OpContext) (Operator, error) {
			spec := &jobgraph.Rank{PartitionKeys: []int{0}, Func: jobgraph.RowNumber, Start: 1, End: 2, OutputRank: true,
				Strategy: strategy, OrderBy: []jobgraph.SortKey{{Col: 2, Desc: true}}, StateTTL: ttl}
			return func(oc OpContext) (Operator, error) { return newRankOp(spec, sch, oc) }
		}, rows)
	}
	for _, keepLast := range []bool{false, true} {
		checkTTLRestore(t, "dedup", func(ttl int64) func(OpContext) (Operator, error) {
			spec := &jobgraph.Deduplicate{Keys: []int{0}, KeepLast: keepLast, TimeColumn: -1, StateTTL: ttl}
			return func(oc OpContext) (Operator, error) { return newDedupOp(spec, sch, oc) }
		}, rows)
	}
	mat := []types.Row{
		ttlRow(types.Insert, "a", 1, 10), ttlRow(types.Insert, "a", 2, 10), ttlRow(types.Insert, "b", 3, 1),
		ttlRow(types.Insert, "b", 4, 1), ttlRow(types.Insert, "a", 5, 10), // a not written for 75 minutes
		ttlRow(types.Delete, "a", 5, 10), ttlRow(types.Delete, "a", 2, 10), ttlRow(types.Insert, "b", 6, 1),
	}
	checkTTLRestore(t, "materialize", func(ttl int64) func(OpContext) (Operator, error) {
		spec := &jobgraph.Materialize{Key: []int{0}, StateTTL: ttl}
		return func(oc OpContext) (Operator, error) { return newMaterializeOp(spec, oc), nil }
	}, mat)
}
