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

// TestTTLRestore: Top-N, deduplication, the sink upsert materializer,
// ChangelogNormalize and OVER aggregates with a state TTL restore the
// times of their rows.
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
	norm := []types.Row{
		ttlRow(types.UpdateAfter, "a", 1, 10), ttlRow(types.UpdateAfter, "b", 2, 5),
		ttlRow(types.UpdateAfter, "a", 1, 10), // the same row: re-emitted only with a TTL
		ttlRow(types.UpdateAfter, "b", 2, 6), ttlRow(types.UpdateAfter, "c", 3, 1), ttlRow(types.UpdateAfter, "c", 3, 2),
		ttlRow(types.Delete, "a", 0, 0),      // a not written for 75 minutes: ignored with the TTL
		ttlRow(types.UpdateAfter, "b", 2, 7), // b not written for 100 minutes: +I with the TTL
	}
	checkTTLRestore(t, "normalize", func(ttl int64) func(OpContext) (Operator, error) {
		spec := &jobgraph.Normalize{Key: []int{0}, StateTTL: ttl}
		return func(oc OpContext) (Operator, error) {
			n, err := newNormalizer(oc.NS, spec.Key, oc.KV, 0, oc.Clock, spec.StateTTL)
			return &normalizeOp{n: n, out: oc.Out}, err
		}
	}, norm)
	sum := []jobgraph.AggCall{{Func: jobgraph.AggSum, Args: []int{2}, Filter: -1, Type: types.Int}}
	// Proctime ROWS UNBOUNDED keeps its accumulators under the TTL: b's
	// second row comes 75 minutes after its first, and sums afresh.
	checkTTLRestore(t, "over unbounded", func(ttl int64) func(OpContext) (Operator, error) {
		spec := &jobgraph.OverAggregate{PartitionKeys: []int{0}, OrderBy: 1, ProcTime: true,
			Frame: jobgraph.OverFrame{Rows: true, Unbounded: true}, Calls: sum, StateTTL: ttl}
		return func(oc OpContext) (Operator, error) { return newOverOp(spec, sch, oc) }
	}, rows)
	// A bounded ROWS frame cleans up on a timer 1.5 x the TTL after the
	// row that set it: a, untouched for 125 minutes, sums afresh.
	over := []types.Row{
		ttlRow(types.Insert, "a", 1, 10), ttlRow(types.Insert, "b", 2, 5), ttlRow(types.Insert, "b", 3, 7),
		ttlRow(types.Insert, "b", 4, 3), ttlRow(types.Insert, "b", 5, 4), ttlRow(types.Insert, "a", 6, 8),
		ttlRow(types.Insert, "b", 7, 1), ttlRow(types.Insert, "a", 8, 2),
	}
	checkTTLRestore(t, "over rows", func(ttl int64) func(OpContext) (Operator, error) {
		spec := &jobgraph.OverAggregate{PartitionKeys: []int{0}, OrderBy: 1, ProcTime: true,
			Frame: jobgraph.OverFrame{Rows: true, Preceding: 2}, Calls: sum, StateTTL: ttl}
		return func(oc OpContext) (Operator, error) { return newOverOp(spec, sch, oc) }
	}, over)
}

