package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// joinOp is a regular streaming join (jobgraph.Join), Flink's
// StreamingJoinOperator and StreamingSemiAntiJoinOperator: each side keeps,
// per join key, the multiset of its rows; an outer side (and the left side
// of a semi or anti join) also keeps per row the number of rows of the
// other side it matches (its associations), to know when to retract or
// re-emit its NULL-padded row.
//
// Port 0 is the left side, port 1 the right side. Rows whose key has a
// NULL in a column that is not null-safe never match and are not stored.
//
// State: per side and join key (the key values encoded with
// types.AppendRow) one value holding the key's rows in arrival order, in a
// write-back cache that Flush writes to the KV (dirty keys only), evicting
// clean keys past MaxKeys down to half. Both sides of a key share one
// cache entry, so a row costs one map lookup.
//
// State TTL ('table.exec.state.ttl', the STATE_TTL hint): each stored row
// carries the processing time it was last written (added or retracted
// once); a row not written for the TTL is dropped when its key is next
// read, as if it had never been seen, as Flink's join state TTL does. The
// times follow the rows in the encoded state (only with a TTL).
type joinOp struct {
	spec *jobgraph.Join
	// ttl is the state TTL of the rows of each side (0: none), and
	// anyTTL whether a side has one.
	ttl    [2]int64
	anyTTL bool
	clock  Clock
	ns     string
	kv     KV
	out    Output
	wm     minWatermark
	sides  [2]joinSide
	// outer[s] reports whether side s is padded with NULLs when it has no
	// match (LEFT: the left side, ...).
	outer [2]bool
	// semi is true for SemiJoin and AntiJoin, anti for AntiJoin.
	semi, anti bool
	maxKeys    int
	// nulls[s] is a row of NULLs as wide as side s.
	nulls [2][]types.Value

	keyBuf  []byte
	keyVals []types.Value
	concat  []types.Value // left ++ right for Residual
	arena   []types.Value // output rows are carved from it
	encBuf  []byte
	rowBuf  []byte
	slab    []joinKey // new cache entries are carved from it
	// cache holds the state of the keys read or written since they were
	// last evicted; dirty lists those to write at the next Flush.
	cache map[string]*joinKey
	dirty []*joinKey
	// cur is the entry of the key of the row being processed.
	cur     *joinKey
	fresh   freshness
	sortBuf []dirtyKey[*joinKey]
}

// joinSide describes one side.
type joinSide struct {
	name  string // state name in the KV: "left" or "right"
	keys  []int
	width int
}

// joinKey is the cached state of one join key: the rows of both sides.
type joinKey struct {
	key   string
	sides [2]joinKeyRows
	dirty bool
}

// joinKeyRows is the state of one join key of one side.
type joinKeyRows struct {
	rows []joinRow
	// one holds the first row of a key without another allocation.
	one    [1]joinRow
	loaded bool // read from the KV
	dirty  bool
}

// joinRow is one distinct row of a key with its multiplicity and, on outer
// sides, the number of other-side rows it matches.
type joinRow struct {
	vals  []types.Value
	count int64
	assoc int64
	// stamp is the processing time of the last write (state TTL); 0 for
	// rows of state written without a TTL.
	stamp int64
}

// joinSlab is the number of cache entries allocated at once.
const joinSlab = 64

// joinArena is the number of values of an output arena chunk.
const joinArena = 256

