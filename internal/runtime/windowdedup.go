package runtime

import (
	"errors"
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// windowDedupOp is Flink's window deduplication
// (jobgraph.WindowDeduplicate, RowTimeWindowDeduplicateProcessor): per
// window and key one row, the first (smallest time; the earliest arrived
// among equal times) or the last (largest time; the latest arrived among
// equal times), emitted when the window fires. Late rows are dropped and
// counted; rows whose time is NULL are dropped.
type windowDedupOp struct {
	spec  *jobgraph.WindowDeduplicate
	rows  winRows
	table *winTable[dedupRow]
	oc    OpContext
	wm    minWatermark
	keys  []types.Value
}

// dedupRow is the row kept for one (window, key).
type dedupRow struct{ row []types.Value }

// winDedupStateName is the value state of the kept rows.
const winDedupStateName = "d"

func newWindowDedupOp(spec *jobgraph.WindowDeduplicate, in *types.Schema, oc OpContext) (Operator, error) {
	if !spec.Windowing.Attached {
		return nil, errors.New("window deduplicate: the input rows must carry their window (Windowing.Attached)")
	}
	for _, k := range spec.Keys {
		if k < 0 || k >= in.Len() {
			return nil, fmt.Errorf("window deduplicate: key column %d out of range", k)
		}
	}
	if spec.TimeColumn < 0 || spec.TimeColumn >= in.Len() || !in.Fields[spec.TimeColumn].Type.IsTimestamp() {
		return nil, fmt.Errorf("window deduplicate: time column %d is not a timestamp column", spec.TimeColumn)
	}
	rows, err := newWinRows(&spec.Windowing, in, oc.Clock)
	if err != nil {
		return nil, fmt.Errorf("window deduplicate: %w", err)
	}
	op := &windowDedupOp{spec: spec, rows: rows, oc: oc, wm: newMinWatermark(1)}
	op.table, err = newWinTable(oc.NS, winDedupStateName, oc.KV, rows.assign.zone, &op.wm,
		func(dst []byte, v *dedupRow) []byte { return appendSizedRow(dst, types.Row{Values: v.row}) },
		func(b []byte, v *dedupRow) error {
			r, rest, err := decodeSizedRow(b)
			if err == nil && len(rest) != 0 {
				err = errors.New("malformed deduplicated row")
			}
			v.row = r.Values
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("window deduplicate: %w", err)
	}
	return op, nil
}

// Process implements Operator.
func (op *windowDedupOp) Process(_ int, row types.Row) error {
	if row.Kind.IsRetraction() {
		return fmt.Errorf("Window deduplicate does not support input RowKind: %s", row.Kind)
	}
	t := row.Values[op.spec.TimeColumn]
	if t.IsNull() {
		return nil
	}
	spans, ok := op.rows.of(row.Values)
	if !ok {
		return nil
	}
	span := spans[0]
	if op.table.fired(span) {
		op.oc.countLate()
		return nil
	}
	op.keys = op.keys[:0]
	for _, k := range op.spec.Keys {
		op.keys = append(op.keys, row.Values[k])
	}
	e, _ := op.table.entry(span, op.keys)
	// DeduplicateFunctionHelper.shouldKeepCurrentRow, on milliseconds.
	keep := e.v.row == nil
	if !keep {
		cur, prev := msOf(t.Int()), msOf(e.v.row[op.spec.TimeColumn].Int())
		keep = op.spec.KeepLast && prev <= cur || !op.spec.KeepLast && cur < prev
	}
	if keep {
		e.v.row = row.Values
		op.table.touch(e)
	}
	return nil
}

// Watermark implements Operator.
func (op *windowDedupOp) Watermark(port int, wm int64) error {
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
func (op *windowDedupOp) OnProcessingTime(now int64) error {
	if !op.rows.proc {
		return nil
	}
	return op.table.advance(now, op.fire)
}

func (op *windowDedupOp) fire(_ winSpan, e *winEntry[dedupRow]) error {
	if e.v.row == nil {
		return nil
	}
	return op.oc.Out.Emit(types.Row{Kind: types.Insert, Values: e.v.row})
}

// Flush implements Operator.
func (op *windowDedupOp) Flush() error { return op.table.flush() }

func (op *windowDedupOp) usesProcTime() bool { return op.rows.proc }
