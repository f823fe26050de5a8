package runtime

import (
	"fmt"
	"slices"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// sortedOverOp is the OVER aggregation of jobgraph.SortedOver (decision
// 0035): per partition the rows in their total order (the ORDER BY keys,
// then every column), and on each change the outputs of the rows whose
// frame it touched, recomputed from the rows: before the change (what was
// emitted) and after it, retracting the old values and emitting the new.
//
// Recomputing keeps the state to the rows themselves (no accumulators and
// no emitted values are stored): a ROWS BETWEEN n PRECEDING frame costs
// O(n) accumulator steps for each of the n+1 rows a change touches; an
// unbounded frame accumulates the partition from its first row.
//
// State: per partition one value "part", its rows in order.
type sortedOverOp struct {
	spec  *jobgraph.SortedOver
	oc    OpContext
	out   Output
	agg   aggCalls
	wm    minWatermark
	cache *keyedCache[sortedPart]
	width int
	// order is the total order: the ORDER BY keys, then every column.
	order []jobgraph.SortKey

	keyVals []types.Value
	keyBuf  []byte
	accs    []accState
}

// sortedPart is the state of one partition: its rows in order.
type sortedPart struct{ rows [][]types.Value }

type sortedPartCodec struct{}

func (sortedPartCodec) empty(p *sortedPart) bool { return len(p.rows) == 0 }

func (sortedPartCodec) encode(dst []byte, p *sortedPart) []byte { return appendRows(dst, p.rows) }

func (sortedPartCodec) decode(b []byte, p *sortedPart) error {
	rows, err := decodeRowList(b)
	if err != nil {
		return fmt.Errorf("sorted over state: %w", err)
	}
	p.rows = rows
	return nil
}

func newSortedOverOp(spec *jobgraph.SortedOver, in *types.Schema, oc OpContext) (*sortedOverOp, error) {
	if err := checkColumns("sorted over", in.Len(), spec.PartitionKeys...); err != nil {
		return nil, err
	}
	if len(spec.OrderBy) == 0 {
		return nil, fmt.Errorf("sorted over: no ORDER BY key")
	}
	for _, k := range spec.OrderBy {
		if err := checkColumns("sorted over", in.Len(), k.Col); err != nil {
			return nil, err
		}
	}
	f := spec.Frame
	if !f.Rows && !f.Unbounded {
		return nil, fmt.Errorf("sorted over: a RANGE frame must be unbounded")
	}
	if f.Rows && !f.Unbounded && f.Preceding < 0 {
		return nil, fmt.Errorf("sorted over: negative frame bound %d", f.Preceding)
	}
	agg, err := newAggCalls(spec.Calls, in)
	if err != nil {
		return nil, fmt.Errorf("sorted over: %w", err)
	}
	op := &sortedOverOp{spec: spec, oc: oc, out: oc.Out, agg: agg, width: in.Len(), wm: newMinWatermark(1),
		cache: newKeyedCache[sortedPart](oc, "part", sortedPartCodec{})}
	op.order = slices.Clone(spec.OrderBy)
	for i := range in.Len() {
		op.order = append(op.order, jobgraph.SortKey{Col: i, NullsFirst: true})
	}
	op.accs = make([]accState, len(spec.Calls))
	return op, nil
}

// compare orders two rows totally.
func (op *sortedOverOp) compare(a, b []types.Value) int { return compareSortKeys(op.order, a, b) }

// peers reports whether two rows are equal in the ORDER BY keys.
func (op *sortedOverOp) peers(a, b []types.Value) bool {
	return compareSortKeys(op.spec.OrderBy, a, b) == 0
}

// Process implements Operator.
func (op *sortedOverOp) Process(_ int, row types.Row) error {
	if len(row.Values) != op.width {
		return fmt.Errorf("sorted over: row has %d values, want %d", len(row.Values), op.width)
	}
	op.keyVals = op.keyVals[:0]
	for _, k := range op.spec.PartitionKeys {
		op.keyVals = append(op.keyVals, row.Values[k])
	}
	op.keyBuf = types.AppendRow(op.keyBuf[:0], types.Row{Values: op.keyVals})
	e, err := op.cache.get(op.keyBuf)
	if err != nil {
		return fmt.Errorf("sorted over: %w", err)
	}
	p := &e.v
	// pos is the position after the rows that sort at or before row: an
	// added row goes after equal ones, a removed one is the last equal.
	pos, _ := slices.BinarySearchFunc(p.rows, row.Values, func(r, v []types.Value) int {
		if op.compare(r, v) <= 0 {
			return -1
		}
		return 1
	})
	if row.Kind.IsRetraction() {
		if pos == 0 || op.compare(p.rows[pos-1], row.Values) != 0 {
			return nil // not there
		}
		op.cache.mark(e)
		return op.remove(p, pos-1)
	}
	op.cache.mark(e)
	return op.add(p, pos, slices.Clone(row.Values))
}

// span returns the rows [lo, hi) of rows whose frame holds the row at pos
// (which is in rows).
func (op *sortedOverOp) span(rows [][]types.Value, pos int) (lo, hi int) {
	f := op.spec.Frame
	lo, hi = pos, len(rows)
	if !f.Rows {
		for lo > 0 && op.peers(rows[lo-1], rows[pos]) {
			lo--
		}
	}
	if f.Rows && !f.Unbounded && int64(hi-pos) > f.Preceding+1 {
		hi = pos + int(f.Preceding) + 1
	}
	return lo, hi
}

// add inserts row at pos and emits the changes.
func (op *sortedOverOp) add(p *sortedPart, pos int, row []types.Value) error {
	// [lo, hi) are the rows the new one will be in the frame of; the
	// others were p.rows[lo : hi-1] before (slices.Insert moves them in
	// place, so their values are computed first).
	lo, hi := pos, len(p.rows)+1
	f := op.spec.Frame
	if !f.Rows {
		for lo > 0 && op.peers(p.rows[lo-1], row) {
			lo--
		}
	}
	if f.Rows && !f.Unbounded && int64(hi-pos) > f.Preceding+1 {
		hi = pos + int(f.Preceding) + 1
	}
	before, err := op.values(p.rows, lo, hi-1)
	if err != nil {
		return err
	}
	p.rows = slices.Insert(p.rows, pos, row)
	after, err := op.values(p.rows, lo, hi)
	if err != nil {
		return err
	}
	if err := op.emit(types.Insert, row, after[pos-lo]); err != nil {
		return err
	}
	for i := lo; i < hi; i++ {
		if i == pos {
			continue
		}
		j := i - lo
		if i > pos {
			j--
		}
		if err := op.update(p.rows[i], before[j], after[i-lo]); err != nil {
			return err
		}
	}
	return nil
}

// remove deletes the row at pos and emits the changes.
func (op *sortedOverOp) remove(p *sortedPart, pos int) error {
	lo, hi := op.span(p.rows, pos)
	before, err := op.values(p.rows, lo, hi)
	if err != nil {
		return err
	}
	row := p.rows[pos]
	p.rows = slices.Delete(p.rows, pos, pos+1)
	if len(p.rows) == 0 {
		p.rows = nil
	}
	after, err := op.values(p.rows, lo, hi-1)
	if err != nil {
		return err
	}
	if err := op.emit(types.Delete, row, before[pos-lo]); err != nil {
		return err
	}
	for i := lo; i < hi; i++ {
		if i == pos {
			continue
		}
		j := i - lo
		if i > pos {
			j--
		}
		r := p.rows[j+lo]
		if err := op.update(r, before[i-lo], after[j]); err != nil {
			return err
		}
	}
	return nil
}

// update emits -U/+U for a row whose values changed.
func (op *sortedOverOp) update(row, before, after []types.Value) error {
	if slices.EqualFunc(before, after, types.Equal) {
		return nil
	}
	if err := op.emit(types.UpdateBefore, row, before); err != nil {
		return err
	}
	return op.emit(types.UpdateAfter, row, after)
}

// values computes the calls' values of the rows [lo, hi) of rows over
// their frames.
func (op *sortedOverOp) values(rows [][]types.Value, lo, hi int) ([][]types.Value, error) {
	if lo >= hi {
		return nil, nil
	}
	f := op.spec.Frame
	out := make([][]types.Value, 0, hi-lo)
	clear(op.accs)
	start := 0
	if f.Rows && !f.Unbounded {
		start = max(0, lo-int(f.Preceding))
	}
	for i := start; i < lo; i++ {
		if err := op.agg.step(op.accs, rows[i], false); err != nil {
			return nil, fmt.Errorf("sorted over: %w", err)
		}
	}
	for i := lo; i < hi; {
		end := i + 1
		if !f.Rows {
			// RANGE: the row's peers are in its frame.
			for end < len(rows) && op.peers(rows[end], rows[i]) {
				end++
			}
		}
		for k := i; k < end; k++ {
			if err := op.agg.step(op.accs, rows[k], false); err != nil {
				return nil, fmt.Errorf("sorted over: %w", err)
			}
		}
		if f.Rows && !f.Unbounded {
			if drop := i - int(f.Preceding) - 1; drop >= start {
				if err := op.agg.step(op.accs, rows[drop], true); err != nil {
					return nil, fmt.Errorf("sorted over: %w", err)
				}
			}
		}
		vals, err := op.agg.appendValues(make([]types.Value, 0, len(op.agg.calls)), op.accs)
		if err != nil {
			return nil, err
		}
		for k := i; k < end && k < hi; k++ {
			out = append(out, vals)
		}
		i = end
	}
	return out, nil
}

// emit emits row followed by the calls' values vals.
func (op *sortedOverOp) emit(kind types.RowKind, row, vals []types.Value) error {
	out := make([]types.Value, 0, op.width+len(vals))
	out = append(append(out, row...), vals...)
	return op.out.Emit(types.Row{Kind: kind, Values: out})
}

// Watermark implements Operator: the rows do not wait for time.
func (op *sortedOverOp) Watermark(port int, wm int64) error {
	if w, ok := op.wm.advance(port, wm); ok {
		return op.out.Watermark(w)
	}
	return nil
}

// Flush implements Operator.
func (op *sortedOverOp) Flush() error {
	if err := op.cache.flush(); err != nil {
		return fmt.Errorf("sorted over: %w", err)
	}
	return nil
}