// newJoinOp builds the join operator of spec.
func newJoinOp(spec *jobgraph.Join, oc OpContext) (*joinOp, error) {
	if len(spec.LeftKeys) != len(spec.RightKeys) {
		return nil, fmt.Errorf("join: %d left keys but %d right keys", len(spec.LeftKeys), len(spec.RightKeys))
	}
	if len(spec.NullSafe) != 0 && len(spec.NullSafe) != len(spec.LeftKeys) {
		return nil, fmt.Errorf("join: %d null-safe flags for %d keys", len(spec.NullSafe), len(spec.LeftKeys))
	}
	if spec.Left == nil || spec.Right == nil {
		return nil, errors.New("join: missing input schema")
	}
	j := &joinOp{
		spec:    spec,
		ns:      oc.NS,
		kv:      oc.KV,
		out:     oc.Out,
		wm:      newMinWatermark(2),
		maxKeys: oc.MaxKeys,
		clock:   oc.Clock,
	}
	j.ttl = [2]int64{max(spec.StateTTL, 0), max(spec.StateTTL, 0)}
	if spec.HasSideTTL {
		j.ttl = [2]int64{max(spec.SideTTL[0], 0), max(spec.SideTTL[1], 0)}
	}
	j.anyTTL = j.ttl[0] > 0 || j.ttl[1] > 0
	if j.anyTTL && j.clock == nil {
		return nil, errors.New("join: state TTL needs a clock")
	}
	j.sides[0] = joinSide{name: "left", keys: spec.LeftKeys, width: spec.Left.Len()}
	j.sides[1] = joinSide{name: "right", keys: spec.RightKeys, width: spec.Right.Len()}
	j.cache = map[string]*joinKey{}
	for s := range j.sides {
		if k := j.sides[s].keys; len(k) > 0 {
			for _, c := range k {
				if c < 0 || c >= j.sides[s].width {
					return nil, fmt.Errorf("join: %s key column %d out of range for %d columns", j.sides[s].name, c, j.sides[s].width)
				}
			}
		}
		j.nulls[s] = make([]types.Value, j.sides[s].width)
	}
	switch spec.Kind {
	case jobgraph.InnerJoin:
	case jobgraph.LeftJoin:
		j.outer[0] = true
	case jobgraph.RightJoin:
		j.outer[1] = true
	case jobgraph.FullJoin:
		j.outer = [2]bool{true, true}
	case jobgraph.SemiJoin:
		j.semi = true
	case jobgraph.AntiJoin:
		j.semi, j.anti = true, true
	default:
		return nil, fmt.Errorf("join: unknown kind %d", spec.Kind)
	}
	return j, nil
}

// Process handles one row of the left (0) or right (1) side.
func (j *joinOp) Process(port int, row types.Row) error {
	if port != 0 && port != 1 {
		return fmt.Errorf("join: no input port %d", port)
	}
	if len(row.Values) != j.sides[port].width {
		return fmt.Errorf("join: %s row has %d values, want %d", j.sides[port].name, len(row.Values), j.sides[port].width)
	}
	key, ok := j.key(port, row.Values)
	j.cur = nil
	if j.semi {
		if port == 0 {
			return j.semiLeft(key, ok, row)
		}
		return j.semiRight(key, ok, row)
	}
	return j.process(port, key, ok, row)
}

// key encodes the join key of vals into j.keyBuf and reports false when a
// key column that is not null-safe is NULL (the row matches nothing).
func (j *joinOp) key(port int, vals []types.Value) ([]byte, bool) {
	j.keyVals = j.keyVals[:0]
	for i, c := range j.sides[port].keys {
		v := vals[c]
		if v.IsNull() && (i >= len(j.spec.NullSafe) || !j.spec.NullSafe[i]) {
			return nil, false
		}
		j.keyVals = append(j.keyVals, v)
	}
	j.keyBuf = types.AppendRow(j.keyBuf[:0], types.Row{Values: j.keyVals})
	return j.keyBuf, true
}

