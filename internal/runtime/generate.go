package runtime

import (
	"context"
	"strconv"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/logstore"
)

// genLogPrefix names the read position of a generated input in barriers
// and checkpoints: "gen:<table>", its offset being the rows read.
const genLogPrefix = "gen:"

// generated is one input produced by a jobgraph.Generator.
type generated struct {
	input int
	log   string
	gen   jobgraph.Generator
	rps   int64
	// next is the next row to read; end the rows to read (the table's end
	// or a snapshot's target), or -1.
	next, end int64
	// base is the row read when the source started: pacing counts from it.
	base int64
	// synced is how many rows syncs released; avail caches the rows
	// released so far.
	synced, avail int64
	// closed is set once the input's final watermark went out.
	closed bool
}

// offset returns when row i is due, in nanoseconds after the source
// started: (i-base)/rows-per-second, rounded up so that a row is due
// exactly when paced counts it.
func (g *generated) offset(i int64) int64 {
	d := i - g.base
	return (d/g.rps)*1e9 + ((d%g.rps)*1e9+g.rps-1)/g.rps
}

// paced returns how many rows are due elapsed nanoseconds after the start.
func (g *generated) paced(elapsed int64) int64 {
	if elapsed < 0 {
		return g.base
	}
	return g.base + (elapsed/1e9)*g.rps + (elapsed%1e9)*g.rps/1e9 + 1
}

func (g *generated) exhausted() bool { return g.end >= 0 && g.next >= g.end }

// genReader reads a job's log inputs and generated inputs as one stream.
// Log records come first whenever the merged reader has one; generated
// rows fill the gaps, in the order of the time they are due (row i of an
// input is due (i-base)/rows-per-second after the source started), ties
// going to the earlier input. A snapshot reads every generated row up to
// its target without waiting, after all log records, so its order is the
// same in every run. A continuous job reads generated rows as the clock
// makes them due, or at once up to a sync's target (syncGenerated).
type genReader struct {
	logs    inputReader
	gens    []*generated
	clock   Clock
	bounded bool
	t0      int64 // unix nanoseconds when the source started
}

// openGenerators wraps the source's reader for jobs with generated inputs.
// It sets their snapshot targets and, when resuming, their positions.
func (s *source) openGenerators() error {
	clock := s.job.env.Clock
	if clock == nil {
		clock = SystemClock{}
	}
	now := clock.Now()
	r := &genReader{logs: s.reader, clock: clock, bounded: s.job.opts.Bounded, t0: now.UnixNano()}
	var saved map[string]int64
	for i, in := range s.inputs {
		if in.Generator == nil {
			continue
		}
		g := &generated{input: i, log: genLogPrefix + in.Table, gen: in.Generator, rps: max(in.Generator.RowsPerSecond(), 1), end: in.Generator.End()}
		if _, dup := s.inputOf[g.log]; dup {
			g.log += "#" + strconv.Itoa(i)
		}
		s.inputOf[g.log] = i
		if s.job.opts.Resume {
			if saved == nil {
				var err error
				if saved, err = s.job.loadPositions(); err != nil {
					return err
				}
			}
			g.next = saved[posKey(g.log, 0)]
		}
		g.base, g.avail = g.next, g.next
		if s.targets != nil {
			g.end = in.Generator.SnapshotRows(now)
			s.targets[logstore.Position{Log: g.log}] = g.end
		}
		r.gens = append(r.gens, g)
	}
	if len(r.gens) > 0 {
		s.reader = r
	}
	return nil
}

// Next returns the next log record, else the next generated row that is
// due: a record of log "gen:<table>", partition 0, offset i, without a
// value (the source computes the row).
func (r *genReader) Next() (logstore.Record, bool, error) {
	if rec, ok, err := r.logs.Next(); ok || err != nil {
		return rec, ok, err
	}
	g := r.due()
	if g == nil {
		return logstore.Record{}, false, nil
	}
	rec := logstore.Record{Log: g.log, Offset: g.next}
	g.next++
	return rec, true, nil
}

