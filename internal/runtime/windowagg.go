package runtime

import (
	"encoding/binary"
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// windowAggOp is Flink's window aggregation over aligned windows
// (jobgraph.WindowAggregate with TUMBLE, HOP or CUMULATE windows, or with
// windows attached to the rows): per (window, group key) a row count and
// one accumulator per call; when a window fires, each of its groups with
// rows emits keys, results, window_start, window_end, window_time as +I.
//
// A row is added to each of its windows that has not fired; a row whose
// windows have all fired is late: dropped and counted. HOP and CUMULATE
// rows are accumulated into every window they belong to (Flink
// accumulates slices and merges them when a window fires: the same
// results).
type windowAggOp struct {
	keys []int
	aggCalls
	rows   winRows
	table  *winTable[winAgg]
	oc     OpContext
	wm     minWatermark
	width  int
	arena  winArena
	keyBuf []types.Value
}

// winAgg is the state of one group in one window. count == 0: no rows
// (all retracted), nothing to emit.
type winAgg struct {
	count int64
	accs  []accState
	inl   [2]accState
}

// winAggStateName is the value state of the window groups.
const winAggStateName = "w"

func newWindowAggOp(spec *jobgraph.WindowAggregate, in *types.Schema, oc OpContext) (Operator, error) {
	for _, k := range spec.Keys {
		if k < 0 || k >= in.Len() {
			return nil, fmt.Errorf("window aggregate: key column %d out of range", k)
		}
	}
	calls, err := newAggCalls(spec.Calls, in)
	if err != nil {
		return nil, fmt.Errorf("window aggregate: %w", err)
	}
	if spec.Windowing.Window.Kind == jobgraph.Session && !spec.Windowing.Attached {
		return newSessionAggOp(spec, calls, in, oc)
	}
	if w := spec.Windowing.Window; w.Kind == jobgraph.Tumble && !spec.Windowing.Attached && (w.Offset >= w.Size || -w.Offset >= w.Size) {
		return nil, fmt.Errorf("Tumbling Window parameters must satisfy abs(offset) < size, but got size %dms and offset %dms.", w.Size/1e6, w.Offset/1e6)
	}
	rows, err := newWinRows(&spec.Windowing, in, oc.Clock)
	if err != nil {
		return nil, fmt.Errorf("window aggregate: %w", err)
	}
	op := &windowAggOp{keys: spec.Keys, aggCalls: calls, rows: rows, oc: oc, wm: newMinWatermark(1),
		width: len(spec.Keys) + len(spec.Calls) + 3}
	n := len(calls.calls)
	op.table, err = newWinTable(oc.NS, winAggStateName, oc.KV, rows.assign.zone, &op.wm,
		func(dst []byte, v *winAgg) []byte { return appendWinAgg(dst, v) },
		func(b []byte, v *winAgg) error { return decodeWinAgg(b, v, n) })
	if err != nil {
		return nil, fmt.Errorf("window aggregate: %w", err)
	}
	return op, nil
}

// Process implements Operator.
func (op *windowAggOp) Process(_ int, row types.Row) error {
	spans, ok := op.rows.of(row.Values)
	if !ok {
		return nil // a NULL time: no window (Flink's TVF drops the row)
	}
	op.keyBuf = op.keyBuf[:0]
	for _, k := range op.keys {
		op.keyBuf = append(op.keyBuf, row.Values[k])
	}
	retract := row.Kind.IsRetraction()
	late := true
	for _, span := range spans {
		if op.table.fired(span) {
			continue
		}
		late = false
		e, created := op.table.entry(span, op.keyBuf)
		if created {
			e.v.initAccs(len(op.calls))
		}
		if retract && e.v.count == 0 {
			continue // Flink ignores a retraction of a group without state
		}
		if retract {
			e.v.count--
		} else {
			e.v.count++
		}
		if err := op.step(e.v.accs, row.Values, retract); err != nil {
			return fmt.Errorf("window aggregate: %w", err)
		}
		op.table.touch(e)
	}
	if late {
		op.oc.countLate()
	}
	return nil
}

func (v *winAgg) initAccs(n int) {
	if n <= len(v.inl) {
		v.accs = v.inl[:n]
	} else {
		v.accs = make([]accState, n)
	}
}

// Watermark implements Operator: event-time windows fire; processing-time
// windows fire only at the end of the input.
func (op *windowAggOp) Watermark(port int, wm int64) error {
	w, rose := op.wm.advance(port, wm)
	op.table.metaDirty = true // the input watermarks are state
	if !rose {
		return nil
	}
	if !op.rows.proc || w == MaxWatermark {
		if err := op.table.advance(w, op.fire); err != nil {
			return err
		}
	}
	return op.oc.Out.Watermark(w)
}

// OnProcessingTime implements procTimeOperator.
func (op *windowAggOp) OnProcessingTime(now int64) error {
	if !op.rows.proc {
		return nil
	}
	return op.table.advance(now, op.fire)
}

func (op *windowAggOp) fire(span winSpan, e *winEntry[winAgg]) error {
	if e.v.count <= 0 {
		return nil
	}
	vals, err := op.table.keyValues(e, op.arena.take(op.width))
	if err != nil {
		return err
	}
	vals = op.appendValues(vals, e.v.accs)
	vals = appendWindowColumns(vals, span, op.rows.assign.zone)
	return op.oc.Out.Emit(types.Row{Kind: types.Insert, Values: vals})
}

// Flush implements Operator.
func (op *windowAggOp) Flush() error { return op.table.flush() }

func (op *windowAggOp) usesProcTime() bool { return op.rows.proc }

// appendWinAgg encodes a group: its row count, then each accumulator.
func appendWinAgg(dst []byte, v *winAgg) []byte {
	dst = binary.AppendVarint(dst, v.count)
	for i := range v.accs {
		dst = appendAccState(dst, &v.accs[i])
	}
	return dst
}

func decodeWinAgg(b []byte, v *winAgg, calls int) error {
	r := accReader{b: b}
	v.count = r.varint()
	v.initAccs(calls)
	for i := range v.accs {
		r.accState(&v.accs[i])
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail("window group (trailing bytes)")
	}
	return r.err
}
