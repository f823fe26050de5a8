package runtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/types"
)

// windowAggJob counts the rows of in per v and tumbling window, with the
// largest k: v, cnt, maxk, window_start, window_end, window_time.
func windowAggJob(in jobgraph.Input, w jobgraph.Window) *jobgraph.Job {
	spec := &jobgraph.WindowAggregate{Keys: []int{2}, Windowing: jobgraph.Windowing{Window: w}, Calls: []jobgraph.AggCall{
		{Func: jobgraph.AggCountStar, Filter: -1, Type: types.BigInt.NonNull()},
		{Func: jobgraph.AggMax, Args: []int{0}, Filter: -1, Type: types.BigInt},
	}}
	wt := types.Timestamp(3)
	if w.ProcTime() {
		wt = types.TimestampLTZ(3)
	}
	out := types.NewSchema(append([]types.Field{{Name: "v", Type: types.String},
		{Name: "cnt", Type: types.BigInt.NonNull()}, {Name: "maxk", Type: types.BigInt}}, jobgraph.WindowColumns(wt)...)...)
	return &jobgraph.Job{
		Inputs: []jobgraph.Input{in},
		Nodes:  []jobgraph.Node{{UID: "wagg/0", Inputs: []jobgraph.Edge{{From: jobgraph.Source(0)}}, Op: spec, Out: out}},
		Result: 0,
		Sink:   jobgraph.Sink{Kind: jobgraph.CollectSink},
	}
}

// winRowString renders a window aggregate result: v cnt maxk [start, end).
func winRowString(r types.Row) string {
	f := func(v types.Value) string { return types.Format(v, types.Timestamp(3))[11:19] }
	return r.Kind.String() + " " + r.Values[0].Str() + " " + types.Format(r.Values[1], types.BigInt) + " " +
		types.Format(r.Values[2], types.BigInt) + " [" + f(r.Values[3]) + ", " + f(r.Values[4]) + ")"
}

func winRowStrings(rows []types.Row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, winRowString(r))
	}
	return out
}

// TestWindowAggregateJob: an event-time window aggregate runs in a job:
// windows fire on the source's watermark, late rows are dropped and
// counted in the job's metrics, and a job resumed from its checkpoint
// keeps its open windows and its watermark (a row late before the stop is
// late after it).
func TestWindowAggregateJob(t *testing.T) {
	env, _ := newTestEnv(t)
	topic := newFakeTopic("win", 1)
	src := &fakeSource{topic: topic}
	w := jobgraph.Window{Kind: jobgraph.Tumble, Size: int64(10 * time.Second), TimeColumn: 1}
	g := windowAggJob(withWatermark(fakeInput(src)), w)
	require.Contains(t, jobgraph.Explain(g), "WindowAggregate(uid=[wagg/0], groupBy=[v], window=[TUMBLE(time_col=[ts], size=[10 s])], select=[v, COUNT(*) AS cnt, MAX(k) AS maxk, start('w$) AS window_start, end('w$) AS window_end, rowtime('w$) AS window_time]), fields=[v cnt maxk window_start window_end window_time], changelogMode=[I]")

	topic.add(0, 1_000, 1, "a")
	topic.add(0, 2_000, 2, "a")
	topic.add(0, 3_000, 3, "b")
	topic.add(0, 11_000, 4, "b") // the watermark passes 00:00:09.999
	topic.add(0, 5_000, 5, "a")  // late
	topic.add(0, 12_000, 6, "b")
	j := startJob(t, env, g, Options{ID: "wjob"})
	syncJob(t, j)
	require.Equal(t, []string{"+I a 2 2 [00:00:00, 00:00:10)", "+I b 1 3 [00:00:00, 00:00:10)"}, winRowStrings(buffered(j)))
	require.Equal(t, int64(1), j.Metrics().LateRecordsDropped)
	checkpointJob(t, j)
	j.Cancel()
	require.NoError(t, waitJob(t, j))

	topic.add(0, 4_000, 7, "b") // still late: the watermark was restored
	topic.add(0, 15_000, 8, "c")
	topic.add(0, 25_000, 9, "c")
	j2 := startJob(t, env, g, Options{ID: "wjob", Resume: true})
	syncJob(t, j2)
	require.Equal(t, []string{"+I b 2 6 [00:00:10, 00:00:20)", "+I c 1 8 [00:00:10, 00:00:20)"}, winRowStrings(buffered(j2)))
	require.Equal(t, int64(1), j2.Metrics().LateRecordsDropped, "counted since the job started")
}

// TestWindowProcTimeJob: a processing-time window fires when the job's
// clock passes its end, at the next batch the subtask handles (here the
// barrier of a sync), and its result is committed; no watermark needed.
func TestWindowProcTimeJob(t *testing.T) {
	env, clock := newTestEnv(t) // 2026-03-01 12:00:00 UTC
	topic := newFakeTopic("pwin", 1)
	src := &fakeSource{topic: topic}
	w := jobgraph.Window{Kind: jobgraph.Tumble, Size: int64(time.Minute), TimeColumn: -1, TimeZone: "UTC"}
	j := startJob(t, env, windowAggJob(fakeInput(src), w), Options{ID: "pjob"})
	topic.add(0, 1, 1, "a")
	topic.add(0, 2, 2, "a")
	syncJob(t, j)
	require.Empty(t, buffered(j))
	clock.Advance(59 * time.Second)
	topic.add(0, 3, 3, "b")
	syncJob(t, j)
	require.Empty(t, buffered(j))
	clock.Advance(time.Second)
	syncJob(t, j)
	require.Equal(t, []string{"+I a 2 2 [12:00:00, 12:01:00)", "+I b 1 3 [12:00:00, 12:01:00)"}, winRowStrings(buffered(j)))
}

// TestWindowProcTimeOps: only operators on processing-time windows get
// the clock's callbacks (and make an idle job checkpoint on every tick).
func TestWindowProcTimeOps(t *testing.T) {
	in := types.NewSchema(types.Field{Name: "k", Type: types.String}, types.Field{Name: "ts", Type: types.Timestamp(3)})
	oc := OpContext{Out: &collectOut{}, Clock: &ManualClock{}, KV: state.NewMemory(), NS: "w"}
	agg := func(timeCol int) Operator {
		op, err := newWindowAggOp(&jobgraph.WindowAggregate{Windowing: jobgraph.Windowing{Window: jobgraph.Window{Kind: jobgraph.Tumble, Size: 1e9, TimeColumn: timeCol}}}, in, oc)
		require.NoError(t, err)
		return op
	}
	ev, pt := agg(1), agg(-1)
	var got []procTimeOperator
	for _, op := range []Operator{ev, pt, &unionOp{}} {
		if p, ok := onProcTime(op); ok {
			got = append(got, p)
		}
	}
	require.Equal(t, []procTimeOperator{pt.(procTimeOperator)}, got)
}
