package runtime

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/types"
)

// ORDER BY of a set-semantic table argument (Flink 2.3, reference §10).
//
// The rows of such a table are not passed to Eval on arrival. They are
// buffered per key in a map state entry of the operator's namespace
// ("__orderby/<arg>"), so that the buffers are checkpointed with the rest
// of the state. A map key is the row's time (8 bytes, big endian, sign bit
// flipped) followed by an arrival sequence number (8 bytes), so the backend
// returns a key's rows in (time, arrival) order; the value is the encoded
// row, preceded by its write time when the buffers have a TTL
// ('table.exec.state.ttl').
//
// A row whose time is NULL or at or before its table's watermark is late
// and dropped. When the table's watermark advances to W, every key with
// buffered rows at or before W passes them to Eval in ascending time, rows
// of equal time ordered by the secondary ORDER BY columns and then by
// arrival. This happens before the function's watermark advances, so due
// timers fire after the flush, and CurrentWatermark and TableWatermark
// still show the previous watermark during it. The end of a bounded input
// (the maximum watermark) flushes everything.
//
// In memory, each buffer keeps the smallest buffered time of every key that
// has rows (rebuilt from the state when the operator opens), so a
// watermark advance visits only the keys with due rows.

// orderStatePrefix names the map state entries of the buffers.
const orderStatePrefix = "__orderby/"

// orderChunk bounds the rows of one key read into memory at once during a
// flush; rows of equal time are never split, since they are sorted
// together.
const orderChunk = 1024

// orderKey is a secondary ORDER BY column.
type orderKey struct {
	col              int
	desc, nullsFirst bool
}

// orderBuffer is the sort buffer of one table argument.
type orderBuffer struct {
	table int    // index in spec.Tables
	name  string // map state name
	col   int    // the time column: the first ORDER BY column
	keys  []orderKey
	// minTime holds the smallest buffered time of each key with rows; due
	// holds (time, key) entries for them, with stale entries skipped when
	// popped (lazy deletion).
	minTime map[string]int64
	due     orderHeap
}

func newOrderBuffer(table int, t *jobgraph.PTFTable) *orderBuffer {
	b := &orderBuffer{table: table, name: orderStatePrefix + t.Arg, col: t.OrderBy[0], minTime: map[string]int64{}}
	for i := 1; i < len(t.OrderBy); i++ {
		b.keys = append(b.keys, orderKey{col: t.OrderBy[i], desc: t.OrderDesc[i], nullsFirst: t.OrderNullsFirst[i]})
	}
	return b
}

// note records that key has a buffered row at time t.
func (b *orderBuffer) note(key string, vals []types.Value, t int64) {
	if m, ok := b.minTime[key]; ok && m <= t {
		return
	}
	b.minTime[key] = t
	heap.Push(&b.due, orderEntry{t: t, key: key, vals: vals})
}

// compare orders two rows of equal time by the secondary columns.
func (b *orderBuffer) compare(x, y []types.Value) int {
	for _, k := range b.keys {
		a, c := x[k.col], y[k.col]
		switch an, cn := a.IsNull(), c.IsNull(); {
		case an && cn:
			continue
		case an || cn:
			if an == k.nullsFirst {
				return -1
			}
			return 1
		}
		r := types.Compare(a, c)
		if k.desc {
			r = -r
		}
		if r != 0 {
			return r
		}
	}
	return 0
}

// orderEntry is a key with buffered rows and its smallest buffered time.
type orderEntry struct {
	t    int64
	key  string
	vals []types.Value
}

// orderHeap orders keys by (time, key) like timers: key values column by
// column, then the encoded key.
type orderHeap []orderEntry

