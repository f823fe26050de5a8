package nexmark

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/runtime"
	"github.com/eddy-sql/eddy/internal/state"
)

// BenchOptions configure Bench.
type BenchOptions struct {
	// Events and TPS fill ${EVENTS_NUM} and ${TPS} (events per second of
	// event time, not a pace: the source emits as fast as the job reads).
	Events, TPS int64
	// Dir holds the data directory of each run (removed after it); ""
	// makes a temporary one.
	Dir string
	// CheckpointInterval is the jobs' checkpoint interval (0: the
	// runtime's default of 1 s).
	CheckpointInterval time.Duration
	// Logger receives the engine's debug logs.
	Logger *slog.Logger
	// MiniBatch runs the queries with the mini-batch setting of the
	// Nexmark suite's Flink configuration (2 s, 50000 rows).
	MiniBatch bool
}

// miniBatchProperties are the Nexmark suite's Flink mini-batch options
// (nexmark-flink/conf/sql-client-defaults.yaml), and miniBatchSettings
// the same as SET statements.
var (
	miniBatchProperties = map[string]string{
		"table.exec.mini-batch.enabled":       "true",
		"table.exec.mini-batch.allow-latency": "2 s",
		"table.exec.mini-batch.size":          "50000",
	}
	miniBatchSettings = []string{
		"SET 'table.exec.mini-batch.enabled' = 'true'",
		"SET 'table.exec.mini-batch.allow-latency' = '2 s'",
		"SET 'table.exec.mini-batch.size' = '50000'",
	}
)

// BenchResult is what one query cost.
type BenchResult struct {
	Query  string
	Events int64
	// Wall is the elapsed time from starting the job to the end of its
	// last checkpoint; CPU the process's user+system CPU time in it.
	Wall, CPU time.Duration
	// Rows is the number of changes written to the sink.
	Rows int64
	// P50 and P99 are the latency quantiles of Job.Metrics (the time
	// from the source sending a batch of events to the sink receiving the
	// rows it produced, queueing included).
	P50, P99 time.Duration
	// StateBytes is the size of the job's keyed state and timers (keys and
	// values) in the store after the run.
	StateBytes int64
	// Allocs and AllocBytes are heap allocations during the run.
	Allocs, AllocBytes uint64
}

// EventsPerCoreSecond is events per second of CPU time.
func (r *BenchResult) EventsPerCoreSecond() float64 { return float64(r.Events) / r.CPU.Seconds() }

// EventsPerSecond is events per second of wall time.
func (r *BenchResult) EventsPerSecond() float64 { return float64(r.Events) / r.Wall.Seconds() }

// AllocsPerEvent is heap allocations per event.
func (r *BenchResult) AllocsPerEvent() float64 { return float64(r.Allocs) / float64(r.Events) }

// Bench runs one query of the suite over o.Events events on a fresh
// engine (on disk, as in production) and measures it. It does not set
// GOMAXPROCS; the command does.
func Bench(ctx context.Context, query string, o BenchOptions) (*BenchResult, error) {
	dir, err := os.MkdirTemp(o.Dir, "eddy-nexmark-"+query+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := Prepare(dir); err != nil {
		return nil, err
	}
	v := DefaultVars(o.Events)
	v.TPS, v.Dir, v.SubmitTime = o.TPS, dir, time.Now().UTC().Format("2006-01-02T15:04:05")
	script, err := Script(query, v)
	if err != nil {
		return nil, err
	}
	udfs, err := functions()
	if err != nil {
		return nil, err
	}
	e, err := engine.Open(ctx, engine.Options{DataDir: filepath.Join(dir, "eddy"), Logger: o.Logger, UDFs: udfs})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	stmts := Statements(script, false)
	insert := stmts[len(stmts)-1]
	if !strings.HasPrefix(strings.ToUpper(insert), "INSERT INTO "+strings.ToUpper(sinkPrefix)) {
		return nil, fmt.Errorf("the script of %s does not end with its INSERT", query)
	}
	if err := Exec(ctx, e, stmts[:len(stmts)-1]); err != nil {
		return nil, err
	}
	var props map[string]string // the statement's session options
	if o.MiniBatch {
		props = miniBatchProperties
	}
	res := &BenchResult{Query: query, Events: o.Events}
	stmt := insert

	goruntime.GC()
	var m0, m1 goruntime.MemStats
	goruntime.ReadMemStats(&m0)
	cpu0, wall0 := cpuTime(), time.Now()
	out, err := e.Run(ctx, stmt, engine.RunOptions{JobID: "bench-" + query, CheckpointInterval: o.CheckpointInterval, Properties: props})
	if err != nil {
		return nil, &StatementError{Statement: stmt, Err: err}
	}
	job := out.Job
	err = job.Sync(ctx)
	wall, cpu := time.Since(wall0), cpuTime()-cpu0
	goruntime.ReadMemStats(&m1)
	if err != nil {
		job.Cancel()
		_ = job.Wait()
		return nil, fmt.Errorf("running %s: %w", query, err)
	}
	metrics := job.Metrics()
	size, serr := stateSize(e, job)
	job.Cancel()
	if werr := job.Wait(); werr != nil && !errors.Is(werr, context.Canceled) {
		return nil, fmt.Errorf("running %s: %w", query, werr)
	}
	if serr != nil {
		return nil, serr
	}
	if metrics.RecordsIn < o.Events {
		return nil, fmt.Errorf("running %s: the job read %d events of %d", query, metrics.RecordsIn, o.Events)
	}
	res.Wall, res.CPU = wall, cpu
	res.Rows, res.P50, res.P99 = metrics.RecordsOut, metrics.LatencyP50, metrics.LatencyP99
	res.StateBytes = size
	res.Allocs, res.AllocBytes = m1.Mallocs-m0.Mallocs, m1.TotalAlloc-m0.TotalAlloc
	return res, nil
}

// stateSize adds up the keys and values of the job's state namespaces
// (the Sync before it committed every dirty entry).
func stateSize(e *engine.Engine, job *runtime.Job) (int64, error) {
	kv := state.NewPebble(e.Env().DB.NewBatch())
	var n int64
	for _, ns := range job.Namespaces() {
		err := kv.ScanNamespace(ns, func(en state.Entry) error {
			n += int64(len(en.Key) + len(en.Name) + len(en.MapKey) + len(en.Value))
			if en.Kind == state.KindTimer {
				n += 8
			}
			return nil
		})
		if err != nil {
			return 0, fmt.Errorf("measuring the state of %s: %w", ns, err)
		}
	}
	return n, nil
}
