package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Memory is an in-memory Backend for tests and the PTF test harness. It
// uses the same key layout and logic as Pebble, over an ordered in-memory
// map, so both behave identically. Snapshot and Restore copy all of it.
type Memory struct {
	engine
	m *memKV
}

// NewMemory returns an empty in-memory backend.
func NewMemory() *Memory {
	m := newMemKV()
	return &Memory{engine: engine{kv: m}, m: m}
}

// Len returns the number of stored key-value pairs (state entries, list
// metadata and timer index entries included).
func (m *Memory) Len() int { return m.m.n }

const snapshotVersion = 1

// Snapshot returns an encoding of all state and timers of every namespace.
func (m *Memory) Snapshot() []byte {
	out := []byte{snapshotVersion}
	for n := m.m.head.next[0]; n != nil; n = n.next[0] {
		out = binary.AppendUvarint(out, uint64(len(n.key)))
		out = append(out, n.key...)
		out = binary.AppendUvarint(out, uint64(len(n.value)))
		out = append(out, n.value...)
	}
	return out
}

// Restore replaces all contents with a Snapshot. On error the contents are
// unchanged.
func (m *Memory) Restore(snapshot []byte) error {
	if len(snapshot) == 0 || snapshot[0] != snapshotVersion {
		return errors.New("state: restoring: not a memory snapshot")
	}
	fresh := newMemKV()
	fresh.gen = m.m.gen + 1
	b := snapshot[1:]
	for len(b) > 0 {
		var kv [2][]byte
		for i := range kv {
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return errors.New("state: restoring: truncated snapshot")
			}
			kv[i], b = b[n:n+int(l)], b[n+int(l):]
		}
		if err := fresh.set(kv[0], kv[1]); err != nil {
			return fmt.Errorf("state: restoring: %w", err)
		}
	}
	m.m = fresh
	m.kv = fresh
	return nil
}

// memKV is an ordered map: a skiplist for order, plus a hash index for
// point operations. Stored slices are never modified in place (set stores a
// new copy), so scans can hand them out safely.
type memKV struct {
	gen   uint64 // incremented by Restore
	index map[string]*memNode
	head  memNode
	level int
	n     int
	rnd   uint64
	prev  [memMaxLevel]*memNode
}

const memMaxLevel = 24

type memNode struct {
	key, value []byte
	next       []*memNode
}

func newMemKV() *memKV {
	return &memKV{
		index: make(map[string]*memNode),
		head:  memNode{next: make([]*memNode, memMaxLevel)},
		level: 1, rnd: 0x9E3779B97F4A7C15,
	}
}

// seek returns the first node with key >= k and fills m.prev with the last
// node before it on every level.
func (m *memKV) seek(k []byte) *memNode {
	x := &m.head
	for l := m.level - 1; l >= 0; l-- {
		for x.next[l] != nil && bytes.Compare(x.next[l].key, k) < 0 {
			x = x.next[l]
		}
		m.prev[l] = x
	}
	return x.next[0]
}

// randomLevel draws a level with probability 1/4 per extra level from a
// deterministic xorshift generator.
func (m *memKV) randomLevel() int {
	l := 1
	for l < memMaxLevel {
		m.rnd ^= m.rnd << 13
		m.rnd ^= m.rnd >> 7
		m.rnd ^= m.rnd << 17
		if m.rnd&3 != 0 {
			break
		}
		l++
	}
	return l
}

func (m *memKV) generation() uint64 { return m.gen }

func (m *memKV) appendGet(dst, key []byte) ([]byte, bool, error) {
	n, ok := m.index[string(key)]
	if !ok {
		return dst, false, nil
	}
	return append(dst, n.value...), true, nil
}

func (m *memKV) set(key, value []byte) error {
	v := append(make([]byte, 0, len(value)), value...)
	if n, ok := m.index[string(key)]; ok {
		n.value = v
		return nil
	}
	m.seek(key)
	l := m.randomLevel()
	for m.level < l {
		m.prev[m.level] = &m.head
		m.level++
	}
	n := &memNode{key: append([]byte{}, key...), value: v, next: make([]*memNode, l)}
	for i := range l {
		n.next[i] = m.prev[i].next[i]
		m.prev[i].next[i] = n
	}
	m.index[string(n.key)] = n
	m.n++
	return nil
}

func (m *memKV) del(key []byte) error {
	if _, ok := m.index[string(key)]; !ok {
		return nil
	}
	n := m.seek(key)
	delete(m.index, string(key))
	for i := range n.next {
		m.prev[i].next[i] = n.next[i]
	}
	for m.level > 1 && m.head.next[m.level-1] == nil {
		m.level--
	}
	m.n--
	return nil
}

func (m *memKV) delRange(lo, hi []byte) error {
	var keys [][]byte
	_ = m.scan(lo, hi, 0, func(k, _ []byte) error {
		keys = append(keys, k)
		return nil
	})
	for _, k := range keys {
		_ = m.del(k)
	}
	return nil
}

// scan collects the range first (at most limit nodes when limit > 0), so fn
// sees the contents at the start and may modify the map.
func (m *memKV) scan(lo, hi []byte, limit int, fn func(k, v []byte) error) error {
	var nodes []*memNode
	for n := m.seek(lo); n != nil && (hi == nil || bytes.Compare(n.key, hi) < 0); n = n.next[0] {
		if limit > 0 && len(nodes) == limit {
			break
		}
		nodes = append(nodes, n)
	}
	for _, n := range nodes {
		if err := fn(n.key, n.value); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}
