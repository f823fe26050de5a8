package runtime

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/types"
)

// winTable is the keyed state of a window operator over aligned windows
// (TUMBLE, HOP, CUMULATE, or windows attached to the rows): one entry of
// type E per (window, key), and the windows in firing order.
//
// Windows fire in the order of their trigger time (then start, then end);
// within a window, entries fire in the order of their creation (the
// arrival of the key's first row in the window), which the state keeps
// across restores: results are deterministic for a deterministic input
// order.
//
// Memory: a window's entries sit together in chunks in creation order,
// indexed by the hash of their encoded key (entries of equal hashes are
// chained), so that a row costs one map lookup on an integer and the
// entries of a firing window are read in order; a window's memory goes
// with it when it fires.
//
// State: every entry is a value state (name, key: be64(end) be64(start)
// encoded key values; value: its position in the window, then E), written
// at Flush when it changed and deleted when its window fires; the
// progress (watermark or processing time the windows fired up to) and the
// input watermarks are one more value ("meta"). The state of open windows
// stays in memory: it is read back whole when an operator is built over a
// flushed state (restore).
type winTable[E any] struct {
	ns, name string
	kv       KV
	zone     winZone
	buckets  map[winSpan]*winBucket[E]
	// last is the bucket of the last entry looked up: rows of one window
	// usually come together.
	last  *winBucket[E]
	queue winQueue[E]
	seed  maphash.Seed
	// sizeHint is the number of entries of the last window fired.
	sizeHint int
	winMeta
	encode  func(dst []byte, v *E) []byte
	decode  func(b []byte, v *E) error
	id, buf []byte
}

// winEntry is the state of one key in one window.
type winEntry[E any] struct {
	hash uint64
	next *winEntry[E] // the next entry of the window with the same hash
	// The encoded key values (types.AppendRow): kbuf[:klen] when short,
	// else long.
	long  string
	kbuf  [16]byte
	klen  uint8
	dirty bool
	// persisted entries are in the KV (flushed or restored).
	persisted bool
	v         E
}

// key returns the encoded key values of e.
func (e *winEntry[E]) key() []byte {
	if e.long != "" {
		return []byte(e.long)
	}
	return e.kbuf[:e.klen]
}

func (e *winEntry[E]) is(h uint64, key []byte) bool {
	if e.hash != h {
		return false
	}
	if e.long != "" {
		return e.long == string(key)
	}
	return string(e.kbuf[:e.klen]) == string(key)
}

// winBucket is one open window and its entries, by hash and in creation
// order (chunks of fixed capacity, so that entries never move).
type winBucket[E any] struct {
	span    winSpan
	trigger int64
	byHash  map[uint64]*winEntry[E]
	chunks  [][]winEntry[E]
	n       int
}

// add appends a new entry to b.
func (b *winBucket[E]) add(hint int) *winEntry[E] {
	last := len(b.chunks) - 1
	if last < 0 || len(b.chunks[last]) == cap(b.chunks[last]) {
		size := 16
		if last >= 0 {
			size = min(2*cap(b.chunks[last]), 1024)
		} else if hint > 0 {
			size = min(hint, 1024)
		}
		b.chunks = append(b.chunks, make([]winEntry[E], 0, size))
		last++
	}
	b.chunks[last] = b.chunks[last][:len(b.chunks[last])+1]
	b.n++
	return &b.chunks[last][len(b.chunks[last])-1]
}

// each calls f with every entry of b in creation order, and its position.
func (b *winBucket[E]) each(f func(i int, e *winEntry[E]) error) error {
	i := 0
	for _, c := range b.chunks {
		for j := range c {
			if err := f(i, &c[j]); err != nil {
				return err
			}
			i++
		}
	}
	return nil
}

// winMetaName and winMetaKey name the value holding a window table's
// winMeta.
const winMetaName = "meta"

var winMetaKey = []byte("m")

// winMeta is the operator-wide state of a window or session table.
type winMeta struct {
	// progress is the engine time windows fired up to (MinWatermark: none
	// yet); a window fires when its trigger time is at most progress.
	progress int64
	// seq numbers entries (and rows) in arrival order.
	seq uint64
	// inputs are the operator's input watermarks, kept across restores so
	// that its output watermark does not fall back or wait for inputs to
	// repeat theirs.
	inputs    *minWatermark
	metaDirty bool
}

func (m *winMeta) nextSeq() uint64 {
	m.seq++
	m.metaDirty = true
	return m.seq
}

func (m *winMeta) appendMeta(dst []byte) []byte {
	dst = binary.AppendVarint(dst, m.progress)
	dst = binary.AppendUvarint(dst, m.seq)
	if m.inputs == nil {
		return binary.AppendUvarint(dst, 0)
	}
	dst = binary.AppendUvarint(dst, uint64(len(m.inputs.ports)))
	for _, w := range m.inputs.ports {
		dst = binary.AppendVarint(dst, w)
	}
	return binary.AppendVarint(dst, m.inputs.cur)
}