func (h orderHeap) Len() int { return len(h) }
func (h orderHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.t != b.t {
		return a.t < b.t
	}
	for k := 0; k < len(a.vals) && k < len(b.vals); k++ {
		if c := types.Compare(a.vals[k], b.vals[k]); c != 0 {
			return c < 0
		}
	}
	return a.key < b.key
}
func (h orderHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *orderHeap) Push(x any)   { *h = append(*h, x.(orderEntry)) }
func (h *orderHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// orderMapKey encodes (time, sequence) so that byte order is numeric order.
func orderMapKey(t int64, seq uint64) []byte {
	var k [16]byte
	binary.BigEndian.PutUint64(k[:8], uint64(t)^(1<<63))
	binary.BigEndian.PutUint64(k[8:], seq)
	return k[:]
}

// parseOrderMapKey decodes a key written by orderMapKey.
func parseOrderMapKey(k []byte) (t int64, seq uint64, err error) {
	if len(k) != 16 {
		return 0, 0, fmt.Errorf("ORDER BY buffer: malformed entry key of %d bytes", len(k))
	}
	return int64(binary.BigEndian.Uint64(k[:8]) ^ (1 << 63)), binary.BigEndian.Uint64(k[8:]), nil
}

// bufferRow buffers a row of a table with ORDER BY, or drops it when it is
// late.
func (op *ptfOp) bufferRow(b *orderBuffer, row *types.Row) error {
	v := row.Values[b.col]
	if v.IsNull() || v.Int() <= op.wm[b.table] {
		return nil // late: Flink drops it
	}
	t := v.Int()
	op.setKey(&op.spec.Tables[b.table], row)
	op.enterKey()
	val := op.orderBuf[:0]
	if op.orderTTL > 0 {
		val = binary.BigEndian.AppendUint64(val, uint64(op.now()))
	}
	val = types.AppendRow(val, *row)
	op.orderBuf = val
	if err := op.kv.MapPut(op.ns, b.name, op.keyBuf, orderMapKey(t, op.orderSeq), val); err != nil {
		return fmt.Errorf("process table function %s: buffering a row of '%s' for ORDER BY: %w", op.spec.Name, op.spec.Tables[b.table].Arg, err)
	}
	op.orderSeq++
	b.note(op.curKey, op.curKS.keyVals, t)
	return nil
}

// flushOrder passes the buffered rows with time <= wm to Eval, key by key
// in (smallest time, key) order.
func (op *ptfOp) flushOrder(b *orderBuffer, wm int64) error {
	for len(b.due) > 0 && b.due[0].t <= wm {
		e := heap.Pop(&b.due).(orderEntry)
		if m, ok := b.minTime[e.key]; !ok || m != e.t {
			continue // stale
		}
		delete(b.minTime, e.key)
		next, more, err := op.flushKey(b, e.key, wm)
		if err != nil {
			return err
		}
		if more {
			b.note(e.key, e.vals, next)
		}
	}
	return nil
}

// bufferedRow is a row read back from a buffer.
type bufferedRow struct {
	t   int64
	row types.Row
}

// flushKey passes the rows of one key with time <= wm to Eval in order and
// removes them. It returns the smallest remaining time, if any. Rows whose
// TTL expired are removed without being passed.
func (op *ptfOp) flushKey(b *orderBuffer, key string, wm int64) (next int64, more bool, err error) {
	k := []byte(key)
	t := &op.spec.Tables[b.table]
	now := op.now()
	var rows []bufferedRow
	var read [][]byte // map keys of the rows read, alive or expired
	for {
		rows, read, more = rows[:0], read[:0], false
		cut := false
		lastT := int64(0)
		err := op.kv.MapRange(op.ns, b.name, k, func(mk, v []byte) error {
			ts, _, err := parseOrderMapKey(mk)
			if err != nil {
				return err
			}
			if ts > wm {
				next, more = ts, true
				return state.ErrStop
			}
			if len(read) >= orderChunk && ts != lastT {
				cut = true
				return state.ErrStop
			}
			read, lastT = append(read, slices.Clone(mk)), ts
			if op.orderTTL > 0 {
				if len(v) < 8 {
					return fmt.Errorf("malformed entry of %d bytes", len(v))
				}
				if now-int64(binary.BigEndian.Uint64(v)) >= op.orderTTL {
					return nil // expired
				}
				v = v[8:]
			}
			r, err := types.DecodeRow(v)
			if err != nil {
				return err
			}
			rows = append(rows, bufferedRow{t: ts, row: r})
			return nil
		})
		if err != nil {
			return 0, false, fmt.Errorf("process table function %s: reading the ORDER BY buffer of '%s': %w", op.spec.Name, t.Arg, err)
		}
		for _, mk := range read {
			if err := op.kv.MapDelete(op.ns, b.name, k, mk); err != nil {
				return 0, false, fmt.Errorf("process table function %s: removing from the ORDER BY buffer of '%s': %w", op.spec.Name, t.Arg, err)
			}
		}
		if len(b.keys) > 0 {
			// Rows come in (time, arrival) order; a stable sort of each
			// run of equal time by the secondary columns keeps arrival
			// order for ties.
			for i := 0; i < len(rows); {
				j := i + 1
				for j < len(rows) && rows[j].t == rows[i].t {
					j++
				}
				slices.SortStableFunc(rows[i:j], func(x, y bufferedRow) int { return b.compare(x.row.Values, y.row.Values) })
				i = j
			}
		}
		for i := range rows {
			if err := op.evalRow(b.table, &rows[i].row, b.col); err != nil {
				return 0, false, err
			}
		}
		if !cut {
			return next, more, nil
		}
	}
}

// restoreOrderEntry indexes a buffered row found in the state when the
// operator opens.
func (op *ptfOp) restoreOrderEntry(e state.Entry) error {
	for _, b := range op.orders {
		if b == nil || b.name != e.Name {
			continue
		}
		t, seq, err := parseOrderMapKey(e.MapKey)
		if err != nil {
			return err
		}
		if seq >= op.orderSeq {
			op.orderSeq = seq + 1
		}
		ks, err := op.restoreKey(e.Key)
		if err != nil || ks == nil {
			return err
		}
		b.note(string(e.Key), ks.keyVals, t)
		return nil
	}
	return nil
}
