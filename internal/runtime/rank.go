package runtime

import (
	"encoding/binary"
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// rankOp is the streaming Top-N (jobgraph.Rank), Flink's
// AppendOnlyTopNFunction, UpdatableTopNFunction and
// RetractableTopNFunction: per partition it keeps rows sorted by the sort
// keys, ties in arrival order, and on every change emits the difference
// between the result before and after it (see jobgraph.Rank for the
// emission rules, which reproduce Flink's changelog).
//
// State: per partition key one value "rows": the partition's rows in sort
// order. AppendFast and UpdateFast keep only the rows ranked at most End;
// Retract keeps all of them.
//
// State TTL ('table.exec.state.ttl'): each kept row carries the processing
// time it was written; a row older than the TTL is dropped when its
// partition is next read, without a retraction, as if it had never been
// seen (Flink's Top-N functions keep their rows under the TTL). The times
// follow the rows in the encoded state only with a TTL.
type rankOp struct {
	spec  *jobgraph.Rank
	out   Output
	wm    minWatermark
	cache *keyedCache[rankPart]
	// positional: ROW_NUMBER keyed by (partition, rank): changes are
	// emitted position by position.
	positional bool
	bounded    bool
	width      int // input columns
	clock      Clock
	ttl        int64

	keyVals []types.Value
	keyBuf  []byte
	slab    valueSlab
	rowSlab []rankRow
	// oldWin and oldRanks snapshot the result window before a change;
	// newRanks are the ranks after it.
	oldWin             []*rankRow
	oldRanks, newRanks []int64
	epoch              uint64
}

// rankRow is one row of a partition.
type rankRow struct {
	vals []types.Value
	// mark and oldRank are scratch fields of the window difference.
	mark    uint64
	oldRank int64
	// stamp is the processing time the row was written (state TTL); 0
	// without a TTL or for state written before one was set.
	stamp int64
}

// rankPart is the state of one partition.
type rankPart struct {
	rows []*rankRow
}

// rankCodec encodes a partition: the row count, the rows, then, with a
// TTL, the rows' times.
type rankCodec struct{ ttl bool }

func (rankCodec) empty(p *rankPart) bool { return len(p.rows) == 0 }

func (c rankCodec) encode(dst []byte, p *rankPart) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(p.rows)))
	var scratch []byte
	for _, r := range p.rows {
		dst = appendStateRow(dst, types.Insert, r.vals, &scratch)
	}
	if c.ttl {
		for _, r := range p.rows {
			dst = binary.AppendVarint(dst, r.stamp)
		}
	}
	return dst
}

func (rankCodec) decode(b []byte, p *rankPart) error {
	r := accReader{b: b}
	n := r.length()
	for range n {
		row := r.row()
		if r.err != nil {
			break
		}
		p.rows = append(p.rows, &rankRow{vals: row.Values})
	}
	if r.err == nil && len(r.b) > 0 {
		for _, row := range p.rows {
			row.stamp = r.varint()
		}
	}
	return r.done("rank state")
}

func newRankOp(spec *jobgraph.Rank, in *types.Schema, oc OpContext) (*rankOp, error) {
	if err := checkColumns("rank", in.Len(), spec.PartitionKeys...); err != nil {
		return nil, err
	}
	for _, k := range spec.OrderBy {
		if err := checkColumns("rank", in.Len(), k.Col); err != nil {
			return nil, err
		}
	}
	if len(spec.OrderBy) == 0 {
		return nil, fmt.Errorf("rank: no ORDER BY keys")
	}
	if spec.Start < 1 || spec.End < spec.Start {
		return nil, fmt.Errorf("rank: invalid rank range [%d, %d]", spec.Start, spec.End)
	}
	if spec.Strategy == jobgraph.UpdateFastStrategy {
		if len(spec.UpsertKey) == 0 {
			return nil, fmt.Errorf("rank: the UpdateFast strategy needs the input's upsert key")
		}
		if err := checkColumns("rank", in.Len(), spec.UpsertKey...); err != nil {
			return nil, err
		}
	}
	op := &rankOp{spec: spec, out: oc.Out, width: in.Len(),
		positional: spec.Func == jobgraph.RowNumber && (spec.OutputRank || spec.Start > 1),
		bounded:    spec.Strategy != jobgraph.RetractStrategy,
		clock:      oc.Clock, ttl: max(spec.StateTTL, 0),
	}
	if op.ttl > 0 && op.clock == nil {
		return nil, fmt.Errorf("rank: state TTL needs a clock")
	}
	op.cache = newKeyedCache[rankPart](oc, "rows", rankCodec{ttl: op.ttl > 0})
	op.wm = newMinWatermark(1)
	return op, nil
}

