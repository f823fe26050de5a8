package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/eddy-sql/eddy/internal/connector"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/logstore"
	"github.com/eddy-sql/eddy/types"
)

// source is the source task: it reads every input log in global append
// order, decodes rows, evaluates computed columns and watermarks, and sends
// batches of events to the keyed task.
type source struct {
	job     *Job
	inputs  []jobgraph.Input
	reader  inputReader
	pos     []logstore.Position
	inputOf map[string]int // log -> input index
	// alsoOf lists, per log, the further inputs that read the same log
	// table (a self-join, a union of a table with itself): the log is read
	// once and each record goes to every input.
	alsoOf map[string][]int
	// targets bounds a snapshot: the end offsets when it started.
	targets map[logstore.Position]int64
	wm      [][]int64 // per input, per partition
	inWM    []int64   // per input
	batches [][]event // pending events per subtask
	// pendingSyncs are sync requests answered when the reader is next at
	// the end of its inputs.
	pendingSyncs []*barrier
	arena        []types.Value
	// recycle: no operator keeps the rows the source sends (Job.keepsNoRows
	// of every input), so each batch carries its rows' values in vals,
	// which come back with the batch's slices (subtask.free) and are filled
	// again; rows are decoded into tmp, reset at every record.
	recycle bool
	vals    [][]types.Value // per subtask, the values of the pending batch
	tmp     []types.Value
	scratch []types.Value // the stored row of an input with computed columns
	// multi is the scratch row of a record holding several rows, and
	// kinds their kinds (connector.Source.Decode).
	multi   []types.Value
	kinds   []types.RowKind
	sinceCP int
	// sincePoll counts the rows read since run last looked at the
	// checkpoint channels.
	sincePoll int
	// mix reads the external (Kafka) inputs, nil without any.
	mix *mixReader
	// extOf is the external reader of each input (nil for log inputs).
	extOf []*extInput
	// dlq is the encoding buffer of dead-letter rows.
	dlq []byte
}

func newSource(j *Job) (*source, error) {
	s := &source{job: j, inputs: j.graph.Inputs, inputOf: map[string]int{}}
	for i, in := range s.inputs {
		w := make([]int64, in.Partitions)
		for p := range w {
			w[p] = MinWatermark
		}
		s.wm = append(s.wm, w)
		s.inWM = append(s.inWM, MinWatermark)
		if in.Generator != nil || in.Source != nil {
			continue // generated and external inputs have their own readers (generate.go, external.go)
		}
		if _, dup := s.inputOf[in.Log]; dup {
			if s.alsoOf == nil {
				s.alsoOf = map[string][]int{}
			}
			s.alsoOf[in.Log] = append(s.alsoOf[in.Log], i)
			continue
		}
		s.inputOf[in.Log] = i
		for p := range w {
			s.pos = append(s.pos, logstore.Position{Log: in.Log, Partition: p})
		}
	}
	if j.opts.Bounded {
		s.targets = map[logstore.Position]int64{}
		for _, in := range s.inputs {
			if in.Generator != nil || in.Source != nil {
				continue
			}
			ends, err := j.env.Logs.EndOffsets(in.Log)
			if err != nil {
				return nil, fmt.Errorf("reading end offsets of %s: %w", in.Table, err)
			}
			for p, e := range ends {
				s.targets[logstore.Position{Log: in.Log, Partition: p}] = e
			}
		}
	}
	if j.opts.Resume {
		saved, err := j.loadPositions()
		if err != nil {
			return nil, err
		}
		for i := range s.pos {
			if off, ok := saved[posKey(s.pos[i].Log, s.pos[i].Partition)]; ok {
				s.pos[i].Offset = off
			}
		}
	}
	s.recycle = true
	for i := range s.inputs {
		s.recycle = s.recycle && j.keepsNoRows(jobgraph.Source(i))
	}
	if len(s.pos) == 0 {
		s.reader = noInput{} // a function without table arguments, or only generated inputs
	} else {
		r, err := j.env.Logs.NewMergedReader(s.pos)
		if err != nil {
			return nil, fmt.Errorf("opening inputs: %w", err)
		}
		s.reader = r
	}
	if err := s.openExternal(j.ctx); err != nil {
		return nil, err
	}
	if err := s.openGenerators(); err != nil {
		if s.mix != nil {
			s.mix.close()
		}
		return nil, err
	}
	return s, nil
}

func (s *source) reachedTargets() bool {
	for _, p := range s.reader.Positions() {
		if p.Offset < s.targets[logstore.Position{Log: p.Log, Partition: p.Partition}] {
			return false
		}
	}
	return true
}

