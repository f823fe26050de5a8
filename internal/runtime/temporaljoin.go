package runtime

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// temporalJoinOp is the event-time temporal join (jobgraph.TemporalJoin),
// Flink's TemporalRowTimeJoinOperatorV2: left rows wait until the
// watermark (the minimum of both sides) reaches their time, then join the
// version of the right side valid at that time.
//
// State: per join key one value "rows": the left rows waiting (arrival
// order, with their kinds) and the right versions (by time; a -U/-D is a
// version saying "no row"); the due index of the keys by their next work
// (the earliest waiting left row, or the time that makes the oldest
// version obsolete); the input watermarks.
type temporalJoinOp struct {
	timeJoin
}

// tjLeft is a waiting left row.
type tjLeft struct {
	t    int64
	kind types.RowKind
	vals []types.Value
}

// tjVersion is a version of the right side: its time and row, or a
// deletion from that time on.
type tjVersion struct {
	t       int64
	deleted bool
	vals    []types.Value
}

// tjKey is the state of one join key.
type tjKey struct {
	left  []tjLeft
	right []tjVersion // ascending time, one per time
}

type tjCodec struct{}

func (tjCodec) empty(k *tjKey) bool { return len(k.left) == 0 && len(k.right) == 0 }

func (tjCodec) encode(dst []byte, k *tjKey) []byte {
	var scratch []byte
	dst = binary.AppendUvarint(dst, uint64(len(k.left)))
	for _, l := range k.left {
		dst = binary.AppendVarint(dst, l.t)
		dst = appendStateRow(dst, l.kind, l.vals, &scratch)
	}
	dst = binary.AppendUvarint(dst, uint64(len(k.right)))
	for _, v := range k.right {
		dst = binary.AppendVarint(dst, v.t)
		kind := types.Insert
		if v.deleted {
			kind = types.Delete
		}
		dst = appendStateRow(dst, kind, v.vals, &scratch)
	}
	return dst
}

func (tjCodec) decode(b []byte, k *tjKey) error {
	r := accReader{b: b}
	n := r.length()
	for range n {
		t := r.varint()
		row := r.row()
		if r.err != nil {
			break
		}
		k.left = append(k.left, tjLeft{t: t, kind: row.Kind, vals: row.Values})
	}
	n = r.length()
	for range n {
		t := r.varint()
		row := r.row()
		if r.err != nil {
			break
		}
		k.right = append(k.right, tjVersion{t: t, deleted: row.Kind == types.Delete, vals: row.Values})
	}
	return r.done("temporal join state")
}

func newTemporalJoinOp(spec *jobgraph.TemporalJoin, oc OpContext) (*temporalJoinOp, error) {
	j, err := newTimeJoin("temporal join", spec, oc, []int{spec.LeftTime}, []int{spec.RightTime})
	if err != nil {
		return nil, err
	}
	return &temporalJoinOp{j}, nil
}

// Process handles a left (0) or right (1) row.
func (op *temporalJoinOp) Process(port int, row types.Row) error {
	if err := op.checkRow(port, row); err != nil {
		return err
	}
	keys, timeCol := op.spec.LeftKeys, op.spec.LeftTime
	if port == 1 {
		keys, timeCol = op.spec.RightKeys, op.spec.RightTime
	}
	t, ok := rowTime(row.Values, timeCol)
	if port == 0 && (!ok || t <= op.wm.cur) {
		op.oc.countLate() // its version may be gone already
		return nil
	}
	if !ok {
		return nil // a version without a time applies to no time
	}
	op.keyVals = op.keyVals[:0]
	for _, k := range keys {
		v := row.Values[k]
		if port == 1 && v.IsNull() {
			return nil // no left row matches a NULL key
		}
		op.keyVals = append(op.keyVals, v)
	}
	op.keyBuf = types.AppendRow(op.keyBuf[:0], types.Row{Values: op.keyVals})
	e, err := op.cache.get(op.keyBuf)
	if err != nil {
		return fmt.Errorf("temporal join: %w", err)
	}
	op.cache.mark(e)
	k := &e.v
	if port == 0 {
		k.left = append(k.left, tjLeft{t: t, kind: row.Kind, vals: row.Values})
	} else {
		v := tjVersion{t: t, deleted: row.Kind.IsRetraction(), vals: row.Values}
		i, found := slices.BinarySearchFunc(k.right, t, func(v tjVersion, t int64) int {
			switch {
			case v.t < t:
				return -1
			case v.t > t:
				return 1
			}
			return 0
		})
		if found {
			k.right[i] = v // a later arrival replaces the version of its time
		} else {
			k.right = slices.Insert(k.right, i, v)
		}
	}
	op.setDue(e)
	return nil
}

