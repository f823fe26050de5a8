package runtime

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/types"
)

// The random window tests use rows (k STRING, ts TIMESTAMP(3), v INT,
// s STRING).
var winRandSchema = types.NewSchema(
	types.Field{Name: "k", Type: types.String}, types.Field{Name: "ts", Type: types.Timestamp(3)},
	types.Field{Name: "v", Type: types.Int}, types.Field{Name: "s", Type: types.String})

// winEvent is one input of an operator: a row on a port, or a watermark
// (row nil).
type winEvent struct {
	port int
	row  *types.Row
	wm   int64
}

// winRandEvents returns n rows over a few keys, times moving forward by
// up to a minute with up to disorder of jitter, a watermark every few
// rows at the highest time minus lag (so some rows are late), retractions
// of rows inserted earlier when retract, and a final MaxWatermark.
func winRandEvents(r *rand.Rand, n int, disorder, lag time.Duration, retract bool) []winEvent {
	var evs []winEvent
	var live []types.Row
	base, maxTS := int64(0), int64(MinWatermark)
	for len(evs) < n {
		if retract && len(live) > 0 && r.IntN(5) == 0 {
			i := r.IntN(len(live))
			row := live[i]
			live = slices.Delete(live, i, i+1)
			evs = append(evs, winEvent{row: &types.Row{Kind: types.Delete, Values: row.Values}})
			continue
		}
		base += r.Int64N(int64(time.Minute))
		ts := base + r.Int64N(int64(disorder)+1) - int64(disorder)/2
		ts -= ts % 1e6 // milliseconds
		maxTS = max(maxTS, ts)
		vals := []types.Value{
			types.NewString(string(rune('a' + r.IntN(4)))), types.NewTimestamp(ts),
			types.NewInt(int64(r.IntN(20) - 5)), types.NewString(string(rune('p' + r.IntN(3)))),
		}
		if r.IntN(15) == 0 {
			vals[2] = types.Null
		}
		row := types.Row{Kind: types.Insert, Values: vals}
		live = append(live, row)
		evs = append(evs, winEvent{row: &row})
		if r.IntN(4) == 0 {
			evs = append(evs, winEvent{wm: maxTS - int64(lag)})
		}
	}
	return append(evs, winEvent{wm: MaxWatermark})
}

// winCalls are the order-independent aggregate calls of the random tests.
func winCalls() []jobgraph.AggCall {
	call := func(f jobgraph.AggFunc, t types.Type, args ...int) jobgraph.AggCall {
		return jobgraph.AggCall{Func: f, Args: args, Filter: -1, Type: t}
	}
	d := call(jobgraph.AggCount, types.BigInt.NonNull(), 3)
	d.Distinct = true
	return []jobgraph.AggCall{
		call(jobgraph.AggCountStar, types.BigInt.NonNull()),
		call(jobgraph.AggSum, types.Int, 2),
		call(jobgraph.AggMin, types.Int, 2),
		call(jobgraph.AggMax, types.String, 3),
		call(jobgraph.AggAvg, types.Int, 2),
		d,
	}
}

// winOut records emitted rows with the index of the event they came with.
type winOut struct {
	at   int
	rows []winEmitted
	wms  []int64
}

type winEmitted struct {
	at   int
	kind types.RowKind
	vals []types.Value
}

func (o *winOut) Emit(r types.Row) error {
	o.rows = append(o.rows, winEmitted{at: o.at, kind: r.Kind, vals: slices.Clone(r.Values)})
	return nil
}

func (o *winOut) Watermark(wm int64) error { o.wms = append(o.wms, wm); return nil }

// String renders the output: one line per row with its event index.
func (o *winOut) String() string {
	var b strings.Builder
	for _, r := range o.rows {
		fmt.Fprintf(&b, "%d %s%v\n", r.at, r.kind, r.vals)
	}
	fmt.Fprintf(&b, "watermarks %v\n", o.wms)
	return b.String()
}

// winRunOp feeds events to the operator build makes; before each index in
// restoreAt it flushes and builds a new operator over the same KV.
func winRunOp(t testing.TB, build func(OpContext) (Operator, error), evs []winEvent, restoreAt map[int]bool) (*winOut, int64) {
	out := &winOut{}
	var late atomic.Int64
	oc := OpContext{NS: "win", KV: state.NewMemory(), Clock: &ManualClock{}, Out: out, Late: &late}
	op, err := build(oc)
	require.NoError(t, err)
	for i, ev := range evs {
		if restoreAt[i] {
			require.NoError(t, op.Flush())
			op, err = build(oc)
			require.NoError(t, err)
		}
		out.at = i
		if ev.row != nil {
			require.NoError(t, op.Process(ev.port, *ev.row))
		} else {
			require.NoError(t, op.Watermark(ev.port, ev.wm))
		}
	}
	return out, late.Load()
}

