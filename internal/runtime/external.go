package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"sync"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/logstore"
	"github.com/eddy-sql/eddy/types"
)

// extInput is one external (Kafka) input of the source task. A goroutine
// owned by its mixReader fetches records; the source task merges the
// partitions' queues in a fixed order (see mixReader.pick).
type extInput struct {
	input int
	// also are the further inputs that read the same table (a self-join):
	// the table is read once, each record goes to every input, and its
	// positions are checkpointed once (decision 0031).
	also []int
	name string
	src  connector.Source
	rd   connector.Reader
	// parts are the partitions, sorted; dense maps a partition to its
	// position in parts (the index of its watermark).
	parts  []int32
	dense  map[int32]int
	queues map[int32]*recQueue
	// pos is the next offset after the records emitted; avail the next
	// offset after everything received (past control records).
	pos, avail map[int32]int64
	// target bounds reading: a snapshot's end, the table's scan.bounded
	// end, or a sync's end; nil when reading freely.
	target  map[int32]int64
	bounded bool // target is permanent (snapshot or scan.bounded)
	// tableBounds are the 'scan.bounded.mode' ends, saved in checkpoints.
	tableBounds map[int32]int64
	finished    bool // a scan.bounded input reached its end
	closed      bool // its final watermark went out
	// lastActive is when each partition last produced a record (clock
	// nanoseconds; the job's start for one that has not), for
	// scan.watermark.idle-timeout.
	lastActive map[int32]int64
}

type extBatch struct {
	ext  *extInput
	recs []connector.Record
	next map[int32]int64
	err  error
}

// mixReader reads log records first (through logs) and then the records of
// external inputs.
type mixReader struct {
	logs    inputReader
	ext     []*extInput
	batches chan extBatch
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	// finishedNow is set when an input reached its bounded end, so that
	// the source sends its final watermark without waiting to be idle
	// (a lookup join waits for it while the other inputs stream).
	finishedNow bool
	// cur is the external record Next returned last.
	cur    connector.Record
	curExt *extInput
	err    error
	// dlq holds the dead-letter rows of bad records read since the last
	// barrier (see takeDeadLetters).
	dlq []deadLetter
}

// deadLetter is an encoded dead-letter row and the log it goes to.
type deadLetter struct {
	log string
	row []byte
}

// openExternal opens the job's external inputs at their checkpointed
// positions and wraps the source's reader.
func (s *source) openExternal(ctx context.Context) error {
	var exts []*extInput
	var saved map[string]int64
	for i, in := range s.inputs {
		if in.Source == nil {
			continue
		}
		if saved == nil {
			saved = map[string]int64{}
			if s.job.opts.Resume {
				var err error
				if saved, err = s.job.loadPositions(); err != nil {
					return err
				}
			}
		}
		name := in.Source.Name()
		if first, dup := s.inputOf[name]; dup {
			// Read once, fanned out: input i keeps its own decoding,
			// computed columns and watermark state.
			for _, e := range exts {
				if e.input == first {
					e.also = append(e.also, i)
					s.wm[i] = make([]int64, len(e.parts))
					for p := range s.wm[i] {
						s.wm[i][p] = MinWatermark
					}
				}
			}
			if s.alsoOf == nil {
				s.alsoOf = map[string][]int{}
			}
			s.alsoOf[name] = append(s.alsoOf[name], i)
			continue
		}
		from := savedOffsets(saved, name+"/")
		env := s.job.connectorEnv()
		if b := savedOffsets(saved, name+boundSuffix+"/"); len(b) > 0 {
			env.Bounds = b
		}
		rd, err := in.Source.Open(ctx, env, from)
		if err != nil {
			closeExternal(exts)
			return fmt.Errorf("opening %s: %w", in.Table, err)
		}
		// pos and avail must be maps of their own: the SPI does not
		// promise a fresh map from every Start call, and avail running
		// ahead of pos is what keeps unread records from being skipped.
		start := rd.Start()
		e := &extInput{input: i, name: name, src: in.Source, rd: rd, queues: map[int32]*recQueue{},
			pos: maps.Clone(start), avail: maps.Clone(start), lastActive: map[int32]int64{}}
		for p := range e.pos {
			e.parts = append(e.parts, p)
		}
		sort.Slice(e.parts, func(a, b int) bool { return e.parts[a] < e.parts[b] })
		// Partition ids may be sparse (a file source numbers its files
		// by a hash): watermarks are kept per position in parts.
		e.dense = make(map[int32]int, len(e.parts))
		for k, p := range e.parts {
			e.dense[p] = k
		}
		s.wm[i] = make([]int64, len(e.parts))
		for p := range s.wm[i] {
			s.wm[i][p] = MinWatermark
		}
		if b := rd.Bounds(); b != nil {
			e.target, e.bounded, e.tableBounds = b, true, rd.Bounds()
		}
		if s.targets != nil {
			t, err := rd.Targets(ctx)
			if err != nil {
				closeExternal(append(exts, e))
				return err
			}
			if e.target != nil {
				for p, o := range e.target {
					t[p] = min(t[p], o)
				}
			}
			e.target, e.bounded = t, true
		}
		if s.targets != nil {
			for p, o := range e.target {
				s.targets[logstore.Position{Log: name, Partition: int(p)}] = o
			}
		}
		if e.target == nil && in.Watermark != nil {
			// Reading freely: a partition's idle time counts from the
			// open until it produces (emitWatermark).
			now := s.job.env.Clock.Now().UnixNano()
			for _, p := range e.parts {
				e.lastActive[p] = now
			}
		}
		s.inputOf[name] = i
		exts = append(exts, e)
	}
	if len(exts) == 0 {
		return nil
	}
	r := &mixReader{logs: s.reader, ext: exts, batches: make(chan extBatch, 4*len(exts))}
	r.ctx, r.cancel = context.WithCancel(s.job.ctx)
	for _, e := range exts {
		r.wg.Add(1)
		go r.fetch(e)
	}
	s.reader, s.mix = r, r
	s.extOf = make([]*extInput, len(s.inputs))
	for _, e := range exts {
		for _, i := range e.inputs() {
			s.extOf[i] = e
		}
	}
	return nil
}