// TestOverTTLCleanup: with a state TTL the cleanup timers of an OVER
// aggregate remove a partition's state once processing time passes them
// (the state shrinks without further rows), except while rows of a
// rowtime partition wait for the watermark.
func TestOverTTLCleanup(t *testing.T) {
	sch := types.NewSchema(types.Field{Name: "k", Type: types.String},
		types.Field{Name: "id", Type: types.Int}, types.Field{Name: "v", Type: types.Int},
		types.Field{Name: "ts", Type: types.Timestamp(3)})
	row := func(k string, v, ts int64) types.Row {
		return types.Row{Kind: types.Insert, Values: []types.Value{types.NewString(k), types.NewInt(v), types.NewInt(v), types.NewTimestampMillis(ts)}}
	}
	kv := state.NewMemory()
	out := &collectOut{}
	clock := &ManualClock{T: time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)}
	spec := &jobgraph.OverAggregate{PartitionKeys: []int{0}, OrderBy: 3, Frame: jobgraph.OverFrame{Rows: true, Unbounded: true},
		Calls: []jobgraph.AggCall{{Func: jobgraph.AggSum, Args: []int{2}, Filter: -1, Type: types.Int}}, StateTTL: int64(time.Hour)}
	op, err := newOverOp(spec, sch, OpContext{NS: "ttl", KV: kv, Out: out, Clock: clock})
	require.NoError(t, err)
	tick := func(d time.Duration) {
		clock.Advance(d)
		require.NoError(t, op.OnProcessingTime(clock.Now().UnixNano()))
		require.NoError(t, op.Flush())
	}
	require.NoError(t, op.Process(0, row("a", 10, 10)))
	require.NoError(t, op.Process(0, row("b", 1, 10)))
	require.NoError(t, op.Watermark(0, 10*1e6))
	require.NoError(t, op.Process(0, row("a", 5, 20))) // waits for the watermark
	tick(0)
	stored := kv.Len()
	// Past the cleanup time (1.5 h): b goes, a keeps its waiting row.
	tick(2 * time.Hour)
	require.Less(t, kv.Len(), stored, "b's state is gone")
	require.NoError(t, op.Watermark(0, 20*1e6))
	require.Equal(t, "+I[a 10 10 1970-01-01 00:00:00.010 10]\n+I[b 1 1 1970-01-01 00:00:00.010 1]\n+I[a 5 5 1970-01-01 00:00:00.020 15]\n", out.take())
	// 1.5 h after the first cleanup time a goes too: nothing is left but
	// the watermark.
	tick(2 * time.Hour)
	require.Equal(t, 1, kv.Len(), "only the watermark is stored")
	require.NoError(t, op.Process(0, row("a", 7, 30)))
	require.NoError(t, op.Watermark(0, 30*1e6))
	require.Equal(t, "+I[a 7 7 1970-01-01 00:00:00.030 7]\n", out.take(), "a starts afresh")
}

// TestOverTTLRenewedSweep: a proctime unbounded frame's index keeps the
// first expiry time of a partition; the sweep at that time finds the
// partition renewed by a later row and keeps it, then removes it once the
// TTL passed after its last row.
func TestOverTTLRenewedSweep(t *testing.T) {
	sch := types.NewSchema(types.Field{Name: "k", Type: types.String},
		types.Field{Name: "id", Type: types.Int}, types.Field{Name: "v", Type: types.Int})
	kv := state.NewMemory()
	out := &collectOut{}
	clock := &ManualClock{T: time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)}
	spec := &jobgraph.OverAggregate{PartitionKeys: []int{0}, OrderBy: 1, ProcTime: true, Frame: jobgraph.OverFrame{Rows: true, Unbounded: true},
		Calls: []jobgraph.AggCall{{Func: jobgraph.AggSum, Args: []int{2}, Filter: -1, Type: types.Int}}, StateTTL: int64(time.Hour)}
	op, err := newOverOp(spec, sch, OpContext{NS: "ttl", KV: kv, Out: out, Clock: clock})
	require.NoError(t, err)
	step := func(d time.Duration, rows ...types.Row) {
		clock.Advance(d)
		for _, r := range rows {
			require.NoError(t, op.Process(0, r))
		}
		require.NoError(t, op.OnProcessingTime(clock.Now().UnixNano()))
		require.NoError(t, op.Flush())
	}
	step(0, ttlRow(types.Insert, "a", 1, 1))
	step(40*time.Minute, ttlRow(types.Insert, "a", 2, 2))
	step(40 * time.Minute) // past the first expiry (60 min), 40 min after the last row
	step(10*time.Minute, ttlRow(types.Insert, "a", 3, 3))
	require.Equal(t, "+I[a 1 1 1]\n+I[a 2 2 3]\n+I[a 3 3 6]\n", out.take(), "a was kept")
	step(61 * time.Minute)
	require.Equal(t, 0, kv.Len(), "a's state and index entry are gone")
}