// Process implements Operator.
func (op *rankOp) Process(_ int, row types.Row) error {
	retract := row.Kind.IsRetraction()
	switch op.spec.Strategy {
	case jobgraph.AppendFastStrategy:
		if row.Kind != types.Insert {
			return fmt.Errorf("rank: the AppendFast strategy needs insert-only input, got a %s row", row.Kind)
		}
	case jobgraph.UpdateFastStrategy:
		switch row.Kind {
		case types.Delete:
			return fmt.Errorf("rank: the UpdateFast strategy cannot take a -D row (plan the Retract strategy for input with deletes)")
		case types.UpdateBefore:
			return nil // an upsert input: the +U that follows carries the update
		}
	}
	if len(row.Values) != op.width {
		return fmt.Errorf("rank: row has %d values, want %d", len(row.Values), op.width)
	}
	op.keyVals = op.keyVals[:0]
	for _, k := range op.spec.PartitionKeys {
		op.keyVals = append(op.keyVals, row.Values[k])
	}
	op.keyBuf = types.AppendRow(op.keyBuf[:0], types.Row{Values: op.keyVals})
	e, err := op.cache.get(op.keyBuf)
	if err != nil {
		return fmt.Errorf("rank: %w", err)
	}
	p := &e.v
	var now int64
	if op.ttl > 0 {
		now = op.clock.Now().UnixNano()
		op.expire(e, now)
	}
	if retract {
		i := op.findEqual(p.rows, row.Values)
		if i < 0 {
			return nil // a row never accumulated: ignored, as Flink does
		}
		op.cache.mark(e)
		if !op.inWindow(p.rows, i) {
			p.rows = deleteRow(p.rows, i)
			return nil
		}
		op.snapshot(p.rows)
		p.rows = deleteRow(p.rows, i)
		return op.emitDiff(p)
	}
	if op.spec.Strategy == jobgraph.AppendFastStrategy && op.spec.Func == jobgraph.RowNumber && len(p.rows) >= int(op.spec.End) &&
		compareSortKeys(op.spec.OrderBy, p.rows[len(p.rows)-1].vals, row.Values) <= 0 {
		return nil // the hot path: it sorts after the last row of a full Top-N
	}
	pos := op.upperBound(p.rows, row.Values)
	old := -1 // UpdateFast: the position of the row the update replaces
	if op.spec.Strategy == jobgraph.UpdateFastStrategy {
		old = op.findKey(p.rows, row.Values)
	}
	if old < 0 && op.bounded && op.spec.Func == jobgraph.RowNumber && pos >= int(op.spec.End) {
		return nil // beyond the result: an append-only Top-N forgets it at once
	}
	op.cache.mark(e)
	nr := op.newRow(row.Values)
	nr.stamp = now
	if old < 0 {
		p.rows = insertRow(p.rows, pos, nr)
		if !op.inWindow(p.rows, pos) {
			if op.bounded {
				p.rows = deleteRow(p.rows, pos)
			}
			return nil
		}
		op.snapshotWithout(p.rows, pos)
		return op.emitDiff(p)
	}
	op.snapshot(p.rows)
	if compareSortKeys(op.spec.OrderBy, p.rows[old].vals, row.Values) == 0 {
		p.rows[old] = nr // the same sort key: the row keeps its place, as in Flink
	} else {
		p.rows = deleteRow(p.rows, old)
		p.rows = insertRow(p.rows, op.upperBound(p.rows, row.Values), nr)
	}
	return op.emitDiff(p)
}

