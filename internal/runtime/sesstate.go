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

// sessTable is the keyed state of a session window operator: per key its
// open sessions, sorted by start and disjoint, each with state E, and the
// sessions in firing order.
//
// A row at local time ts opens the window [ts, ts + gap); it merges with
// every open session of its key it intersects (Flink's TimeWindow.intersects:
// touching windows merge too), into one session covering them all, whose
// state is the earliest session's with the others' merged into it in
// start order. A row whose window fired already and merges with no open
// session is late.
//
// Sessions fire in the order of their trigger time, then of their first
// row's arrival (persisted: deterministic across restores).
//
// State: per key one value state (name, key: the encoded key values)
// holding its sessions, written at Flush when they changed, deleted when
// the last one fired; plus the progress and counter ("meta"), as
// winTable. Open sessions stay in memory and are read back whole on
// restore.
type sessTable[E any] struct {
	ns, name string
	kv       KV
	zone     winZone
	gap      int64
	keys     map[string]*sessKey[E]
	queue    sessQueue[E]
	winMeta
	dirty  []*sessKey[E]
	encode func(dst []byte, v *E) []byte
	decode func(b []byte, v *E) error
	// merge merges src's state into dst's.
	merge        func(dst, src *E) error
	id, buf, enc []byte
}

// sessKey is the state of one key: its open sessions by start.
type sessKey[E any] struct {
	id        string
	keyVals   []types.Value
	wins      []*sessWin[E]
	dirty     bool
	persisted bool
}

// sessWin is one open session.
type sessWin[E any] struct {
	span winSpan
	seq  uint64
	v    E
}

func newSessTable[E any](ns, name string, kv KV, zone winZone, gap int64, inputs *minWatermark, encode func([]byte, *E) []byte, decode func([]byte, *E) error, merge func(dst, src *E) error) (*sessTable[E], error) {
	t := &sessTable[E]{ns: ns, name: name, kv: kv, zone: zone, gap: gap, winMeta: winMeta{progress: MinWatermark, inputs: inputs},
		keys: map[string]*sessKey[E]{}, encode: encode, decode: decode, merge: merge}
	if err := t.restore(); err != nil {
		return nil, fmt.Errorf("restoring session state: %w", err)
	}
	return t, nil
}

func (t *sessTable[E]) restore() error {
	return t.kv.ScanNamespace(t.ns, func(en state.Entry) error {
		if en.Kind != state.KindValue {
			return nil
		}
		switch en.Name {
		case winMetaName:
			return t.decodeMeta(en.Value)
		case t.name:
			key, err := types.DecodeRow(en.Key)
			if err != nil {
				return err
			}
			k := &sessKey[E]{id: string(en.Key), keyVals: key.Values, persisted: true}
			b := en.Value
			count, n := binary.Uvarint(b)
			if n <= 0 {
				return errors.New("malformed sessions")
			}
			b = b[n:]
			for range count {
				w := &sessWin[E]{}
				var n1, n2, n3, n4 int
				w.span.start, n1 = binary.Varint(b)
				if n1 > 0 {
					w.span.end, n2 = binary.Varint(b[n1:])
				}
				if n2 > 0 {
					w.seq, n3 = binary.Uvarint(b[n1+n2:])
				}
				var size uint64
				if n3 > 0 {
					size, n4 = binary.Uvarint(b[n1+n2+n3:])
				}
				if n1 <= 0 || n2 <= 0 || n3 <= 0 || n4 <= 0 || uint64(len(b)-n1-n2-n3-n4) < size {
					return errors.New("malformed session")
				}
				b = b[n1+n2+n3+n4:]
				if err := t.decode(b[:size], &w.v); err != nil {
					return err
				}
				b = b[size:]
				k.wins = append(k.wins, w)
				t.push(k, w)
			}
			t.keys[k.id] = k
		}
		return nil
	})
}

// fired reports whether a window ending at local time end has fired.
func (t *sessTable[E]) fired(end int64) bool { return t.zone.triggerNanos(end) <= t.progress }

func (t *sessTable[E]) push(k *sessKey[E], w *sessWin[E]) {
	heap.Push(&t.queue, sessItem[E]{trigger: t.zone.triggerNanos(w.span.end), seq: w.seq, key: k, span: w.span})
}

func (t *sessTable[E]) touch(k *sessKey[E]) {
	if !k.dirty {
		k.dirty = true
		t.dirty = append(t.dirty, k)
	}
}