// process is the inner and outer join (StreamingJoinOperator.processElement).
func (j *joinOp) process(in int, key []byte, hasKey bool, row types.Row) error {
	other := 1 - in
	inOuter, otherOuter := j.outer[in], j.outer[other]
	if !hasKey {
		if inOuter {
			kind := types.Insert
			if row.Kind.IsRetraction() {
				kind = types.Delete
			}
			return j.emitPadded(kind, in, row.Values)
		}
		return nil
	}
	mine, err := j.lookup(in, key)
	if err != nil {
		return err
	}
	theirs, err := j.lookup(other, key)
	if err != nil {
		return err
	}
	if !row.Kind.IsRetraction() {
		var matches int64
		for i := range theirs.rows {
			o := &theirs.rows[i]
			ok, err := j.matches(in, row.Values, o.vals)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			kind := types.Insert
			if !inOuter && !otherOuter {
				kind = row.Kind // inner joins forward +I/+U
			}
			for range o.count {
				if otherOuter && o.assoc == 0 {
					if err := j.emitPadded(types.Delete, other, o.vals); err != nil {
						return err
					}
				}
				if err := j.emitJoined(kind, in, row.Values, o.vals); err != nil {
					return err
				}
			}
			if otherOuter {
				o.assoc++
				j.markDirty(other, theirs)
			}
			matches += o.count
		}
		if inOuter && matches == 0 {
			if err := j.emitPadded(types.Insert, in, row.Values); err != nil {
				return err
			}
		}
		j.add(in, mine, row.Values, matches)
		return nil
	}
	j.retract(in, mine, row.Values)
	matched := false
	for i := range theirs.rows {
		o := &theirs.rows[i]
		ok, err := j.matches(in, row.Values, o.vals)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		matched = true
		kind := types.Delete
		if !inOuter && !otherOuter {
			kind = row.Kind // inner joins forward -D/-U; outer joins emit -D
		}
		for range o.count {
			if err := j.emitJoined(kind, in, row.Values, o.vals); err != nil {
				return err
			}
			if otherOuter && o.assoc == 1 {
				if err := j.emitPadded(types.Insert, other, o.vals); err != nil {
					return err
				}
			}
		}
		if otherOuter && o.assoc > 0 {
			o.assoc--
			j.markDirty(other, theirs)
		}
	}
	if !matched && inOuter {
		return j.emitPadded(types.Delete, in, row.Values)
	}
	return nil
}

// semiLeft handles a left row of a semi or anti join: it is emitted as it
// is when it has (semi) or has no (anti) match.
func (j *joinOp) semiLeft(key []byte, hasKey bool, row types.Row) error {
	var matches int64
	var mine *joinKeyRows
	if hasKey {
		var err error
		if mine, err = j.lookup(0, key); err != nil {
			return err
		}
		theirs, err := j.lookup(1, key)
		if err != nil {
			return err
		}
		for i := range theirs.rows {
			o := &theirs.rows[i]
			ok, err := j.matches(0, row.Values, o.vals)
			if err != nil {
				return err
			}
			if ok {
				matches += o.count
			}
		}
	}
	if (matches > 0) != j.anti {
		if err := j.out.Emit(row); err != nil {
			return err
		}
	}
	if !hasKey {
		return nil
	}
	if row.Kind.IsRetraction() {
		j.retract(0, mine, row.Values)
	} else {
		j.add(0, mine, row.Values, matches)
	}
	return nil
}

// semiRight handles a right row of a semi or anti join: the left rows
// whose first match it is are emitted (semi, with the input's kind) or
// retracted (anti), and the reverse when it retracts their last match.
func (j *joinOp) semiRight(key []byte, hasKey bool, row types.Row) error {
	if !hasKey {
		return nil
	}
	mine, err := j.lookup(1, key)
	if err != nil {
		return err
	}
	theirs, err := j.lookup(0, key)
	if err != nil {
		return err
	}
	acc := !row.Kind.IsRetraction()
	if acc {
		j.add(1, mine, row.Values, 0)
	} else {
		j.retract(1, mine, row.Values)
	}
	for i := range theirs.rows {
		l := &theirs.rows[i]
		ok, err := j.matches(1, row.Values, l.vals)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		edge := acc && l.assoc == 0 || !acc && l.assoc == 1
		if edge {
			kind := row.Kind // semi: +I/+U on the first match, -D/-U on the last
			switch {
			case j.anti && acc:
				kind = types.Delete
			case j.anti:
				kind = types.Insert
			}
			for range l.count {
				if err := j.out.Emit(types.Row{Kind: kind, Values: l.vals}); err != nil {
					return err
				}
			}
		}
		if acc {
			l.assoc++
		} else if l.assoc > 0 {
			l.assoc--
		}
		j.markDirty(0, theirs)
	}
	return nil
}

