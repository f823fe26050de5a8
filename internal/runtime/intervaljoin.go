package runtime

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// intervalJoinOp is the time-bounded join (jobgraph.IntervalJoin), Flink's
// TimeIntervalJoin: each side keeps its rows per join key while rows of
// the other side can still match them, and an outer side emits its
// unmatched rows padded with NULLs when they expire.
//
// With LowerBound = -leftSize and UpperBound = rightSize (Flink's relative
// sizes), a left row at t matches right rows in [t - rightSize,
// t + leftSize] and is kept while the operator time (the watermark, or the
// clock on proctime) is before t + leftSize; a right row at t matches left
// rows in [t - leftSize, t + rightSize] and is kept while the operator
// time is before t + rightSize. Cached rows expire when the watermark
// passes t + size (Flink's rowTime <= operatorTime - size - 1 at
// millisecond precision). Rowtime output watermarks are held back by
// max(leftSize, rightSize), Flink's getMaxOutputDelay.
//
// State: per join key one value "rows" with both sides' rows (time, row,
// matched); the due index of the keys by their next expiry; the input
// watermarks.
type intervalJoinOp struct {
	spec  *jobgraph.IntervalJoin
	oc    OpContext
	out   Output
	wm    minWatermark
	cache *keyedCache[ijKey]
	due   *dueIndex
	// size[s] is how long after its time a row of side s can match.
	size  [2]int64
	outer [2]bool
	width [2]int
	keys  [2][]int
	times [2]int
	nulls [2][]types.Value
	// outWM is the last watermark forwarded.
	outWM int64

	keyVals []types.Value
	keyBuf  []byte
	concat  []types.Value
	wmBuf   []byte
	slab    valueSlab
	expired []ijRow
}

// ijRow is a cached row: its time, values, and whether it matched.
type ijRow struct {
	t       int64
	vals    []types.Value
	matched bool
}

// ijKey is the state of one join key: the cached rows of each side, in
// arrival order.
type ijKey struct {
	sides [2][]ijRow
}

type ijCodec struct{}

func (ijCodec) empty(k *ijKey) bool { return len(k.sides[0]) == 0 && len(k.sides[1]) == 0 }

func (ijCodec) encode(dst []byte, k *ijKey) []byte {
	var scratch []byte
	for _, rows := range k.sides {
		dst = binary.AppendUvarint(dst, uint64(len(rows)))
		for _, r := range rows {
			dst = binary.AppendVarint(dst, r.t)
			if r.matched {
				dst = append(dst, 1)
			} else {
				dst = append(dst, 0)
			}
			dst = appendStateRow(dst, types.Insert, r.vals, &scratch)
		}
	}
	return dst
}

func (ijCodec) decode(b []byte, k *ijKey) error {
	r := accReader{b: b}
	for s := range k.sides {
		n := r.length()
		for range n {
			t := r.varint()
			if len(r.b) == 0 {
				r.fail("interval join state")
				break
			}
			matched := r.b[0] == 1
			r.b = r.b[1:]
			row := r.row()
			if r.err != nil {
				break
			}
			k.sides[s] = append(k.sides[s], ijRow{t: t, vals: row.Values, matched: matched})
		}
	}
	return r.done("interval join state")
}