// winCheckRestore checks that runs restored at half and at random events
// give the output of the uninterrupted run, and returns that output.
func winCheckRestore(t *testing.T, r *rand.Rand, build func(OpContext) (Operator, error), evs []winEvent) *winOut {
	want, wantLate := winRunOp(t, build, evs, nil)
	got, late := winRunOp(t, build, evs, map[int]bool{len(evs) / 2: true})
	require.Equal(t, want.String(), got.String(), "restored at half")
	require.Equal(t, wantLate, late)
	some := map[int]bool{}
	for i := range evs {
		if r.IntN(8) == 0 {
			some[i] = true
		}
	}
	got, late = winRunOp(t, build, evs, some)
	require.Equal(t, want.String(), got.String(), "restored at random events")
	require.Equal(t, wantLate, late)
	return want
}

// winGroup is the reference's state of one (window, key).
type winGroup struct {
	span winSpan
	key  string
	seq  int // creation order
	rows [][]types.Value
}

// winBatch computes, by brute force, what an aligned window aggregate
// over evs emits: a row is added to (retracted from) each of its windows
// that had not fired when it arrived (at the highest watermark so far);
// each group with rows gives one result row when the first watermark
// reaches its window's end - 1 ms. The results are sorted by event index,
// window and key creation.
func winBatch(t testing.TB, w jobgraph.Window, calls []jobgraph.AggCall, evs []winEvent) ([]winEmitted, int64) {
	a, err := newWinAssigner(&w)
	require.NoError(t, err)
	groups := map[string]*winGroup{}
	var late int64
	wm := int64(MinWatermark)
	var out []winEmitted
	seq := 0
	fire := func(at int) {
		var due []*winGroup
		for id, g := range groups {
			if (g.span.end-1)*1e6 <= wm {
				due = append(due, g)
				delete(groups, id)
			}
		}
		slices.SortFunc(due, func(x, y *winGroup) int {
			return cmp.Or(cmp.Compare(x.span.end, y.span.end), cmp.Compare(x.span.start, y.span.start), cmp.Compare(x.seq, y.seq))
		})
		for _, g := range due {
			if len(g.rows) == 0 {
				continue
			}
			vals := []types.Value{types.NewString(g.key)}
			for _, c := range calls {
				vals = append(vals, aggBatchOver(c, winRandSchema, g.rows))
			}
			vals = append(vals, types.NewTimestamp(g.span.start*1e6), types.NewTimestamp(g.span.end*1e6), types.NewTimestamp((g.span.end-1)*1e6))
			out = append(out, winEmitted{at: at, kind: types.Insert, vals: vals})
		}
	}
	for i, ev := range evs {
		if ev.row == nil {
			if ev.wm > wm {
				wm = ev.wm
				fire(i)
			}
			continue
		}
		ts := msOf(ev.row.Values[1].Int())
		key := ev.row.Values[0].Str()
		spans := a.windows(nil, ts)
		open := false
		for _, s := range spans {
			if (s.end-1)*1e6 <= wm {
				continue
			}
			open = true
			id := fmt.Sprint(s, key)
			g := groups[id]
			if g == nil {
				seq++
				g = &winGroup{span: s, key: key, seq: seq}
				groups[id] = g
			}
			if !ev.row.Kind.IsRetraction() {
				g.rows = append(g.rows, ev.row.Values)
			} else if j := slices.IndexFunc(g.rows, func(v []types.Value) bool { return equalValues(v, ev.row.Values) }); j >= 0 {
				g.rows = slices.Delete(g.rows, j, j+1)
			}
		}
		if !open {
			late++
		}
	}
	return out, late
}

// aggBatchOver computes call over rows directly (as aggBatch, for any
// schema).
func aggBatchOver(c jobgraph.AggCall, schema *types.Schema, rows [][]types.Value) types.Value {
	var vals []types.Value
	seen := map[string]bool{}
	for _, row := range rows {
		if c.Func == jobgraph.AggCountStar {
			vals = append(vals, types.Null)
			continue
		}
		v := row[c.Args[0]]
		if v.IsNull() {
			continue
		}
		if c.Distinct {
			if seen[v.String()] {
				continue
			}
			seen[v.String()] = true
		}
		vals = append(vals, v)
	}
	switch c.Func {
	case jobgraph.AggCountStar, jobgraph.AggCount:
		return types.NewInt(int64(len(vals)))
	case jobgraph.AggMin, jobgraph.AggMax:
		if len(vals) == 0 {
			return types.Null
		}
		if c.Func == jobgraph.AggMax {
			return slices.MaxFunc(vals, types.Compare)
		}
		return slices.MinFunc(vals, types.Compare)
	}
	fn, err := newAggFunc(&c, schema)
	if err != nil {
		panic(err)
	}
	s := &accState{}
	for _, v := range vals {
		if err := fn.add(s, []types.Value{v}); err != nil {
			panic(err)
		}
	}
	return fn.value(s)
}

