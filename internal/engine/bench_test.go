package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/wasm/wasmtest"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// The pipeline benchmarks run the upserting-changelog tutorial
// (../shared/acceptance/order_status.sql) at scale: a log table of order
// events -> OrderStatusTracker (value state, durable in Pebble) -> an upsert
// sink table, next to a hand-written Go loop doing the same status tracking
// on a map. See docs/performance.md.
//
//	go test -run '^$' -bench Pipeline -benchmem -benchtime 1x -count 3 ./internal/engine/
const (
	pipelineEvents = 1_000_000
	pipelineOrders = 100_000
	// pipelineCancel is the probability that an event cancels its order.
	pipelineCancel = 0.10
	// pipelineChunk is the number of rows per INSERT ... VALUES of the load.
	pipelineChunk = 10_000
	pipelineSeed1 = 20260801
	pipelineSeed2 = 42
)

// pipelineEvent is one row of order_events.
type pipelineEvent struct {
	id  int32
	typ string
}

// pipelineLifecycle is the order of the non-cancel events of one order.
// After DELIVERED (or CANCELED) the next event of that id starts a new order
// with PLACED, so the 100k ids carry 1M events.
var pipelineLifecycle = [...]string{"PLACED", "FULFILLED", "SHIPPED", "DELIVERED"}

var pipelineData = sync.OnceValues(func() ([]pipelineEvent, []string) {
	r := rand.New(rand.NewPCG(pipelineSeed1, pipelineSeed2))
	stage := make([]uint8, pipelineOrders)
	events := make([]pipelineEvent, pipelineEvents)
	for i := range events {
		// Orders interleave: each event belongs to a uniformly drawn id
		// and advances that order's lifecycle, or cancels it.
		id := r.IntN(pipelineOrders)
		if r.Float64() < pipelineCancel {
			events[i] = pipelineEvent{id: int32(id), typ: "CANCELED"}
			stage[id] = 0
			continue
		}
		events[i] = pipelineEvent{id: int32(id), typ: pipelineLifecycle[stage[id]]}
		stage[id] = (stage[id] + 1) % uint8(len(pipelineLifecycle))
	}
	// The INSERT statements of the load, one event per millisecond so that
	// every row advances the watermark, as in the tutorial.
	base := time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)
	var stmts []string
	var sb strings.Builder
	for lo := 0; lo < len(events); lo += pipelineChunk {
		sb.Reset()
		sb.WriteString("INSERT INTO order_events VALUES\n")
		for i := lo; i < min(lo+pipelineChunk, len(events)); i++ {
			if i > lo {
				sb.WriteString(",\n")
			}
			ts := base.Add(time.Duration(i) * time.Millisecond)
			fmt.Fprintf(&sb, "(%d, '%s', TIMESTAMP '%s')", events[i].id, events[i].typ, ts.Format("2006-01-02 15:04:05.000"))
		}
		stmts = append(stmts, sb.String())
	}
	return events, stmts
})

// pipelineChange is one row of the tracker's upsert changelog.
type pipelineChange struct {
	kind   types.RowKind
	id     int32
	status string
}

func pipelineStatus(eventType string) string {
	switch eventType {
	case "PLACED", "FULFILLED":
		return "PENDING"
	case "SHIPPED":
		return "SHIPPED"
	case "DELIVERED":
		return "DELIVERED"
	}
	return ""
}

// pipelineTrack is the hand-written equivalent of OrderStatusTracker: the
// same transitions and the same changelog, on a map. It is the practical
// limit of the pipeline on one core (no decoding, no durability, no sink
// encoding).
func pipelineTrack(events []pipelineEvent, status map[int32]string, out []pipelineChange) []pipelineChange {
	for _, ev := range events {
		cur := status[ev.id]
		if ev.typ == "CANCELED" {
			if cur != "" {
				out = append(out, pipelineChange{types.Delete, ev.id, cur})
				delete(status, ev.id)
			}
			continue
		}
		next := pipelineStatus(ev.typ)
		if next == "" || next == cur {
			continue
		}
		if cur == "" {
			out = append(out, pipelineChange{types.Insert, ev.id, next})
		} else {
			out = append(out, pipelineChange{types.UpdateAfter, ev.id, next})
		}
		status[ev.id] = next
	}
	return out
}