// setDue records when the key of e has work next: its earliest waiting
// left row, or the time at which its oldest version becomes obsolete.
func (op *temporalJoinOp) setDue(e *cached[tjKey]) {
	k := &e.v
	at, ok := int64(0), false
	for _, l := range k.left {
		if !ok || l.t < at {
			at, ok = l.t, true
		}
	}
	switch {
	case len(k.right) > 1:
		if t := k.right[1].t; !ok || t < at {
			at, ok = t, true
		}
	case len(k.right) == 1 && k.right[0].deleted:
		if t := k.right[0].t; !ok || t < at {
			at, ok = t, true
		}
	}
	if !ok {
		op.due.clear(e.key)
		return
	}
	if cur, has := op.due.at(e.key); has && cur == at {
		return
	}
	var vals []types.Value
	if len(k.left) > 0 {
		vals = op.project(k.left[0].vals, op.spec.LeftKeys)
	} else {
		vals = op.project(k.right[0].vals, op.spec.RightKeys)
	}
	op.due.set(e.key, vals, at)
}

func (op *temporalJoinOp) project(vals []types.Value, cols []int) []types.Value {
	out := op.slab.alloc(len(cols))
	for i, c := range cols {
		out[i] = vals[c]
	}
	return out
}

// fire emits the left rows at or before wm of the due keys and drops the
// versions no later left row can see.
func (op *temporalJoinOp) fire(wm int64) error {
	for {
		key, _, ok := op.due.pop(wm)
		if !ok {
			return nil
		}
		e, err := op.cache.getString(key)
		if err != nil {
			return fmt.Errorf("temporal join: %w", err)
		}
		op.cache.mark(e)
		k := &e.v
		kept := k.left[:0]
		for _, l := range k.left {
			if l.t > wm {
				kept = append(kept, l)
				continue
			}
			if err := op.join(k, l); err != nil {
				return err
			}
		}
		clear(k.left[len(kept):])
		k.left = kept
		// Keep the latest version at or before wm and the later ones; a
		// deletion alone is the same as no version.
		i := 0
		for i+1 < len(k.right) && k.right[i+1].t <= wm {
			i++
		}
		if i < len(k.right) && k.right[i].deleted && k.right[i].t <= wm {
			i++
		}
		if i > 0 {
			clear(k.right[:i])
			k.right = k.right[i:]
		}
		op.setDue(e)
	}
}

// join emits the left row l joined with the version valid at its time.
func (op *temporalJoinOp) join(k *tjKey, l tjLeft) error {
	i := sort.Search(len(k.right), func(i int) bool { return k.right[i].t > l.t }) - 1
	if i >= 0 && !k.right[i].deleted {
		ok, err := op.matches(l.vals, k.right[i].vals)
		if err != nil {
			return err
		}
		if ok {
			return op.emit(l.kind, l.vals, k.right[i].vals)
		}
	}
	if op.left {
		return op.emit(l.kind, l.vals, op.nulls)
	}
	return nil
}

// Watermark emits what the minimum watermark of both sides reached, then
// forwards it.
func (op *temporalJoinOp) Watermark(port int, wm int64) error {
	w, rose := op.wm.advance(port, wm)
	if !rose {
		return nil
	}
	if err := op.fire(w); err != nil {
		return err
	}
	return op.out.Watermark(w)
}
