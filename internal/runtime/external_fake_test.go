package runtime

// Fake connectors for the tests of external inputs and sinks (external_test.go):
// a topic whose partitions hold records (and control-record gaps) given up
// front or appended while a job runs, a connector.Source/Reader over it, a
// connector.Sink/SinkWriter that records the order of its calls, and a
// clock that only moves when told.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/logstore"
	"github.com/eddy-sql/eddy/internal/store"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// fakeClock is a Clock safe for concurrent use that moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fakeTopic is the broker side: partitions of records with offsets, where
// control records (transaction markers) take offsets without records.
type fakeTopic struct {
	name string

	mu      sync.Mutex
	parts   map[int32]*fakePart
	changed chan struct{} // closed and replaced on every append
	// onTargets runs once, right after a Targets call took its answer
	// (records it appends arrive "after" the snapshot or sync).
	onTargets func()
	targets   int // Targets calls
	// fetched lists the offsets Fetch handed out, per reader (in Open order).
	fetched []map[int32][]int64
	// opens lists the from maps passed to Open.
	opens []map[int32]int64
	// openBounds are the env.Bounds each Open got.
	openBounds []map[int32]int64
	readers    []*fakeReader
	// fetchErr, once set, is what Fetch returns.
	fetchErr error
	// held are the partitions Fetch hands out nothing of until release.
	held map[int32]bool
}

type fakePart struct {
	recs []connector.Record
	end  int64 // the next offset (the high watermark)
}

func newFakeTopic(name string, partitions int) *fakeTopic {
	t := &fakeTopic{name: name, parts: map[int32]*fakePart{}, changed: make(chan struct{})}
	for p := range partitions {
		t.parts[int32(p)] = &fakePart{}
	}
	return t
}

// add appends a record with key k, timestamp ts (milliseconds) and value v
// to partition p and returns its offset.
func (t *fakeTopic) add(p int32, ts, k int64, v string) int64 {
	return t.addRecord(connector.Record{Partition: p, Timestamp: ts, Key: []byte(strconv.FormatInt(k, 10)), Value: []byte(v)})
}

// addRecord appends rec (its offset is assigned) to its partition.
func (t *fakeTopic) addRecord(rec connector.Record) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	part := t.parts[rec.Partition]
	rec.Offset = part.end
	rec.TimestampType = connector.CreateTime
	part.recs = append(part.recs, rec)
	part.end++
	t.notifyLocked()
	return rec.Offset
}

// control appends n control records (offsets without a record) to p.
func (t *fakeTopic) control(p int32, n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.parts[p].end += int64(n)
	t.notifyLocked()
}

func (t *fakeTopic) notifyLocked() {
	close(t.changed)
	t.changed = make(chan struct{})
}

func (t *fakeTopic) setOnTargets(f func()) {
	t.mu.Lock()
	t.onTargets = f
	t.mu.Unlock()
}

// hold makes Fetch hand out nothing of partition p until release(p), as a
// broker whose fetch for one partition is slow.
func (t *fakeTopic) hold(p int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.held == nil {
		t.held = map[int32]bool{}
	}
	t.held[p] = true
}

// release ends hold(p).
func (t *fakeTopic) release(p int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.held, p)
	t.notifyLocked()
}

// failFetch makes Fetch fail with err from now on.
func (t *fakeTopic) failFetch(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fetchErr = err
	t.notifyLocked()
}

// ends returns the next offset of every partition.
func (t *fakeTopic) ends() map[int32]int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.endsLocked()
}

func (t *fakeTopic) endsLocked() map[int32]int64 {
	out := map[int32]int64{}
	for p, part := range t.parts {
		out[p] = part.end
	}
	return out
}

func (t *fakeTopic) openCalls() []map[int32]int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.opens)
}

func (t *fakeTopic) fetchedBy(reader int) map[int32][]int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[int32][]int64{}
	for p, offs := range t.fetched[reader] {
		out[p] = slices.Clone(offs)
	}
	return out
}

func (t *fakeTopic) allClosed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range t.readers {
		if !r.closed {
			return false
		}
	}
	return true
}