// pipelineExpected returns the hand loop's final statuses and changelog
// length.
var pipelineExpected = sync.OnceValues(func() (map[int32]string, int) {
	events, _ := pipelineData()
	status := map[int32]string{}
	out := pipelineTrack(events, status, nil)
	return status, len(out)
})

var pipelineMixOnce sync.Once

// pipelineLogMix logs (with -v) the event mix and the expected output once.
func pipelineLogMix(b *testing.B) {
	if !testing.Verbose() {
		return
	}
	pipelineMixOnce.Do(func() {
		events, _ := pipelineData()
		want, changes := pipelineExpected()
		mix := map[string]int{}
		ids := map[int32]bool{}
		for _, ev := range events {
			mix[ev.typ]++
			ids[ev.id] = true
		}
		b.Logf("%d events over %d order ids: PLACED %d, FULFILLED %d, SHIPPED %d, DELIVERED %d, CANCELED %d; %d changes, %d live orders",
			len(events), len(ids), mix["PLACED"], mix["FULFILLED"], mix["SHIPPED"], mix["DELIVERED"], mix["CANCELED"], changes, len(want))
	})
}

// pipelineMeter measures the wall time, the CPU time of the whole process
// (user + system, all goroutines: source, keyed task, Pebble, GC) and the
// allocations of the measured sections of a benchmark. mallocs and bytes
// accumulate end - begin in modular arithmetic.
type pipelineMeter struct {
	wall, cpu      time.Duration
	mallocs, bytes uint64
	gcs            uint32 // garbage collections during the measured sections
	// events is the number of events per iteration (0: pipelineEvents).
	events int

	start    time.Time
	cpuStart time.Duration
	ms       runtime.MemStats
}

func pipelineCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pipelineProfile is where EDDY_PIPELINE_CPUPROFILE asks for a CPU profile
// of the measured section only (without the load and the check, which
// -cpuprofile includes); each run overwrites it, so use -count 1. It cannot
// be combined with -cpuprofile.
var pipelineProfile = os.Getenv("EDDY_PIPELINE_CPUPROFILE")

func (m *pipelineMeter) begin(b *testing.B) {
	if pipelineProfile != "" {
		f, err := os.Create(pipelineProfile)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatalf("EDDY_PIPELINE_CPUPROFILE: %v", err)
		}
		b.Cleanup(func() { _ = f.Close() })
	}
	runtime.GC()
	runtime.ReadMemStats(&m.ms)
	m.mallocs -= m.ms.Mallocs
	m.bytes -= m.ms.TotalAlloc
	m.gcs -= m.ms.NumGC
	m.cpuStart = pipelineCPU()
	m.start = time.Now()
	b.StartTimer()
}

func (m *pipelineMeter) end(b *testing.B) {
	b.StopTimer()
	m.wall += time.Since(m.start)
	m.cpu += pipelineCPU() - m.cpuStart
	runtime.ReadMemStats(&m.ms)
	m.mallocs += m.ms.Mallocs
	m.bytes += m.ms.TotalAlloc
	m.gcs += m.ms.NumGC
	if pipelineProfile != "" {
		pprof.StopCPUProfile()
	}
}

// report reports throughput and cost per event. events/s and ns/event are
// wall clock; cpu-ns/event is the CPU time of the process per event (above
// ns/event when goroutines overlap on both cores).
func (m *pipelineMeter) report(b *testing.B) {
	n := float64(b.N) * pipelineEvents
	if m.events > 0 {
		n = float64(b.N) * float64(m.events)
	}
	b.ReportMetric(n/m.wall.Seconds(), "events/s")
	b.ReportMetric(float64(m.wall.Nanoseconds())/n, "ns/event")
	b.ReportMetric(float64(m.cpu.Nanoseconds())/n, "cpu-ns/event")
	b.ReportMetric(float64(m.mallocs)/n, "allocs/event")
	b.ReportMetric(float64(m.bytes)/n, "B/event")
	b.ReportMetric(float64(m.gcs)/float64(b.N), "GCs/op")
}

