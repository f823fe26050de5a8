package runtime

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/types"
)

// winBenchOut is where the hand-written loop emits.
var winBenchOut Output

// BenchmarkWindowAggregate: COUNT(*), SUM(v) per key and 1-minute
// tumbling window over 1M in-order events (one per millisecond of event
// time: ~17 windows) and 10k keys, the watermark advanced after every
// event as the source emits it, against a hand-written Go loop doing the
// same work (a map per open window, emitted and dropped when the
// watermark passes its end).
func BenchmarkWindowAggregate(b *testing.B) {
	const eventsN, keysN = 1_000_000, 10_000
	const size = int64(time.Minute)
	schema := types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "ts", Type: types.Timestamp(3)},
		types.Field{Name: "v", Type: types.BigInt})
	ks, vs := make([]int64, eventsN), make([]int64, eventsN)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range ks {
		ks[i], vs[i] = int64(r.IntN(keysN)), int64(r.IntN(1000))
	}
	tsOf := func(i int) int64 { return int64(i) * 1e6 }
	row := types.Row{Values: make([]types.Value, 3)}
	spec := &jobgraph.WindowAggregate{Keys: []int{0}, Windowing: jobgraph.Windowing{Window: jobgraph.Window{
		Kind: jobgraph.Tumble, Size: size, TimeColumn: 1}}, Calls: []jobgraph.AggCall{
		{Func: jobgraph.AggCountStar, Filter: -1, Type: types.BigInt.NonNull()},
		{Func: jobgraph.AggSum, Args: []int{2}, Filter: -1, Type: types.BigInt},
	}}
	report := func(b *testing.B, allocs uint64, cpu time.Duration, out int) {
		events := float64(b.N) * eventsN
		b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
		b.ReportMetric(events/cpu.Seconds(), "events/cpu-s")
		b.ReportMetric(float64(allocs)/events, "allocs/event")
		b.ReportMetric(float64(out), "rows/run")
	}
	b.Run("operator", func(b *testing.B) {
		var allocs uint64
		var cpu time.Duration
		out := &aggNullOut{}
		for b.Loop() {
			out.n = 0
			op, err := newWindowAggOp(spec, schema, OpContext{NS: "w", KV: state.NewMemory(), Out: out})
			if err != nil {
				b.Fatal(err)
			}
			before, cpu0 := aggMemAllocs(), aggCPUTime()
			for i := range ks {
				ts := tsOf(i)
				row.Values[0], row.Values[1], row.Values[2] = types.NewInt(ks[i]), types.NewTimestamp(ts), types.NewInt(vs[i])
				if err := op.Process(0, row); err != nil {
					b.Fatal(err)
				}
				if err := op.Watermark(0, ts); err != nil {
					b.Fatal(err)
				}
			}
			if err := op.Watermark(0, MaxWatermark); err != nil {
				b.Fatal(err)
			}
			cpu += aggCPUTime() - cpu0
			allocs += aggMemAllocs() - before
		}
		report(b, allocs, cpu, out.n)
	})
	b.Run("gomap", func(b *testing.B) {
		type acc struct{ count, sum int64 }
		type window struct {
			end  int64
			accs map[int64]*acc
			keys []int64 // in arrival order, as the operator emits them
		}
		var allocs uint64
		var cpu time.Duration
		out := &aggNullOut{}
		// Rows leave through the Output interface and are not reused, as
		// an operator's (a variable the compiler cannot see through).
		winBenchOut = out
		emit := winBenchOut
		for b.Loop() {
			out.n = 0
			before, cpu0 := aggMemAllocs(), aggCPUTime()
			var open []*window // by end
			fire := func(wm int64) {
				for len(open) > 0 && open[0].end-1e6 <= wm {
					w := open[0]
					open = open[1:]
					for _, k := range w.keys {
						a := w.accs[k]
						_ = emit.Emit(types.Row{Kind: types.Insert, Values: []types.Value{types.NewInt(k), types.NewInt(a.count), types.NewInt(a.sum),
							types.NewTimestamp(w.end - size), types.NewTimestamp(w.end), types.NewTimestamp(w.end - 1e6)}})
					}
				}
			}
			for i := range ks {
				ts := tsOf(i)
				row.Values[0], row.Values[1], row.Values[2] = types.NewInt(ks[i]), types.NewTimestamp(ts), types.NewInt(vs[i])
				end := row.Values[1].Int() - row.Values[1].Int()%size + size
				var w *window
				for _, o := range open {
					if o.end == end {
						w = o
					}
				}
				if w == nil {
					w = &window{end: end, accs: map[int64]*acc{}}
					open = append(open, w)
				}
				k := row.Values[0].Int()
				a := w.accs[k]
				if a == nil {
					a = &acc{}
					w.accs[k] = a
					w.keys = append(w.keys, k)
				}
				a.count++
				a.sum += row.Values[2].Int()
				fire(ts)
			}
			fire(MaxWatermark)
			cpu += aggCPUTime() - cpu0
			allocs += aggMemAllocs() - before
		}
		report(b, allocs, cpu, out.n)
	})
}
