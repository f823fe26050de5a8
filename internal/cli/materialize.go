package cli

import (
	"encoding/binary"
	"math"

	"github.com/eddy-sql/eddy/types"
)

// materializer applies a changelog to an in-memory table: the "table"
// result mode.
//
// With key columns it is an upsert table: +I and +U replace the row with the
// same key, -U and -D delete it. Without key columns it is a multiset: +I
// and +U add a row, -U and -D remove the most recently added equal row, as
// the Flink SQL client does. Retractions of absent rows are ignored.
//
// Rows keep the position where they were first inserted: a key that is
// updated (-U then +U, or just +U) stays in place, and in a multiset the +U
// that follows a -U takes the retracted row's place. Deleted rows leave
// tombstones that are compacted away when they outnumber the live rows.
//
// A materializer is not safe for concurrent use.
type materializer struct {
	key   []int // key column positions; empty: the whole row is the key
	slots []slot
	live  int
	// index maps an encoded key to its slots: exactly one with key
	// columns (live or a tombstone), the live equal rows oldest first
	// without.
	index map[string][]int
	// lastRetracted is the slot emptied by the latest -U in a multiset,
	// -1 if the latest change was not a -U.
	lastRetracted int
	buf           []byte
}

type slot struct {
	values []types.Value
	dead   bool
}

// compactMin is the number of tombstones below which no compaction happens.
const compactMin = 1024

func newMaterializer(key []int) *materializer {
	return &materializer{key: key, index: make(map[string][]int), lastRetracted: -1}
}

// Len returns the number of rows in the table.
func (m *materializer) Len() int { return m.live }

// Rows returns the table's rows in position order. The slices are shared
// with the materializer and must not be modified.
func (m *materializer) Rows() [][]types.Value {
	out := make([][]types.Value, 0, m.live)
	for _, s := range m.slots {
		if !s.dead {
			out = append(out, s.values)
		}
	}
	return out
}

// Apply applies one change.
func (m *materializer) Apply(r types.Row) {
	k := m.encodeKey(r.Values)
	if len(m.key) > 0 {
		m.upsert(k, r)
	} else {
		m.multiset(k, r)
	}
	if dead := len(m.slots) - m.live; dead >= compactMin && dead > m.live {
		m.compact()
	}
}

func (m *materializer) upsert(k string, r types.Row) {
	at, ok := m.index[k]
	switch {
	case r.Kind.IsRetraction():
		if ok && !m.slots[at[0]].dead {
			m.slots[at[0]] = slot{dead: true}
			m.live--
		}
	case ok:
		if m.slots[at[0]].dead {
			m.live++
		}
		m.slots[at[0]] = slot{values: r.Values}
	default:
		m.index[k] = []int{m.add(r.Values)}
	}
}

func (m *materializer) multiset(k string, r types.Row) {
	retracted := m.lastRetracted
	m.lastRetracted = -1
	if r.Kind.IsRetraction() {
		at := m.index[k]
		if len(at) == 0 {
			return
		}
		i := at[len(at)-1]
		if len(at) == 1 {
			delete(m.index, k)
		} else {
			m.index[k] = at[:len(at)-1]
		}
		m.slots[i] = slot{dead: true}
		m.live--
		if r.Kind == types.UpdateBefore {
			m.lastRetracted = i
		}
		return
	}
	i := retracted
	if r.Kind != types.UpdateAfter || i < 0 {
		i = m.add(r.Values)
	} else {
		m.slots[i] = slot{values: r.Values}
		m.live++
	}
	m.insertIndex(k, i)
}

// insertIndex adds slot i to k's list, which stays sorted by position so
// that a retraction removes the equal row that comes last.
func (m *materializer) insertIndex(k string, i int) {
	at := m.index[k]
	j := len(at)
	for j > 0 && at[j-1] > i {
		j--
	}
	at = append(at, 0)
	copy(at[j+1:], at[j:])
	at[j] = i
	m.index[k] = at
}

func (m *materializer) add(values []types.Value) int {
	m.slots = append(m.slots, slot{values: values})
	m.live++
	return len(m.slots) - 1
}

// compact drops tombstones and renumbers the index. Deleted keys lose their
// remembered position.
func (m *materializer) compact() {
	renumber := make([]int, len(m.slots))
	kept := m.slots[:0]
	for i, s := range m.slots {
		renumber[i] = -1
		if !s.dead {
			renumber[i] = len(kept)
			kept = append(kept, s)
		}
	}
	clear(m.slots[len(kept):])
	m.slots = kept
	for k, at := range m.index {
		out := at[:0]
		for _, i := range at {
			if renumber[i] >= 0 {
				out = append(out, renumber[i])
			}
		}
		if len(out) == 0 {
			delete(m.index, k)
		} else {
			m.index[k] = out
		}
	}
	m.lastRetracted = -1
}

// encodeKey returns an injective encoding of the key columns (of the whole
// row without key columns).
func (m *materializer) encodeKey(values []types.Value) string {
	b := m.buf[:0]
	if len(m.key) == 0 {
		for _, v := range values {
			b = appendKey(b, v)
		}
	} else {
		for _, i := range m.key {
			if i < len(values) {
				b = appendKey(b, values[i])
			} else {
				b = appendKey(b, types.Null)
			}
		}
	}
	m.buf = b
	return string(b)
}

// appendKey appends an encoding of v that is equal exactly for equal
// values (of the same column). types.KeyBytes is not used: it is made for
// hashing and partitioning, and lets NULL and the empty string (and nested values with
// equal hashes) share bytes.
func appendKey(b []byte, v types.Value) []byte {
	b = append(b, byte(v.Kind()))
	switch v.Kind() {
	case types.KindNull:
	case types.KindFloat:
		b = binary.AppendUvarint(b, math.Float64bits(v.Float()))
	case types.KindDecimal:
		b = appendString(b, v.Decimal().Text('f'))
	case types.KindString, types.KindBytes:
		b = appendString(b, v.Str())
	case types.KindArray:
		b = appendValues(b, v.Array())
	case types.KindRow:
		b = appendValues(b, v.Fields())
	case types.KindMap:
		b = binary.AppendUvarint(b, uint64(len(v.Map())))
		for _, e := range v.Map() {
			b = appendKey(appendKey(b, e.Key), e.Val)
		}
	default: // bool, integers, date, time, timestamp, intervals
		b = binary.AppendVarint(b, v.Int())
	}
	return b
}

func appendValues(b []byte, vs []types.Value) []byte {
	b = binary.AppendUvarint(b, uint64(len(vs)))
	for _, v := range vs {
		b = appendKey(b, v)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