// BenchmarkPipelineEngine measures the tutorial's CTAS over 1M events that
// are already in order_events: from submitting the statement until the job
// has processed and committed everything (a following SHOW TABLES syncs
// the running jobs). The load and the check are not measured.
//
// It runs twice in one invocation: with the function compiled in, and with
// the same function loaded from an artifact (the WebAssembly module of
// ./examples/wasm/OrderStatusTracker), so the cost of the WebAssembly
// boundary per event shows side by side.
func BenchmarkPipelineEngine(b *testing.B) {
	b.Run("compiled-in", func(b *testing.B) { benchmarkPipeline(b, nil) })
	b.Run("wasm", func(b *testing.B) {
		code := wasmtest.Module(b, "./examples/wasm/OrderStatusTracker")
		benchmarkPipeline(b, code)
	})
}

// benchmarkPipeline runs the pipeline benchmark; with module set the
// function is bound from an artifact of it.
func benchmarkPipeline(b *testing.B, module []byte) {
	events, stmts := pipelineData()
	want, wantChanges := pipelineExpected()
	pipelineLogMix(b)
	ctx := context.Background()
	var m pipelineMeter
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		e := pipelineEngine(ctx, b)
		// Profile labels tell the phases apart in a -cpuprofile (pprof
		// -tagfocus phase=pipeline); goroutines started by a phase (the
		// job's tasks, Pebble flushes) inherit its label.
		pprof.Do(ctx, pprof.Labels("phase", "load"), func(context.Context) {
			if module != nil {
				pipelineArtifactSchema(b, e, module)
			} else {
				pipelineSchema(b, e)
			}
			for _, s := range stmts {
				pipelineExec(b, e, s)
			}
		})
		if got := e.logRecords(); got != int64(len(events)) {
			b.Fatalf("loaded %d events, want %d", got, len(events))
		}
		pipelineSettle(b, e)

		lsm0 := e.db.Pebble().Metrics()
		m.begin(b)
		pprof.Do(ctx, pprof.Labels("phase", "pipeline"), func(context.Context) {
			pipelineExec(b, e, `CREATE TABLE order_status (PRIMARY KEY (order_id) NOT ENFORCED)
DISTRIBUTED INTO 1 BUCKETS WITH ('changelog.mode' = 'upsert') AS
SELECT order_id, status FROM OrderStatusTracker(input => TABLE order_events PARTITION BY order_id)`)
			pipelineExec(b, e, "SHOW TABLES") // syncs: waits until the job committed everything
		})
		m.end(b)
		pipelineLogLSM(b, lsm0, e.db.Pebble().Metrics())

		// The sink log holds exactly the changelog of the hand loop ...
		if got := e.logRecords() - int64(len(events)); got != int64(wantChanges) {
			b.Fatalf("order_status received %d changes, the hand loop emitted %d", got, wantChanges)
		}
		// ... and reading it back gives the hand loop's live orders.
		pprof.Do(ctx, pprof.Labels("phase", "check"), func(context.Context) {
			pipelineCheck(b, e, want)
		})
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
}

// BenchmarkPipelineHandLoop measures pipelineTrack over the same events.
func BenchmarkPipelineHandLoop(b *testing.B) {
	events, _ := pipelineData()
	want, wantChanges := pipelineExpected()
	var m pipelineMeter
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		m.begin(b)
		status := map[int32]string{}
		out := pipelineTrack(events, status, nil)
		m.end(b)
		if len(out) != wantChanges || len(status) != len(want) {
			b.Fatalf("hand loop: %d changes and %d live orders, want %d and %d", len(out), len(status), wantChanges, len(want))
		}
	}
	m.report(b)
}

