package runtime

import (
	"fmt"
	"time"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// Window time arithmetic, as Flink's TimeWindow, the window assigners and
// TimeWindowUtil compute it: windows are spans of epoch milliseconds
// (after a time-zone shift for TIMESTAMP_LTZ time attributes, see winZone);
// watermarks and timestamps are engine nanoseconds.

// winSpan is a window [start, end) in (local) milliseconds.
type winSpan struct{ start, end int64 }

// msOf converts engine nanoseconds to milliseconds, rounding down (as
// Flink's TimestampData.getMillisecond).
func msOf(ns int64) int64 {
	ms := ns / 1e6
	if ns%1e6 < 0 {
		ms--
	}
	return ms
}

// winZone maps instants to the wall clock windows are aligned on. The
// zero value is UTC: no shift.
type winZone struct{ loc *time.Location }

// newWinZone resolves the session time zone of a window ("" or UTC: no
// shift).
func newWinZone(name string) (winZone, error) {
	if name == "" {
		return winZone{}, nil
	}
	loc, err := expr.LoadZone(name)
	if err != nil {
		return winZone{}, fmt.Errorf("window time zone: %w", err)
	}
	if loc == time.UTC {
		return winZone{}, nil
	}
	return winZone{loc: loc}, nil
}

const msPerHour = 3600 * 1000

// offset returns the zone's UTC offset at an instant, in milliseconds.
func (z winZone) offset(epochMs int64) int64 {
	_, off := time.UnixMilli(epochMs).In(z.loc).Zone()
	return int64(off) * 1000
}

// local turns an instant into local wall-clock milliseconds
// (TimeWindowUtil.toUtcTimestampMills).
func (z winZone) local(epochMs int64) int64 {
	if z.loc == nil {
		return epochMs
	}
	return epochMs + z.offset(epochMs)
}

// epoch turns local wall-clock milliseconds into an instant as Java's
// LocalDateTime.atZone does (TimeWindowUtil.toEpochMills): in an overlap
// the earlier offset wins; a time in a gap moves forward by the gap.
func (z winZone) epoch(localMs int64) int64 {
	if z.loc == nil {
		return localMs
	}
	const day = 24 * msPerHour
	before, after := z.offset(localMs-day), z.offset(localMs+day)
	if before == after || z.offset(localMs-before) == before {
		return localMs - before
	}
	if z.offset(localMs-after) == after {
		return localMs - after
	}
	return localMs - before // in a gap
}

// timer returns the instant at which a window whose last local
// millisecond is localMs fires (TimeWindowUtil.toEpochMillsForTimer): the
// first instant after a local time skipped by a DST change, the later of
// two instants of a repeated local time.
func (z winZone) timer(localMs int64) int64 {
	if z.loc == nil {
		return localMs
	}
	t1, t2 := z.epoch(localMs), z.epoch(localMs+msPerHour)
	switch {
	case t1 == t2: // localMs is skipped
		return t1 - t1%msPerHour
	case t2-t1 > msPerHour: // localMs happens twice
		return t1 + msPerHour
	}
	return t1
}

// triggerNanos returns the engine time (nanoseconds) at which the window
// ending at local millisecond end fires: when the watermark or the clock
// reaches end - 1 ms.
func (z winZone) triggerNanos(end int64) int64 { return z.timer(end-1) * 1e6 }

// windowTime returns window_time, the instant of end - 1 ms, as engine
// nanoseconds.
func (z winZone) windowTime(end int64) int64 { return z.epoch(end-1) * 1e6 }

// windowStart is TimeWindow.getWindowStartWithOffset: the start of the
// window of size containing ts, boundaries shifted by offset.
func windowStart(ts, offset, size int64) int64 {
	r := (ts - offset) % size
	if r < 0 {
		return ts - (r + size)
	}
	return ts - r
}

// winAssigner assigns the windows of a window function (milliseconds).
type winAssigner struct {
	kind                           jobgraph.WindowKind
	size, slide, step, offset, gap int64
	timeCol                        int // -1: processing time
	zone                           winZone
	name                           string // for errors
}

// newWinAssigner checks a window spec and converts it to milliseconds.
func newWinAssigner(w *jobgraph.Window) (winAssigner, error) {
	zone, err := newWinZone(w.TimeZone)
	if err != nil {
		return winAssigner{}, err
	}
	a := winAssigner{kind: w.Kind, timeCol: w.TimeColumn, zone: zone, name: w.Kind.String()}
	for _, d := range []struct {
		ns   int64
		dst  *int64
		what string
	}{{w.Size, &a.size, "size"}, {w.Slide, &a.slide, "slide"}, {w.Step, &a.step, "step"}, {w.Offset, &a.offset, "offset"}, {w.Gap, &a.gap, "gap"}} {
		if d.ns%1e6 != 0 {
			return winAssigner{}, fmt.Errorf("%s window: the %s %s is not a whole number of milliseconds", a.name, d.what, time.Duration(d.ns))
		}
		*d.dst = d.ns / 1e6
	}
	switch w.Kind {
	case jobgraph.Tumble:
		if a.size <= 0 {
			return winAssigner{}, fmt.Errorf("Tumbling Window parameters must satisfy size > 0, but got size %dms.", a.size)
		}
	case jobgraph.Hop:
		if a.slide <= 0 || a.size <= 0 {
			return winAssigner{}, fmt.Errorf("Hopping Window must satisfy slide > 0 and size > 0, but got slide %dms and size %dms.", a.slide, a.size)
		}
		if a.size%a.slide != 0 {
			return winAssigner{}, fmt.Errorf("Slicing Hopping Window requires size must be an integral multiple of slide, but got size %dms and slide %dms.", a.size, a.slide)
		}
	case jobgraph.Cumulate:
		if a.size <= 0 || a.step <= 0 {
			return winAssigner{}, fmt.Errorf("Cumulative Window parameters must satisfy maxSize > 0 and step > 0, but got maxSize %dms and step %dms.", a.size, a.step)
		}
		if a.size%a.step != 0 {
			return winAssigner{}, fmt.Errorf("Cumulative Window requires maxSize must be an integral multiple of step, but got maxSize %dms and step %dms.", a.size, a.step)
		}
	case jobgraph.Session:
		if a.gap <= 0 {
			return winAssigner{}, fmt.Errorf("Session Window parameters must satisfy gap > 0, but got gap %dms.", a.gap)
		}
	default:
		return winAssigner{}, fmt.Errorf("unknown window kind %d", w.Kind)
	}
	return a, nil
}

// windows appends the windows of the aligned window function containing
// the local time ts, in Flink's order: HOP from the latest start back,
// CUMULATE from the first end on.
func (a *winAssigner) windows(dst []winSpan, ts int64) []winSpan {
	switch a.kind {
	case jobgraph.Tumble:
		s := windowStart(ts, a.offset, a.size)
		return append(dst, winSpan{s, s + a.size})
	case jobgraph.Hop:
		for s := windowStart(ts, a.offset, a.slide); s > ts-a.size; s -= a.slide {
			dst = append(dst, winSpan{s, s + a.size})
		}
		return dst
	case jobgraph.Cumulate:
		s := windowStart(ts, a.offset, a.size)
		for e := windowStart(ts, a.offset, a.step) + a.step; e <= s+a.size; e += a.step {
			dst = append(dst, winSpan{s, e})
		}
		return dst
	}
	return dst
}

// rowTime returns the local time (ms) windows are assigned by for row:
// its time attribute, or now (engine nanoseconds) on processing time; ok
// is false when the time attribute is NULL.
func (a *winAssigner) rowTime(row []types.Value, now int64) (int64, bool) {
	if a.timeCol < 0 {
		return a.zone.local(msOf(now)), true
	}
	v := row[a.timeCol]
	if v.IsNull() {
		return 0, false
	}
	return a.zone.local(msOf(v.Int())), true
}

// winRows finds the windows of input rows as a jobgraph.Windowing says:
// read from the rows' window columns (attached), or assigned by the window
// function from their time attribute or the processing time.
type winRows struct {
	attached         bool
	startCol, endCol int
	assign           winAssigner
	proc             bool
	// clock gives processing time, read for every row on processing time.
	clock Clock
	spans []winSpan
}

// newWinRows checks ws against the input schema. Fused SESSION windows
// are not aligned windows: the session operators assign them.
func newWinRows(ws *jobgraph.Windowing, in *types.Schema, clock Clock) (winRows, error) {
	a, err := newWinAssigner(&ws.Window)
	if err != nil {
		return winRows{}, err
	}
	w := winRows{attached: ws.Attached, startCol: ws.WindowStart, endCol: ws.WindowEnd, assign: a,
		proc: ws.Window.ProcTime(), clock: clock}
	col := func(i int, what string) error {
		if i < 0 || i >= in.Len() {
			return fmt.Errorf("%s window: %s column %d out of range", a.name, what, i)
		}
		if !in.Fields[i].Type.IsTimestamp() {
			return fmt.Errorf("%s window: %s column %s is %s, not a timestamp", a.name, what, in.Fields[i].Name, in.Fields[i].Type)
		}
		return nil
	}
	switch {
	case ws.Attached:
		if err := col(ws.WindowStart, "window_start"); err != nil {
			return winRows{}, err
		}
		if err := col(ws.WindowEnd, "window_end"); err != nil {
			return winRows{}, err
		}
	case ws.Window.Kind == jobgraph.Session:
		return winRows{}, fmt.Errorf("internal: SESSION windows are not aligned")
	case !w.proc:
		if err := col(ws.Window.TimeColumn, "time attribute"); err != nil {
			return winRows{}, err
		}
	}
	if w.proc && clock == nil {
		return winRows{}, fmt.Errorf("%s window: processing time needs a clock", a.name)
	}
	return w, nil
}

// now returns the current processing time (engine nanoseconds).
func (w *winRows) now() int64 { return w.clock.Now().UnixNano() }

// of returns the windows of row (in a slice reused by the next call), or
// false when the row has none: a NULL time attribute or window column.
func (w *winRows) of(row []types.Value) ([]winSpan, bool) {
	w.spans = w.spans[:0]
	if w.attached {
		s, e := row[w.startCol], row[w.endCol]
		if s.IsNull() || e.IsNull() {
			return nil, false
		}
		w.spans = append(w.spans, winSpan{msOf(s.Int()), msOf(e.Int())})
		return w.spans, true
	}
	var now int64
	if w.proc {
		now = w.now()
	}
	ts, ok := w.assign.rowTime(row, now)
	if !ok {
		return nil, false
	}
	w.spans = w.assign.windows(w.spans, ts)
	return w.spans, true
}