func closeExternal(exts []*extInput) {
	for _, e := range exts {
		e.rd.Close()
	}
}

// fetch is the fetching goroutine of one external input.
func (r *mixReader) fetch(e *extInput) {
	defer r.wg.Done()
	for {
		recs, err := e.rd.Fetch(r.ctx)
		if r.ctx.Err() != nil {
			return
		}
		next := make(map[int32]int64, len(e.parts))
		for _, p := range e.parts {
			next[p] = e.rd.Next(p)
		}
		select {
		case r.batches <- extBatch{ext: e, recs: recs, next: next, err: err}:
		case <-r.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// close stops the fetching goroutines and closes the readers.
func (r *mixReader) close() {
	r.cancel()
	r.wg.Wait()
	closeExternal(r.ext)
}

func (r *mixReader) receive(b extBatch) {
	if b.err != nil && r.err == nil {
		r.err = fmt.Errorf("reading %s: %w", b.ext.name, b.err)
	}
	e := b.ext
	for _, rec := range b.recs {
		if e.bounded && rec.Offset >= e.target[rec.Partition] {
			// Past a snapshot's or scan.bounded end: never read. Queueing
			// it would grow the queue for as long as the job runs and
			// make Wait return at once (a busy loop) once the input
			// finished while other inputs go on.
			continue
		}
		q := e.queues[rec.Partition]
		if q == nil {
			q = &recQueue{}
			e.queues[rec.Partition] = q
		}
		q.push(rec)
	}
	for p, o := range b.next {
		if e.bounded {
			o = min(o, e.target[p])
		}
		e.avail[p] = max(e.avail[p], o)
	}
}

// drain takes every batch the fetchers have sent, without waiting.
func (r *mixReader) drain() {
	for {
		select {
		case b := <-r.batches:
			r.receive(b)
		default:
			return
		}
	}
}

// pick chooses the next external record: the smallest head by (record
// timestamp, input, partition, offset). While an input has a target, a
// partition below it without a buffered record makes pick wait (it
// returns that input as wait), so fetch timing never changes the order.
func (r *mixReader) pick() (e *extInput, p int32, wait bool) {
	var best *extInput
	var bp int32
	for _, x := range r.ext {
		if x.finished {
			continue
		}
		done := true
		for _, q := range x.parts {
			xq := x.queues[q]
			if xq.len() == 0 {
				x.pos[q] = max(x.pos[q], x.avail[q])
			}
			if x.target != nil {
				t := x.target[q]
				if x.pos[q] >= t {
					continue
				}
				if xq.len() == 0 {
					return nil, 0, true
				}
				if xq.peek().Offset >= t {
					// Only control or aborted records lie before the target.
					x.pos[q] = t
					continue
				}
			} else if xq.len() == 0 {
				continue
			}
			done = false
			h := xq.peek()
			if best == nil || before(h, x, best.queues[bp].peek(), best) {
				best, bp = x, q
			}
		}
		if done && x.target != nil && x.bounded && !x.finished && x.boundedEnd() {
			x.finished = true
			r.finishedNow = true
		}
	}
	return best, bp, false
}

// inputs are the job inputs the external input feeds: its own and those
// reading the same table.
func (e *extInput) inputs() []int {
	return append([]int{e.input}, e.also...)
}

// boundedEnd reports whether every partition reached its target.
func (e *extInput) boundedEnd() bool {
	for _, q := range e.parts {
		if e.pos[q] < e.target[q] {
			return false
		}
	}
	return true
}

func before(a *connector.Record, ax *extInput, b *connector.Record, bx *extInput) bool {
	if a.Timestamp != b.Timestamp {
		return a.Timestamp < b.Timestamp
	}
	if ax.input != bx.input {
		return ax.input < bx.input
	}
	if a.Partition != b.Partition {
		return a.Partition < b.Partition
	}
	return a.Offset < b.Offset
}

// Next implements inputReader.
func (r *mixReader) Next() (logstore.Record, bool, error) {
	if rec, ok, err := r.logs.Next(); ok || err != nil {
		return rec, ok, err
	}
	for {
		r.drain()
		if r.err != nil {
			return logstore.Record{}, false, r.err
		}
		e, p, wait := r.pick()
		if e != nil {
			r.cur, r.curExt = e.queues[p].pop(), e
			e.pos[p] = r.cur.Offset + 1
			return logstore.Record{Log: e.name, Partition: int(p), Offset: r.cur.Offset, Timestamp: r.cur.Timestamp}, true, nil
		}
		if !wait {
			return logstore.Record{}, false, nil
		}
		select {
		case b := <-r.batches:
			r.receive(b)
		case <-r.ctx.Done():
			return logstore.Record{}, false, r.ctx.Err()
		}
	}
}

// boundSuffix names, in checkpoints, the end offsets of an input with
// 'scan.bounded.mode' ("<source>#bound/<partition>"), so that a restarted
// job ends where the first run would have.
const boundSuffix = "#bound"

// savedOffsets returns the offsets of a checkpoint's positions under
// prefix ("<name>/"), by partition.
func savedOffsets(saved map[string]int64, prefix string) map[int32]int64 {
	out := map[int32]int64{}
	for k, v := range saved {
		if len(k) > len(prefix) && k[:len(prefix)] == prefix {
			var p int32
			if _, err := fmt.Sscanf(k[len(prefix):], "%d", &p); err == nil {
				out[p] = v
			}
		}
	}
	return out
}

// Positions implements inputReader. Inputs with a 'scan.bounded.mode' end
// also report it (as "<name>#bound" positions) for the checkpoint.
func (r *mixReader) Positions() []logstore.Position {
	out := r.logs.Positions()
	for _, e := range r.ext {
		if e.tableBounds != nil {
			for p, o := range e.tableBounds {
				out = append(out, logstore.Position{Log: e.name + boundSuffix, Partition: int(p), Offset: o})
			}
		}
		for _, p := range e.parts {
			if e.queues[p].len() == 0 {
				e.pos[p] = max(e.pos[p], e.avail[p])
			}
			out = append(out, logstore.Position{Log: e.name, Partition: int(p), Offset: e.pos[p]})
		}
	}
	return out
}

// takeDeadLetters hands the dead-letter rows read so far to a barrier. Rows
// appended to the job's writer at once would go out with the next
// checkpoint that commits, which may be one whose barrier was injected
// before their records were read (its commit runs while the source reads
// on): a job resumed from it would read the records again and log them
// twice. Carried by the barrier, they commit with the checkpoint that
// covers their records.
func (s *source) takeDeadLetters() []deadLetter {
	if s.mix == nil || len(s.mix.dlq) == 0 {
		return nil
	}
	out := s.mix.dlq
	s.mix.dlq = nil
	return out
}

// appendDeadLetters appends a checkpoint's dead-letter rows to the job's
// writer; j.writerMu must be held.
func (j *Job) appendDeadLetters(rows []deadLetter) {
	for _, d := range rows {
		j.writer.Append(d.log, 0, nil, d.row)
	}
}

// Wait implements inputReader.
func (r *mixReader) Wait(ctx context.Context) error {
	for _, e := range r.ext {
		for _, q := range e.queues {
			if q.len() > 0 {
				return nil
			}
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	data := make(chan error, 1)
	go func() { data <- r.logs.Wait(wctx) }()
	select {
	case err := <-data:
		return err
	case b := <-r.batches:
		r.receive(b)
		cancel()
		<-data
		return nil
	case <-ctx.Done():
		cancel()
		<-data
		return ctx.Err()
	}
}

// sync sets, for a sync request, each unbounded external input's target
// to the end of what is committed now.
func (r *mixReader) sync(ctx context.Context) error {
	for _, e := range r.ext {
		if e.bounded {
			continue
		}
		t, err := e.rd.Targets(ctx)
		if err != nil {
			return err
		}
		e.target = t
	}
	return nil
}

// synced drops the sync targets once the requests are answered.
func (r *mixReader) synced() {
	for _, e := range r.ext {
		if !e.bounded {
			e.target = nil
		}
	}
}

// appendMeta appends the metadata values (jobgraph.Meta*) of a record.
func appendMeta(vals []types.Value, rec logstore.Record, ext *connector.Record, in *jobgraph.Input) []types.Value {
	vals = append(vals, types.NewInt(rec.Offset), types.NewInt(int64(rec.Partition)))
	if ext == nil {
		ts := types.Null
		if rec.Timestamp != logstore.NoTimestamp {
			ts = types.NewTimestampMillis(rec.Timestamp)
		}
		return append(vals, ts, types.Null, types.Null, types.Null, types.Null, types.Null, types.Null)
	}
	tt := "CreateTime"
	switch ext.TimestampType {
	case connector.LogAppendTime:
		tt = "LogAppendTime"
	case connector.NoTimestampType:
		tt = "NoTimestampType"
	}
	epoch := types.Null
	if ext.LeaderEpoch >= 0 {
		epoch = types.NewInt(int64(ext.LeaderEpoch))
	}
	// Headers and the raw key and value cost allocations: only for tables
	// that read them.
	headers, rawKey, rawValue := types.Null, types.Null, types.Null
	if in.MetaUsed&(1<<jobgraph.MetaHeaders) != 0 {
		headers = headerMap(ext.Headers)
	}
	if in.MetaUsed&(1<<jobgraph.MetaRawKey) != 0 {
		rawKey = nullableBytes(ext.Key)
	}
	if in.MetaUsed&(1<<jobgraph.MetaRawValue) != 0 {
		rawValue = nullableBytes(ext.Value)
	}
	return append(vals, types.NewTimestampMillis(ext.Timestamp), types.NewString(tt), types.NewString(in.Source.Topic()),
		headers, epoch, rawKey, rawValue)
}

// headerMap is the MAP<STRING, BYTES> of a record's headers: a duplicate
// key keeps its last value (map keys are unique).
func headerMap(headers []connector.Header) types.Value {
	hs := make([]types.MapEntry, 0, len(headers))
	for _, h := range headers {
		v := nullableBytes(h.Value)
		dup := false
		for j := range hs {
			if hs[j].Key.Str() == h.Key {
				hs[j].Val, dup = v, true
			}
		}
		if !dup {
			hs = append(hs, types.MapEntry{Key: types.NewString(h.Key), Val: v})
		}
	}
	return types.NewMap(hs)
}

func nullableBytes(b []byte) types.Value {
	if b == nil {
		return types.Null
	}
	return types.NewBytes(b)
}

// badRecord applies the input's error-handling mode to a record its source
// could not decode.
func (s *source) badRecord(in *jobgraph.Input, rec *connector.Record, err error) error {
	where := in.Source.Describe(rec)
	reason := err.Error()
	if bre := (*connector.BadRecordError)(nil); errors.As(err, &bre) {
		reason = bre.Err.Error()
	}
	if !errors.Is(err, connector.ErrBadRecord) {
		return fmt.Errorf("table %s: reading the record at %s: %w", in.Table, where, err)
	}
	switch in.Errors.Mode {
	case "ignore":
		s.job.metrics.skipped.Add(1)
		s.job.logger.Debug("skipped a bad record", "table", in.Table, "at", where, "err", err)
		return nil
	case "log":
		row := types.Row{Values: []types.Value{
			types.NewTimestampTime(s.job.env.Clock.Now()),
			types.NewString("DESERIALIZATION_ERROR"),
			types.NewString(reason),
			types.NewString(in.Errors.Statement),
			types.NewString(in.Table),
			types.NewString(in.Source.Topic()),
			types.NewInt(int64(rec.Partition)),
			types.NewInt(rec.Offset),
			types.NewTimestampMillis(rec.Timestamp),
			headerMap(rec.Headers),
			nullableBytes(rec.Key),
			nullableBytes(rec.Value),
		}}
		// The row commits with the checkpoint covering its record (see
		// mixReader.releaseDeadLetters).
		s.dlq = types.AppendRow(s.dlq[:0], row)
		s.mix.dlq = append(s.mix.dlq, deadLetter{log: in.Errors.Log, row: bytes.Clone(s.dlq)})
		s.job.metrics.skipped.Add(1)
		return nil
	}
	return fmt.Errorf("table %s: cannot decode the record at %s: %s (to skip such records set 'error-handling.mode' = 'ignore', or 'log' to keep them in a table)", in.Table, where, reason)
}

// emitWatermark sends input i's watermark when it advanced: the minimum
// over the partitions that produced one, leaving out partitions idle for
// longer than the source's idle timeout (continuous reading only).
func (s *source) emitWatermark(ctx context.Context, i int) error {
	var e *extInput
	if s.extOf != nil {
		e = s.extOf[i]
	}
	idle := int64(0)
	var now int64
	if e != nil && e.src.IdleTimeout() > 0 && s.targets == nil && e.target == nil {
		idle = int64(e.src.IdleTimeout())
		now = s.job.env.Clock.Now().UnixNano()
	}
	m, n := MaxWatermark, 0
	for p, w := range s.wm[i] {
		if w == MinWatermark {
			// A partition without a watermark yet holds the others back:
			// otherwise the partition fetched first could make every
			// row of the others late. Read to a known end (a snapshot,
			// scan.bounded), only while it has records up to that end.
			if e == nil {
				continue
			}
			part := e.parts[p]
			if !e.bounded {
				// Read freely (also while a sync reads to the ends of
				// now), as a Flink split: until it produces, or until it
				// is idle for the timeout (counted from the open).
				if idle == 0 || now-e.lastActive[part] <= idle {
					return nil
				}
				continue
			}
			if e.target[part] > e.pos[part] {
				return nil
			}
			continue
		}
		if idle > 0 && now-e.lastActive[e.parts[p]] > idle {
			continue
		}
		m, n = min(m, w), n+1
	}
	if n > 0 && m > s.inWM[i] {
		s.inWM[i] = m
		s.job.metrics.watermark.Store(m)
		return s.add(ctx, event{kind: evWatermark, input: i, wm: m})
	}
	return nil
}

// checkIdle re-evaluates the watermarks of inputs with an idle timeout
// (called on the checkpoint tick while the source waits) and sends those
// that advanced: the source may wait for records for a long time, and
// the watermark is what fires the timers downstream meanwhile.
func (s *source) checkIdle(ctx context.Context) error {
	if s.mix == nil {
		return nil
	}
	sent := false
	for _, e := range s.mix.ext {
		if e.src.IdleTimeout() <= 0 {
			continue
		}
		for _, i := range e.inputs() {
			if s.inputs[i].Watermark == nil {
				continue
			}
			before := s.inWM[i]
			if err := s.emitWatermark(ctx, i); err != nil {
				return err
			}
			sent = sent || s.inWM[i] != before
		}
	}
	if sent {
		// Timers may have written output: the next tick commits it.
		s.sinceCP++
		return s.send(ctx)
	}
	return nil
}

// closeFinished sends the final watermark of external inputs that reached
// their 'scan.bounded.mode' end in a continuous job.
func (s *source) closeFinished(ctx context.Context) error {
	if s.mix == nil || s.targets != nil {
		return nil
	}
	for _, e := range s.mix.ext {
		if e.finished && !e.closed {
			e.closed = true
			for _, i := range e.inputs() {
				s.inWM[i] = MaxWatermark
				if err := s.add(ctx, event{kind: evWatermark, input: i, wm: MaxWatermark}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// recQueue is a partition's queue of fetched records. Its array is reused:
// emptied, it starts over; half consumed, the rest moves to the front.
type recQueue struct {
	recs []connector.Record
	head int
}

// len is the number of queued records (0 for a nil queue).
func (q *recQueue) len() int {
	if q == nil {
		return 0
	}
	return len(q.recs) - q.head
}

func (q *recQueue) push(r connector.Record) {
	if q.head > 0 && (q.head == len(q.recs) || q.head >= cap(q.recs)/2) {
		n := copy(q.recs, q.recs[q.head:])
		clear(q.recs[n:])
		q.recs, q.head = q.recs[:n], 0
	}
	q.recs = append(q.recs, r)
}

func (q *recQueue) peek() *connector.Record { return &q.recs[q.head] }

func (q *recQueue) pop() connector.Record {
	r := q.recs[q.head]
	q.recs[q.head] = connector.Record{}
	q.head++
	return r
}