// add assigns a row of keyVals at local time ts to its session, merging
// sessions as needed, and returns it; nil when the row is late.
func (t *sessTable[E]) add(keyVals []types.Value, ts int64) (*sessKey[E], *sessWin[E], error) {
	t.id = types.AppendRow(t.id[:0], types.Row{Values: keyVals})
	k := t.keys[string(t.id)]
	w := winSpan{ts, ts + t.gap}
	first, last := -1, -1
	if k != nil {
		for i, s := range k.wins {
			if s.span.start <= w.end && s.span.end >= w.start {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
	}
	if first < 0 && t.fired(w.end) {
		return nil, nil, nil
	}
	if k == nil {
		k = &sessKey[E]{id: string(t.id), keyVals: slices.Clone(keyVals)}
		t.keys[k.id] = k
	}
	t.touch(k)
	if first < 0 {
		s := &sessWin[E]{span: w, seq: t.nextSeq()}
		i, _ := slices.BinarySearchFunc(k.wins, w.start, func(x *sessWin[E], start int64) int { return cmpInt(x.span.start, start) })
		k.wins = slices.Insert(k.wins, i, s)
		t.push(k, s)
		return k, s, nil
	}
	target := k.wins[first]
	span := winSpan{min(w.start, target.span.start), max(w.end, k.wins[last].span.end)}
	for _, s := range k.wins[first+1 : last+1] {
		if err := t.merge(&target.v, &s.v); err != nil {
			return nil, nil, err
		}
		target.seq = min(target.seq, s.seq)
	}
	k.wins = slices.Delete(k.wins, first+1, last+1)
	if span != target.span {
		target.span = span
		t.push(k, target) // the earlier timers are stale now
	} else if last > first {
		t.push(k, target) // its seq may be smaller now
	}
	return k, target, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// advance moves the progress to p and fires, in order, the sessions that
// became due; fired sessions leave the table.
func (t *sessTable[E]) advance(p int64, fire func(k *sessKey[E], w *sessWin[E]) error) error {
	if p <= t.progress {
		return nil
	}
	t.progress = p
	t.metaDirty = true
	for len(t.queue) > 0 && t.queue[0].trigger <= p {
		it := heap.Pop(&t.queue).(sessItem[E])
		k := it.key
		i := slices.IndexFunc(k.wins, func(w *sessWin[E]) bool { return w.span == it.span })
		if i < 0 || k.wins[i].seq != it.seq {
			continue // merged away since: a stale timer
		}
		if err := fire(k, k.wins[i]); err != nil {
			return err
		}
		k.wins = slices.Delete(k.wins, i, i+1)
		t.touch(k)
		if len(k.wins) == 0 {
			delete(t.keys, k.id)
		}
	}
	return nil
}

// flush writes the changed keys and the progress into the KV.
func (t *sessTable[E]) flush() error {
	for _, k := range t.dirty {
		k.dirty = false
		if len(k.wins) == 0 {
			if k.persisted {
				if err := t.kv.Delete(t.ns, t.name, []byte(k.id)); err != nil {
					return fmt.Errorf("session state: %w", err)
				}
				k.persisted = false
			}
			continue
		}
		t.buf = binary.AppendUvarint(t.buf[:0], uint64(len(k.wins)))
		for _, w := range k.wins {
			t.buf = binary.AppendVarint(t.buf, w.span.start)
			t.buf = binary.AppendVarint(t.buf, w.span.end)
			t.buf = binary.AppendUvarint(t.buf, w.seq)
			t.enc = t.encode(t.enc[:0], &w.v)
			t.buf = binary.AppendUvarint(t.buf, uint64(len(t.enc)))
			t.buf = append(t.buf, t.enc...)
		}
		if err := t.kv.Put(t.ns, t.name, []byte(k.id), t.buf); err != nil {
			return fmt.Errorf("session state: %w", err)
		}
		k.persisted = true
	}
	clear(t.dirty)
	t.dirty = t.dirty[:0]
	var err error
	t.buf, err = t.flushMeta(t.kv, t.ns, t.buf)
	return err
}

// sessItem is a pending session timer; it is stale when its key has no
// session of that span and seq any more.
type sessItem[E any] struct {
	trigger int64
	seq     uint64
	key     *sessKey[E]
	span    winSpan
}

// sessQueue orders session timers by (trigger, seq).
type sessQueue[E any] []sessItem[E]

func (q sessQueue[E]) Len() int { return len(q) }
func (q sessQueue[E]) Less(i, j int) bool {
	if q[i].trigger != q[j].trigger {
		return q[i].trigger < q[j].trigger
	}
	return q[i].seq < q[j].seq
}
func (q sessQueue[E]) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *sessQueue[E]) Push(x any)   { *q = append(*q, x.(sessItem[E])) }
func (q *sessQueue[E]) Pop() any {
	old := *q
	x := old[len(old)-1]
	old[len(old)-1] = sessItem[E]{}
	*q = old[:len(old)-1]
	return x
}