// send flushes the pending batches of every subtask.
func (s *source) send(ctx context.Context) error {
	for i := range s.batches {
		if err := s.sendTo(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

func (s *source) sendTo(ctx context.Context, i int) error {
	if len(s.batches[i]) == 0 {
		return nil
	}
	b := batch{events: s.batches[i], sent: s.job.env.Clock.Now().UnixNano()}
	if s.recycle {
		b.vals = s.vals[i]
	}
	select {
	case s.job.subtasks[i].ch <- b:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case f := <-s.job.subtasks[i].free:
		s.batches[i] = f.events
		if s.recycle {
			s.vals[i] = f.vals
		}
	default:
		s.batches[i] = make([]event, 0, batchSize)
		if s.recycle {
			s.vals[i] = make([]types.Value, 0, 4*batchSize)
		}
	}
	return nil
}

// keep copies the values of a record for subtask i into the values of its
// pending batch (recycle).
func (s *source) keep(i int, vals []types.Value) []types.Value {
	lo := len(s.vals[i])
	s.vals[i] = append(s.vals[i], vals...)
	return s.vals[i][lo:len(s.vals[i]):len(s.vals[i])]
}

// add routes an event: records go to the subtask owning their key, the
// rest (watermarks, barriers, end) to every subtask.
func (s *source) add(ctx context.Context, ev event) error {
	if ev.kind == evRecord && len(s.batches) > 1 {
		i := s.job.route(ev.input, ev.row)
		if s.recycle {
			ev.row.Values = s.keep(i, ev.row.Values)
		}
		s.batches[i] = append(s.batches[i], ev)
		if len(s.batches[i]) >= batchSize {
			return s.sendTo(ctx, i)
		}
		return nil
	}
	for i := range s.batches {
		if s.recycle && ev.kind == evRecord {
			ev.row.Values = s.keep(i, ev.row.Values) // one subtask
		}
		s.batches[i] = append(s.batches[i], ev)
		if len(s.batches[i]) >= batchSize {
			if err := s.sendTo(ctx, i); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *source) barrier(ctx context.Context, b *barrier) error {
	b.positions = s.reader.Positions()
	b.deadLetters = s.takeDeadLetters()
	if err := s.add(ctx, event{kind: evBarrier, barrier: b}); err != nil {
		return err
	}
	s.sinceCP = 0
	return s.send(ctx)
}

// run reads until the end of a bounded input or until ctx is done.
func (s *source) run(ctx context.Context) error {
	if s.mix != nil {
		defer s.mix.close()
	}
	s.batches = make([][]event, len(s.job.subtasks))
	for i := range s.batches {
		s.batches[i] = make([]event, 0, batchSize)
	}
	if s.recycle {
		s.vals = make([][]types.Value, len(s.job.subtasks))
		for i := range s.vals {
			s.vals[i] = make([]types.Value, 0, 4*batchSize)
		}
	}
	if err := s.startGenerated(ctx); err != nil {
		return err
	}
	for {
		rec, ok, err := s.reader.Next()
		if err != nil {
			return fmt.Errorf("reading input: %w", err)
		}
		if ok {
			if s.targets != nil && rec.Offset >= s.targets[logstore.Position{Log: rec.Log, Partition: rec.Partition}] {
				continue
			}
			if err := s.record(ctx, rec); err != nil {
				return err
			}
			if err := s.generatedRead(ctx, rec); err != nil {
				return err
			}
			if s.mix != nil && s.mix.finishedNow {
				s.mix.finishedNow = false
				if err := s.closeFinished(ctx); err != nil {
					return err
				}
			}
			if s.job.opts.CheckpointRecords > 0 && s.sinceCP >= s.job.opts.CheckpointRecords {
				if err := s.barrier(ctx, s.job.newBarrier()); err != nil {
					return err
				}
			}
			// Periodic and requested checkpoints also while the job is
			// behind its input (not only when it is idle). A select on
			// the channels costs more than reading a row, so they are
			// looked at every pollEvery rows.
			if s.sincePoll++; s.sincePoll < pollEvery {
				continue
			}
			s.sincePoll = 0
			select {
			case <-s.job.tick:
				if err := s.barrier(ctx, s.job.newBarrier()); err != nil {
					return err
				}
			case b := <-s.job.checkpointCh:
				if err := s.barrier(ctx, b); err != nil {
					return err
				}
			default:
			}
			continue
		}
		// Caught up with everything committed so far. A continuous job
		// whose inputs are all bounded generated tables ends when they do
		// (a statement over them completes).
		if err := s.closeFinished(ctx); err != nil {
			return err
		}
		if (s.targets != nil && s.reachedTargets()) || s.allInputsClosed() {
			for i := range s.inputs {
				if err := s.add(ctx, event{kind: evWatermark, input: i, wm: MaxWatermark}); err != nil {
					return err
				}
			}
			end := s.job.newBarrier()
			end.positions = s.reader.Positions()
			end.deadLetters = s.takeDeadLetters()
			if err := s.add(ctx, event{kind: evEnd, barrier: end}); err != nil {
				return err
			}
			return s.send(ctx)
		}
		if err := s.send(ctx); err != nil {
			return err
		}
		if len(s.pendingSyncs) > 0 {
			// The reader is at the end of everything committed before
			// these requests, so the barriers cover it.
			for _, b := range s.pendingSyncs {
				if err := s.barrier(ctx, b); err != nil {
					return err
				}
			}
			s.pendingSyncs = s.pendingSyncs[:0]
			if s.mix != nil {
				s.mix.synced()
			}
			continue
		}
		if err := s.idle(ctx); err != nil {
			return err
		}
	}
}

// idle waits for new data, a sync request or a periodic checkpoint. The
// wait for data runs in a goroutine owned by idle and awaited before it
// returns.
func (s *source) idle(ctx context.Context) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	data := make(chan error, 1)
	go func() { data <- s.reader.Wait(wctx) }()
	stop := func() { cancel(); <-data }
	for {
		select {
		case <-ctx.Done():
			stop()
			return ctx.Err()
		case err := <-data:
			if err != nil && ctx.Err() == nil {
				return fmt.Errorf("waiting for input: %w", err)
			}
			return nil
		case b := <-s.job.checkpointCh:
			stop()
			return s.barrier(ctx, b)
		case b := <-s.job.syncCh:
			stop()
			// Data may have been committed between the reader's last
			// look and the request: answer only once the reader is at
			// the end again (run sends pending syncs when it is).
			s.pendingSyncs = append(s.pendingSyncs, b)
			s.syncGenerated()
			if s.mix != nil {
				if err := s.mix.sync(ctx); err != nil {
					return err
				}
			}
			return nil
		case <-s.job.tick:
			if err := s.checkIdle(ctx); err != nil {
				stop()
				return err
			}
			if s.sinceCP > 0 || s.job.procTime || s.job.procTimers.Load() > 0 {
				// With processing-time operators, also without new
				// input: windows and functions' processing-time timers
				// may fire on the clock, and the checkpoint commits
				// their results.
				stop()
				return s.barrier(ctx, s.job.newBarrier())
			}
		}
	}
}

func (s *source) record(ctx context.Context, rec logstore.Record) error {
	if err := s.recordOf(ctx, rec, s.inputOf[rec.Log]); err != nil {
		return err
	}
	for _, i := range s.alsoOf[rec.Log] {
		if err := s.recordOf(ctx, rec, i); err != nil {
			return err
		}
	}
	return nil
}

// recordOf passes a record to input i.
func (s *source) recordOf(ctx context.Context, rec logstore.Record, i int) error {
	in := &s.inputs[i]
	s.tmp = s.tmp[:0]
	extra := 0
	if in.Columns != nil {
		extra = jobgraph.MetaCount
	}
	// Rows go downstream in slices of the arena (one allocation per 4096
	// values). With computed or metadata columns the stored row is only an
	// input of their expressions, so it is decoded into a scratch row.
	row := types.Row{}
	if in.Columns != nil {
		row.Values = s.scratch[:0]
	} else {
		row.Values = s.take(in.Physical.Len() + extra)
	}
	var ext *connector.Record
	switch {
	case in.Generator != nil:
		row.Values = in.Generator.Row(rec.Offset, row.Values)
	case in.Source != nil:
		ext = &s.mix.cur
		base := len(row.Values)
		// The reader's source decodes: a table read twice is opened once
		// (by its first input), and a source decodes only once open.
		vals, kinds, err := s.mix.curExt.src.Decode(ext, row.Values, s.kinds[:0])
		if err != nil {
			if i != s.mix.curExt.input && in.Errors.Mode == "log" && errors.Is(err, connector.ErrBadRecord) {
				// A table read twice logs a bad record once (by its
				// first input).
				s.job.metrics.skipped.Add(1)
				return nil
			}
			return s.badRecord(in, ext, err)
		}
		s.kinds = kinds
		if len(kinds) == 0 {
			s.job.metrics.skipped.Add(1)
			return nil
		}
		if in.Source.IdleTimeout() > 0 {
			s.mix.curExt.lastActive[ext.Partition] = s.job.env.Clock.Now().UnixNano()
		}
		if len(kinds) > 1 {
			// A record holding several rows (a changelog format's update):
			// each row gets a slice of its own.
			w := in.Physical.Len()
			for j, k := range kinds {
				one := types.Row{Kind: k}
				if in.Columns != nil {
					one.Values = append(s.multi[:0], vals[base+j*w:base+(j+1)*w]...)
				} else {
					one.Values = append(s.take(w), vals[base+j*w:base+(j+1)*w]...)
				}
				if err := s.emitRow(ctx, rec, ext, i, one, &s.multi); err != nil {
					return err
				}
			}
			if in.Columns != nil {
				s.scratch = vals[:0]
			}
			return nil
		}
		row.Values, row.Kind = vals, kinds[0]
	default:
		if err := types.DecodeRowInto(rec.Value, &row); err != nil {
			return fmt.Errorf("decoding record %s/%d@%d: %w", in.Table, rec.Partition, rec.Offset, err)
		}
		// Rows written before ALTER TABLE ... ADD read NULL in the new
		// columns.
		for len(row.Values) < in.Physical.Len() {
			row.Values = append(row.Values, types.Null)
		}
	}
	return s.emitRow(ctx, rec, ext, i, row, &s.scratch)
}

// pollEvery is how many rows the source reads between looks at the
// periodic and requested checkpoints while it is behind its input.
const pollEvery = 64

// take returns an empty slice of n values from the arena.
func (s *source) take(n int) []types.Value {
	if s.recycle {
		// Scratch: add copies the row into its batch.
		if l := len(s.tmp); cap(s.tmp)-l < n {
			s.tmp = make([]types.Value, 0, max(64, 2*(l+n)))
		}
		l := len(s.tmp)
		s.tmp = s.tmp[:l+n]
		return s.tmp[l : l : l+n]
	}
	if len(s.arena) < n {
		s.arena = make([]types.Value, max(4096, n))
	}
	v := s.arena[:0:n]
	s.arena = s.arena[n:]
	return v
}

// emitRow computes the full row of a decoded stored row of input i (its
// computed and metadata columns), sends it and advances the watermark.
// With computed columns the stored row is scratch: *keep takes it back
// (with the capacity the metadata values grew it to).
func (s *source) emitRow(ctx context.Context, rec logstore.Record, ext *connector.Record, i int, row types.Row, keep *[]types.Value) error {
	in := &s.inputs[i]
	if in.Columns != nil {
		row.Values = appendMeta(row.Values, rec, ext, in)
		*keep = row.Values[:0]
		full := s.take(len(in.Columns))[:len(in.Columns)]
		for c, e := range in.Columns {
			v, err := e.Eval(row.Values)
			if err != nil {
				return fmt.Errorf("computing column %s of %s: %w", in.Schema.Fields[c].Name, in.Table, err)
			}
			full[c] = v
		}
		row = types.Row{Kind: row.Kind, Values: full}
	}
	s.sinceCP++
	s.job.metrics.recordsIn.Add(1)
	if err := s.add(ctx, event{kind: evRecord, input: i, row: row}); err != nil {
		return err
	}
	if in.Watermark == nil {
		return nil
	}
	v, err := in.Watermark.Expr.Eval(row.Values)
	if err != nil {
		return fmt.Errorf("computing watermark of %s: %w", in.Table, err)
	}
	wp := rec.Partition
	if ext != nil {
		wp = s.mix.curExt.dense[ext.Partition]
	}
	if v.IsNull() || v.Int() <= s.wm[i][wp] {
		return nil
	}
	s.wm[i][wp] = v.Int()
	return s.emitWatermark(ctx, i)
}

// inputReader is what the source reads from: a merged reader over log
// partitions, or noInput.
type inputReader interface {
	Next() (logstore.Record, bool, error)
	Positions() []logstore.Position
	Wait(ctx context.Context) error
}

// noInput is the input of a job without tables: always at its end.
type noInput struct{}

func (noInput) Next() (logstore.Record, bool, error) { return logstore.Record{}, false, nil }
func (noInput) Positions() []logstore.Position       { return nil }
func (noInput) Wait(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

// allInputsClosed reports whether every input of a continuous job is a
// bounded generated or external table that has emitted its last row.
func (s *source) allInputsClosed() bool {
	if s.targets != nil || len(s.inputs) == 0 {
		return false
	}
	closed := 0
	if r, ok := s.reader.(*genReader); ok {
		for _, g := range r.gens {
			if g.closed {
				closed++
			}
		}
	}
	if s.mix != nil {
		for _, e := range s.mix.ext {
			if e.closed {
				closed += 1 + len(e.also)
			}
		}
	}
	return closed == len(s.inputs)
}
