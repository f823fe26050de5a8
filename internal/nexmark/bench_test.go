package nexmark

import (
	"flag"
	"testing"
)

var benchEvents = flag.Int64("nexmark.events", 200_000, "events per query in BenchmarkNexmark")

// BenchmarkNexmark runs each query Eddy runs once per iteration over
// -nexmark.events events (use -benchtime 1x) and reports CPU ns and
// allocations per event; with -cpuprofile it shows where a query's time
// goes.
func BenchmarkNexmark(b *testing.B) {
	for _, q := range Queries {
		if !q.Runs() {
			continue
		}
		b.Run(q.Name, func(b *testing.B) {
			var cpu, allocs float64
			for b.Loop() {
				r, err := Bench(b.Context(), q.Name, BenchOptions{Events: *benchEvents, TPS: 10_000_000, Dir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				cpu += float64(r.CPU.Nanoseconds()) / float64(r.Events)
				allocs += r.AllocsPerEvent()
			}
			b.ReportMetric(cpu/float64(b.N), "cpu-ns/event")
			b.ReportMetric(allocs/float64(b.N), "allocs/event")
		})
	}
}
