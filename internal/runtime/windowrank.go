package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// windowRankOp is Flink's window Top-N (jobgraph.WindowRank): per window
// and partition key the rows that can still rank in [1, End], in sort
// order (ties in arrival order); when the window fires, those ranked in
// [Start, End] are emitted in rank order, with the rank when OutputRank.
// Late rows are dropped and counted.
type windowRankOp struct {
	spec  *jobgraph.WindowRank
	rows  winRows
	table *winTable[rankRows]
	oc    OpContext
	wm    minWatermark
	width int
	arena winArena
	keys  []types.Value
}

// rankRows are the rows of one (window, partition) in sort order.
type rankRows struct{ rows [][]types.Value }

// winRankStateName is the value state of the (window, partition) rows.
const winRankStateName = "r"

func newWindowRankOp(spec *jobgraph.WindowRank, in *types.Schema, oc OpContext) (Operator, error) {
	if !spec.Windowing.Attached {
		return nil, errors.New("window rank: the input rows must carry their window (Windowing.Attached)")
	}
	if spec.Start < 1 || spec.End < spec.Start {
		return nil, fmt.Errorf("window rank: rank range [%d, %d] is empty", spec.Start, spec.End)
	}
	if spec.Func > jobgraph.DenseRank {
		return nil, fmt.Errorf("window rank: unknown rank function %d", spec.Func)
	}
	for _, k := range spec.PartitionKeys {
		if k < 0 || k >= in.Len() {
			return nil, fmt.Errorf("window rank: partition key column %d out of range", k)
		}
	}
	for _, k := range spec.OrderBy {
		if k.Col < 0 || k.Col >= in.Len() {
			return nil, fmt.Errorf("window rank: sort key column %d out of range", k.Col)
		}
	}
	rows, err := newWinRows(&spec.Windowing, in, oc.Clock)
	if err != nil {
		return nil, fmt.Errorf("window rank: %w", err)
	}
	op := &windowRankOp{spec: spec, rows: rows, oc: oc, wm: newMinWatermark(1), width: in.Len()}
	if spec.OutputRank {
		op.width++
	}
	op.table, err = newWinTable(oc.NS, winRankStateName, oc.KV, rows.assign.zone, &op.wm, appendRowList,
		func(b []byte, v *rankRows) error {
			var err error
			v.rows, err = decodeRowList(b)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("window rank: %w", err)
	}
	return op, nil
}

// compare orders two rows by the sort keys.
func (op *windowRankOp) compare(a, b []types.Value) int {
	return compareSortKeys(op.spec.OrderBy, a, b)
}

// Process implements Operator.
func (op *windowRankOp) Process(_ int, row types.Row) error {
	if row.Kind.IsRetraction() {
		return fmt.Errorf("Window rank does not support input RowKind: %s", row.Kind)
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
	for _, k := range op.spec.PartitionKeys {
		op.keys = append(op.keys, row.Values[k])
	}
	e, _ := op.table.entry(span, op.keys)
	rs := e.v.rows
	// After the rows it ties with: ties keep their arrival order.
	i := len(rs)
	for i > 0 && op.compare(rs[i-1], row.Values) > 0 {
		i--
	}
	if i < len(rs) || int64(len(rs)) < op.spec.End || op.spec.Func != jobgraph.RowNumber {
		rs = slices.Insert(rs, i, row.Values)
		e.v.rows = op.prune(rs)
		op.table.touch(e)
	}
	return nil
}

// prune drops the rows that can no longer rank at most End: rows keep
// their places or move down as rows arrive.
func (op *windowRankOp) prune(rs [][]types.Value) [][]types.Value {
	end := op.spec.End
	switch op.spec.Func {
	case jobgraph.RowNumber:
		if int64(len(rs)) > end {
			clear(rs[end:])
			return rs[:end]
		}
	default:
		rank, dense := int64(0), int64(0)
		for i := range rs {
			if i == 0 || op.compare(rs[i-1], rs[i]) != 0 {
				rank, dense = int64(i)+1, dense+1
			}
			r := rank
			if op.spec.Func == jobgraph.DenseRank {
				r = dense
			}
			if r > end {
				clear(rs[i:])
				return rs[:i]
			}
		}
	}
	return rs
}

// Watermark implements Operator.
func (op *windowRankOp) Watermark(port int, wm int64) error {
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
func (op *windowRankOp) OnProcessingTime(now int64) error {
	if !op.rows.proc {
		return nil
	}
	return op.table.advance(now, op.fire)
}

func (op *windowRankOp) fire(_ winSpan, e *winEntry[rankRows]) error {
	rs := e.v.rows
	rank, dense := int64(0), int64(0)
	for i, r := range rs {
		if i == 0 || op.compare(rs[i-1], r) != 0 {
			rank, dense = int64(i)+1, dense+1
		}
		n := int64(i) + 1
		switch op.spec.Func {
		case jobgraph.RankNumber:
			n = rank
		case jobgraph.DenseRank:
			n = dense
		}
		if n > op.spec.End {
			break
		}
		if n < op.spec.Start {
			continue
		}
		vals := append(op.arena.take(op.width), r...)
		if op.spec.OutputRank {
			vals = append(vals, types.NewInt(n))
		}
		if err := op.oc.Out.Emit(types.Row{Kind: types.Insert, Values: vals}); err != nil {
			return err
		}
	}
	return nil
}

// Flush implements Operator.
func (op *windowRankOp) Flush() error { return op.table.flush() }

func (op *windowRankOp) usesProcTime() bool { return op.rows.proc }

// appendRowList encodes rows: their number, then each row with its size.
func appendRowList(dst []byte, v *rankRows) []byte { return appendRows(dst, v.rows) }

func appendRows(dst []byte, rows [][]types.Value) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(rows)))
	for _, r := range rows {
		dst = appendSizedRow(dst, types.Row{Values: r})
	}
	return dst
}

// decodeRowList decodes what appendRows wrote, which must take all of b.
func decodeRowList(b []byte) ([][]types.Value, error) {
	rows, rest, err := decodeRows(b)
	if err == nil && len(rest) != 0 {
		err = errors.New("malformed rows (trailing bytes)")
	}
	return rows, err
}

// decodeRows decodes what appendRows wrote at the start of b.
func decodeRows(b []byte) ([][]types.Value, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, nil, errors.New("malformed rows")
	}
	b = b[k:]
	rows := make([][]types.Value, 0, n)
	for range n {
		r, rest, err := decodeSizedRow(b)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, r.Values)
		b = rest
	}
	return rows, b, nil
}