func newIntervalJoinOp(spec *jobgraph.IntervalJoin, oc OpContext) (*intervalJoinOp, error) {
	if spec.Left == nil || spec.Right == nil {
		return nil, fmt.Errorf("interval join: missing input schema")
	}
	if len(spec.LeftKeys) != len(spec.RightKeys) || len(spec.LeftKeys) == 0 {
		return nil, fmt.Errorf("interval join: %d left keys but %d right keys", len(spec.LeftKeys), len(spec.RightKeys))
	}
	if spec.LowerBound > spec.UpperBound {
		return nil, fmt.Errorf("interval join: lower bound %d after upper bound %d", spec.LowerBound, spec.UpperBound)
	}
	op := &intervalJoinOp{spec: spec, oc: oc, out: oc.Out, outWM: MinWatermark,
		cache: newKeyedCache[ijKey](oc, "rows", ijCodec{}),
		due:   newDueIndex(oc, "due"),
		size:  [2]int64{-spec.LowerBound, spec.UpperBound},
		width: [2]int{spec.Left.Len(), spec.Right.Len()},
		keys:  [2][]int{spec.LeftKeys, spec.RightKeys},
		times: [2]int{spec.LeftTime, spec.RightTime},
	}
	for s, what := range [2]string{"interval join left", "interval join right"} {
		if err := checkColumns(what, op.width[s], op.keys[s]...); err != nil {
			return nil, err
		}
		if !spec.ProcTime {
			if err := checkColumns(what, op.width[s], op.times[s]); err != nil {
				return nil, err
			}
		}
		op.nulls[s] = make([]types.Value, op.width[s])
	}
	switch spec.Kind {
	case jobgraph.InnerJoin:
	case jobgraph.LeftJoin:
		op.outer[0] = true
	case jobgraph.RightJoin:
		op.outer[1] = true
	case jobgraph.FullJoin:
		op.outer = [2]bool{true, true}
	default:
		return nil, fmt.Errorf("interval join: unsupported join kind %s", spec.Kind)
	}
	if err := op.due.restore(); err != nil {
		return nil, fmt.Errorf("interval join: %w", err)
	}
	var err error
	if op.wm, err = loadWatermarks(oc, 2); err != nil {
		return nil, fmt.Errorf("interval join: %w", err)
	}
	return op, nil
}

// opTime is the operator time: the watermark, or the clock on proctime.
func (op *intervalJoinOp) opTime() int64 {
	if op.spec.ProcTime {
		return op.oc.Clock.Now().UnixNano()
	}
	return op.wm.cur
}

// Process handles a row of the left (0) or right (1) side.
func (op *intervalJoinOp) Process(port int, row types.Row) error {
	if port != 0 && port != 1 {
		return fmt.Errorf("interval join: no input port %d", port)
	}
	if row.Kind != types.Insert {
		return fmt.Errorf("interval join: the input must be insert-only, got a %s row", row.Kind)
	}
	if len(row.Values) != op.width[port] {
		return fmt.Errorf("interval join: row has %d values, want %d", len(row.Values), op.width[port])
	}
	var t int64
	hasTime := true
	if op.spec.ProcTime {
		t = op.oc.Clock.Now().UnixMilli() * 1e6
	} else {
		t, hasTime = rowTime(row.Values, op.times[port])
	}
	op.keyVals = op.keyVals[:0]
	nullKey := false
	for _, k := range op.keys[port] {
		nullKey = nullKey || row.Values[k].IsNull()
		op.keyVals = append(op.keyVals, row.Values[k])
	}
	if nullKey || !hasTime { // matches nothing
		if op.outer[port] {
			return op.emitPadded(port, row.Values)
		}
		return nil
	}
	op.keyBuf = types.AppendRow(op.keyBuf[:0], types.Row{Values: op.keyVals})
	e, err := op.cache.get(op.keyBuf)
	if err != nil {
		return fmt.Errorf("interval join: %w", err)
	}
	other := 1 - port
	// A row of side port at t matches rows of the other side in
	// [t - size[other], t + size[port]].
	lo, hi := t-op.size[other], t+op.size[port]
	matched := false
	theirs := e.v.sides[other]
	for i := range theirs {
		o := &theirs[i]
		if o.t < lo || o.t > hi {
			continue
		}
		ok, err := op.matches(port, row.Values, o.vals)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		matched = true
		if op.outer[other] && !o.matched {
			o.matched = true
			op.cache.mark(e)
		}
		if err := op.emitJoined(port, row.Values, o.vals); err != nil {
			return err
		}
	}
	if op.opTime() < hi {
		// Rows of the other side to come can still match it.
		e.v.sides[port] = append(e.v.sides[port], ijRow{t: t, vals: row.Values, matched: matched})
		op.cache.mark(e)
		at := hi + 1
		if cur, ok := op.due.at(e.key); !ok || at < cur {
			op.due.set(e.key, op.slab.clone(op.keyVals), at)
		}
		return nil
	}
	if !matched && op.outer[port] {
		return op.emitPadded(port, row.Values)
	}
	return nil
}

