package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/logstore"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/internal/store"
	"github.com/eddy-sql/eddy/types"
)

// Env is what jobs share: the store, the logs, the clock and the logger.
type Env struct {
	DB     *store.DB
	Logs   *logstore.Store
	Clock  Clock
	Logger *slog.Logger
}

// Options configure one job.
type Options struct {
	// ID names the job (and its committed source positions).
	ID string
	// Bounded makes the job a snapshot: it reads each input up to its end
	// at start, ends with the maximum watermark, and completes.
	Bounded bool
	// CheckpointInterval is how often a continuous job commits when it has
	// new input. Default: 200ms.
	CheckpointInterval time.Duration
	// CheckpointRecords forces a checkpoint after that many input records,
	// bounding the size of the pending batch. Default: 100000.
	CheckpointRecords int
	// ResultBuffer is the capacity of the result channel of collect sinks.
	// Default: 1024.
	ResultBuffer int
}

// Job is a running job. Its goroutines are owned by it; Wait awaits them.
type Job struct {
	env     Env
	graph   *jobgraph.Job
	opts    Options
	ch      chan []event
	syncCh  chan *barrier
	tick    <-chan time.Time
	ticker  *time.Ticker
	results chan types.Row
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	mu  sync.Mutex
	err error

	// keyed task state
	batch  *store.Batch
	kv     *state.Pebble
	writer *logstore.Writer
	norms  []*normalizer
	ptf    *ptfOp
	sink   sink
	out    []types.Row
	ctx    context.Context
	logger *slog.Logger
}

// Start starts a job. Rows of a collect sink arrive on Results.
func Start(ctx context.Context, env Env, g *jobgraph.Job, opts Options) (*Job, error) {
	if opts.CheckpointInterval <= 0 {
		opts.CheckpointInterval = 200 * time.Millisecond
	}
	if opts.CheckpointRecords <= 0 {
		opts.CheckpointRecords = 100000
	}
	if opts.ResultBuffer <= 0 {
		opts.ResultBuffer = 1024
	}
	logger := env.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	j := &Job{
		env: env, graph: g, opts: opts, cancel: cancel,
		ch:     make(chan []event, 4),
		syncCh: make(chan *barrier),
		logger: logger.With("job", opts.ID),
		ctx:    ctx,
	}
	j.ticker = time.NewTicker(opts.CheckpointInterval)
	j.tick = j.ticker.C
	j.batch = env.DB.NewBatch()
	j.kv = state.NewPebble(j.batch)
	j.writer = env.Logs.NewWriter()
	for i, in := range g.Inputs {
		if in.Normalize {
			j.norms = append(j.norms, newNormalizer(fmt.Sprintf("%s/normalize/%d", opts.ID, i), in.Key, j.kv))
		} else {
			j.norms = append(j.norms, nil)
		}
	}
	switch g.Sink.Kind {
	case jobgraph.CollectSink:
		j.results = make(chan types.Row, opts.ResultBuffer)
		j.sink = &collectSink{out: j.results}
	case jobgraph.LogSink:
		j.sink = newLogSink(&g.Sink, j.writer)
	}
	if g.PTF != nil {
		j.ptf = newPTFOp(g.PTF, j.kv, env.Clock, j.emitPTF)
	}
	src, err := newSource(j)
	if err != nil {
		cancel()
		j.ticker.Stop()
		return nil, err
	}
	j.wg.Add(2)
	go func() {
		defer j.wg.Done()
		defer close(j.ch)
		if err := src.run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			j.fail(err)
		}
	}()
	go func() {
		defer j.wg.Done()
		defer j.ticker.Stop()
		if j.results != nil {
			defer close(j.results)
		}
		if err := j.keyed(ctx); err != nil && !errors.Is(err, context.Canceled) {
			j.fail(err)
		}
	}()
	return j, nil
}

// Results returns the rows of a collect sink; the channel closes when the
// job ends.
func (j *Job) Results() <-chan types.Row { return j.results }

// Graph returns the job's plan.
func (j *Job) Graph() *jobgraph.Job { return j.graph }

func (j *Job) fail(err error) {
	j.mu.Lock()
	if j.err == nil {
		j.err = err
		j.logger.Debug("job failed", "err", err)
	}
	j.mu.Unlock()
	j.cancel()
}

// Err returns the error the job failed with, if any.
func (j *Job) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Cancel stops the job without a final checkpoint.
func (j *Job) Cancel() { j.cancel() }

// Wait waits for the job's goroutines and returns its error.
func (j *Job) Wait() error {
	j.wg.Wait()
	return j.Err()
}

// Sync waits until the job has read everything committed to its inputs
// before the call and committed the results.
func (j *Job) Sync(ctx context.Context) error {
	b := &barrier{done: make(chan struct{})}
	select {
	case j.syncCh <- b:
	case <-ctx.Done():
		return ctx.Err()
	case <-j.ctx.Done():
		return j.Err()
	}
	select {
	case <-b.done:
		return b.err
	case <-ctx.Done():
		return ctx.Err()
	case <-j.ctx.Done():
		return j.Err()
	}
}

// keyed is the keyed task loop.
func (j *Job) keyed(ctx context.Context) error {
	for batch := range j.ch {
		for i := range batch {
			ev := &batch[i]
			switch ev.kind {
			case evRecord:
				if err := j.record(ctx, ev.input, ev.row); err != nil {
					return err
				}
			case evWatermark:
				if j.ptf != nil {
					if err := j.ptf.advance(ev.input, ev.wm); err != nil {
						return err
					}
				}
			case evBarrier:
				err := j.checkpoint()
				if ev.barrier.done != nil {
					ev.barrier.err = err
					close(ev.barrier.done)
				}
				if err != nil {
					return err
				}
			case evEnd:
				return j.checkpoint()
			}
		}
	}
	return ctx.Err()
}

func (j *Job) record(ctx context.Context, input int, row types.Row) error {
	in := &j.graph.Inputs[input]
	j.out = j.out[:0]
	if n := j.norms[input]; n != nil {
		var err error
		if j.out, err = n.process(row, j.out); err != nil {
			return err
		}
	} else {
		j.out = append(j.out, row)
	}
	for _, r := range j.out {
		r, ok, err := applyCalcs(in.Calcs, r)
		if err != nil {
			return fmt.Errorf("input %s: %w", in.Table, err)
		}
		if !ok {
			continue
		}
		if j.ptf != nil {
			if err := j.ptf.processRow(input, &r); err != nil {
				return err
			}
			continue
		}
		if err := j.output(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

func (j *Job) emitPTF(row types.Row) error { return j.output(j.ctx, row) }

func (j *Job) output(ctx context.Context, row types.Row) error {
	r, ok, err := applyCalcs(j.graph.Output, row)
	if err != nil || !ok {
		return err
	}
	return j.sink.write(ctx, r)
}

// checkpoint writes dirty state and commits it with the sink output in
// one atomic batch.
func (j *Job) checkpoint() error {
	if j.ptf != nil {
		if err := j.ptf.flush(); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	for _, n := range j.norms {
		if n != nil {
			if err := n.flush(); err != nil {
				return fmt.Errorf("checkpoint: %w", err)
			}
		}
	}
	if err := j.env.Logs.Commit(j.writer, j.batch, false); err != nil {
		return fmt.Errorf("checkpoint: committing: %w", err)
	}
	return nil
}
