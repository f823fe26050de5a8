package runtime

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// sessionAggOp is Flink's session window aggregation
// (jobgraph.WindowAggregate over fused SESSION windows): per group key its
// open sessions, each with a row count and one accumulator per call; a
// row that bridges sessions merges their accumulators (aggFunc.merge).
// When a session fires, its row (keys, results, window_start, window_end,
// window_time) is emitted as +I.
//
// FIRST_VALUE, LAST_VALUE and LISTAGG see merged sessions' values in
// session order (the earlier session's first), not strictly in arrival
// order; Flink does not merge FIRST_VALUE and LAST_VALUE at all.
type sessionAggOp struct {
	keys []int
	aggCalls
	assign winAssigner
	proc   bool
	clock  Clock
	table  *sessTable[winAgg]
	oc     OpContext
	wm     minWatermark
	width  int
	arena  winArena
	keyBuf []types.Value
}

func newSessionAggOp(spec *jobgraph.WindowAggregate, calls aggCalls, in *types.Schema, oc OpContext) (Operator, error) {
	w := &spec.Windowing.Window
	a, err := newWinAssigner(w)
	if err != nil {
		return nil, fmt.Errorf("window aggregate: %w", err)
	}
	if !w.ProcTime() && (w.TimeColumn >= in.Len() || !in.Fields[w.TimeColumn].Type.IsTimestamp()) {
		return nil, fmt.Errorf("window aggregate: time attribute column %d is not a timestamp", w.TimeColumn)
	}
	if w.ProcTime() && oc.Clock == nil {
		return nil, fmt.Errorf("window aggregate: processing time needs a clock")
	}
	op := &sessionAggOp{keys: spec.Keys, aggCalls: calls, assign: a, proc: w.ProcTime(), clock: oc.Clock,
		oc: oc, wm: newMinWatermark(1), width: len(spec.Keys) + len(spec.Calls) + 3}
	n := len(calls.calls)
	op.table, err = newSessTable(oc.NS, winAggStateName, oc.KV, a.zone, a.gap, &op.wm,
		func(dst []byte, v *winAgg) []byte { return appendWinAgg(dst, v) },
		func(b []byte, v *winAgg) error { return decodeWinAgg(b, v, n) },
		op.mergeGroups)
	if err != nil {
		return nil, fmt.Errorf("window aggregate: %w", err)
	}
	return op, nil
}

func (op *sessionAggOp) mergeGroups(dst, src *winAgg) error {
	if dst.accs == nil {
		dst.initAccs(len(op.calls))
	}
	dst.count += src.count
	if src.accs == nil {
		return nil
	}
	return op.merge(dst.accs, src.accs)
}

// Process implements Operator.
func (op *sessionAggOp) Process(_ int, row types.Row) error {
	now := int64(0)
	if op.proc {
		now = op.clock.Now().UnixNano()
	}
	ts, ok := op.assign.rowTime(row.Values, now)
	if !ok {
		return nil
	}
	op.keyBuf = op.keyBuf[:0]
	for _, k := range op.keys {
		op.keyBuf = append(op.keyBuf, row.Values[k])
	}
	_, s, err := op.table.add(op.keyBuf, ts)
	if err != nil {
		return fmt.Errorf("window aggregate: %w", err)
	}
	if s == nil {
		op.oc.countLate()
		return nil
	}
	if s.v.accs == nil {
		s.v.initAccs(len(op.calls))
	}
	retract := row.Kind.IsRetraction()
	if retract && s.v.count == 0 {
		return nil
	}
	if retract {
		s.v.count--
	} else {
		s.v.count++
	}
	if err := op.step(s.v.accs, row.Values, retract); err != nil {
		return fmt.Errorf("window aggregate: %w", err)
	}
	return nil
}

// Watermark implements Operator.
func (op *sessionAggOp) Watermark(port int, wm int64) error {
	w, rose := op.wm.advance(port, wm)
	op.table.metaDirty = true // the input watermarks are state
	if !rose {
		return nil
	}
	if !op.proc || w == MaxWatermark {
		if err := op.table.advance(w, op.fire); err != nil {
			return err
		}
	}
	return op.oc.Out.Watermark(w)
}

// OnProcessingTime implements procTimeOperator.
func (op *sessionAggOp) OnProcessingTime(now int64) error {
	if !op.proc {
		return nil
	}
	return op.table.advance(now, op.fire)
}

func (op *sessionAggOp) fire(k *sessKey[winAgg], s *sessWin[winAgg]) error {
	if s.v.count <= 0 {
		return nil
	}
	vals := op.arena.take(op.width)
	vals = append(vals, k.keyVals...)
	vals = op.appendValues(vals, s.v.accs)
	vals = appendWindowColumns(vals, s.span, op.assign.zone)
	return op.oc.Out.Emit(types.Row{Kind: types.Insert, Values: vals})
}

// Flush implements Operator.
func (op *sessionAggOp) Flush() error { return op.table.flush() }

func (op *sessionAggOp) usesProcTime() bool { return op.proc }