// TestWindowAggregateMatchesBatch: TUMBLE, HOP and CUMULATE window
// aggregates over random out-of-order input with late rows and
// retractions emit, at the right watermark, what a brute-force grouping on
// the computed window columns gives; the same aggregate over the output
// of the window TVF (attached windows) gives the same rows; restoring
// anywhere changes nothing.
func TestWindowAggregateMatchesBatch(t *testing.T) {
	windows := []jobgraph.Window{
		{Kind: jobgraph.Tumble, Size: int64(5 * time.Minute)},
		{Kind: jobgraph.Tumble, Size: int64(5 * time.Minute), Offset: int64(-2 * time.Minute)},
		{Kind: jobgraph.Hop, Size: int64(6 * time.Minute), Slide: int64(2 * time.Minute)},
		{Kind: jobgraph.Hop, Size: int64(6 * time.Minute), Slide: int64(3 * time.Minute), Offset: int64(time.Minute)},
		{Kind: jobgraph.Cumulate, Size: int64(6 * time.Minute), Step: int64(2 * time.Minute)},
	}
	calls := winCalls()
	for seed := range uint64(12) {
		for wi, w := range windows {
			w.TimeColumn = 1
			r := rand.New(rand.NewPCG(seed, uint64(wi)))
			evs := winRandEvents(r, 300, 4*time.Minute, time.Duration(r.IntN(4))*time.Minute, true)
			spec := &jobgraph.WindowAggregate{Keys: []int{0}, Calls: calls, Windowing: jobgraph.Windowing{Window: w}}
			build := func(oc OpContext) (Operator, error) { return newWindowAggOp(spec, winRandSchema, oc) }
			got := winCheckRestore(t, r, build, evs)
			want, wantLate := winBatch(t, w, calls, evs)
			_, late := winRunOp(t, build, evs, nil)
			require.Equal(t, wantLate, late, "seed %d window %d: late rows", seed, wi)
			require.Equal(t, len(want), len(got.rows), "seed %d window %d: rows", seed, wi)
			require.NotEmpty(t, want)
			for i := range want {
				require.Equal(t, want[i].at, got.rows[i].at, "seed %d window %d row %d: emitted with event", seed, wi, i)
				require.True(t, equalValues(want[i].vals, got.rows[i].vals), "seed %d window %d row %d:\nwant %v\ngot  %v", seed, wi, i, want[i].vals, got.rows[i].vals)
			}

			// The window TVF then an attached aggregate: the same rows.
			tvfOut := &winOut{}
			tvf, err := newWindowTVFOp(&jobgraph.WindowTVF{Window: w}, winRandSchema, OpContext{Out: tvfOut})
			require.NoError(t, err)
			in := types.NewSchema(append(slices.Clone(winRandSchema.Fields), jobgraph.WindowColumns(types.Timestamp(3))...)...)
			att := &jobgraph.WindowAggregate{Keys: []int{0}, Calls: calls, Windowing: jobgraph.Windowing{Window: w, Attached: true, WindowStart: 4, WindowEnd: 5}}
			aggOut := &winOut{}
			agg, err := newWindowAggOp(att, in, OpContext{NS: "att", KV: state.NewMemory(), Out: aggOut})
			require.NoError(t, err)
			for i, ev := range evs {
				aggOut.at = i
				if ev.row == nil {
					require.NoError(t, agg.Watermark(0, ev.wm))
					continue
				}
				tvfOut.rows = tvfOut.rows[:0]
				require.NoError(t, tvf.Process(0, *ev.row))
				for _, row := range tvfOut.rows {
					require.NoError(t, agg.Process(0, types.Row{Kind: row.kind, Values: row.vals}))
				}
			}
			require.Equal(t, got.String(), aggOut.String(), "seed %d window %d: attached", seed, wi)
		}
	}
}

