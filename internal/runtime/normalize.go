package runtime

import (
	"fmt"

	"github.com/eddy-sql/eddy/types"
)

// normalizer turns an upsert changelog into a retract changelog with full
// deletes, as Flink's ChangelogNormalize: it keeps the last row per key.
// Identical consecutive upserts are dropped.
type normalizer struct {
	ns    string
	key   []int
	kv    KV
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
}

func newNormalizer(ns string, key []int, kv KV, maxKeys int) *normalizer {
	return &normalizer{ns: ns, key: key, kv: kv, cache: map[string]*normEntry{}, maxKeys: maxKeys}
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
	switch row.Kind {
	case types.Insert, types.UpdateAfter:
		if e.exists {
			if equalValues(e.row.Values, row.Values) {
				return out, nil
			}
			out = append(out, types.Row{Kind: types.UpdateBefore, Values: e.row.Values},
				types.Row{Kind: types.UpdateAfter, Values: row.Values})
		} else {
			out = append(out, types.Row{Kind: types.Insert, Values: row.Values})
		}
		e.row, e.exists, e.dirty = types.Row{Kind: types.Insert, Values: row.Values}, true, true
	case types.Delete, types.UpdateBefore:
		if !e.exists {
			return out, nil
		}
		out = append(out, types.Row{Kind: types.Delete, Values: e.row.Values})
		e.row, e.exists, e.dirty = types.Row{}, false, true
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
		if err := n.kv.Put(n.ns, "last", []byte(key), types.AppendRow(nil, e.row)); err != nil {
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