// fakeSource is a connector.Source over a fakeTopic. Decoded rows are
// (k BIGINT, ts TIMESTAMP(3), v STRING): the record's key, timestamp and
// value. The value "bad" is a bad record, "broken" fails Decode with an
// error that is not the record's fault, and "skip" is skipped by the
// format.
type fakeSource struct {
	topic *fakeTopic
	idle  time.Duration
	// bounds makes the source bounded ('scan.bounded.mode').
	bounds map[int32]int64
	// trickle > 0 makes each Fetch return at most trickle records of one
	// partition chosen by a generator seeded with seed (and sometimes only
	// a control-record advance); 0 returns everything available at once.
	trickle int
	seed    uint64
	// onDecode runs in Decode before the record is decoded.
	onDecode func(rec *connector.Record)
	// openErr fails Open.
	openErr error
	// sharedStart makes Start return the reader's own map each time (the
	// SPI does not promise a fresh one).
	sharedStart bool
}

var fakeSchema = types.NewSchema(
	types.Field{Name: "k", Type: types.BigInt},
	types.Field{Name: "ts", Type: types.Timestamp(3)},
	types.Field{Name: "v", Type: types.String},
)

func (s *fakeSource) Name() string { return "fake:cat.db." + s.topic.name }

func (s *fakeSource) Topic() string { return s.topic.name }

func (s *fakeSource) IdleTimeout() time.Duration { return s.idle }

func (s *fakeSource) Describe(rec *connector.Record) string {
	return fmt.Sprintf("fake topic %s partition %d offset %d", s.topic.name, rec.Partition, rec.Offset)
}

func (s *fakeSource) Open(ctx context.Context, env connector.Env, from map[int32]int64) (connector.Reader, error) {
	if s.openErr != nil {
		return nil, s.openErr
	}
	t := s.topic
	t.mu.Lock()
	defer t.mu.Unlock()
	r := &fakeReader{src: s, idx: len(t.opens), start: map[int32]int64{}, next: map[int32]int64{},
		rng: rand.New(rand.NewPCG(s.seed, s.seed+1)), bounds: maps.Clone(s.bounds)}
	if env.Bounds != nil {
		r.bounds = maps.Clone(env.Bounds) // resolved by an earlier run
	}
	t.openBounds = append(t.openBounds, maps.Clone(env.Bounds))
	t.opens = append(t.opens, maps.Clone(from))
	t.fetched = append(t.fetched, map[int32][]int64{})
	t.readers = append(t.readers, r)
	for p := range t.parts {
		r.start[p] = 0 // startup mode 'earliest-offset'
		if o, ok := from[p]; ok {
			r.start[p] = o
		}
		r.next[p] = r.start[p]
	}
	return r, nil
}

func (s *fakeSource) Decode(rec *connector.Record, dst []types.Value, kinds []types.RowKind) ([]types.Value, []types.RowKind, error) {
	if s.onDecode != nil {
		s.onDecode(rec)
	}
	switch string(rec.Value) {
	case "bad":
		return dst, kinds, &connector.BadRecordError{Err: errors.New("value: not a fake row")}
	case "broken":
		return dst, kinds, errors.New("value: schema registry unreachable")
	case "skip":
		return dst, kinds, nil
	}
	k, err := strconv.ParseInt(string(rec.Key), 10, 64)
	if err != nil {
		return dst, kinds, &connector.BadRecordError{Err: fmt.Errorf("key: %v", err)}
	}
	ts := types.NewTimestampMillis(rec.Timestamp)
	// "upd:old>new" holds two rows, as a changelog format's update does.
	if rest, ok := strings.CutPrefix(string(rec.Value), "upd:"); ok {
		before, after, _ := strings.Cut(rest, ">")
		dst = append(dst, types.NewInt(k), ts, types.NewString(before), types.NewInt(k), ts, types.NewString(after))
		return dst, append(kinds, types.UpdateBefore, types.UpdateAfter), nil
	}
	return append(dst, types.NewInt(k), ts, types.NewString(string(rec.Value))), append(kinds, types.Insert), nil
}

// fakeReader is the connector.Reader of an opened fakeSource.
type fakeReader struct {
	bounds map[int32]int64
	src    *fakeSource
	idx    int
	start  map[int32]int64
	next   map[int32]int64 // guarded by the topic's mu
	rng    *rand.Rand      // guarded by the topic's mu
	closed bool            // guarded by the topic's mu
}

func (r *fakeReader) Start() map[int32]int64 {
	if r.src.sharedStart {
		return r.start
	}
	return maps.Clone(r.start)
}

