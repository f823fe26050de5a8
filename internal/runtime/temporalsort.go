package runtime

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// temporalSortOp is ORDER BY a time attribute (jobgraph.TemporalSort),
// Flink's RowTimeSortOperator and ProcTimeSortOperator: it buffers rows
// until their time is reached and emits them in time order, rows of one
// time sorted by the secondary keys (then in arrival order).
//
// The buffer is one partition (the operator runs with parallelism 1). It
// is checkpointed incrementally as a map state "buf" (under an empty key)
// of arrival sequence -> (time, row): a flush writes the rows buffered
// since the last one and deletes those emitted since, so a checkpoint
// costs what changed, not the size of the buffer. The value "seq" holds
// the next sequence number and the last time emitted.
type temporalSortOp struct {
	spec    *jobgraph.TemporalSort
	oc      OpContext
	out     Output
	wm      minWatermark
	buf     sortHeap
	seq     uint64
	last    int64 // rowtime: the last time emitted
	hasLast bool
	// added holds the rows buffered since the last flush, by sequence;
	// removed the sequences of flushed rows emitted since.
	added   map[uint64]*sortRow
	removed []uint64
	width   int
	group   []*sortRow
	enc     []byte
	scratch []byte
}

// sortRow is a buffered row.
type sortRow struct {
	t    int64
	seq  uint64
	vals []types.Value
}

// sortHeap orders buffered rows by (time, arrival).
type sortHeap []*sortRow

