package runtime

import (
	"encoding/binary"
	"fmt"

	"github.com/eddy-sql/eddy/types"
)

// dueIndex records, for the keys of an event-time operator that have work
// pending (buffered rows, rows to expire), the time at which it is due,
// and hands the keys out in (time, key) order as the watermark passes
// them, the order timers fire in. It is checkpointed as one map state
// (name, under an empty key) of encoded key -> time, written at flush for
// the keys that changed, so that an operator restores its pending work
// without scanning its whole state.
type dueIndex struct {
	ns, name string
	kv       KV
	due      map[string]dueEntry
	n        int // keys due
	// h holds (time, key) entries; an entry is live while due[key] is live
	// at its time (lazy deletion).
	h dueHeap
	// changed lists the keys whose due time changed since the last flush
	// (each once: their entry is marked changed).
	changed []string
	buf     []byte
}

// dueEntry is the due time of a key; a key no longer due stays, not live,
// until the flush that deletes it from the KV.
type dueEntry struct {
	t             int64
	live, changed bool
}

// dueKey is the state key the index is stored under.
var dueKey = []byte{}

func newDueIndex(oc OpContext, name string) *dueIndex {
	return &dueIndex{ns: oc.NS, name: name, kv: oc.KV, due: map[string]dueEntry{}}
}

// restore loads the index from the KV.
func (d *dueIndex) restore() error {
	return d.kv.MapRange(d.ns, d.name, dueKey, func(k, v []byte) error {
		t, n := binary.Varint(v)
		if n <= 0 {
			return fmt.Errorf("decoding due index: malformed time")
		}
		r, err := types.DecodeRow(k)
		if err != nil {
			return fmt.Errorf("decoding due index: %w", err)
		}
		key := string(k)
		d.due[key] = dueEntry{t: t, live: true}
		d.n++
		d.h.push(dueItem{t: t, key: key, vals: r.Values})
		return nil
	})
}

// set makes key due at t (replacing an earlier due time); vals are the
// key's values (kept: the caller must not change them).
func (d *dueIndex) set(key string, vals []types.Value, t int64) {
	e := d.due[key]
	if e.live && e.t == t {
		return
	}
	if !e.live {
		d.n++
	}
	d.mark(key, &e)
	e.t, e.live = t, true
	d.due[key] = e
	d.h.push(dueItem{t: t, key: key, vals: vals})
}

// mark lists key among the changed ones, once.
func (d *dueIndex) mark(key string, e *dueEntry) {
	if !e.changed {
		e.changed = true
		d.changed = append(d.changed, key)
	}
}

// at returns the due time of key.
func (d *dueIndex) at(key string) (int64, bool) {
	e := d.due[key]
	return e.t, e.live
}

// clear removes key from the index.
func (d *dueIndex) clear(key string) {
	if e, ok := d.due[key]; ok && e.live {
		d.mark(key, &e)
		e.live = false
		d.due[key] = e
		d.n--
	}
}

// pop removes and returns the next key due at or before wm, with its
// values. The caller processes it and sets it again if work remains.
func (d *dueIndex) pop(wm int64) (string, []types.Value, bool) {
	for len(d.h) > 0 && d.h[0].t <= wm {
		he := d.h.pop()
		e := d.due[he.key]
		if !e.live || e.t != he.t {
			continue // stale
		}
		d.mark(he.key, &e)
		e.live = false
		d.due[he.key] = e
		d.n--
		return he.key, he.vals, true
	}
	return "", nil, false
}

// len returns the number of due keys.
func (d *dueIndex) len() int { return d.n }

// flush writes the changed keys' due times.
func (d *dueIndex) flush() error {
	for _, key := range d.changed {
		e := d.due[key]
		var err error
		if e.live {
			e.changed = false
			d.due[key] = e
			d.buf = binary.AppendVarint(d.buf[:0], e.t)
			err = d.kv.MapPut(d.ns, d.name, dueKey, []byte(key), d.buf)
		} else {
			delete(d.due, key)
			err = d.kv.MapDelete(d.ns, d.name, dueKey, []byte(key))
		}
		if err != nil {
			return fmt.Errorf("writing due index: %w", err)
		}
	}
	clear(d.changed)
	d.changed = d.changed[:0]
	if len(d.h) > 2*d.n+64 { // mostly stale entries: rebuild
		h := d.h[:0]
		for _, he := range d.h {
			if e := d.due[he.key]; e.live && e.t == he.t {
				h = append(h, he)
			}
		}
		d.h = h
		for i := len(h)/2 - 1; i >= 0; i-- {
			d.h.down(i)
		}
	}
	return nil
}

// wmStateName is the value state (under dueKey) holding an operator's
// input watermarks, so that a restored operator judges lateness as the
// uninterrupted run would.
const wmStateName = "wm"

// loadWatermarks returns the input watermarks of an operator with ports
// inputs, as saved by saveWatermarks (MinWatermark when none were).
func loadWatermarks(oc OpContext, ports int) (minWatermark, error) {
	m := newMinWatermark(ports)
	b, ok, err := oc.KV.Get(oc.NS, wmStateName, dueKey)
	if err != nil || !ok {
		return m, err
	}
	r := accReader{b: b}
	for i := range m.ports {
		m.ports[i] = r.varint()
	}
	if err := r.done("watermarks"); err != nil {
		return m, err
	}
	m.cur = m.ports[0]
	for _, w := range m.ports[1:] {
		m.cur = min(m.cur, w)
	}
	return m, nil
}

// saveWatermarks writes the input watermarks of m.
func saveWatermarks(oc OpContext, m *minWatermark, buf []byte) ([]byte, error) {
	if m.cur == MinWatermark && m.ports[0] == MinWatermark && len(m.ports) == 1 {
		return buf, nil // nothing seen yet
	}
	buf = buf[:0]
	for _, w := range m.ports {
		buf = binary.AppendVarint(buf, w)
	}
	return buf, oc.KV.Put(oc.NS, wmStateName, dueKey, buf)
}

// dueItem is an entry of a dueHeap.
type dueItem struct {
	t    int64
	key  string
	vals []types.Value
}

// less orders due items as timers fire: by time, then key values column by
// column, then encoded key.
func (a *dueItem) less(b *dueItem) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	for i := 0; i < len(a.vals) && i < len(b.vals); i++ {
		if c := types.Compare(a.vals[i], b.vals[i]); c != 0 {
			return c < 0
		}
	}
	return a.key < b.key
}

// dueHeap is a binary min-heap of due items (container/heap without the
// interface boxing of every push).
type dueHeap []dueItem

func (h *dueHeap) push(x dueItem) {
	*h = append(*h, x)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].less(&s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *dueHeap) pop() dueItem {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = dueItem{}
	*h = s[:n]
	h.down(0)
	return top
}

func (h dueHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r].less(&h[l]) {
			m = r
		}
		if !h[m].less(&h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
