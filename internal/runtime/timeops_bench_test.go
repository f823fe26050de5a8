package runtime

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/types"
)

// The benchmarks of the time operators run each operator over 1M rows
// beside a hand-written Go loop doing the same work on the same rows, and
// report events/s (wall), events/cpu-s (the process's CPU time) and
// allocs/event. The input is generated from pointer-free arrays into one
// reused row, as BenchmarkAggregate does.

const benchRows = 1_000_000

// benchReport reports the metrics of a run of b.N times benchRows events.
func benchReport(b *testing.B, allocs uint64, cpu time.Duration) {
	events := float64(b.N) * benchRows
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(events/cpu.Seconds(), "events/cpu-s")
	b.ReportMetric(float64(allocs)/events, "allocs/event")
}

// benchLoop runs body b.N times, measuring CPU time and allocations.
func benchLoop(b *testing.B, setup func(), body func()) {
	var allocs uint64
	var cpu time.Duration
	for b.Loop() {
		if setup != nil {
			setup()
		}
		before, cpu0 := aggMemAllocs(), aggCPUTime()
		body()
		cpu += aggCPUTime() - cpu0
		allocs += aggMemAllocs() - before
	}
	benchReport(b, allocs, cpu)
}

// BenchmarkTopN: ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) <= 3
// (AppendFast, without the row number) over 1M insert-only rows and 10k
// partitions.
func BenchmarkTopN(b *testing.B) {
	const parts = 10_000
	ks, vs := make([]int64, benchRows), make([]int64, benchRows)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range ks {
		ks[i], vs[i] = int64(r.IntN(parts)), int64(r.IntN(1_000_000))
	}
	schema := types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "v", Type: types.BigInt})
	spec := &jobgraph.Rank{PartitionKeys: []int{0}, OrderBy: []jobgraph.SortKey{{Col: 1, Desc: true}},
		Func: jobgraph.RowNumber, Start: 1, End: 3, Strategy: jobgraph.AppendFastStrategy}
	b.Run("operator", func(b *testing.B) {
		var op *rankOp
		out := &aggNullOut{}
		benchLoop(b, func() {
			var err error
			if op, err = newRankOp(spec, schema, OpContext{NS: "rank", KV: state.NewMemory(), Out: out}); err != nil {
				b.Fatal(err)
			}
		}, func() {
			for i := range ks {
				// A fresh row per event: the operator keeps the rows of
				// its Top-N.
				row := types.Row{Values: []types.Value{types.NewInt(ks[i]), types.NewInt(vs[i])}}
				if err := op.Process(0, row); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("loop", func(b *testing.B) {
		type top struct {
			n    int
			rows [3][]types.Value
		}
		out := &aggNullOut{}
		benchLoop(b, nil, func() {
			m := map[int64]*top{}
			for i := range ks {
				row := []types.Value{types.NewInt(ks[i]), types.NewInt(vs[i])}
				t := m[ks[i]]
				if t == nil {
					t = &top{}
					m[ks[i]] = t
				}
				v := row[1].Int()
				pos := t.n
				for pos > 0 && t.rows[pos-1][1].Int() < v {
					pos--
				}
				if pos >= 3 {
					continue
				}
				if t.n == 3 {
					_ = out.Emit(types.Row{Kind: types.Delete, Values: t.rows[2]})
				} else {
					t.n++
				}
				copy(t.rows[pos+1:t.n], t.rows[pos:t.n-1])
				t.rows[pos] = row
				_ = out.Emit(types.Row{Kind: types.Insert, Values: row})
			}
		})
	})
}

// BenchmarkDeduplicate: keep the first row per key over 1M insert-only
// rows and 100k keys, on proctime (emitted at once) and on rowtime (the
// earliest row waits for the watermark, which follows the time every 1,000
// rows).
func BenchmarkDeduplicate(b *testing.B) {
	const keys = 100_000
	ks := make([]int64, benchRows)
	r := rand.New(rand.NewPCG(3, 4))
	distinct := map[int64]bool{}
	for i := range ks {
		ks[i] = int64(r.IntN(keys))
		distinct[ks[i]] = true
	}
	schema := types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "ts", Type: types.Timestamp(3)})
	for _, c := range []struct {
		name    string
		timeCol int
	}{{"proctime", -1}, {"rowtime", 1}} {
		spec := &jobgraph.Deduplicate{Keys: []int{0}, TimeColumn: c.timeCol}
		b.Run(c.name+"/operator", func(b *testing.B) {
			var op *dedupOp
			out := &aggNullOut{}
			benchLoop(b, func() {
				out.n = 0
				var err error
				if op, err = newDedupOp(spec, schema, OpContext{NS: "dedup", KV: state.NewMemory(), Out: out}); err != nil {
					b.Fatal(err)
				}
			}, func() {
				for i := range ks {
					row := types.Row{Values: []types.Value{types.NewInt(ks[i]), types.NewTimestamp(int64(i) * 1e6)}}
					if err := op.Process(0, row); err != nil {
						b.Fatal(err)
					}
					if c.timeCol >= 0 && i%1000 == 999 {
						if err := op.Watermark(0, int64(i)*1e6); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
			if out.n != len(distinct) {
				b.Fatalf("%d rows out, want %d", out.n, len(distinct))
			}
		})
		b.Run(c.name+"/loop", func(b *testing.B) {
			out := &aggNullOut{}
			benchLoop(b, nil, func() {
				// Keep first per key: emitted at once, or (rowtime) held
				// until the watermark passes it.
				seen := map[int64]bool{}
				var pending [][]types.Value
				for i := range ks {
					if c.timeCol >= 0 && i%1000 == 0 {
						for _, p := range pending {
							_ = out.Emit(types.Row{Values: p})
						}
						pending = pending[:0]
					}
					// A fresh row per event, as the operator is given.
					row := []types.Value{types.NewInt(ks[i]), types.NewTimestamp(int64(i) * 1e6)}
					if seen[ks[i]] {
						continue
					}
					seen[ks[i]] = true
					if c.timeCol < 0 {
						_ = out.Emit(types.Row{Values: row})
						continue
					}
					pending = append(pending, row)
				}
			})
		})
	}
}

// BenchmarkIntervalJoin: an inner join on k with l.ts BETWEEN r.ts - 1s
// AND r.ts + 1s over 1M rows (half per side, 10k keys), times ascending by
// 1ms per row and the watermark following every 100 rows.
func BenchmarkIntervalJoin(b *testing.B) {
	const keys = 10_000
	ks := make([]int64, benchRows)
	side := make([]int, benchRows)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range ks {
		ks[i], side[i] = int64(r.IntN(keys)), r.IntN(2)
	}
	schema := types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "ts", Type: types.Timestamp(3)})
	spec := &jobgraph.IntervalJoin{Kind: jobgraph.InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1,
		LowerBound: -1e9, UpperBound: 1e9, Left: schema, Right: schema}
	var opOut int
	b.Run("operator", func(b *testing.B) {
		var op *intervalJoinOp
		out := &aggNullOut{}
		benchLoop(b, func() {
			out.n = 0
			var err error
			if op, err = newIntervalJoinOp(spec, OpContext{NS: "ij", KV: state.NewMemory(), Out: out}); err != nil {
				b.Fatal(err)
			}
		}, func() {
			for i := range ks {
				row := types.Row{Values: []types.Value{types.NewInt(ks[i]), types.NewTimestamp(int64(i) * 1e6)}}
				if err := op.Process(side[i], row); err != nil {
					b.Fatal(err)
				}
				if i%100 == 99 {
					for p := range 2 {
						if err := op.Watermark(p, int64(i)*1e6); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
		})
		opOut = out.n
	})
	b.Run("loop", func(b *testing.B) {
		type cachedRow struct {
			t    int64
			vals []types.Value
		}
		out := &aggNullOut{}
		benchLoop(b, func() { out.n = 0 }, func() {
			// Per key and side the rows in time order; rows expire from
			// the front as the watermark passes them.
			m := map[int64]*[2][]cachedRow{}
			var wm int64 = -1 << 62
			for i := range ks {
				t := int64(i) * 1e6
				row := []types.Value{types.NewInt(ks[i]), types.NewTimestamp(t)}
				e := m[ks[i]]
				if e == nil {
					e = &[2][]cachedRow{}
					m[ks[i]] = e
				}
				s := side[i]
				for o := range 2 {
					rows := e[o]
					for len(rows) > 0 && rows[0].t+1e9 < wm {
						rows = rows[1:]
					}
					e[o] = rows
				}
				for _, c := range e[1-s] {
					if c.t >= t-1e9 && c.t <= t+1e9 {
						l, rr := row, c.vals
						if s == 1 {
							l, rr = c.vals, row
						}
						_ = out.Emit(types.Row{Values: append(append(make([]types.Value, 0, 4), l...), rr...)})
					}
				}
				e[s] = append(e[s], cachedRow{t: t, vals: row})
				if i%100 == 99 {
					wm = t
				}
			}
		})
		if opOut != 0 && out.n != opOut {
			b.Fatalf("the loop emitted %d rows, the operator %d", out.n, opOut)
		}
	})
}
