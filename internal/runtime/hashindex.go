package runtime

// hashIndex maps 64-bit hashes to pointers: an open-addressing table with
// linear probing whose slots hold the hash beside the pointer. A lookup
// usually reads one cache line of the table; a Go map reads its control
// word and then its slot, often two lines, and with 100k groups either
// line is a cache miss (the aggregate's group lookup was the largest cost
// of a GROUP BY). A nil pointer marks an empty slot; deletion shifts the
// following entries back, so there are no tombstones.
type hashIndex[T any] struct {
	slots []hashSlot[T]
	n     int
	mask  uint64
}

type hashSlot[T any] struct {
	h uint64
	p *T
}

// hashIndexMin is the number of slots of a new table.
const hashIndexMin = 64

// len returns the number of entries.
func (x *hashIndex[T]) len() int { return x.n }

// get returns the pointer of hash h, nil if there is none.
func (x *hashIndex[T]) get(h uint64) *T {
	if x.n == 0 {
		return nil
	}
	for i := h & x.mask; ; i = (i + 1) & x.mask {
		s := &x.slots[i]
		if s.p == nil {
			return nil
		}
		if s.h == h {
			return s.p
		}
	}
}

// touch reads the home slot of hash h, for a caller that wants it in the
// CPU cache before the lookup (see warmer).
func (x *hashIndex[T]) touch(h uint64) uint64 {
	return x.slots[h&x.mask].h
}

// set makes p (not nil) the pointer of hash h.
func (x *hashIndex[T]) set(h uint64, p *T) {
	if (x.n+1)*8 > len(x.slots)*5 { // load at most 5/8
		x.resize(max(hashIndexMin, 2*len(x.slots)))
	}
	for i := h & x.mask; ; i = (i + 1) & x.mask {
		s := &x.slots[i]
		if s.p == nil {
			s.h, s.p = h, p
			x.n++
			return
		}
		if s.h == h {
			s.p = p
			return
		}
	}
}

// del removes hash h.
func (x *hashIndex[T]) del(h uint64) {
	if x.n == 0 {
		return
	}
	i := h & x.mask
	for {
		s := &x.slots[i]
		if s.p == nil {
			return
		}
		if s.h == h {
			break
		}
		i = (i + 1) & x.mask
	}
	// Shift back every following entry of the run that may move to the
	// hole: one whose home slot is not cyclically in (hole, j].
	for j := (i + 1) & x.mask; x.slots[j].p != nil; j = (j + 1) & x.mask {
		k := x.slots[j].h & x.mask
		if i <= j {
			if i < k && k <= j {
				continue
			}
		} else if i < k || k <= j {
			continue
		}
		x.slots[i] = x.slots[j]
		i = j
	}
	x.slots[i] = hashSlot[T]{}
	x.n--
}

// retain keeps the entries for which keep returns true.
func (x *hashIndex[T]) retain(keep func(h uint64, p *T) bool) {
	old := x.slots
	x.slots, x.n = make([]hashSlot[T], len(old)), 0
	for _, s := range old {
		if s.p != nil && keep(s.h, s.p) {
			x.set(s.h, s.p)
		}
	}
}

func (x *hashIndex[T]) resize(n int) {
	old := x.slots
	x.slots, x.n, x.mask = make([]hashSlot[T], n), 0, uint64(n-1)
	for _, s := range old {
		if s.p != nil {
			x.set(s.h, s.p)
		}
	}
}
