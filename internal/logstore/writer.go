package logstore

// Writer buffers records to append to one or more logs. Nothing is visible
// until Store.Commit commits the writer together with a batch. A Writer is
// not safe for concurrent use; a job keeps one and reuses it (Commit resets
// it on success).
type Writer struct {
	recs []pendingRecord
	buf  []byte // keys and values of recs, back to back

	// Scratch of Store.Commit: each record's log, its partition's slot in
	// the commit, and the records grouped by slot.
	states []*logState
	slots  []int32
	order  []int32
	starts []int
}

type pendingRecord struct {
	log   string
	part  int
	flags byte
	ts    int64
	kOff  int
	kLen  int
	vLen  int // the value follows the key in buf
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
	r := pendingRecord{log: log, part: partition, kOff: len(w.buf), kLen: len(key), vLen: len(value)}
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
	w.buf = append(w.buf, key...)
	w.buf = append(w.buf, value...)
	w.recs = append(w.recs, r)
}

// Len returns the number of buffered records.
func (w *Writer) Len() int { return len(w.recs) }

// Reset drops the buffered records and keeps the memory for reuse.
func (w *Writer) Reset() {
	clear(w.recs) // drop log name references
	w.recs = w.recs[:0]
	w.buf = w.buf[:0]
}

func (w *Writer) key(r *pendingRecord) []byte {
	if r.flags&flagKeyNil != 0 {
		return nil
	}
	return w.buf[r.kOff : r.kOff+r.kLen]
}

func (w *Writer) value(r *pendingRecord) []byte {
	if r.flags&flagValueNil != 0 {
		return nil
	}
	o := r.kOff + r.kLen
	return w.buf[o : o+r.vLen]
}

// groupBySlot returns the indices of the records grouped by slot (in
// Append order within one) and, per slot u, its range
// order[starts[u]:starts[u+1]].
func (w *Writer) groupBySlot(nslots int) (order []int32, starts []int) {
	order = resize(w.order, len(w.recs))
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