// matches evaluates the residual condition on the input row of side in and
// a row of the other side.
func (j *joinOp) matches(in int, vals, other []types.Value) (bool, error) {
	if j.spec.Residual == nil {
		return true, nil
	}
	left, right := vals, other
	if in == 1 {
		left, right = other, vals
	}
	j.concat = append(append(j.concat[:0], left...), right...)
	v, err := j.spec.Residual.Eval(j.concat)
	if err != nil {
		return false, err
	}
	return !v.IsNull() && v.Bool(), nil
}

// emitJoined emits the row of side in joined with the other side's row.
func (j *joinOp) emitJoined(kind types.RowKind, in int, vals, other []types.Value) error {
	left, right := vals, other
	if in == 1 {
		left, right = other, vals
	}
	return j.emit(kind, left, right)
}

// emitPadded emits the row of side s padded with NULLs for the other side.
func (j *joinOp) emitPadded(kind types.RowKind, s int, vals []types.Value) error {
	if s == 0 {
		return j.emit(kind, vals, j.nulls[1])
	}
	return j.emit(kind, j.nulls[0], vals)
}

// emit emits left ++ right in a slice carved from the arena, so that
// output rows do not cost an allocation each. The arena is small
// (joinArena values) so that a row kept downstream pins little memory.
func (j *joinOp) emit(kind types.RowKind, left, right []types.Value) error {
	n := len(left) + len(right)
	if len(j.arena) < n {
		j.arena = make([]types.Value, max(n, joinArena))
	}
	vals := j.arena[:0:n]
	j.arena = j.arena[n:]
	vals = append(append(vals, left...), right...)
	return j.out.Emit(types.Row{Kind: kind, Values: vals})
}

// lookup returns the rows of key on side s, reading them from the KV
// the first time.
func (j *joinOp) lookup(s int, key []byte) (*joinKeyRows, error) {
	if j.cur == nil {
		j.cur = j.cache[string(key)]
		if j.cur == nil {
			if len(j.slab) == 0 {
				j.slab = make([]joinKey, joinSlab)
			}
			j.cur = &j.slab[0]
			j.slab = j.slab[1:]
			j.cur.key = string(key)
			j.cache[j.cur.key] = j.cur
		}
	}
	e := &j.cur.sides[s]
	if e.loaded {
		j.expire(s, e)
		return e, nil
	}
	e.loaded = true
	e.rows = e.one[:0]
	if j.fresh.empty(j.kv, j.ns) {
		return e, nil
	}
	b, ok, err := j.kv.Get(j.ns, j.sides[s].name, key)
	if err != nil {
		return nil, fmt.Errorf("reading join state: %w", err)
	}
	if ok {
		if e.rows, err = decodeJoinRows(b); err != nil {
			return nil, fmt.Errorf("decoding join state: %w", err)
		}
	}
	j.expire(s, e)
	return e, nil
}

// now returns the processing time for state TTL (0 without a TTL).
func (j *joinOp) now() int64 {
	if !j.anyTTL {
		return 0
	}
	return j.clock.Now().UnixNano()
}

// expire drops the rows of side s not written for the TTL. Rows without a
// time (state written before a TTL was set) start their TTL now.
func (j *joinOp) expire(s int, e *joinKeyRows) {
	ttl := j.ttl[s]
	if ttl == 0 || len(e.rows) == 0 {
		return
	}
	now := j.now()
	kept := e.rows[:0]
	changed := false
	for _, r := range e.rows {
		switch {
		case r.stamp == 0:
			r.stamp, changed = now, true
		case now-r.stamp >= ttl:
			changed = true
			continue
		}
		kept = append(kept, r)
	}
	clear(e.rows[len(kept):])
	e.rows = kept
	if changed {
		j.markDirty(s, e)
	}
}

// add stores one occurrence of vals with assoc matches.
func (j *joinOp) add(s int, e *joinKeyRows, vals []types.Value, assoc int64) {
	j.markDirty(s, e)
	now := j.now()
	for i := range e.rows {
		if r := &e.rows[i]; equalValues(r.vals, vals) {
			r.count++
			r.assoc = assoc
			r.stamp = now
			return
		}
	}
	e.rows = append(e.rows, joinRow{vals: vals, count: 1, assoc: assoc, stamp: now})
}