// expire drops the rows of e not written for the TTL, without emitting
// anything. Rows without a time (state written before a TTL was set)
// start their TTL now.
func (op *rankOp) expire(e *cached[rankPart], now int64) {
	rows := e.v.rows
	if len(rows) == 0 {
		return
	}
	kept := rows[:0]
	changed := false
	for _, r := range rows {
		switch {
		case r.stamp == 0:
			r.stamp, changed = now, true
		case now-r.stamp >= op.ttl:
			changed = true
			continue
		}
		kept = append(kept, r)
	}
	clear(rows[len(kept):])
	e.v.rows = kept
	if changed {
		op.cache.mark(e)
	}
}

func (op *rankOp) newRow(vals []types.Value) *rankRow {
	if len(op.rowSlab) == 0 {
		op.rowSlab = make([]rankRow, 64)
	}
	r := &op.rowSlab[0]
	op.rowSlab = op.rowSlab[1:]
	r.vals = vals
	return r
}

func insertRow(rows []*rankRow, i int, r *rankRow) []*rankRow {
	rows = append(rows, nil)
	copy(rows[i+1:], rows[i:])
	rows[i] = r
	return rows
}

func deleteRow(rows []*rankRow, i int) []*rankRow {
	copy(rows[i:], rows[i+1:])
	rows[len(rows)-1] = nil
	return rows[:len(rows)-1]
}

