package engine

import (
	"context"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/runtime"
	"github.com/eddy-sql/eddy/types"
)

// BenchmarkCheckpoint measures what checkpoints cost the tutorial pipeline
// (bench_test.go: 1M order events over 100k ids -> OrderStatusTracker ->
// upsert sink) with 'execution.checkpointing.interval' = 100 ms, 1 s, 10 s
// and 0 (no periodic checkpoints: the job commits only when the script
// syncs it, or after runtime.Options.CheckpointRecords input records), in
// two settings:
//
//   - backlog: the events are in order_events before the CTAS starts, as
//     in BenchmarkPipelineEngine; events/s is the job's throughput.
//   - live: the CTAS starts on the empty table and the events are appended
//     while it runs, checkpointLiveChunk events every checkpointLiveEvery
//     (checkpointLiveRate events/s, below what the job can do), so the job
//     is idle between appends as a continuous job usually is. The wall
//     time is then the feed's; cpu-ns/event is the cost, and lag-ms the
//     time from the last append until the job committed everything.
//
// Besides the metrics of pipelineMeter each run reports checkpoints: the
// commits of the job (periodic, size-triggered and the final sync).
//
//	go test -run '^$' -bench Checkpoint -benchtime 1x ./internal/engine/
func BenchmarkCheckpoint(b *testing.B) {
	intervals := []struct{ name, value string }{
		{"none", "0"}, {"10s", "10 s"}, {"1s", "1 s"}, {"100ms", "100 ms"},
	}
	for _, mode := range []string{"backlog", "live"} {
		for _, iv := range intervals {
			b.Run(mode+"/interval="+iv.name, func(b *testing.B) {
				checkpointBench(b, mode == "live", iv.value)
			})
		}
	}
}

const (
	checkpointLiveChunk = 1000
	checkpointLiveEvery = 10 * time.Millisecond
	checkpointLiveRate  = int(checkpointLiveChunk * (time.Second / checkpointLiveEvery))
)

func checkpointBench(b *testing.B, live bool, interval string) {
	events, stmts := pipelineData()
	want, wantChanges := pipelineExpected()
	var rows [][]types.Row
	if live {
		rows = checkpointRows(events)
	}
	ctx := context.Background()
	var m pipelineMeter
	var checkpoints int64
	var lag time.Duration
	var lastAppend time.Time
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		e := pipelineEngine(ctx, b)
		pprof.Do(ctx, pprof.Labels("phase", "load"), func(context.Context) {
			pipelineSchema(b, e)
			if !live {
				for _, s := range stmts {
					pipelineExec(b, e, s)
				}
			}
		})
		if !live {
			if got := e.logRecords(); got != int64(len(events)) {
				b.Fatalf("loaded %d events, want %d", got, len(events))
			}
		}
		pipelineSettle(b, e)
		pipelineExec(b, e, "SET 'execution.checkpointing.interval' = '"+interval+"'")

		lsm0 := e.db.Pebble().Metrics()
		m.begin(b)
		var job *runtime.Job
		pprof.Do(ctx, pprof.Labels("phase", "pipeline"), func(context.Context) {
			pipelineExec(b, e, `CREATE TABLE order_status (PRIMARY KEY (order_id) NOT ENFORCED)
DISTRIBUTED INTO 1 BUCKETS WITH ('changelog.mode' = 'upsert') AS
SELECT order_id, status FROM OrderStatusTracker(input => TABLE order_events PARTITION BY order_id)`)
			e.mu.Lock()
			job = e.jobs[len(e.jobs)-1]
			e.mu.Unlock()
			if live {
				lastAppend = checkpointFeed(b, e, rows)
			}
			pipelineExec(b, e, "SHOW TABLES") // syncs: waits until the job committed everything
			if live {
				lag += time.Since(lastAppend)
			}
		})
		m.end(b)
		checkpoints += job.Metrics().Checkpoints
		pipelineLogLSM(b, lsm0, e.db.Pebble().Metrics())

		if got := e.logRecords() - int64(len(events)); got != int64(wantChanges) {
			b.Fatalf("order_status received %d changes, the hand loop emitted %d", got, wantChanges)
		}
		pprof.Do(ctx, pprof.Labels("phase", "check"), func(context.Context) {
			pipelineCheck(b, e, want)
		})
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
	b.ReportMetric(float64(checkpoints)/float64(b.N), "checkpoints")
	if live {
		b.ReportMetric(float64(lag.Milliseconds())/float64(b.N), "lag-ms")
	}
}

// checkpointRows returns the events as rows in chunks of
// checkpointLiveChunk, with the values the INSERT statements of
// pipelineData produce.
func checkpointRows(events []pipelineEvent) [][]types.Row {
	base := time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)
	var chunks [][]types.Row
	for lo := 0; lo < len(events); lo += checkpointLiveChunk {
		var chunk []types.Row
		for i := lo; i < min(lo+checkpointLiveChunk, len(events)); i++ {
			chunk = append(chunk, types.Row{Kind: types.Insert, Values: []types.Value{
				types.NewInt(int64(events[i].id)),
				types.NewString(events[i].typ),
				types.NewTimestampTime(base.Add(time.Duration(i) * time.Millisecond)),
			}})
		}
		chunks = append(chunks, chunk)
	}
	return chunks
}

// checkpointFeed appends the chunks into order_events, one every
// checkpointLiveEvery (without waiting for the job), and returns when it
// appended the last one.
func checkpointFeed(b *testing.B, e *Engine, chunks [][]types.Row) time.Time {
	b.Helper()
	t, ok := e.cat.Table(catalog.DefaultCatalog, catalog.DefaultDatabase, "order_events")
	if !ok {
		b.Fatal("no table order_events")
	}
	start := time.Now()
	for i, chunk := range chunks {
		if d := time.Until(start.Add(time.Duration(i) * checkpointLiveEvery)); d > 0 {
			time.Sleep(d)
		}
		if err := e.appendRows(t, chunk); err != nil {
			b.Fatal(err)
		}
	}
	return time.Now()
}