func (h sortHeap) Len() int { return len(h) }
func (h sortHeap) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	return h[i].seq < h[j].seq
}
func (h sortHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *sortHeap) Push(x any)   { *h = append(*h, x.(*sortRow)) }
func (h *sortHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

const (
	sortBufName = "buf"
	sortSeqName = "seq"
)

func newTemporalSortOp(spec *jobgraph.TemporalSort, in *types.Schema, oc OpContext) (*temporalSortOp, error) {
	if !spec.ProcTime {
		if err := checkColumns("temporal sort", in.Len(), spec.TimeColumn); err != nil {
			return nil, err
		}
	}
	for _, k := range spec.OrderBy {
		if err := checkColumns("temporal sort", in.Len(), k.Col); err != nil {
			return nil, err
		}
	}
	op := &temporalSortOp{spec: spec, oc: oc, out: oc.Out, width: in.Len(), added: map[uint64]*sortRow{}}
	var err error
	if op.wm, err = loadWatermarks(oc, 1); err != nil {
		return nil, fmt.Errorf("temporal sort: %w", err)
	}
	if err := op.restore(); err != nil {
		return nil, fmt.Errorf("temporal sort: %w", err)
	}
	return op, nil
}

// restore reads the buffer and the counters back.
func (op *temporalSortOp) restore() error {
	b, ok, err := op.oc.KV.Get(op.oc.NS, sortSeqName, dueKey)
	if err != nil {
		return err
	}
	if ok {
		r := accReader{b: b}
		op.seq = uint64(r.varint())
		op.last = r.varint()
		op.hasLast = r.varint() != 0
		if err := r.done("temporal sort counters"); err != nil {
			return err
		}
	}
	defer heap.Init(&op.buf) // read in sequence order
	return op.oc.KV.MapRange(op.oc.NS, sortBufName, dueKey, func(k, v []byte) error {
		if len(k) != 8 {
			return fmt.Errorf("malformed temporal sort key")
		}
		r := accReader{b: v}
		t := r.varint()
		row := r.row()
		if err := r.done("temporal sort row"); err != nil {
			return err
		}
		op.buf = append(op.buf, &sortRow{t: t, seq: binary.BigEndian.Uint64(k), vals: row.Values})
		return nil
	})
}

// Process implements Operator.
func (op *temporalSortOp) Process(_ int, row types.Row) error {
	if row.Kind != types.Insert {
		return fmt.Errorf("temporal sort: the input must be insert-only, got a %s row", row.Kind)
	}
	if len(row.Values) != op.width {
		return fmt.Errorf("temporal sort: row has %d values, want %d", len(row.Values), op.width)
	}
	var t int64
	if op.spec.ProcTime {
		t = op.oc.Clock.Now().UnixMilli() * 1e6
	} else {
		var ok bool
		t, ok = rowTime(row.Values, op.spec.TimeColumn)
		if !ok || op.hasLast && t <= op.last {
			op.oc.countLate()
			return nil
		}
	}
	r := &sortRow{t: t, seq: op.seq, vals: row.Values}
	op.seq++
	heap.Push(&op.buf, r)
	op.added[r.seq] = r
	return nil
}

// emit emits the buffered rows whose time is at or before upTo: rowtime
// in time order, each time's rows sorted by the secondary keys; proctime
// all of them sorted by the secondary keys.
func (op *temporalSortOp) emit(upTo int64) error {
	for len(op.buf) > 0 && op.buf[0].t <= upTo {
		t := op.buf[0].t
		op.group = op.group[:0]
		for len(op.buf) > 0 && op.buf[0].t <= upTo && (op.spec.ProcTime || op.buf[0].t == t) {
			op.group = append(op.group, heap.Pop(&op.buf).(*sortRow))
		}
		if len(op.spec.OrderBy) > 0 {
			slices.SortStableFunc(op.group, func(a, b *sortRow) int { return compareSortKeys(op.spec.OrderBy, a.vals, b.vals) })
		}
		for _, r := range op.group {
			if _, ok := op.added[r.seq]; ok {
				delete(op.added, r.seq)
			} else {
				op.removed = append(op.removed, r.seq)
			}
			if err := op.out.Emit(types.Row{Kind: types.Insert, Values: r.vals}); err != nil {
				return err
			}
		}
		if !op.spec.ProcTime {
			op.last, op.hasLast = t, true
		}
	}
	clear(op.group)
	return nil
}

// Watermark implements Operator.
func (op *temporalSortOp) Watermark(port int, wm int64) error {
	w, rose := op.wm.advance(port, wm)
	if !rose {
		return nil
	}
	if !op.spec.ProcTime {
		if err := op.emit(w); err != nil {
			return err
		}
	}
	return op.out.Watermark(w)
}

// OnProcessingTime implements procTimeOperator: a proctime sort emits the
// rows of the milliseconds before now.
func (op *temporalSortOp) OnProcessingTime(now int64) error {
	if !op.spec.ProcTime {
		return nil
	}
	upTo := now - 1e6
	if now == MaxWatermark {
		upTo = MaxWatermark
	}
	return op.emit(upTo)
}

// Flush implements Operator.
func (op *temporalSortOp) Flush() error {
	var key [8]byte
	for seq, r := range op.added {
		binary.BigEndian.PutUint64(key[:], seq)
		op.enc = binary.AppendVarint(op.enc[:0], r.t)
		op.enc = appendStateRow(op.enc, types.Insert, r.vals, &op.scratch)
		if err := op.oc.KV.MapPut(op.oc.NS, sortBufName, dueKey, key[:], op.enc); err != nil {
			return fmt.Errorf("temporal sort: %w", err)
		}
	}
	clear(op.added)
	for _, seq := range op.removed {
		binary.BigEndian.PutUint64(key[:], seq)
		if err := op.oc.KV.MapDelete(op.oc.NS, sortBufName, dueKey, key[:]); err != nil {
			return fmt.Errorf("temporal sort: %w", err)
		}
	}
	op.removed = op.removed[:0]
	hasLast := int64(0)
	if op.hasLast {
		hasLast = 1
	}
	op.enc = binary.AppendVarint(op.enc[:0], int64(op.seq))
	op.enc = binary.AppendVarint(op.enc, op.last)
	op.enc = binary.AppendVarint(op.enc, hasLast)
	if err := op.oc.KV.Put(op.oc.NS, sortSeqName, dueKey, op.enc); err != nil {
		return fmt.Errorf("temporal sort: %w", err)
	}
	var err error
	if op.scratch, err = saveWatermarks(op.oc, &op.wm, op.scratch); err != nil {
		return fmt.Errorf("temporal sort: %w", err)
	}
	return nil
}
