package logstore

// Writer buffers records to append to one or more logs. Nothing is visible
// until Store.Commit commits the writer together with a batch. A Writer is
// not safe for concurrent use; a job keeps one and reuses it (Commit resets
// it on success).
type Writer struct {
	// The records, in blocks of recBlock, and their keys and values back
	// to back in blocks of bufBlock bytes (a larger record gets a block of
	// its own). Blocks are kept across Reset and never copied as the
	// writer grows: a checkpoint can buffer a million records.
	recs   [][]pendingRecord
	n      int
	bufs   [][]byte
	bufCur int // the block records are appended to

	// Scratch of Store.Commit: each record's log, its partition's slot in
	// the commit, and the records grouped by slot.
	states []*logState
	slots  []int32
	order  []int32
	starts []int
}

// Writer block sizes.
const (
	recShift = 12
	recBlock = 1 << recShift
	bufBlock = 256 << 10
)

type pendingRecord struct {
	log   string
	ts    int64
	kLen  int
	vLen  int   // the value follows the key in its block
	part  int32 // partition
	blk   int32 // the block of bufs holding the key and value
	kOff  int32 // the key's offset in it
	flags byte
}

// NewWriter returns an empty Writer.
func (s *Store) NewWriter() *Writer { return &Writer{} }

// Append buffers a record for partition of log. key and value are copied; a
// nil key or value is kept as nil (Kafka's null). The log and partition are
// checked by Commit.
func (w *Writer) Append(log string, partition int, key, value []byte) {
	w.append(log, partition, key, value, 0, false)
}

// AppendWithTimestamp is Append with a record timestamp in milliseconds
// since the epoch (Kafka's record timestamp, Confluent's $rowtime).
func (w *Writer) AppendWithTimestamp(log string, partition int, key, value []byte, ts int64) {
	w.append(log, partition, key, value, ts, true)
}

func (w *Writer) append(log string, partition int, key, value []byte, ts int64, hasTS bool) {
	if w.n>>recShift == len(w.recs) {
		w.recs = append(w.recs, make([]pendingRecord, recBlock))
	}
	r := &w.recs[w.n>>recShift][w.n&(recBlock-1)]
	w.n++
	*r = pendingRecord{log: log, part: int32(min(partition, 1<<31-1)), kLen: len(key), vLen: len(value)}
	if partition < 0 {
		r.part = -1 // rejected by Commit
	}
	if key == nil {
		r.flags |= flagKeyNil
	}
	if value == nil {
		r.flags |= flagValueNil
	}
	if hasTS {
		r.flags |= flagHasTime
		r.ts = ts
	}
	size := len(key) + len(value)
	if len(w.bufs) == 0 {
		w.bufs = append(w.bufs, make([]byte, 0, bufBlock))
	}
	b := w.bufs[w.bufCur]
	if len(b)+size > cap(b) {
		w.bufCur++
		if w.bufCur == len(w.bufs) {
			w.bufs = append(w.bufs, make([]byte, 0, max(bufBlock, size)))
		} else if cap(w.bufs[w.bufCur]) < size {
			w.bufs[w.bufCur] = make([]byte, 0, size)
		}
		b = w.bufs[w.bufCur]
	}
	r.blk, r.kOff = int32(w.bufCur), int32(len(b))
	b = append(b, key...)
	w.bufs[w.bufCur] = append(b, value...)
}

// rec returns record i.
func (w *Writer) rec(i int) *pendingRecord { return &w.recs[i>>recShift][i&(recBlock-1)] }

// Len returns the number of buffered records.
func (w *Writer) Len() int { return w.n }

// Reset drops the buffered records and keeps the memory for reuse.
func (w *Writer) Reset() {
	for i := 0; i < w.n; i += recBlock {
		clear(w.recs[i>>recShift]) // drop log name references
	}
	w.n = 0
	for i := range w.bufs[:min(w.bufCur+1, len(w.bufs))] {
		w.bufs[i] = w.bufs[i][:0]
	}
	w.bufCur = 0
}

func (w *Writer) key(r *pendingRecord) []byte {
	if r.flags&flagKeyNil != 0 {
		return nil
	}
	return w.bufs[r.blk][r.kOff : int(r.kOff)+r.kLen]
}

func (w *Writer) value(r *pendingRecord) []byte {
	if r.flags&flagValueNil != 0 {
		return nil
	}
	o := int(r.kOff) + r.kLen
	return w.bufs[r.blk][o : o+r.vLen]
}

// groupBySlot returns the indices of the records grouped by slot (in
// Append order within one) and, per slot u, its range
// order[starts[u]:starts[u+1]].
func (w *Writer) groupBySlot(nslots int) (order []int32, starts []int) {
	order = resize(w.order, w.n)
	starts = resize(w.starts, 2*nslots+1) // starts, then the fill positions
	if nslots == 1 {
		for i := range order {
			order[i] = int32(i)
		}
		starts[1] = len(order)
	} else {
		for _, u := range w.slots {
			starts[u+1]++
		}
		fill := starts[nslots+1:]
		for u := 1; u <= nslots; u++ {
			starts[u] += starts[u-1]
		}
		copy(fill, starts[:nslots])
		for i, u := range w.slots {
			order[fill[u]] = int32(i)
			fill[u]++
		}
	}
	w.order, w.starts = order, starts
	return order, starts[:nslots+1]
}

// resize returns s with n zeroed elements, reusing its array if it can.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