// retract removes one occurrence of vals, if it is stored.
func (j *joinOp) retract(s int, e *joinKeyRows, vals []types.Value) {
	for i := range e.rows {
		r := &e.rows[i]
		if !equalValues(r.vals, vals) {
			continue
		}
		j.markDirty(s, e)
		if r.count--; r.count <= 0 {
			e.rows = append(e.rows[:i], e.rows[i+1:]...)
		} else {
			r.stamp = j.now()
		}
		return
	}
}

// markDirty marks side s of the current key for the next Flush.
func (j *joinOp) markDirty(s int, e *joinKeyRows) {
	e.dirty = true
	if !j.cur.dirty {
		j.cur.dirty = true
		j.dirty = append(j.dirty, j.cur)
	}
}

// Watermark forwards the minimum watermark of both sides.
func (j *joinOp) Watermark(port int, wm int64) error {
	if w, rose := j.wm.advance(port, wm); rose {
		return j.out.Watermark(w)
	}
	return nil
}

// Flush writes the dirty keys of both sides and evicts clean keys past
// MaxKeys down to half.
func (j *joinOp) Flush() error {
	sortDirty(j.dirty, &j.sortBuf, func(k *joinKey) []byte { return stringBytes(k.key) })
	for _, k := range j.dirty {
		k.dirty = false
		for s := range k.sides {
			e := &k.sides[s]
			if !e.dirty {
				continue
			}
			e.dirty = false
			name := j.sides[s].name
			if len(e.rows) == 0 {
				if err := j.kv.Delete(j.ns, name, []byte(k.key)); err != nil {
					return err
				}
				continue
			}
			j.encBuf = appendJoinRows(j.encBuf[:0], e.rows, &j.rowBuf)
			if j.anyTTL {
				for _, r := range e.rows {
					j.encBuf = binary.AppendVarint(j.encBuf, r.stamp)
				}
			}
			if err := j.kv.Put(j.ns, name, []byte(k.key), j.encBuf); err != nil {
				return err
			}
		}
	}
	clear(j.dirty)
	j.dirty = j.dirty[:0]
	j.cur = nil
	if j.maxKeys > 0 && len(j.cache) > j.maxKeys {
		j.fresh.evicted()
	}
	evictClean(j.cache, j.maxKeys) // every entry is clean now
	return nil
}

// appendJoinRows encodes the rows of a key: their number, then per row its
// count, associations, and the length and bytes of its encoded values
// (scratch is a buffer to encode them in).
func appendJoinRows(dst []byte, rows []joinRow, scratch *[]byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(rows)))
	for _, r := range rows {
		dst = binary.AppendUvarint(dst, uint64(r.count))
		dst = binary.AppendUvarint(dst, uint64(r.assoc))
		*scratch = types.AppendRow((*scratch)[:0], types.Row{Values: r.vals})
		dst = binary.AppendUvarint(dst, uint64(len(*scratch)))
		dst = append(dst, *scratch...)
	}
	return dst
}

func decodeJoinRows(b []byte) ([]joinRow, error) {
	next := func() (uint64, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, errors.New("malformed join state")
		}
		b = b[n:]
		return v, nil
	}
	n, err := next()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(b)) {
		return nil, errors.New("malformed join state")
	}
	rows := make([]joinRow, 0, n)
	for range n {
		count, err := next()
		if err != nil {
			return nil, err
		}
		assoc, err := next()
		if err != nil {
			return nil, err
		}
		size, err := next()
		if err != nil {
			return nil, err
		}
		if size > uint64(len(b)) {
			return nil, errors.New("malformed join state")
		}
		r, err := types.DecodeRow(b[:size])
		if err != nil {
			return nil, err
		}
		b = b[size:]
		rows = append(rows, joinRow{vals: r.Values, count: int64(count), assoc: int64(assoc)})
	}
	if len(b) != 0 {
		// The rows' times (state TTL).
		for i := range rows {
			v, n := binary.Varint(b)
			if n <= 0 {
				return nil, errors.New("malformed join state: bad row time")
			}
			rows[i].stamp, b = v, b[n:]
		}
		if len(b) != 0 {
			return nil, errors.New("malformed join state: trailing bytes")
		}
	}
	return rows, nil
}
