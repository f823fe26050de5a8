package wasm_test

import (
	goruntime "runtime"
	"syscall"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/wasm"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
)

// BenchmarkOrderStatusTracker calls OrderStatusTracker through the PTF
// host (the test harness, with its in-memory state) compiled in and from
// the module, in the same run: the difference is the WebAssembly boundary
// per call.
func BenchmarkOrderStatusTracker(b *testing.B) {
	events := []string{"PLACED", "FULFILLED", "SHIPPED", "DELIVERED", "CANCELED"}
	run := func(b *testing.B, d *ptf.Definition) {
		h, err := ptftest.New(d, ptftest.Table("input", "ROW<order_id INT NOT NULL, event_type STRING>", ptftest.PartitionBy("order_id")))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		goruntime.LockOSThread()
		defer goruntime.UnlockOSThread()
		b.ResetTimer()
		cpu0 := threadCPU()
		const keys = 20011 // prime: consecutive events hit different keys
		for i := range b.N {
			// Each key goes through the lifecycle, one event per pass over
			// the keys, as the pipeline benchmark's orders do.
			key, ev := (i*7919)%keys, events[(i/keys)%len(events)]
			if err := h.Insert("input", types.NewInt(int64(key)), types.NewString(ev)); err != nil {
				b.Fatal(err)
			}
			if i%1024 == 0 {
				h.TakeOutput()
			}
		}
		// The CPU time of this thread (the function runs on it): steadier
		// than ns/op on a loaded machine.
		b.ReportMetric(float64((threadCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
	b.Run("compiled-in", func(b *testing.B) { run(b, examples.OrderStatusTracker) })
	b.Run("wasm", func(b *testing.B) {
		m, err := runtime(b).Load(b.Context(), moduleBytes(b), wasm.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		d, _ := m.Definition("examples.OrderStatusTracker")
		run(b, d)
	})
	// Parts of it: a function that does nothing (what the boundary itself
	// costs), one that only collects a row, one that only writes state.
	for name, id := range map[string]string{"wasm-noop": "test.Noop", "wasm-emit": "test.EmitOnly", "wasm-state": "test.StateOnly"} {
		b.Run(name, func(b *testing.B) {
			m, err := runtime(b).Load(b.Context(), moduleBytes(b), wasm.Limits{})
			if err != nil {
				b.Fatal(err)
			}
			d, _ := m.Definition(id)
			run(b, d)
		})
	}
}

// threadCPU returns the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