// upperBound returns the position a new row with vals takes: after every
// row that sorts before it or ties with it.
func (op *rankOp) upperBound(rows []*rankRow, vals []types.Value) int {
	lo, hi := 0, len(rows)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if compareSortKeys(op.spec.OrderBy, rows[m].vals, vals) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// findEqual returns the position of the earliest arrived row equal to
// vals, or -1.
func (op *rankOp) findEqual(rows []*rankRow, vals []types.Value) int {
	lo, hi := 0, len(rows)
	for lo < hi { // the first row that does not sort before vals
		m := int(uint(lo+hi) >> 1)
		if compareSortKeys(op.spec.OrderBy, rows[m].vals, vals) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	for i := lo; i < len(rows) && compareSortKeys(op.spec.OrderBy, rows[i].vals, vals) == 0; i++ {
		if equalValues(rows[i].vals, vals) {
			return i
		}
	}
	return -1
}

// findKey returns the position of the row with the upsert key of vals, or
// -1.
func (op *rankOp) findKey(rows []*rankRow, vals []types.Value) int {
	for i, r := range rows {
		same := true
		for _, c := range op.spec.UpsertKey {
			if !types.Equal(r.vals[c], vals[c]) {
				same = false
				break
			}
		}
		if same {
			return i
		}
	}
	return -1
}

// nextRank returns the rank of rows[i] given the rank r of rows[i-1] (i >
// 0).
func (op *rankOp) nextRank(rows []*rankRow, i int, r int64) int64 {
	switch op.spec.Func {
	case jobgraph.RowNumber:
		return int64(i) + 1
	case jobgraph.RankNumber:
		if compareSortKeys(op.spec.OrderBy, rows[i-1].vals, rows[i].vals) == 0 {
			return r
		}
		return int64(i) + 1
	}
	if compareSortKeys(op.spec.OrderBy, rows[i-1].vals, rows[i].vals) == 0 {
		return r
	}
	return r + 1
}

// ranks appends to dst the ranks of the leading rows ranked at most End
// (the result window).
func (op *rankOp) ranks(rows []*rankRow, dst []int64) []int64 {
	var r int64
	for i := range rows {
		if i == 0 {
			r = 1
		} else {
			r = op.nextRank(rows, i, r)
		}
		if r > op.spec.End {
			break
		}
		dst = append(dst, r)
	}
	return dst
}

// inWindow reports whether rows[i] is ranked at most End.
func (op *rankOp) inWindow(rows []*rankRow, i int) bool {
	if op.spec.Func == jobgraph.RowNumber {
		return int64(i) < op.spec.End
	}
	var r int64
	for j := 0; j <= i; j++ {
		if j == 0 {
			r = 1
		} else {
			r = op.nextRank(rows, j, r)
		}
		if r > op.spec.End {
			return false
		}
	}
	return true
}

// snapshot records the result window of rows before a change.
func (op *rankOp) snapshot(rows []*rankRow) {
	op.oldRanks = op.ranks(rows, op.oldRanks[:0])
	op.oldWin = append(op.oldWin[:0], rows[:len(op.oldRanks)]...)
}

// snapshotWithout records the result window of rows without rows[skip],
// a row just inserted.
func (op *rankOp) snapshotWithout(rows []*rankRow, skip int) {
	r := rows[skip]
	copy(rows[skip:], rows[skip+1:])
	rows = rows[:len(rows)-1]
	op.snapshot(rows)
	rows = rows[:len(rows)+1]
	copy(rows[skip+1:], rows[skip:])
	rows[skip] = r
}

// emitDiff emits the difference between the snapshot and p's result
// window, then drops what a bounded partition no longer needs.
func (op *rankOp) emitDiff(p *rankPart) error {
	op.newRanks = op.ranks(p.rows, op.newRanks[:0])
	newWin := p.rows[:len(op.newRanks)]
	start, end := op.spec.Start, op.spec.End
	if op.positional {
		for pos := start - 1; pos < end; pos++ {
			var o, n *rankRow
			if pos < int64(len(op.oldWin)) {
				o = op.oldWin[pos]
			}
			if pos < int64(len(newWin)) {
				n = newWin[pos]
			}
			switch {
			case o == n:
			case o != nil && n != nil:
				if err := op.emit(types.UpdateBefore, o, pos+1); err != nil {
					return err
				}
				if err := op.emit(types.UpdateAfter, n, pos+1); err != nil {
					return err
				}
			case n != nil:
				if err := op.emit(types.Insert, n, pos+1); err != nil {
					return err
				}
			default:
				if err := op.emit(types.Delete, o, pos+1); err != nil {
					return err
				}
			}
		}
	} else {
		op.epoch += 2
		in, both := op.epoch, op.epoch+1
		for i, r := range op.oldWin {
			if op.oldRanks[i] >= start {
				r.mark, r.oldRank = in, op.oldRanks[i]
			}
		}
		for i, r := range newWin {
			if r.mark == in && op.newRanks[i] >= start {
				r.mark = both
			}
		}
		for _, r := range op.oldWin {
			if r.mark == in { // left the result
				if err := op.emit(types.Delete, r, r.oldRank); err != nil {
					return err
				}
			}
		}
		for i, r := range newWin {
			nr := op.newRanks[i]
			switch {
			case nr < start:
			case r.mark == both:
				if op.spec.OutputRank && r.oldRank != nr {
					if err := op.emit(types.UpdateBefore, r, r.oldRank); err != nil {
						return err
					}
					if err := op.emit(types.UpdateAfter, r, nr); err != nil {
						return err
					}
				}
			default: // entered the result
				if err := op.emit(types.Insert, r, nr); err != nil {
					return err
				}
			}
		}
	}
	if op.bounded && len(p.rows) > len(newWin) {
		clear(p.rows[len(newWin):])
		p.rows = p.rows[:len(newWin)]
	}
	clear(op.oldWin)
	return nil
}

// emit emits r with kind, with its rank when the output has the column.
func (op *rankOp) emit(kind types.RowKind, r *rankRow, rank int64) error {
	if kind == types.UpdateBefore && op.spec.DropUpdateBefore {
		return nil
	}
	vals := r.vals
	if op.spec.OutputRank {
		vals = op.slab.alloc(len(r.vals) + 1)
		copy(vals, r.vals)
		vals[len(r.vals)] = types.NewInt(rank)
	}
	return op.out.Emit(types.Row{Kind: kind, Values: vals})
}

// Watermark implements Operator: a Top-N has no timers.
func (op *rankOp) Watermark(port int, wm int64) error {
	if w, ok := op.wm.advance(port, wm); ok {
		return op.out.Watermark(w)
	}
	return nil
}

// Flush implements Operator.
func (op *rankOp) Flush() error {
	if err := op.cache.flush(); err != nil {
		return fmt.Errorf("rank: %w", err)
	}
	return nil
}