func (r *fakeReader) Bounds() map[int32]int64 { return maps.Clone(r.bounds) }

func (r *fakeReader) Targets(ctx context.Context) (map[int32]int64, error) {
	t := r.src.topic
	t.mu.Lock()
	out := t.endsLocked()
	t.targets++
	hook := t.onTargets
	t.onTargets = nil
	t.mu.Unlock()
	if hook != nil {
		hook()
	}
	return out, nil
}

func (r *fakeReader) Next(p int32) int64 {
	t := r.src.topic
	t.mu.Lock()
	defer t.mu.Unlock()
	return r.next[p]
}

func (r *fakeReader) Close() error {
	t := r.src.topic
	t.mu.Lock()
	defer t.mu.Unlock()
	r.closed = true
	return nil
}

func (r *fakeReader) Fetch(ctx context.Context) ([]connector.Record, error) {
	t := r.src.topic
	for {
		t.mu.Lock()
		if err := t.fetchErr; err != nil {
			t.mu.Unlock()
			return nil, err
		}
		recs, progress := r.takeLocked()
		for _, rec := range recs {
			t.fetched[r.idx][rec.Partition] = append(t.fetched[r.idx][rec.Partition], rec.Offset)
		}
		changed := t.changed
		t.mu.Unlock()
		if progress {
			return recs, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// takeLocked returns the records of the next fetch and whether it moves
// any partition forward (records, or only control records).
func (r *fakeReader) takeLocked() ([]connector.Record, bool) {
	t := r.src.topic
	var cands []int32
	for p, part := range t.parts {
		if r.next[p] < part.end && !t.held[p] {
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 {
		return nil, false
	}
	slices.Sort(cands)
	pending := func(p int32) []connector.Record {
		recs := t.parts[p].recs
		i, _ := slices.BinarySearchFunc(recs, r.next[p], func(rec connector.Record, o int64) int { return int(rec.Offset - o) })
		return recs[i:]
	}
	if r.src.trickle <= 0 {
		var out []connector.Record
		for _, p := range cands {
			out = append(out, pending(p)...)
			r.next[p] = t.parts[p].end
		}
		return out, true
	}
	p := cands[r.rng.IntN(len(cands))]
	recs := pending(p)
	n := 1 + r.rng.IntN(r.src.trickle)
	if n < len(recs) {
		recs = recs[:n]
		r.next[p] = recs[n-1].Offset + 1
		return slices.Clone(recs), true
	}
	if len(recs) > 0 && r.rng.IntN(2) == 0 {
		// Leave the trailing control records for a later fetch.
		r.next[p] = recs[len(recs)-1].Offset + 1
	} else {
		r.next[p] = t.parts[p].end
	}
	return slices.Clone(recs), true
}

// fakeSink is a connector.Sink whose writer records its calls. Prepare
// writes the marker "txn-<n>" under the job's key prefix; Prepare and
// Commit note the marker committed in the store when they run.
type fakeSink struct {
	db *store.DB

	mu     sync.Mutex
	calls  []string
	prefix []byte
	n      int // Prepare calls
	// failPrepare and failCommit fail the n-th Prepare or Commit (from 1).
	failPrepare, failCommit int
	// gate, when set, makes the gateAt-th Prepare send on entered and
	// wait for release.
	gateAt            int
	entered, release  chan struct{}
	recovered         string // written through the KV at Open
	prepareBatchTypes []string
}

var errFakePrepare = errors.New("fake sink: flush failed")

func (s *fakeSink) markerKey() []byte { return append(slices.Clone(s.prefix), "marker"...) }

// committedMarker returns the marker committed in the store.
func (s *fakeSink) committedMarker() string {
	v, ok, err := s.db.Get(s.markerKey())
	if err != nil {
		return "error: " + err.Error()
	}
	if !ok {
		return "none"
	}
	return string(v)
}

func (s *fakeSink) log(format string, args ...any) {
	s.mu.Lock()
	s.calls = append(s.calls, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

func (s *fakeSink) callLog() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

func (s *fakeSink) Open(ctx context.Context, env connector.Env, kv connector.KV) (connector.SinkWriter, error) {
	s.mu.Lock()
	s.prefix = slices.Clone(env.KeyPrefix)
	s.mu.Unlock()
	v, ok, err := kv.Get(s.markerKey())
	if err != nil {
		return nil, err
	}
	marker := "none"
	if ok {
		marker = string(v)
		// Go on numbering from the recovered transaction.
		s.mu.Lock()
		s.n, _ = strconv.Atoi(strings.TrimPrefix(marker, "txn-"))
		s.mu.Unlock()
	}
	s.log("open job=%s marker=%s", env.Job, marker)
	if s.recovered != "" {
		key := append(slices.Clone(env.KeyPrefix), "recovered"...)
		if err := kv.Commit(func(b connector.Batch) error { return b.Set(key, []byte(s.recovered)) }); err != nil {
			return nil, err
		}
	}
	return &fakeSinkWriter{s: s}, nil
}

type fakeSinkWriter struct{ s *fakeSink }

func (w *fakeSinkWriter) Write(ctx context.Context, row types.Row) error {
	w.s.log("write %s", row.Values[2].Str())
	return nil
}

func (w *fakeSinkWriter) Prepare(ctx context.Context, b connector.Batch) error {
	s := w.s
	s.mu.Lock()
	s.n++
	n := s.n
	s.prepareBatchTypes = append(s.prepareBatchTypes, fmt.Sprintf("%T", b))
	gate := n == s.gateAt
	s.mu.Unlock()
	if gate {
		s.entered <- struct{}{}
		<-s.release
	}
	if n == s.failPrepare {
		s.log("prepare %d failed", n)
		return errFakePrepare
	}
	s.log("prepare %d committed=%s", n, s.committedMarker())
	return b.Set(s.markerKey(), []byte("txn-"+strconv.Itoa(n)))
}

func (w *fakeSinkWriter) Commit(ctx context.Context) error {
	s := w.s
	s.mu.Lock()
	n := s.n
	s.mu.Unlock()
	s.log("commit %d committed=%s", n, s.committedMarker())
	if n == s.failCommit {
		return errors.New("fake sink: commit failed")
	}
	return nil
}

func (w *fakeSinkWriter) Close() error {
	w.s.log("close")
	return nil
}

// --- jobs -----------------------------------------------------------------

// newTestEnv returns an Env over an in-memory store with a fake clock.
func newTestEnv(t *testing.T) (Env, *fakeClock) {
	t.Helper()
	db, err := store.Open("", store.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	logs, err := logstore.New(db)
	require.NoError(t, err)
	clock := newFakeClock()
	return Env{DB: db, Logs: logs, Clock: clock}, clock
}

// fakeInput is the job input reading src.
func fakeInput(src *fakeSource) jobgraph.Input {
	return jobgraph.Input{
		Table: "cat.db." + src.topic.name, Log: src.Name(), Source: src,
		Physical: fakeSchema, Schema: fakeSchema, Mode: jobgraph.Append,
	}
}

// withWatermark declares WATERMARK FOR ts AS ts.
func withWatermark(in jobgraph.Input) jobgraph.Input {
	col, err := expr.Col(1, "ts", types.Timestamp(3))
	if err != nil {
		panic(err)
	}
	in.Watermark = &jobgraph.Watermark{Column: 1, Expr: col}
	return in
}

// collectJob sends the rows of its inputs (a union of them) to a collect
// sink.
func collectJob(inputs ...jobgraph.Input) *jobgraph.Job {
	g := &jobgraph.Job{Inputs: inputs, Result: jobgraph.Source(0), Sink: jobgraph.Sink{Kind: jobgraph.CollectSink}}
	if len(inputs) > 1 {
		var edges []jobgraph.Edge
		for i := range inputs {
			edges = append(edges, jobgraph.Edge{From: jobgraph.Source(i)})
		}
		g.Nodes = []jobgraph.Node{{UID: "union", Inputs: edges, Op: &jobgraph.Union{}, Out: inputs[0].Schema}}
		g.Result = 0
	}
	return g
}

// orderedJob passes its input through a PTF that orders it by ts
// (PARTITION BY k ORDER BY ts) and emits k: a row comes out once the
// input's watermark reached its ts.
func orderedJob(in jobgraph.Input) *jobgraph.Job {
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<k BIGINT>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			ctx.Collect(in.Row.Values[0])
			return nil
		},
	}
	k := types.Field{Name: "k", Type: types.BigInt}
	spec := &jobgraph.PTF{
		Name: "ordered", UID: "ordered", Def: def, Produced: ptf.InsertOnly(),
		Tables: []jobgraph.PTFTable{{
			Arg: "input", SetSemantic: true, Keys: []int{0}, TimeColumn: -1, Schema: fakeSchema,
			Delivered: ptf.InsertOnly(), OrderBy: []int{1}, OrderDesc: []bool{false}, OrderNullsFirst: []bool{false},
		}},
		FuncOut: types.NewSchema(k),
		Out:     types.NewSchema(k, types.Field{Name: "k0", Type: types.BigInt}),
	}
	return &jobgraph.Job{
		Inputs: []jobgraph.Input{in},
		Nodes: []jobgraph.Node{{
			UID:    "ptf/ordered",
			Inputs: []jobgraph.Edge{{From: jobgraph.Source(0), Exchange: jobgraph.Hash, Keys: []int{0}}},
			Op:     spec,
			Out:    spec.Out,
		}},
		Sink: jobgraph.Sink{Kind: jobgraph.CollectSink},
	}
}

// startJob starts g and stops it at the end of the test (before the store
// closes).
func startJob(t *testing.T, env Env, g *jobgraph.Job, opts Options) *Job {
	t.Helper()
	if opts.CheckpointInterval == 0 {
		opts.CheckpointInterval = time.Hour // checkpoints only when asked
	}
	j, err := Start(context.Background(), env, g, opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		j.Cancel()
		_ = j.Wait()
	})
	return j
}

// fakeRow is a decoded row: (k, ts in milliseconds, v).
type fakeRow struct {
	K  int64
	TS int64
	V  string
}

func (r fakeRow) String() string { return fmt.Sprintf("%d@%d:%s", r.K, r.TS, r.V) }

func toFakeRow(r types.Row) fakeRow {
	return fakeRow{K: r.Values[0].Int(), TS: r.Values[1].Int() / 1e6, V: r.Values[2].Str()}
}

const waitLimit = 30 * time.Second

// drain returns every row until the results close.
func drain(t *testing.T, j *Job) []types.Row {
	t.Helper()
	var out []types.Row
	timeout := time.NewTimer(waitLimit)
	defer timeout.Stop()
	for {
		select {
		case r, ok := <-j.Results():
			if !ok {
				return out
			}
			out = append(out, r)
		case <-timeout.C:
			t.Fatalf("the job did not end; rows so far: %v", out)
		}
	}
}

// take returns the next n rows.
func take(t *testing.T, j *Job, n int) []types.Row {
	t.Helper()
	var out []types.Row
	timeout := time.NewTimer(waitLimit)
	defer timeout.Stop()
	for len(out) < n {
		select {
		case r, ok := <-j.Results():
			if !ok {
				t.Fatalf("results closed after %d of %d rows (job error: %v)", len(out), n, j.Err())
			}
			out = append(out, r)
		case <-timeout.C:
			t.Fatalf("got %d of %d rows: %v", len(out), n, out)
		}
	}
	return out
}

// buffered returns the rows already in the results channel.
func buffered(j *Job) []types.Row {
	var out []types.Row
	for {
		select {
		case r, ok := <-j.Results():
			if !ok {
				return out
			}
			out = append(out, r)
		default:
			return out
		}
	}
}

func fakeRows(rows []types.Row) []fakeRow {
	out := make([]fakeRow, len(rows))
	for i, r := range rows {
		out[i] = toFakeRow(r)
	}
	return out
}

func keys(rows []types.Row) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.Values[0].Int()
	}
	return out
}

func syncJob(t *testing.T, j *Job) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	require.NoError(t, j.Sync(ctx))
}

func checkpointJob(t *testing.T, j *Job) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	require.NoError(t, j.Checkpoint(ctx))
}

// waitJob waits for a job that must end by itself.
func waitJob(t *testing.T, j *Job) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- j.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(waitLimit):
		t.Fatal("the job did not end")
		return nil
	}
}

// positionsOf returns the committed positions of src's partitions.
func positionsOf(t *testing.T, j *Job, src *fakeSource) map[int32]int64 {
	t.Helper()
	all, err := j.CommittedPositions()
	require.NoError(t, err)
	out := map[int32]int64{}
	for p := range src.topic.ends() {
		if o, ok := all[src.Name()+"/"+strconv.Itoa(int(p))]; ok {
			out[p] = o
		}
	}
	return out
}