func (m *winMeta) decodeMeta(b []byte) error {
	bad := errors.New("malformed window progress")
	var n int
	if m.progress, n = binary.Varint(b); n <= 0 {
		return bad
	}
	b = b[n:]
	if m.seq, n = binary.Uvarint(b); n <= 0 {
		return bad
	}
	b = b[n:]
	ports, n := binary.Uvarint(b)
	if n <= 0 || ports > uint64(len(b)) {
		return bad
	}
	if ports == 0 {
		return nil
	}
	b = b[n:]
	ws := make([]int64, 0, ports+1)
	for range ports + 1 {
		w, n := binary.Varint(b)
		if n <= 0 {
			return bad
		}
		ws, b = append(ws, w), b[n:]
	}
	if m.inputs != nil && int(ports) == len(m.inputs.ports) {
		copy(m.inputs.ports, ws)
		m.inputs.cur = ws[ports]
	}
	return nil
}

// flushMeta writes the meta into ns when it changed.
func (m *winMeta) flushMeta(kv KV, ns string, buf []byte) ([]byte, error) {
	if !m.metaDirty {
		return buf, nil
	}
	buf = m.appendMeta(buf[:0])
	if err := kv.Put(ns, winMetaName, winMetaKey, buf); err != nil {
		return buf, fmt.Errorf("window state: %w", err)
	}
	m.metaDirty = false
	return buf, nil
}

// newWinTable builds a window table over the namespace ns of kv, reading
// back the state a previous instance flushed there (inputs, if not nil,
// included).
func newWinTable[E any](ns, name string, kv KV, zone winZone, inputs *minWatermark, encode func([]byte, *E) []byte, decode func([]byte, *E) error) (*winTable[E], error) {
	t := &winTable[E]{ns: ns, name: name, kv: kv, zone: zone, winMeta: winMeta{progress: MinWatermark, inputs: inputs},
		buckets: map[winSpan]*winBucket[E]{}, seed: maphash.MakeSeed(), encode: encode, decode: decode}
	if err := t.restore(); err != nil {
		return nil, fmt.Errorf("restoring window state: %w", err)
	}
	return t, nil
}