// pipelineLogLSM logs (with -v) what the measured section cost Pebble: WAL
// bytes, memtable flushes and compactions (which run on their own
// goroutines, in parallel with the job).
func pipelineLogLSM(b *testing.B, before, after *pebble.Metrics) {
	if !testing.Verbose() {
		return
	}
	var flushed, compacted [2]uint64
	for i, m := range []*pebble.Metrics{before, after} {
		for l := range m.Levels {
			flushed[i] += m.Levels[l].TableBytesFlushed
			compacted[i] += m.Levels[l].TableBytesCompacted
		}
	}
	const mib = 1 << 20
	b.Logf("pebble during the pipeline: WAL %.1f MiB, %d flushes writing %.1f MiB, %d compactions writing %.1f MiB",
		float64(after.WAL.BytesWritten-before.WAL.BytesWritten)/mib,
		after.Flush.Count-before.Flush.Count, float64(flushed[1]-flushed[0])/mib,
		after.Compact.Count-before.Compact.Count, float64(compacted[1]-compacted[0])/mib)
}

// pipelineSettle flushes the loaded events out of the memtable and compacts
// them to the bottom level, so the measurement starts with the input at
// rest and the flushes and compactions it pays for are those of its own
// writes (state and sink output), not the leftovers of the load.
func pipelineSettle(b *testing.B, e *Engine) {
	b.Helper()
	pdb := e.db.Pebble()
	if err := pdb.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := pdb.Compact(context.Background(), []byte{0}, []byte{0xff, 0xff, 0xff, 0xff}, true); err != nil {
		b.Fatal(err)
	}
}

// pipelineExec executes a statement as a script does (syncing running jobs
// first) and drains its rows, if any.
func pipelineExec(b *testing.B, e *Engine, sql string) {
	b.Helper()
	res, err := e.Execute(context.Background(), sql, false)
	if err != nil {
		b.Fatalf("%.80s: %v", sql, err)
	}
	if res.Rows != nil {
		defer res.Rows.Close()
		for {
			_, ok, err := res.Rows.Next(context.Background())
			if err != nil {
				b.Fatalf("%.80s: %v", sql, err)
			}
			if !ok {
				return
			}
		}
	}
}

// pipelineCheck reads order_status back (a snapshot SELECT),
// materializes its changelog by key and compares it with want.
func pipelineCheck(b *testing.B, e *Engine, want map[int32]string) {
	b.Helper()
	ctx := context.Background()
	res, err := e.Execute(ctx, "SELECT order_id, status FROM order_status", false)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Rows.Close()
	got := map[int32]string{}
	for {
		r, ok, err := res.Rows.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if !ok {
			break
		}
		id := int32(r.Values[0].Int())
		switch r.Kind {
		case types.Insert, types.UpdateAfter:
			got[id] = r.Values[1].Str()
		case types.Delete, types.UpdateBefore:
			delete(got, id)
		}
	}
	if len(got) != len(want) {
		b.Fatalf("order_status has %d rows, the hand loop has %d live orders", len(got), len(want))
	}
	for id, s := range want {
		if got[id] != s {
			b.Fatalf("order %d: order_status says %q, the hand loop %q", id, got[id], s)
		}
	}
}

// pipelineEngine opens an engine on a fresh data directory with the
// examples registered.
func pipelineEngine(ctx context.Context, b *testing.B) *Engine {
	reg := ptf.NewRegistry()
	if err := examples.Register(reg); err != nil {
		b.Fatal(err)
	}
	e, err := Open(ctx, Options{DataDir: b.TempDir(), Registry: reg})
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// pipelineSchema creates the tutorial's function and input table.
func pipelineSchema(b *testing.B, e *Engine) {
	pipelineExec(b, e, "CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker'")
	pipelineTable(b, e)
}

// pipelineArtifactSchema is pipelineSchema with the function bound from an
// artifact of module (compiled once per machine: the tests' cache).
func pipelineArtifactSchema(b *testing.B, e *Engine, module []byte) {
	e.modules.cacheDir = wasmtest.CacheDir()
	a, err := e.CreateArtifact(context.Background(), "order_status_ptf", "", module)
	if err != nil {
		b.Fatal(err)
	}
	pipelineExec(b, e, "CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker' USING JAR 'eddy-artifact://"+a.ID+"'")
	pipelineTable(b, e)
}

func pipelineTable(b *testing.B, e *Engine) {
	pipelineExec(b, e, `CREATE TABLE order_events (
  order_id INT NOT NULL,
  event_type STRING,
  event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time
) DISTRIBUTED INTO 1 BUCKETS`)
}
