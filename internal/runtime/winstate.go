package runtime

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
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
// State: every entry is a value state (name, key: be64(end) be64(start)
// encoded key values), written at Flush when it changed and deleted when
// its window fires; the progress (watermark or processing time the windows
// fired up to) and the entry counter are one more value ("meta"). The
// state of open windows stays in memory: it is read back whole when an
// operator is built over a flushed state (restore).
type winTable[E any] struct {
	ns, name string
	kv       KV
	zone     winZone
	entries  map[string]*winEntry[E]
	buckets  map[winSpan]*winBucket[E]
	queue    winQueue[E]
	winMeta
	dirty   []*winEntry[E]
	encode  func(dst []byte, v *E) []byte
	decode  func(b []byte, v *E) error
	id, buf []byte
}

// winEntry is the state of one key in one window.
type winEntry[E any] struct {
	id      string
	span    winSpan
	seq     uint64
	keyVals []types.Value
	dirty   bool
	// persisted entries are in the KV (flushed or restored).
	persisted bool
	// done entries were fired: they are no longer in the table.
	done bool
	v    E
}

// winBucket is one open window and its entries in creation order.
type winBucket[E any] struct {
	span    winSpan
	trigger int64
	entries []*winEntry[E]
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
		entries: map[string]*winEntry[E]{}, buckets: map[winSpan]*winBucket[E]{}, encode: encode, decode: decode}
	if err := t.restore(); err != nil {
		return nil, fmt.Errorf("restoring window state: %w", err)
	}
	return t, nil
}

func (t *winTable[E]) restore() error {
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
			span := winSpan{end: int64(binary.BigEndian.Uint64(en.Key)), start: int64(binary.BigEndian.Uint64(en.Key[8:]))}
			key, err := types.DecodeRow(en.Key[16:])
			if err != nil {
				return err
			}
			seq, n := binary.Uvarint(en.Value)
			if n <= 0 {
				return errors.New("malformed window entry")
			}
			e := &winEntry[E]{id: string(en.Key), span: span, seq: seq, keyVals: key.Values, persisted: true}
			if err := t.decode(en.Value[n:], &e.v); err != nil {
				return err
			}
			t.entries[e.id] = e
			b := t.bucket(span)
			b.entries = append(b.entries, e)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, b := range t.buckets {
		slices.SortFunc(b.entries, func(x, y *winEntry[E]) int { return cmpUint(x.seq, y.seq) })
	}
	return nil
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fired reports whether the window span has fired.
func (t *winTable[E]) fired(span winSpan) bool {
	return t.zone.triggerNanos(span.end) <= t.progress
}

// bucket returns the open window span, adding it if new.
func (t *winTable[E]) bucket(span winSpan) *winBucket[E] {
	b := t.buckets[span]
	if b == nil {
		b = &winBucket[E]{span: span, trigger: t.zone.triggerNanos(span.end)}
		t.buckets[span] = b
		heap.Push(&t.queue, b)
	}
	return b
}

// entry returns the entry of keyVals in window span, creating it (zero
// E) if it does not exist; created reports that. The caller must not
// have checked fired: entry does not.
func (t *winTable[E]) entry(span winSpan, keyVals []types.Value) (e *winEntry[E], created bool) {
	t.id = binary.BigEndian.AppendUint64(t.id[:0], uint64(span.end))
	t.id = binary.BigEndian.AppendUint64(t.id, uint64(span.start))
	t.id = types.AppendRow(t.id, types.Row{Values: keyVals})
	if e := t.entries[string(t.id)]; e != nil {
		return e, false
	}
	e = &winEntry[E]{id: string(t.id), span: span, seq: t.nextSeq(), keyVals: slices.Clone(keyVals)}
	t.entries[e.id] = e
	b := t.bucket(span)
	b.entries = append(b.entries, e)
	return e, true
}

// touch marks e to be written at the next flush.
func (t *winTable[E]) touch(e *winEntry[E]) {
	if !e.dirty {
		e.dirty = true
		t.dirty = append(t.dirty, e)
	}
}

// advance moves the progress to p and fires, in order, every entry of
// the windows that became due; fired entries leave the table.
func (t *winTable[E]) advance(p int64, fire func(e *winEntry[E]) error) error {
	if p <= t.progress {
		return nil
	}
	t.progress = p
	t.metaDirty = true
	for len(t.queue) > 0 && t.queue[0].trigger <= p {
		b := heap.Pop(&t.queue).(*winBucket[E])
		delete(t.buckets, b.span)
		for _, e := range b.entries {
			if err := fire(e); err != nil {
				return err
			}
			e.done = true
			delete(t.entries, e.id)
			if e.persisted {
				if err := t.kv.Delete(t.ns, t.name, []byte(e.id)); err != nil {
					return fmt.Errorf("window state: %w", err)
				}
			}
		}
	}
	return nil
}

// nextTrigger returns the trigger time of the next window to fire.
func (t *winTable[E]) nextTrigger() (int64, bool) {
	if len(t.queue) == 0 {
		return 0, false
	}
	return t.queue[0].trigger, true
}

// flush writes the changed entries and the progress into the KV.
func (t *winTable[E]) flush() error {
	for _, e := range t.dirty {
		e.dirty = false
		if e.done {
			continue
		}
		t.buf = binary.AppendUvarint(t.buf[:0], e.seq)
		t.buf = t.encode(t.buf, &e.v)
		if err := t.kv.Put(t.ns, t.name, []byte(e.id), t.buf); err != nil {
			return fmt.Errorf("window state: %w", err)
		}
		e.persisted = true
	}
	clear(t.dirty)
	t.dirty = t.dirty[:0]
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