func (t *winTable[E]) restore() error {
	type restored struct {
		span winSpan
		pos  uint64
		key  []byte
		val  E
	}
	var all []restored
	err := t.kv.ScanNamespace(t.ns, func(en state.Entry) error {
		if en.Kind != state.KindValue {
			return nil
		}
		switch en.Name {
		case winMetaName:
			return t.decodeMeta(en.Value)
		case t.name:
			if len(en.Key) < 16 {
				return fmt.Errorf("malformed window key %x", en.Key)
			}
			r := restored{span: winSpan{end: int64(binary.BigEndian.Uint64(en.Key)), start: int64(binary.BigEndian.Uint64(en.Key[8:]))},
				key: slices.Clone(en.Key[16:])}
			var n int
			if r.pos, n = binary.Uvarint(en.Value); n <= 0 {
				return errors.New("malformed window entry")
			}
			if err := t.decode(en.Value[n:], &r.val); err != nil {
				return err
			}
			all = append(all, r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(all, func(x, y restored) int {
		return cmp.Or(cmp.Compare(x.span.end, y.span.end), cmp.Compare(x.span.start, y.span.start), cmp.Compare(x.pos, y.pos))
	})
	for i := range all {
		r := &all[i]
		e := t.insert(t.bucket(r.span), maphash.Bytes(t.seed, r.key), r.key)
		e.v, e.persisted = r.val, true
	}
	return nil
}

// fired reports whether the window span has fired.
func (t *winTable[E]) fired(span winSpan) bool {
	return t.zone.triggerNanos(span.end) <= t.progress
}

// bucket returns the open window span, adding it if new.
func (t *winTable[E]) bucket(span winSpan) *winBucket[E] {
	if t.last != nil && t.last.span == span {
		return t.last
	}
	b := t.buckets[span]
	if b == nil {
		// Windows tend to hold as many keys as the one before.
		b = &winBucket[E]{span: span, trigger: t.zone.triggerNanos(span.end), byHash: make(map[uint64]*winEntry[E], t.sizeHint)}
		t.buckets[span] = b
		heap.Push(&t.queue, b)
	}
	t.last = b
	return b
}

// kvKey returns the KV key of e in window span: be64(end) be64(start)
// encoded key.
func (t *winTable[E]) kvKey(span winSpan, e *winEntry[E]) []byte {
	t.id = binary.BigEndian.AppendUint64(t.id[:0], uint64(span.end))
	t.id = binary.BigEndian.AppendUint64(t.id, uint64(span.start))
	if e.long != "" {
		return append(t.id, e.long...)
	}
	return append(t.id, e.kbuf[:e.klen]...)
}

// entry returns the entry of keyVals in window span, creating it (zero
// E) if it does not exist; created reports that. The caller must not
// have checked fired: entry does not.
func (t *winTable[E]) entry(span winSpan, keyVals []types.Value) (e *winEntry[E], created bool) {
	b := t.bucket(span)
	t.id = types.AppendRow(t.id[:0], types.Row{Values: keyVals})
	h := maphash.Bytes(t.seed, t.id)
	for e := b.byHash[h]; e != nil; e = e.next {
		if e.is(h, t.id) {
			return e, false
		}
	}
	return t.insert(b, h, t.id), true
}

// insert adds the entry of the encoded key (hash h) to b.
func (t *winTable[E]) insert(b *winBucket[E], h uint64, key []byte) *winEntry[E] {
	e := b.add(t.sizeHint)
	e.hash, e.next = h, b.byHash[h]
	if len(key) <= len(e.kbuf) {
		e.klen = uint8(copy(e.kbuf[:], key))
	} else {
		e.long = string(key)
	}
	b.byHash[h] = e
	return e
}

// keyValues decodes the key values of e into dst (reusing its capacity).
func (t *winTable[E]) keyValues(e *winEntry[E], dst []types.Value) ([]types.Value, error) {
	r := types.Row{Values: dst}
	if err := types.DecodeRowInto(e.key(), &r); err != nil {
		return nil, fmt.Errorf("window state: %w", err)
	}
	return r.Values, nil
}

// touch marks e to be written at the next flush.
func (t *winTable[E]) touch(e *winEntry[E]) { e.dirty = true }

// advance moves the progress to p and fires, in order, every entry of
// the windows that became due; fired windows leave the table.
func (t *winTable[E]) advance(p int64, fire func(span winSpan, e *winEntry[E]) error) error {
	if p <= t.progress {
		return nil
	}
	t.progress = p
	t.metaDirty = true
	for len(t.queue) > 0 && t.queue[0].trigger <= p {
		b := heap.Pop(&t.queue).(*winBucket[E])
		delete(t.buckets, b.span)
		t.sizeHint = b.n
		if t.last == b {
			t.last = nil
		}
		err := b.each(func(_ int, e *winEntry[E]) error {
			if err := fire(b.span, e); err != nil {
				return err
			}
			if e.persisted {
				if err := t.kv.Delete(t.ns, t.name, t.kvKey(b.span, e)); err != nil {
					return fmt.Errorf("window state: %w", err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// flush writes the changed entries and the progress into the KV.
func (t *winTable[E]) flush() error {
	for _, b := range t.buckets {
		err := b.each(func(i int, e *winEntry[E]) error {
			if !e.dirty {
				return nil
			}
			e.dirty = false
			t.buf = binary.AppendUvarint(t.buf[:0], uint64(i))
			t.buf = t.encode(t.buf, &e.v)
			if err := t.kv.Put(t.ns, t.name, t.kvKey(b.span, e), t.buf); err != nil {
				return fmt.Errorf("window state: %w", err)
			}
			e.persisted = true
			return nil
		})
		if err != nil {
			return err
		}
	}
	var err error
	t.buf, err = t.flushMeta(t.kv, t.ns, t.buf)
	return err
}

// winQueue orders open windows by (trigger, start, end).
type winQueue[E any] []*winBucket[E]

func (q winQueue[E]) Len() int { return len(q) }
func (q winQueue[E]) Less(i, j int) bool {
	a, b := q[i], q[j]
	if a.trigger != b.trigger {
		return a.trigger < b.trigger
	}
	if a.span.start != b.span.start {
		return a.span.start < b.span.start
	}
	return a.span.end < b.span.end
}
func (q winQueue[E]) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *winQueue[E]) Push(x any)   { *q = append(*q, x.(*winBucket[E])) }
func (q *winQueue[E]) Pop() any {
	old := *q
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return x
}

// winArena hands out the value slices of emitted rows, carved from chunks;
// a slice once handed out is never reused (consumers may keep rows).
type winArena struct{ chunk []types.Value }

// winArenaChunk is the number of values of one arena chunk.
const winArenaChunk = 1024

// take returns a fresh empty slice with capacity n.
func (a *winArena) take(n int) []types.Value {
	if len(a.chunk) < n {
		a.chunk = make([]types.Value, max(n, winArenaChunk))
	}
	v := a.chunk[:0:n]
	a.chunk = a.chunk[n:]
	return v
}

// appendWindowColumns appends window_start, window_end and window_time of
// span to dst.
func appendWindowColumns(dst []types.Value, span winSpan, zone winZone) []types.Value {
	return append(dst, types.NewTimestamp(span.start*1e6), types.NewTimestamp(span.end*1e6),
		types.NewTimestamp(zone.windowTime(span.end)))
}
