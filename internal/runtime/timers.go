package runtime

import (
	"container/heap"

	"github.com/eddy-sql/eddy/types"
)

// timerEntry is one pending timer. Unnamed timers have name "" and
// unnamed=true; processing-time timers have proc=true (they live in a
// queue of their own, so it does not take part in the order).
type timerEntry struct {
	t       int64
	key     string
	vals    []types.Value // the key's values, for ordering
	name    string
	unnamed bool
	proc    bool
}

// less orders timers by (time, key, name), the firing order Eddy
// guarantees: keys compare by value (types.Compare, column by column), an
// unnamed timer sorts before named ones at the same time and key.
func (a timerEntry) less(b timerEntry) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.key != b.key {
		for i := 0; i < len(a.vals) && i < len(b.vals); i++ {
			if c := types.Compare(a.vals[i], b.vals[i]); c != 0 {
				return c < 0
			}
		}
		return a.key < b.key
	}
	if a.unnamed != b.unnamed {
		return a.unnamed
	}
	return a.name < b.name
}

type timerHeap []timerEntry

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].less(h[j]) }
func (h timerHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)        { *h = append(*h, x.(timerEntry)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// timerQueue holds the timers of one domain of an operator instance
// (event time or processing time, see ptfOp). Named timers are
// unique per (key, name); unnamed ones per (key, time). Deleted timers stay
// in the heap and are skipped when popped (lazy deletion).
type timerQueue struct {
	named   map[string]map[string]int64
	unnamed map[string]map[int64]struct{}
	h       timerHeap
	proc    bool // the queue's entries are processing-time timers
}

func newTimerQueue(proc bool) *timerQueue {
	return &timerQueue{named: map[string]map[string]int64{}, unnamed: map[string]map[int64]struct{}{}, proc: proc}
}

func (q *timerQueue) register(key string, vals []types.Value, name string, t int64) {
	if name == "" {
		m := q.unnamed[key]
		if m == nil {
			m = map[int64]struct{}{}
			q.unnamed[key] = m
		}
		if _, ok := m[t]; ok {
			return
		}
		m[t] = struct{}{}
		heap.Push(&q.h, timerEntry{t: t, key: key, vals: vals, unnamed: true, proc: q.proc})
		return
	}
	m := q.named[key]
	if m == nil {
		m = map[string]int64{}
		q.named[key] = m
	}
	if old, ok := m[name]; ok && old == t {
		return
	}
	m[name] = t
	heap.Push(&q.h, timerEntry{t: t, key: key, vals: vals, name: name, proc: q.proc})
}

func (q *timerQueue) clearNamed(key, name string) {
	if m := q.named[key]; m != nil {
		delete(m, name) // the empty map stays for the next registration
	}
}

func (q *timerQueue) clearUnnamed(key string, t int64) {
	if m := q.unnamed[key]; m != nil {
		delete(m, t)
		if len(m) == 0 {
			delete(q.unnamed, key)
		}
	}
}

// clearKey deletes every timer of key and reports whether it had any.
func (q *timerQueue) clearKey(key string) bool {
	had := len(q.named[key]) > 0 || len(q.unnamed[key]) > 0
	delete(q.named, key)
	delete(q.unnamed, key)
	return had
}

func (q *timerQueue) live(e timerEntry) bool {
	if e.unnamed {
		_, ok := q.unnamed[e.key][e.t]
		return ok
	}
	t, ok := q.named[e.key][e.name]
	return ok && t == e.t
}

// empty reports whether the queue holds no timer. Deleted timers still
// count until they are due, so it may say false for a queue whose timers
// were all cleared.
func (q *timerQueue) empty() bool { return len(q.h) == 0 }

// popDue removes and returns the next live timer with time <= wm.
func (q *timerQueue) popDue(wm int64) (timerEntry, bool) {
	for len(q.h) > 0 && q.h[0].t <= wm {
		e := heap.Pop(&q.h).(timerEntry)
		if !q.live(e) {
			continue
		}
		if e.unnamed {
			q.clearUnnamed(e.key, e.t)
		} else {
			q.clearNamed(e.key, e.name)
		}
		return e, true
	}
	return timerEntry{}, false
}

// pending lists the live timers of a key in firing order.
func (q *timerQueue) pending(key string) []timerEntry {
	var out []timerEntry
	for t := range q.unnamed[key] {
		out = append(out, timerEntry{t: t, key: key, unnamed: true, proc: q.proc})
	}
	for n, t := range q.named[key] {
		out = append(out, timerEntry{t: t, key: key, name: n, proc: q.proc})
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].less(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
