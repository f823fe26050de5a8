package runtime

import (
	"encoding/binary"
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// materializeOp is Flink's SinkUpsertMaterializer: it turns a retract
// changelog whose upsert key differs from the sink's primary key into a
// correct upsert stream on that key. Per key it keeps every row that is
// alive upstream, in arrival order; the sink shows the last one. A new row
// is emitted as +I (first of its key) or +U; retracting the shown row
// re-emits the new last one as +U, or -D when none is left; retracting
// another row changes nothing downstream.
//
// With ON CONFLICT DO NOTHING the sink shows the first row alive instead;
// with DO ERROR a second row alive at one key fails the job. For both an
// update (-U then +U of one upstream key, which upstream operators emit
// together) takes the place of the row it replaces, so that it is not
// seen as a conflict.
//
// State TTL ('table.exec.state.ttl'): a key not written for the TTL is
// forgotten when its next row comes, as if it had never been seen (Flink
// keeps the materializer's rows under the TTL): the row is emitted as +I
// and a retraction of a forgotten row is ignored. With a TTL the key's
// state ends with an empty entry and the time of its last write.
type materializeOp struct {
	spec    *jobgraph.Materialize
	key     []int
	ns      string
	kv      KV
	out     Output
	maxKeys int
	cache   map[string]*matEntry
	dirty   []string
	buf     []byte
	vals    []types.Value
	fresh   freshness
	sortBuf []dirtyKey[string]
	// last is the entry of the last row (DO NOTHING, DO ERROR).
	last  *matEntry
	clock Clock
	ttl   int64
}

type matEntry struct {
	rows  [][]types.Value
	dirty bool
	// pending is the position of the row a -U removed, which the +U
	// that follows takes (DO NOTHING and DO ERROR); -1 when none. It is
	// resolved before the next row of another key and at Flush.
	pending int
	// pendingShown is set when the removed row was the one shown.
	pendingShown bool
	pendingRow   []types.Value
	// stamp is the processing time of the last write (state TTL); 0
	// without a TTL or for state written before one was set.
	stamp int64
}

func newMaterializeOp(spec *jobgraph.Materialize, oc OpContext) *materializeOp {
	o := &materializeOp{spec: spec, key: spec.Key, ns: oc.NS, kv: oc.KV, out: oc.Out, maxKeys: oc.MaxKeys, cache: map[string]*matEntry{}}
	if oc.Clock != nil {
		o.clock, o.ttl = oc.Clock, max(spec.StateTTL, 0)
	}
	return o
}

func (o *materializeOp) entry(row types.Row) (string, *matEntry, error) {
	o.vals = o.vals[:0]
	for _, k := range o.key {
		o.vals = append(o.vals, row.Values[k])
	}
	o.buf = types.AppendRow(o.buf[:0], types.Row{Values: o.vals})
	if e := o.cache[string(o.buf)]; e != nil {
		return string(o.buf), e, nil
	}
	key := string(o.buf)
	e := &matEntry{pending: -1}
	if o.fresh.empty(o.kv, o.ns) {
		o.cache[key] = e
		return key, e, nil
	}
	b, ok, err := o.kv.Get(o.ns, "rows", o.buf)
	if err != nil {
		return "", nil, fmt.Errorf("reading upsert materializer state: %w", err)
	}
	for ok && len(b) > 0 {
		n, w := binary.Uvarint(b)
		if w <= 0 || int(n) > len(b)-w {
			return "", nil, fmt.Errorf("decoding upsert materializer state: bad length")
		}
		if n == 0 { // the time of the last write (state TTL)
			stamp, sw := binary.Varint(b[w:])
			if sw <= 0 || w+sw != len(b) {
				return "", nil, fmt.Errorf("decoding upsert materializer state: bad time")
			}
			e.stamp = stamp
			break
		}
		r, err := types.DecodeRow(b[w : w+int(n)])
		if err != nil {
			return "", nil, fmt.Errorf("decoding upsert materializer state: %w", err)
		}
		e.rows = append(e.rows, r.Values)
		b = b[w+int(n):]
	}
	o.cache[key] = e
	return key, e, nil
}

func (o *materializeOp) Process(_ int, row types.Row) error {
	key, e, err := o.entry(row)
	if err != nil {
		return err
	}
	if !e.dirty {
		e.dirty = true
		o.dirty = append(o.dirty, key)
	}
	if o.ttl > 0 {
		now := o.clock.Now().UnixNano()
		if e.stamp != 0 && now-e.stamp >= o.ttl {
			// Expired: as if the key had never been seen.
			e.rows, e.pending, e.pendingShown, e.pendingRow = nil, -1, false, nil
		}
		e.stamp = now
	}
	if o.spec.Conflict != jobgraph.ConflictDeduplicate {
		if err := o.resolvePending(e); err != nil {
			return err
		}
		o.last = e
		return o.processFirst(e, row)
	}
	switch row.Kind {
	case types.Insert, types.UpdateAfter:
		kind := types.UpdateAfter
		if len(e.rows) == 0 {
			kind = types.Insert
		}
		e.rows = append(e.rows, row.Values)
		return o.out.Emit(types.Row{Kind: kind, Values: row.Values})
	}
	// A retraction removes the latest equal row.
	for i := len(e.rows) - 1; i >= 0; i-- {
		if !equalValues(e.rows[i], row.Values) {
			continue
		}
		last := i == len(e.rows)-1
		e.rows = append(e.rows[:i], e.rows[i+1:]...)
		switch {
		case !last:
			return nil
		case len(e.rows) == 0:
			return o.out.Emit(types.Row{Kind: types.Delete, Values: row.Values})
		default:
			return o.out.Emit(types.Row{Kind: types.UpdateAfter, Values: e.rows[len(e.rows)-1]})
		}
	}
	return nil // a retraction of a row never seen (or expired) is ignored
}

// processFirst is Process for DO NOTHING and DO ERROR: the first row
// alive is shown.
func (o *materializeOp) processFirst(e *matEntry, row types.Row) error {
	switch row.Kind {
	case types.Insert, types.UpdateAfter:
		if p := e.pending; p >= 0 {
			// The +U of the -U just seen: it takes the removed row's place.
			shown := e.pendingShown
			e.pending, e.pendingShown, e.pendingRow = -1, false, nil
			e.rows = append(e.rows, nil)
			copy(e.rows[p+1:], e.rows[p:])
			e.rows[p] = row.Values
			if shown {
				return o.out.Emit(types.Row{Kind: types.UpdateAfter, Values: row.Values})
			}
			return nil
		}
		if len(e.rows) == 0 {
			e.rows = append(e.rows, row.Values)
			return o.out.Emit(types.Row{Kind: types.Insert, Values: row.Values})
		}
		if o.spec.Conflict == jobgraph.ConflictError {
			return fmt.Errorf("ON CONFLICT DO ERROR: rows of different upsert keys meet at one primary key of the sink table '%s': %v and %v", o.spec.Table, e.rows[0], row.Values)
		}
		e.rows = append(e.rows, row.Values) // DO NOTHING: kept, not shown
		return nil
	}
	for i := len(e.rows) - 1; i >= 0; i-- {
		if !equalValues(e.rows[i], row.Values) {
			continue
		}
		shown := i == 0
		removed := e.rows[i]
		e.rows = append(e.rows[:i], e.rows[i+1:]...)
		if row.Kind == types.UpdateBefore {
			e.pending, e.pendingShown, e.pendingRow = i, shown, removed
			return nil
		}
		return o.afterRemove(e, shown, removed)
	}
	return nil // a retraction of a row never seen (or expired) is ignored
}

// afterRemove emits what removing a row leaves: a delete when no row is
// left, the new first row when the shown one went.
func (o *materializeOp) afterRemove(e *matEntry, shown bool, removed []types.Value) error {
	switch {
	case !shown:
		return nil
	case len(e.rows) == 0:
		return o.out.Emit(types.Row{Kind: types.Delete, Values: removed})
	default:
		return o.out.Emit(types.Row{Kind: types.UpdateAfter, Values: e.rows[0]})
	}
}

// resolvePending settles the -U of the last entry when the next row is of
// another key (its +U was filtered out upstream): the row is removed.
func (o *materializeOp) resolvePending(next *matEntry) error {
	e := o.last
	if e == nil || e == next || e.pending < 0 {
		return nil
	}
	shown, removed := e.pendingShown, e.pendingRow
	e.pending, e.pendingShown, e.pendingRow = -1, false, nil
	return o.afterRemove(e, shown, removed)
}

func (o *materializeOp) Watermark(_ int, wm int64) error {
	if err := o.resolvePending(nil); err != nil {
		return err
	}
	return o.out.Watermark(wm)
}

func (o *materializeOp) Flush() error {
	if err := o.resolvePending(nil); err != nil {
		return err
	}
	o.last = nil
	sortDirty(o.dirty, &o.sortBuf, stringBytes)
	for _, key := range o.dirty {
		e := o.cache[key]
		if e == nil || !e.dirty {
			continue
		}
		e.dirty = false
		if len(e.rows) == 0 {
			delete(o.cache, key)
			if err := o.kv.Delete(o.ns, "rows", []byte(key)); err != nil {
				return fmt.Errorf("checkpoint: %w", err)
			}
			continue
		}
		var b, rb []byte
		for _, r := range e.rows {
			rb = types.AppendRow(rb[:0], types.Row{Values: r})
			b = binary.AppendUvarint(b, uint64(len(rb)))
			b = append(b, rb...)
		}
		if o.ttl > 0 {
			b = binary.AppendUvarint(b, 0)
			b = binary.AppendVarint(b, e.stamp)
		}
		if err := o.kv.Put(o.ns, "rows", []byte(key), b); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	o.dirty = o.dirty[:0]
	if o.maxKeys > 0 && len(o.cache) > o.maxKeys {
		o.fresh.evicted()
	}
	evictClean(o.cache, o.maxKeys) // every entry is clean now
	return nil
}
