package runtime

import (
	"context"

	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"

	"github.com/eddy-sql/eddy/internal/connector"
	"sync"
	"sync/atomic"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/logstore"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/internal/store"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// Env is what jobs share: the store, the logs, the clock and the logger.
type Env struct {
	DB     *store.DB
	Logs   *logstore.Store
	Clock  Clock
	Logger *slog.Logger
	// Stdout and Stderr are the process's output streams, for connectors
	// that print ('print'); nil: os.Stdout and os.Stderr.
	Stdout, Stderr io.Writer
	// Functions, when set, gives every subtask its own instance of the
	// functions that run in one (WebAssembly functions).
	Functions FunctionInstances
}

// FunctionInstances makes per-subtask instances of functions that run in
// an instance of their own (a WebAssembly module instance, package
// internal/wasm), so that subtasks do not share one.
type FunctionInstances interface {
	// Instance returns the definition whose Eval and OnTimer a subtask
	// calls in place of def's, and a function that releases the instance
	// when the job ends; ok is false when def needs no instance.
	Instance(def *ptf.Definition) (inst *ptf.Definition, release func(), ok bool, err error)
}

// Options configure one job.
type Options struct {
	// ID names the job; its state lives under namespaces derived from it
	// and from the PTF uid.
	ID string
	// Bounded makes the job a snapshot: it reads each input up to its end
	// at start, ends with the maximum watermark, and completes.
	Bounded bool
	// Parallelism is the number of keyed subtasks; the planner may force 1
	// (see Job.Parallelism). Default: 1.
	Parallelism int
	// CheckpointInterval is how often a continuous job commits when it has
	// new input. Default: 1s.
	CheckpointInterval time.Duration
	// CheckpointRecords forces a checkpoint after that many input records,
	// bounding the size of the pending batches. Default: 1000000.
	CheckpointRecords int
	// Resume starts the sources at the positions of the job's last
	// committed checkpoint (state and timers are found under the same ID).
	Resume bool
	// ResultBuffer is the capacity of the result channel of collect sinks.
	// Default: 1024.
	ResultBuffer int
	// CacheKeys bounds, per subtask and operator, the keys whose state is
	// kept in memory between checkpoints; past it, a checkpoint evicts
	// (clean) keys down to half, and they are read back from the store
	// when they return. Default: 1,000,000; negative: unbounded.
	CacheKeys int
}

// defaultCacheKeys is Options.CacheKeys' default.
const defaultCacheKeys = 1_000_000

// maxParallelism is the number of key groups keys are hashed into; a
// subtask owns a contiguous range of key groups, so state can later be
// rescaled by moving key groups.
const maxParallelism = 128

// Job is a running job. Its goroutines are owned by it; Wait awaits them.
type Job struct {
	env      Env
	graph    *jobgraph.Job
	opts     Options
	subtasks []*subtask
	routes   [][]int // per input: full-row key positions used for routing
	par      int     // number of keyed subtasks
	syncCh   chan *barrier
	// checkpointCh asks for a checkpoint at the current position, without
	// catching up first (see Checkpoint).
	checkpointCh chan *barrier
	tick         <-chan time.Time
	ticker       *time.Ticker
	results      chan types.Row
	writer       *logstore.Writer
	writerMu     sync.Mutex
	// exts write the rows of the external sinks, per sink (see
	// jobgraph.Job.Sinks); nil for the others.
	exts []connector.SinkWriter
	// commitBatch assembles each checkpoint's commit (only touched by the
	// last subtask to arrive at a barrier).
	commitBatch *store.Batch
	cancel      context.CancelFunc
	ctx         context.Context
	wg          sync.WaitGroup
	logger      *slog.Logger

	mu  sync.Mutex
	err error
	// releases free the function instances of the subtasks when the job
	// ends (see Env.Functions).
	releases []func()

	metrics jobMetrics
	// procTime is set when operators work on processing time: the source
	// then checkpoints at every tick of an idle input, so that processing
	// time advances (and windows fire on the clock) without input.
	procTime bool
	// procTimers counts the function operators (of all subtasks) that have
	// processing-time timers: while it is not zero the source ticks as
	// with procTime, so that the timers fire without input.
	procTimers atomic.Int64
}

// jobMetrics are updated by the tasks and read by Metrics.
type jobMetrics struct {
	recordsIn, recordsOut atomic.Int64
	checkpoints           atomic.Int64
	lastCheckpointNanos   atomic.Int64
	lastCheckpointBytes   atomic.Int64
	watermark             atomic.Int64
	// skipped counts records not read: undecodable (error-handling
	// ignore or log) or skipped by their format.
	skipped atomic.Int64
	// latency counts, per row written to the sink, the time from when
	// the source sent the batch that produced it (so the time queued
	// before the keyed task is included) to the end of that batch.
	latency latencyHist
	// lateDropped counts the rows operators dropped as late.
	lateDropped atomic.Int64
}

// Metrics is a snapshot of a job's counters.
type Metrics struct {
	RecordsIn, RecordsOut int64
	Checkpoints           int64
	// LastCheckpoint is the duration and size (bytes of the committed
	// batch) of the last checkpoint.
	LastCheckpointDuration time.Duration
	LastCheckpointBytes    int64
	// Skipped counts input records that were not decoded (bad records
	// under 'error-handling.mode' ignore or log).
	Skipped int64
	// Watermark is the highest watermark the source emitted (zero time
	// when none yet).
	Watermark time.Time
	// LatencyP50 and LatencyP99 are quantiles, over the rows written to
	// the sink, of the time from the source sending the batch of input
	// that produced a row to the end of processing that batch (the
	// queueing before the keyed task included; waiting for a window to
	// close is not: it starts at the batch whose watermark fires it).
	// LatencySamples is the number of rows measured.
	LatencyP50, LatencyP99 time.Duration
	LatencySamples         int64
	// LateRecordsDropped counts the rows event-time operators dropped
	// because they arrived after the watermark had passed them (Flink's
	// numLateRecordsDropped, summed over the operators).
	LateRecordsDropped int64
}

// Metrics returns the job's counters.
func (j *Job) Metrics() Metrics {
	m := Metrics{
		RecordsIn: j.metrics.recordsIn.Load(), RecordsOut: j.metrics.recordsOut.Load(),
		Checkpoints:            j.metrics.checkpoints.Load(),
		LastCheckpointDuration: time.Duration(j.metrics.lastCheckpointNanos.Load()),
		LastCheckpointBytes:    j.metrics.lastCheckpointBytes.Load(),
		Skipped:                j.metrics.skipped.Load(),
		LateRecordsDropped:     j.metrics.lateDropped.Load(),
	}
	m.LatencyP50, m.LatencySamples = j.metrics.latency.quantile(0.50)
	m.LatencyP99, _ = j.metrics.latency.quantile(0.99)
	if w := j.metrics.watermark.Load(); w != MinWatermark && w != MaxWatermark {
		m.Watermark = time.Unix(0, w).UTC()
	}
	return m
}

// subtask is one parallel instance of the keyed task: an instance of every
// operator of the job's DAG, with its own state batch.
type subtask struct {
	job *Job
	idx int
	ch  chan batch
	// free returns the slices of processed batches to the source, which
	// fills them again instead of allocating (sendTo).
	free chan batchBufs
	// outs counts the rows the subtask sent to the sink.
	outs  int64
	batch *store.Batch
	kv    *state.Pebble
	// ops holds one operator per node of the DAG; srcOut, per input, the
	// consumers of its rows.
	ops    []Operator
	srcOut []*nodeOut
	// sinks holds one writer per sink of the job (jobgraph.Job.Sinks).
	sinks []sink
	// procOps are the operators with processing-time callbacks.
	procOps []procTimeOperator
	// warmers are the operators fed by the source that warm the CPU
	// cache for a chunk of a batch before processing it (warm.go).
	warmers []warmTarget
}

// target is a consumer of an endpoint: port of node, or sink i (node
// -1-i).
type target struct{ node, port int }

// nodeOut is the Output of an endpoint: it calls its consumers in order.
type nodeOut struct {
	st *subtask
	ts []target
}

func (o *nodeOut) Emit(row types.Row) error {
	for _, t := range o.ts {
		var err error
		if t.node < 0 {
			err = o.st.output(o.st.job.ctx, -1-t.node, row)
		} else {
			err = o.st.ops[t.node].Process(t.port, row)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (o *nodeOut) Watermark(wm int64) error {
	for _, t := range o.ts {
		if t.node >= 0 {
			if err := o.st.ops[t.node].Watermark(t.port, wm); err != nil {
				return err
			}
		}
	}
	return nil
}

// Start starts a job. Rows of a collect sink arrive on Results.
func Start(ctx context.Context, env Env, g *jobgraph.Job, opts Options) (*Job, error) {
	if opts.CheckpointInterval <= 0 {
		opts.CheckpointInterval = time.Second
	}
	if opts.CheckpointRecords <= 0 {
		opts.CheckpointRecords = 1000000
	}
	if opts.ResultBuffer <= 0 {
		opts.ResultBuffer = 1024
	}
	switch {
	case opts.CacheKeys == 0:
		opts.CacheKeys = defaultCacheKeys
	case opts.CacheKeys < 0:
		opts.CacheKeys = 0 // unbounded
	}
	if env.Clock == nil {
		env.Clock = SystemClock{}
	}
	logger := env.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	j := &Job{
		env: env, graph: g, opts: opts, cancel: cancel, ctx: ctx,
		syncCh:       make(chan *barrier),
		checkpointCh: make(chan *barrier),
		logger:       logger.With("job", opts.ID),
		writer:       env.Logs.NewWriter(),
	}
	for _, r := range g.Results() {
		if in, isSource := jobgraph.IsSource(r); (isSource && in >= len(g.Inputs)) || (!isSource && r >= len(g.Nodes)) {
			cancel()
			return nil, fmt.Errorf("internal: the job's result endpoint %d does not exist", r)
		}
	}
	par := j.parallelism()
	j.par = par
	j.metrics.watermark.Store(MinWatermark) // no watermark yet
	if g.Sink.Kind == jobgraph.CollectSink {
		j.results = make(chan types.Row, opts.ResultBuffer)
	}
	j.exts = make([]connector.SinkWriter, len(g.Results()))
	closeExts := func() {
		for _, w := range j.exts {
			if w != nil {
				w.Close()
			}
		}
	}
	for i, sk := range g.Sinks() {
		if sk.Kind != jobgraph.ExternalSink {
			continue
		}
		// Recovery of the sink's last decided transaction comes before
		// any source opens (docs/decisions/0008 §6.4).
		env := j.connectorEnv()
		if i > 0 {
			// The further sinks of a statement set get transactional ids
			// and recovery keys of their own.
			env.Job += "-" + strconv.Itoa(i)
			env.KeyPrefix = append(env.KeyPrefix, "sink"+strconv.Itoa(i)+"/"...)
		}
		w, err := sk.External.Open(ctx, env, kvAdapter{j.env.DB})
		if err != nil {
			cancel()
			closeExts()
			return nil, fmt.Errorf("opening the output %s: %w", sk.Table, err)
		}
		j.exts[i] = w
		if cd, ok := w.(connector.CommitDeadline); ok {
			if d := cd.MaxCheckpointInterval(); d > 0 && opts.CheckpointInterval > d {
				j.logger.Debug("checkpoint interval shortened for the sink's commit deadline", "interval", d)
				opts.CheckpointInterval, j.opts.CheckpointInterval = d, d
			}
		}
	}
	fail := func(err error) (*Job, error) {
		cancel()
		closeExts()
		j.release()
		return nil, err
	}
	for i := 0; i < par; i++ {
		st, err := j.newSubtask(i)
		if err != nil {
			return fail(err)
		}
		j.subtasks = append(j.subtasks, st)
	}
	src, err := newSource(j)
	if err != nil {
		return fail(err)
	}
	j.ticker = time.NewTicker(opts.CheckpointInterval)
	j.tick = j.ticker.C
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		defer func() {
			for _, st := range j.subtasks {
				close(st.ch)
			}
		}()
		if err := src.run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			j.fail(err)
		}
	}()
	var keyed sync.WaitGroup
	for _, st := range j.subtasks {
		keyed.Add(1)
		j.wg.Add(1)
		go func() {
			defer j.wg.Done()
			defer keyed.Done()
			if err := st.run(ctx); err != nil && !errors.Is(err, context.Canceled) {
				j.fail(err)
			}
		}()
	}
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		keyed.Wait()
		j.release()
		j.ticker.Stop()
		closeExts()
		if j.results != nil {
			close(j.results)
		}
		// The job is over (completed or failed): release whoever waits in
		// Sync or Checkpoint.
		j.cancel()
	}()
	return j, nil
}

// parallelism decides the number of subtasks and the routing keys. Keys
// are routed by the source, so only jobs whose one keyed operator is a
// PTF reading columns of the stored rows run in parallel: every table
// argument is set semantic with a PARTITION BY key, read straight from its
// input or through a changelog normalize on the same key. Others run in
// one subtask, which also keeps their output order.
func (j *Job) parallelism() int {
	par := j.opts.Parallelism
	if par <= 1 {
		return 1
	}
	var ptfNode *jobgraph.Node
	for i := range j.graph.Nodes {
		n := &j.graph.Nodes[i]
		switch n.Op.(type) {
		case *jobgraph.Calc, *jobgraph.Normalize:
		case *jobgraph.PTF:
			if ptfNode != nil {
				return 1
			}
			ptfNode = n
		default:
			return 1
		}
	}
	if ptfNode == nil {
		return 1
	}
	j.routes = make([][]int, len(j.graph.Inputs))
	spec := ptfNode.Op.(*jobgraph.PTF)
	for _, t := range spec.Tables {
		if !t.SetSemantic || len(t.Keys) == 0 {
			return 1
		}
		from := ptfNode.Inputs[t.Input].From
		if from >= 0 {
			nz, ok := j.graph.Nodes[from].Op.(*jobgraph.Normalize)
			if !ok || !sameSet(nz.Key, t.Keys) {
				return 1
			}
			from = j.graph.Nodes[from].Inputs[0].From
		}
		i, ok := jobgraph.IsSource(from)
		if !ok {
			return 1
		}
		j.routes[i] = t.Keys
	}
	return par
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}

// route returns the subtask of a record: its key's key group.
func (j *Job) route(input int, row types.Row) int {
	var buf [8]types.Value
	key := buf[:0]
	for _, k := range j.routes[input] {
		key = append(key, row.Values[k])
	}
	return subtaskOf(key, len(j.subtasks))
}

func (j *Job) newSubtask(i int) (*subtask, error) {
	st := &subtask{job: j, idx: i, ch: make(chan batch, 4), free: make(chan batchBufs, 8), batch: j.env.DB.NewBatch()}
	st.kv = state.NewPebble(st.batch)
	g := j.graph
	for i, sk := range g.Sinks() {
		switch sk.Kind {
		case jobgraph.CollectSink:
			st.sinks = append(st.sinks, &collectSink{out: j.results})
		case jobgraph.LogSink:
			st.sinks = append(st.sinks, newLogSink(sk, j.writer, &j.writerMu))
		case jobgraph.ExternalSink:
			st.sinks = append(st.sinks, extSink{j.exts[i]})
		}
	}
	// The consumers of each endpoint.
	outs := make([]*nodeOut, len(g.Nodes))
	st.srcOut = make([]*nodeOut, len(g.Inputs))
	for k := range outs {
		outs[k] = &nodeOut{st: st}
	}
	for k := range st.srcOut {
		st.srcOut[k] = &nodeOut{st: st}
	}
	outOf := func(e int) *nodeOut {
		if in, ok := jobgraph.IsSource(e); ok {
			return st.srcOut[in]
		}
		return outs[e]
	}
	for k, n := range g.Nodes {
		for port, e := range n.Inputs {
			o := outOf(e.From)
			o.ts = append(o.ts, target{node: k, port: port})
		}
	}
	for i, r := range g.Results() {
		res := outOf(r)
		res.ts = append(res.ts, target{node: -1 - i})
	}
	st.ops = make([]Operator, len(g.Nodes))
	for k := range g.Nodes {
		op, err := j.newOperator(st, k, outs[k])
		if err != nil {
			return nil, err
		}
		st.ops[k] = op
		if p, ok := onProcTime(op); ok {
			st.procOps = append(st.procOps, p)
			if _, isPTF := op.(*ptfNode); !isPTF {
				// A function needs ticks only while it has
				// processing-time timers (procTimers counts them).
				j.procTime = true
			}
		}
	}
	st.findWarmers()
	return st, nil
}

// newOperator builds the operator of node k for subtask st.
func (j *Job) newOperator(st *subtask, k int, out *nodeOut) (Operator, error) {
	n := &j.graph.Nodes[k]
	oc := OpContext{NS: j.opts.ID + "/" + n.UID, KV: st.kv, Clock: j.env.Clock, MaxKeys: j.opts.CacheKeys, Out: out,
		Late: &j.metrics.lateDropped}
	switch spec := n.Op.(type) {
	case *jobgraph.Calc:
		op := &calcOp{c: spec, out: out}
		op.bindWatermark()
		if in, ok := jobgraph.IsSource(n.Inputs[0].From); ok {
			op.where = "input " + j.graph.Inputs[in].Table
		}
		return op, nil
	case *jobgraph.Union:
		return &unionOp{wm: newMinWatermark(len(n.Inputs)), out: out}, nil
	case *jobgraph.Values:
		return &valuesOp{spec: spec, out: out}, nil
	case *jobgraph.Normalize:
		n, err := newNormalizer(oc.NS, spec.Key, st.kv, j.opts.CacheKeys, oc.Clock, spec.StateTTL)
		if err != nil {
			return nil, err
		}
		return &normalizeOp{n: n, dropUB: spec.DropUpdateBefore, out: out}, nil
	case *jobgraph.Join:
		return newJoinOp(spec, oc)
	case *jobgraph.Materialize:
		return newMaterializeOp(spec, oc), nil
	case *jobgraph.Aggregate:
		op, err := newAggregateOp(spec, j.endpointSchema(n.Inputs[0].From), oc)
		if err != nil {
			return nil, err
		}
		// As for the PTF host below: when no consumer keeps rows, the
		// output rows can be reused.
		op.reuseOut = j.keepsNoRows(k)
		return op, nil
	case *jobgraph.Correlate:
		return newCorrelateOp(spec, out)
	case *jobgraph.Deduplicate:
		return newDedupOp(spec, j.endpointSchema(n.Inputs[0].From), oc)
	case *jobgraph.Rank:
		return newRankOp(spec, j.endpointSchema(n.Inputs[0].From), oc)
	case *jobgraph.OverAggregate:
		return newOverOp(spec, j.endpointSchema(n.Inputs[0].From), oc)
	case *jobgraph.SortedOver:
		return newSortedOverOp(spec, j.endpointSchema(n.Inputs[0].From), oc)
	case *jobgraph.IntervalJoin:
		return newIntervalJoinOp(spec, oc)
	case *jobgraph.TemporalJoin:
		if spec.ProcTime {
			return newLookupJoinOp(spec, oc)
		}
		return newTemporalJoinOp(spec, oc)
	case *jobgraph.TemporalSort:
		return newTemporalSortOp(spec, j.endpointSchema(n.Inputs[0].From), oc)
	case *jobgraph.WindowTVF:
		return newWindowTVFOp(spec, j.endpointSchema(n.Inputs[0].From), oc)
	case *jobgraph.WindowAggregate:
		return newWindowAggOp(spec, j.endpointSchema(n.Inputs[0].From), oc)
	case *jobgraph.WindowRank:
		return newWindowRankOp(spec, j.endpointSchema(n.Inputs[0].From), oc)
	case *jobgraph.WindowDeduplicate:
		return newWindowDedupOp(spec, j.endpointSchema(n.Inputs[0].From), oc)
	case *jobgraph.WindowJoin:
		return newWindowJoinOp(spec, oc)
	case *jobgraph.PTF:
		opts := []ptfOpOption{withMaxKeys(j.opts.CacheKeys), withProcPending(&j.procTimers)}
		if j.par > 1 {
			// On restore each subtask takes only the keys it owns.
			opts = append(opts, withKeyOwner(keyOwner(j.par, st.idx)))
		}
		if f := j.env.Functions; f != nil {
			inst, release, ok, err := f.Instance(spec.Def)
			if err != nil {
				return nil, fmt.Errorf("process table function %s: %w", spec.Name, err)
			}
			if ok {
				j.releases = append(j.releases, release)
				opts = append(opts, withInstance(inst))
			}
		}
		op, err := newPTFOp(spec, oc.NS, st.kv, j.env.Clock, out.Emit, opts...)
		if err != nil {
			return nil, err
		}
		// The host reuses its output buffer when no consumer keeps rows
		// (a log or Kafka sink encodes each row at once).
		op.reuseOut = j.keepsNoRows(k)
		return &ptfNode{op: op, out: out, lastWM: MinWatermark}, nil
	}
	return nil, fmt.Errorf("internal: no operator for %T", n.Op)
}

// release frees the subtasks' function instances (once).
func (j *Job) release() {
	for _, r := range j.releases {
		r()
	}
	j.releases = nil
}

// endpointSchema returns the schema of the rows of an endpoint.
func (j *Job) endpointSchema(e int) *types.Schema {
	if in, ok := jobgraph.IsSource(e); ok {
		return j.graph.Inputs[in].Schema
	}
	return j.graph.Nodes[e].Out
}

// keepsNoRows reports whether no consumer of endpoint e keeps the value
// slice of a row it takes once it returned: sinks that encode each row at
// once, aggregates (they copy the values they store and emit rows of
// their own) and calcs whose consumers keep none (a calc may pass its
// input row on). Then the producer may reuse the slices: the source its
// batches' values, an aggregate or PTF host its output rows.
func (j *Job) keepsNoRows(e int) bool {
	sinks := j.graph.Sinks()
	for i, r := range j.graph.Results() {
		if r == e && sinks[i].Kind == jobgraph.CollectSink {
			return false
		}
	}
	for c, n := range j.graph.Nodes {
		for _, in := range n.Inputs {
			if in.From != e {
				continue
			}
			switch n.Op.(type) {
			case *jobgraph.Aggregate:
			case *jobgraph.Calc:
				if !j.keepsNoRows(c) {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}

// Namespaces returns the state namespaces the job writes, so that its
// state can be deleted with the job.
func (j *Job) Namespaces() []string {
	var out []string
	for _, n := range j.graph.Nodes {
		switch n.Op.(type) {
		case *jobgraph.Calc, *jobgraph.Union, *jobgraph.Values:
		default:
			out = append(out, j.opts.ID+"/"+n.UID)
		}
	}
	return out
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

// Done is closed when the job is over: completed, failed or cancelled.
func (j *Job) Done() <-chan struct{} { return j.ctx.Done() }

// Cancel stops the job without a final checkpoint.
func (j *Job) Cancel() { j.cancel() }

// Wait waits for the job's goroutines and returns its error.
func (j *Job) Wait() error {
	j.wg.Wait()
	return j.Err()
}

func (j *Job) newBarrier() *barrier {
	return &barrier{done: make(chan struct{})}
}

// Checkpoint takes a checkpoint at the job's current input position
// (without first reading everything committed, as Sync does) and waits for
// it to commit. Stopping a statement uses it.
func (j *Job) Checkpoint(ctx context.Context) error {
	b := j.newBarrier()
	select {
	case j.checkpointCh <- b:
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

// Sync waits until the job has read everything committed to its inputs
// before the call and committed the results.
func (j *Job) Sync(ctx context.Context) error {
	b := j.newBarrier()
	select {
	case j.syncCh <- b:
	case <-ctx.Done():
		return ctx.Err()
	case <-j.ctx.Done():
		if err := j.Err(); err != nil {
			return err
		}
		return nil // the job completed
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

// run is the loop of one keyed subtask.
func (st *subtask) run(ctx context.Context) error {
	for _, op := range st.ops {
		if s, ok := op.(starter); ok {
			if err := s.start(st.job.opts.Resume); err != nil {
				return err
			}
		}
	}
	for b := range st.ch {
		outs := st.outs
		// measure records the latency of the rows written since the last
		// call: they reached the sink by now.
		measure := func() {
			if n := st.outs - outs; n > 0 {
				st.job.metrics.latency.add(st.job.env.Clock.Now().UnixNano()-b.sent, n)
				outs = st.outs
			}
		}
		for i := range b.events {
			if i%warmChunk == 0 && st.warmers != nil {
				st.warm(b.events[i:min(i+warmChunk, len(b.events))])
			}
			ev := &b.events[i]
			switch ev.kind {
			case evRecord:
				if err := st.srcOut[ev.input].Emit(ev.row); err != nil {
					return err
				}
			case evWatermark:
				if err := st.srcOut[ev.input].Watermark(ev.wm); err != nil {
					return err
				}
			case evBarrier:
				if len(st.procOps) > 0 {
					if err := st.procTime(st.clockNanos()); err != nil {
						return err
					}
				}
				measure()
				if err := st.checkpoint(ctx, ev.barrier); err != nil {
					return err
				}
			case evEnd:
				if err := st.procTime(MaxWatermark); err != nil {
					return err
				}
				measure()
				return st.checkpoint(ctx, ev.barrier)
			}
		}
		if len(st.procOps) > 0 {
			if err := st.procTime(st.clockNanos()); err != nil {
				return err
			}
		}
		measure()
		// The operators keep no event (they take rows by value), so the
		// slices go back to the source: the values only when it
		// recycles them (no operator keeps a row's values, source.recycle).
		// clear drops the references to what the rows held.
		clear(b.events)
		clear(b.vals)
		select {
		case st.free <- batchBufs{events: b.events[:0], vals: b.vals[:0]}:
		default:
		}
	}
	return ctx.Err()
}

func (st *subtask) output(ctx context.Context, sink int, row types.Row) error {
	st.job.metrics.recordsOut.Add(1)
	st.outs++
	return st.sinks[sink].write(ctx, row)
}

// checkpoint flushes this subtask's state into its batch; the last subtask
// to arrive commits every batch and the sink output atomically. All wait
// for the commit before they go on.
func (st *subtask) checkpoint(ctx context.Context, b *barrier) error {
	err := st.flush()
	b.mu.Lock()
	if err != nil && b.err == nil {
		b.err = err
	}
	b.arrived++
	last := b.arrived == len(st.job.subtasks)
	b.mu.Unlock()
	if last {
		if b.err == nil {
			b.err = st.job.commit(b.positions, b.deadLetters)
		}
		close(b.done)
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return b.err
}

func (st *subtask) flush() error {
	for _, op := range st.ops {
		if err := op.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// commit merges the subtasks' batches into the first and commits it with
// the sink output. Every subtask is blocked in checkpoint meanwhile.
func (j *Job) commit(positions []logstore.Position, deadLetters []deadLetter) error {
	if j.opts.Bounded && j.graph.Sink.Kind == jobgraph.CollectSink {
		// A snapshot query keeps no state once it has printed, but the
		// dead-letter rows of bad records it skipped are kept.
		for _, st := range j.subtasks {
			st.batch.Reset()
		}
		if len(deadLetters) == 0 {
			return nil
		}
		j.writerMu.Lock()
		defer j.writerMu.Unlock()
		j.appendDeadLetters(deadLetters)
		if err := j.env.Logs.Commit(j.writer, j.env.DB.NewWriteBatch(), true); err != nil {
			return fmt.Errorf("checkpoint: committing dead-letter rows: %w", err)
		}
		return nil
	}
	// Assemble the commit in an unindexed batch: the sink's records need no
	// index, and indexing them costs more than writing them.
	if j.commitBatch == nil {
		j.commitBatch = j.env.DB.NewWriteBatch()
	}
	first := j.commitBatch
	for _, st := range j.subtasks {
		if st.batch.Empty() {
			continue
		}
		if err := first.Apply(st.batch); err != nil {
			return fmt.Errorf("checkpoint: merging subtask state: %w", err)
		}
		st.batch.Reset()
	}
	if err := j.savePositions(first, positions); err != nil {
		return err
	}
	start := j.env.Clock.Now()
	for _, w := range j.exts {
		if w == nil {
			continue
		}
		// Flush the external output and record its transaction in this
		// batch: committing the batch decides the transaction.
		if err := w.Prepare(j.ctx, first); err != nil {
			first.Reset()
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	size := int64(first.Len())
	j.writerMu.Lock()
	defer j.writerMu.Unlock()
	j.appendDeadLetters(deadLetters)
	// Synced: Pebble keeps the tail of its WAL in memory until a sync, so
	// an unsynced checkpoint could vanish with the process (kill -9).
	if err := j.env.Logs.Commit(j.writer, first, true); err != nil {
		first.Reset()
		return fmt.Errorf("checkpoint: committing: %w", err)
	}
	for _, w := range j.exts {
		if w == nil {
			continue
		}
		if err := w.Commit(j.ctx); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	j.metrics.checkpoints.Add(1)
	j.metrics.lastCheckpointNanos.Store(int64(j.env.Clock.Now().Sub(start)))
	j.metrics.lastCheckpointBytes.Store(size)
	return nil
}