// TestSessionAggregateMatchesBatch: a session window aggregate over
// random input equals sessions computed in batch (rows of a key sorted by
// time, a new session where the next row is more than the gap after the
// last), when the watermark lags enough that no row is late and no session
// fires before a row could still touch it.
func TestSessionAggregateMatchesBatch(t *testing.T) {
	calls := winCalls()
	const gap = 3 * time.Minute
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 9))
		const disorder = 4 * time.Minute
		evs := winRandEvents(r, 200, disorder, disorder+gap, false)
		w := jobgraph.Window{Kind: jobgraph.Session, Gap: int64(gap), TimeColumn: 1}
		spec := &jobgraph.WindowAggregate{Keys: []int{0}, Calls: calls, Windowing: jobgraph.Windowing{Window: w}}
		build := func(oc OpContext) (Operator, error) { return newWindowAggOp(spec, winRandSchema, oc) }
		got := winCheckRestore(t, r, build, evs)
		_, late := winRunOp(t, build, evs, nil)
		require.Zero(t, late)

		byKey := map[string][][]types.Value{}
		for _, ev := range evs {
			if ev.row != nil {
				k := ev.row.Values[0].Str()
				byKey[k] = append(byKey[k], ev.row.Values)
			}
		}
		want := map[string]bool{}
		for k, rows := range byKey {
			slices.SortStableFunc(rows, func(a, b []types.Value) int { return cmp.Compare(a[1].Int(), b[1].Int()) })
			var cur [][]types.Value
			flush := func() {
				start, end := msOf(cur[0][1].Int()), msOf(cur[len(cur)-1][1].Int())+gap.Milliseconds()
				vals := []types.Value{types.NewString(k)}
				for _, c := range calls {
					vals = append(vals, aggBatchOver(c, winRandSchema, cur))
				}
				vals = append(vals, types.NewTimestamp(start*1e6), types.NewTimestamp(end*1e6), types.NewTimestamp((end-1)*1e6))
				want[fmt.Sprint(vals)] = true
			}
			for _, row := range rows {
				if len(cur) > 0 && msOf(row[1].Int()) > msOf(cur[len(cur)-1][1].Int())+gap.Milliseconds() {
					flush()
					cur = nil
				}
				cur = append(cur, row)
			}
			flush()
		}
		require.Len(t, got.rows, len(want), "seed %d", seed)
		for _, row := range got.rows {
			require.True(t, want[fmt.Sprint(row.vals)], "seed %d: unexpected %v", seed, row.vals)
			// Emitted once the watermark passed the session's end.
			end := row.vals[len(row.vals)-2].Int()
			require.True(t, evs[row.at].row == nil && evs[row.at].wm >= end-1e6, "seed %d: %v emitted early", seed, row.vals)
		}
	}
}

// winTumbled returns evs with each row's 5-minute tumbling window appended
// (window_start, window_end), as a window TVF gives them.
func winTumbled(evs []winEvent) []winEvent {
	out := make([]winEvent, len(evs))
	for i, ev := range evs {
		out[i] = ev
		if ev.row == nil {
			continue
		}
		ts := msOf(ev.row.Values[1].Int())
		s := windowStart(ts, 0, 5*60*1000)
		row := types.Row{Kind: ev.row.Kind, Values: append(slices.Clone(ev.row.Values),
			types.NewTimestamp(s*1e6), types.NewTimestamp((s+5*60*1000)*1e6))}
		out[i].row = &row
	}
	return out
}

var winTumbledSchema = types.NewSchema(append(slices.Clone(winRandSchema.Fields),
	types.Field{Name: "window_start", Type: types.Timestamp(3)}, types.Field{Name: "window_end", Type: types.Timestamp(3)})...)

// insertOnly drops the retractions of evs.
func insertOnly(evs []winEvent) []winEvent {
	return slices.DeleteFunc(slices.Clone(evs), func(ev winEvent) bool { return ev.row != nil && ev.row.Kind.IsRetraction() })
}

