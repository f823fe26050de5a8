package logstore

// Writer buffers records to append to one or more logs. Nothing is visible
// until Store.Commit commits the writer together with a batch. A Writer is
// not safe for concurrent use; a job keeps one and reuses it (Commit resets
// it on success).
type Writer struct {
	recs []pendingRecord
	buf  []byte // keys and values of recs, back to back

	states []*logState // scratch of Store.Commit
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
