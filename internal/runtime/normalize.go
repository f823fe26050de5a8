package runtime

import (
	"encoding/binary"
	"fmt"

	"github.com/eddy-sql/eddy/types"
)

// normalizer turns an upsert changelog into a retract changelog with full
// deletes, as Flink's ChangelogNormalize: it keeps the last row per key.
// Identical consecutive upserts are dropped.
//
// State TTL ('table.exec.state.ttl'): a key not written for the TTL is
// forgotten when its next row comes, as if it had never been seen (Flink
// keeps the last row under the TTL, renewed by each write): an upsert is
// emitted as +I and a -U or -D is ignored. With a TTL an identical upsert
// is not dropped (-U and +U go out, renewing the TTL of the operators
// downstream, as Flink does), and the key's state starts with
// normTTLTag and the time of its last write.
type normalizer struct {
	ns    string
	key   []int
	kv    KV
	clock Clock
	ttl   int64
	cache map[string]*normEntry
	// dirtyKeys lists the keys to write at the next flush; past maxKeys
	// cached keys, flush evicts clean ones down to half (0: unbounded).
	dirtyKeys []string
	maxKeys   int
	buf       []byte
	vals      []types.Value
}

type normEntry struct {
	row    types.Row
	exists bool
	dirty  bool
	// stamp is the processing time of the last write (state TTL); 0
	// without a TTL or for state written before one was set.
	stamp int64
}

// normTTLTag starts the state of a key written with a TTL (an encoded row
// starts with its kind, below it): the varint time of the last write and
// the row follow.
const normTTLTag = 0xff

func newNormalizer(ns string, key []int, kv KV, maxKeys int, clock Clock, ttl int64) (*normalizer, error) {
	if ttl > 0 && clock == nil {
		return nil, fmt.Errorf("changelog normalize: state TTL needs a clock")
	}
	return &normalizer{ns: ns, key: key, kv: kv, cache: map[string]*normEntry{}, maxKeys: maxKeys, clock: clock, ttl: max(ttl, 0)}, nil
}

func (n *normalizer) entry(row types.Row) (string, *normEntry, error) {
	n.vals = n.vals[:0]
	for _, k := range n.key {
		n.vals = append(n.vals, row.Values[k])
	}
	n.buf = types.AppendRow(n.buf[:0], types.Row{Values: n.vals})
	e := n.cache[string(n.buf)]
	if e != nil {
		return string(n.buf), e, nil
	}
	e = &normEntry{}
	b, ok, err := n.kv.Get(n.ns, "last", n.buf)
	if err != nil {
		return "", nil, fmt.Errorf("reading normalize state: %w", err)
	}
	if ok && len(b) > 0 && b[0] == normTTLTag {
		stamp, w := binary.Varint(b[1:])
		if w <= 0 {
			return "", nil, fmt.Errorf("decoding normalize state: bad time")
		}
		e.stamp, b = stamp, b[1+w:]
	}
	if ok {
		r, err := types.DecodeRow(b)
		if err != nil {
			return "", nil, fmt.Errorf("decoding normalize state: %w", err)
		}
		e.row, e.exists = r, true
	}
	key := string(n.buf)
	n.cache[key] = e
	return key, e, nil
}

// process returns the retract rows for one upsert row.
func (n *normalizer) process(row types.Row, out []types.Row) ([]types.Row, error) {
	key, e, err := n.entry(row)
	if err != nil {
		return out, err
	}
	if !e.dirty {
		defer func() {
			if e.dirty {
				n.dirtyKeys = append(n.dirtyKeys, key)
			}
		}()
	}
	var now int64
	if n.ttl > 0 {
		now = n.clock.Now().UnixNano()
		if e.exists && e.stamp != 0 && now-e.stamp >= n.ttl {
			// Expired: as if the key had never been seen. Marked dirty
			// so that a retraction dropped here also clears the state.
			e.row, e.exists, e.stamp, e.dirty = types.Row{}, false, 0, true
		}
	}
	switch row.Kind {
	case types.Insert, types.UpdateAfter:
		if e.exists {
			if n.ttl == 0 && equalValues(e.row.Values, row.Values) {
				return out, nil
			}
			out = append(out, types.Row{Kind: types.UpdateBefore, Values: e.row.Values},
				types.Row{Kind: types.UpdateAfter, Values: row.Values})
		} else {
			out = append(out, types.Row{Kind: types.Insert, Values: row.Values})
		}
		e.row, e.exists, e.dirty = types.Row{Kind: types.Insert, Values: row.Values}, true, true
		if n.ttl > 0 {
			e.stamp = now
		}
	case types.Delete, types.UpdateBefore:
		if !e.exists {
			return out, nil
		}
		out = append(out, types.Row{Kind: types.Delete, Values: e.row.Values})
		e.row, e.exists, e.stamp, e.dirty = types.Row{}, false, 0, true
	}
	return out, nil
}

func (n *normalizer) flush() error {
	for _, key := range n.dirtyKeys {
		e := n.cache[key]
		if e == nil || !e.dirty {
			continue
		}
		e.dirty = false
		if !e.exists {
			if err := n.kv.Delete(n.ns, "last", []byte(key)); err != nil {
				return err
			}
			continue
		}
		var b []byte
		if n.ttl > 0 {
			b = binary.AppendVarint(append(b, normTTLTag), e.stamp)
		}
		if err := n.kv.Put(n.ns, "last", []byte(key), types.AppendRow(b, e.row)); err != nil {
			return err
		}
	}
	n.dirtyKeys = n.dirtyKeys[:0]
	evictClean(n.cache, n.maxKeys) // every entry is clean now
	return nil
}

func equalValues(a, b []types.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !types.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