// matches evaluates the residual condition on a row of side in and a row
// of the other side.
func (op *intervalJoinOp) matches(in int, vals, other []types.Value) (bool, error) {
	if op.spec.Residual == nil {
		return true, nil
	}
	left, right := vals, other
	if in == 1 {
		left, right = other, vals
	}
	op.concat = append(append(op.concat[:0], left...), right...)
	v, err := op.spec.Residual.Eval(op.concat)
	if err != nil {
		return false, fmt.Errorf("interval join: %w", err)
	}
	return !v.IsNull() && v.Bool(), nil
}

func (op *intervalJoinOp) emitJoined(in int, vals, other []types.Value) error {
	if in == 1 {
		return op.emit(other, vals)
	}
	return op.emit(vals, other)
}

func (op *intervalJoinOp) emitPadded(s int, vals []types.Value) error {
	if s == 0 {
		return op.emit(vals, op.nulls[1])
	}
	return op.emit(op.nulls[0], vals)
}

func (op *intervalJoinOp) emit(left, right []types.Value) error {
	out := op.slab.alloc(len(left) + len(right))
	copy(out, left)
	copy(out[len(left):], right)
	return op.out.Emit(types.Row{Kind: types.Insert, Values: out})
}

// expire removes the rows of the keys due at or before now whose time
// plus their side's size is before now, emitting the unmatched rows of an
// outer side padded with NULLs (per key: left rows, then right rows, each
// in time order).
func (op *intervalJoinOp) expire(now int64) error {
	for {
		key, vals, ok := op.due.pop(now)
		if !ok {
			return nil
		}
		e, err := op.cache.getString(key)
		if err != nil {
			return fmt.Errorf("interval join: %w", err)
		}
		op.cache.mark(e)
		next, hasNext := int64(0), false
		for s := range e.v.sides {
			rows := e.v.sides[s]
			op.expired = op.expired[:0]
			kept := rows[:0]
			for _, r := range rows {
				if r.t+op.size[s] < now {
					op.expired = append(op.expired, r)
					continue
				}
				kept = append(kept, r)
				if at := r.t + op.size[s] + 1; !hasNext || at < next {
					next, hasNext = at, true
				}
			}
			clear(rows[len(kept):])
			e.v.sides[s] = kept
			if !op.outer[s] {
				continue
			}
			slices.SortStableFunc(op.expired, func(a, b ijRow) int {
				switch {
				case a.t < b.t:
					return -1
				case a.t > b.t:
					return 1
				}
				return 0
			})
			for _, r := range op.expired {
				if !r.matched {
					if err := op.emitPadded(s, r.vals); err != nil {
						return err
					}
				}
			}
		}
		clear(op.expired)
		if hasNext {
			op.due.set(key, vals, next)
		}
	}
}

// Watermark expires rows (rowtime) and forwards the held-back minimum
// watermark of both sides.
func (op *intervalJoinOp) Watermark(port int, wm int64) error {
	w, rose := op.wm.advance(port, wm)
	if !rose {
		return nil
	}
	if op.spec.ProcTime {
		return op.forward(w)
	}
	if err := op.expire(w); err != nil {
		return err
	}
	if w != MaxWatermark {
		w -= max(op.size[0], op.size[1])
	}
	return op.forward(w)
}

func (op *intervalJoinOp) forward(w int64) error {
	if w <= op.outWM {
		return nil
	}
	op.outWM = w
	return op.out.Watermark(w)
}

// OnProcessingTime implements procTimeOperator: a proctime join expires
// its rows as the clock passes them.
func (op *intervalJoinOp) OnProcessingTime(now int64) error {
	if !op.spec.ProcTime {
		return nil
	}
	return op.expire(now)
}

// Flush implements Operator.
func (op *intervalJoinOp) Flush() error {
	if err := op.due.flush(); err != nil {
		return fmt.Errorf("interval join: %w", err)
	}
	if err := op.cache.flush(); err != nil {
		return fmt.Errorf("interval join: %w", err)
	}
	var err error
	if op.wmBuf, err = saveWatermarks(op.oc, &op.wm, op.wmBuf); err != nil {
		return fmt.Errorf("interval join: %w", err)
	}
	return nil
}