// due returns the generated input whose next row is due first, or nil.
func (r *genReader) due() *generated {
	var best *generated
	var bestAt int64
	now := int64(-1)
	for _, g := range r.gens {
		if g.exhausted() {
			continue
		}
		if !r.bounded && g.next >= g.avail {
			if now < 0 {
				now = r.clock.Now().UnixNano()
			}
			g.avail = max(g.synced, g.paced(now-r.t0))
			if g.end >= 0 {
				g.avail = min(g.avail, g.end)
			}
			if g.next >= g.avail {
				continue
			}
		}
		if at := g.offset(g.next); best == nil || at < bestAt {
			best, bestAt = g, at
		}
	}
	return best
}

// sync releases, for a sync request at now, every row of a bounded
// generated table and the rows a snapshot would read of an unbounded one.
func (r *genReader) sync(now time.Time) {
	for _, g := range r.gens {
		target := g.gen.End()
		if target < 0 {
			target = g.gen.SnapshotRows(now)
		}
		g.synced = max(g.synced, target)
	}
}

// Positions returns the log positions followed by one position per
// generated input: "gen:<table>", partition 0, the rows read.
func (r *genReader) Positions() []logstore.Position {
	out := r.logs.Positions()
	for _, g := range r.gens {
		out = append(out, logstore.Position{Log: g.log, Offset: g.next})
	}
	return out
}

// Wait blocks until a log has a record, a generated row is due (checked
// at least every 100ms, so that a moved clock is noticed), or ctx is done.
func (r *genReader) Wait(ctx context.Context) error {
	wait := time.Duration(-1)
	now := r.clock.Now().UnixNano()
	for _, g := range r.gens {
		if g.exhausted() || r.bounded {
			continue
		}
		d := time.Duration(0)
		if g.next >= g.synced {
			d = time.Duration(r.t0 + g.offset(g.next) - now)
		}
		if wait < 0 || d < wait {
			wait = d
		}
	}
	if wait < 0 {
		return r.logs.Wait(ctx)
	}
	if wait <= 0 {
		return nil
	}
	wait = min(max(wait, time.Millisecond), 100*time.Millisecond)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	data := make(chan error, 1)
	go func() { data <- r.logs.Wait(wctx) }()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case err := <-data:
		return err
	case <-timer.C:
		cancel()
		<-data
		return nil
	case <-ctx.Done():
		cancel()
		<-data
		return ctx.Err()
	}
}

// startGenerated sends the final watermark of generated inputs that a
// resumed continuous job has already read to their end.
func (s *source) startGenerated(ctx context.Context) error {
	r, ok := s.reader.(*genReader)
	if !ok || s.targets != nil {
		return nil
	}
	for _, g := range r.gens {
		if err := s.closeGenerated(ctx, g); err != nil {
			return err
		}
	}
	return nil
}

// generatedRead is called after each record: in a continuous job, the end
// of a bounded generated table is the end of that input, which emits the
// maximum watermark as a finished Flink source does.
func (s *source) generatedRead(ctx context.Context, rec logstore.Record) error {
	r, ok := s.reader.(*genReader)
	if !ok || s.targets != nil || rec.Value != nil {
		return nil
	}
	for _, g := range r.gens {
		if g.log == rec.Log {
			return s.closeGenerated(ctx, g)
		}
	}
	return nil
}

func (s *source) closeGenerated(ctx context.Context, g *generated) error {
	if g.closed || !g.exhausted() {
		return nil
	}
	g.closed = true
	s.inWM[g.input] = MaxWatermark
	return s.add(ctx, event{kind: evWatermark, input: g.input, wm: MaxWatermark})
}

// syncGenerated releases, for a sync request, the generated rows the sync
// covers (see genReader.sync); run reads them before it answers the
// request, so that a script sees every row of a bounded generated table
// however fast it runs.
func (s *source) syncGenerated() {
	if r, ok := s.reader.(*genReader); ok {
		r.sync(r.clock.Now())
	}
}
