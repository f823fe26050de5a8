package runtime

import (
	"container/heap"
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
	due      map[string]int64
	// h holds (time, key) entries; an entry is live while due[key] is its
	// time (lazy deletion).
	h timerHeap
	// changed lists the keys whose due time changed since the last flush.
	changed map[string]struct{}
	buf     []byte
}

// dueKey is the state key the index is stored under.
var dueKey = []byte{}

func newDueIndex(oc OpContext, name string) *dueIndex {
	return &dueIndex{ns: oc.NS, name: name, kv: oc.KV, due: map[string]int64{}, changed: map[string]struct{}{}}
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
		d.due[key] = t
		heap.Push(&d.h, timerEntry{t: t, key: key, vals: r.Values, unnamed: true})
		return nil
	})
}

// set makes key due at t (replacing an earlier due time); vals are the
// key's values (kept: the caller must not change them).
func (d *dueIndex) set(key string, vals []types.Value, t int64) {
	if old, ok := d.due[key]; ok && old == t {
		return
	}
	d.due[key] = t
	d.changed[key] = struct{}{}
	heap.Push(&d.h, timerEntry{t: t, key: key, vals: vals, unnamed: true})
}

// at returns the due time of key.
func (d *dueIndex) at(key string) (int64, bool) {
	t, ok := d.due[key]
	return t, ok
}

// clear removes key from the index.
func (d *dueIndex) clear(key string) {
	if _, ok := d.due[key]; ok {
		delete(d.due, key)
		d.changed[key] = struct{}{}
	}
}

// pop removes and returns the next key due at or before wm, with its
// values. The caller processes it and sets it again if work remains.
func (d *dueIndex) pop(wm int64) (string, []types.Value, bool) {
	for len(d.h) > 0 && d.h[0].t <= wm {
		e := heap.Pop(&d.h).(timerEntry)
		if t, ok := d.due[e.key]; !ok || t != e.t {
			continue // stale
		}
		delete(d.due, e.key)
		d.changed[e.key] = struct{}{}
		return e.key, e.vals, true
	}
	return "", nil, false
}

// len returns the number of due keys.
func (d *dueIndex) len() int { return len(d.due) }

// flush writes the changed keys' due times.
func (d *dueIndex) flush() error {
	for key := range d.changed {
		var err error
		if t, ok := d.due[key]; ok {
			d.buf = binary.AppendVarint(d.buf[:0], t)
			err = d.kv.MapPut(d.ns, d.name, dueKey, []byte(key), d.buf)
		} else {
			err = d.kv.MapDelete(d.ns, d.name, dueKey, []byte(key))
		}
		if err != nil {
			return fmt.Errorf("writing due index: %w", err)
		}
	}
	clear(d.changed)
	if len(d.h) > 2*len(d.due)+64 { // mostly stale entries: rebuild
		h := d.h[:0]
		for _, e := range d.h {
			if t, ok := d.due[e.key]; ok && t == e.t {
				h = append(h, e)
			}
		}
		d.h = h
		heap.Init(&d.h)
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