// TestWindowOperatorsRestore: every window operator, run over random
// input with late rows and restored from its flushed state at half and at
// random events, emits what the uninterrupted run emits.
func TestWindowOperatorsRestore(t *testing.T) {
	tumble := jobgraph.Window{Kind: jobgraph.Tumble, Size: int64(5 * time.Minute), TimeColumn: 1}
	attached := jobgraph.Windowing{Window: tumble, Attached: true, WindowStart: 4, WindowEnd: 5}
	cases := []struct {
		name    string
		retract bool
		tumbled bool
		join    bool
		build   func(OpContext) (Operator, error)
	}{
		{name: "session tvf", retract: true, build: func(oc OpContext) (Operator, error) {
			return newWindowTVFOp(&jobgraph.WindowTVF{Window: jobgraph.Window{Kind: jobgraph.Session, Gap: int64(2 * time.Minute),
				TimeColumn: 1, PartitionKeys: []int{0}}}, winRandSchema, oc)
		}},
		{name: "hop aggregate", retract: true, build: func(oc OpContext) (Operator, error) {
			w := jobgraph.Window{Kind: jobgraph.Hop, Size: int64(6 * time.Minute), Slide: int64(2 * time.Minute), TimeColumn: 1}
			return newWindowAggOp(&jobgraph.WindowAggregate{Keys: []int{0}, Calls: allWinCalls(), Windowing: jobgraph.Windowing{Window: w}}, winRandSchema, oc)
		}},
		{name: "session aggregate", retract: true, build: func(oc OpContext) (Operator, error) {
			w := jobgraph.Window{Kind: jobgraph.Session, Gap: int64(2 * time.Minute), TimeColumn: 1}
			return newWindowAggOp(&jobgraph.WindowAggregate{Keys: []int{0}, Calls: allWinCalls(), Windowing: jobgraph.Windowing{Window: w}}, winRandSchema, oc)
		}},
		{name: "rank", tumbled: true, build: func(oc OpContext) (Operator, error) {
			return newWindowRankOp(&jobgraph.WindowRank{Windowing: attached, PartitionKeys: []int{0},
				OrderBy: []jobgraph.SortKey{{Col: 2, Desc: true}}, Func: jobgraph.RankNumber, Start: 1, End: 2, OutputRank: true}, winTumbledSchema, oc)
		}},
		{name: "row number", tumbled: true, build: func(oc OpContext) (Operator, error) {
			return newWindowRankOp(&jobgraph.WindowRank{Windowing: attached, PartitionKeys: []int{3},
				OrderBy: []jobgraph.SortKey{{Col: 2}}, Func: jobgraph.RowNumber, Start: 2, End: 3}, winTumbledSchema, oc)
		}},
		{name: "deduplicate", tumbled: true, build: func(oc OpContext) (Operator, error) {
			return newWindowDedupOp(&jobgraph.WindowDeduplicate{Windowing: attached, Keys: []int{0}, KeepLast: true, TimeColumn: 1}, winTumbledSchema, oc)
		}},
		{name: "full join", tumbled: true, join: true, build: func(oc OpContext) (Operator, error) {
			return newWindowJoinOp(&jobgraph.WindowJoin{Kind: jobgraph.FullJoin, Window: tumble, LeftStart: 4, LeftEnd: 5, RightStart: 4, RightEnd: 5,
				LeftKeys: []int{0}, RightKeys: []int{0}, Left: winTumbledSchema, Right: winTumbledSchema}, oc)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for seed := range uint64(10) {
				r := rand.New(rand.NewPCG(seed, 5))
				evs := winRandEvents(r, 300, 3*time.Minute, time.Duration(r.IntN(3))*time.Minute, c.retract)
				if !c.retract {
					evs = insertOnly(evs)
				}
				if c.tumbled {
					evs = winTumbled(evs)
				}
				if c.join {
					for i := range evs {
						if evs[i].row != nil {
							evs[i].port = r.IntN(2)
						} else if r.IntN(2) == 0 && evs[i].wm != MaxWatermark {
							evs[i].port = 1
						}
					}
					// Both sides end.
					evs = append(evs, winEvent{port: 1, wm: MaxWatermark})
				}
				out := winCheckRestore(t, r, c.build, evs)
				require.NotEmpty(t, out.rows, "seed %d", seed)
			}
		})
	}
}

// allWinCalls is one call of every aggregate function over winRandSchema.
func allWinCalls() []jobgraph.AggCall {
	call := func(f jobgraph.AggFunc, t types.Type, args ...int) jobgraph.AggCall {
		return jobgraph.AggCall{Func: f, Args: args, Filter: -1, Type: t}
	}
	d := call(jobgraph.AggSum, types.Int, 2)
	d.Distinct = true
	return []jobgraph.AggCall{
		call(jobgraph.AggCountStar, types.BigInt.NonNull()), call(jobgraph.AggCount, types.BigInt.NonNull(), 3),
		call(jobgraph.AggSum, types.Int, 2), call(jobgraph.AggAvg, types.Double, 2), call(jobgraph.AggMin, types.Int, 2),
		call(jobgraph.AggMax, types.String, 3), call(jobgraph.AggFirstValue, types.String, 3),
		call(jobgraph.AggLastValue, types.Int, 2), call(jobgraph.AggListAgg, types.String, 3),
		call(jobgraph.AggStddevPop, types.Double, 2), d,
	}
}
