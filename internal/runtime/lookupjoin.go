package runtime

import (
	"fmt"
	"slices"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// lookupJoinOp is the processing-time temporal join (jobgraph.TemporalJoin
// with ProcTime), Flink's lookup join: each left row joins the rows the
// right table holds when it arrives, by the equi key, and a later change
// of the right table retracts nothing. The right side is a bounded table
// (Flink's filesystem lookup source loads the whole file before the first
// lookup): left rows wait until the right input has ended, then every
// later left row is looked up at once.
//
// State: per join key one value "rows" (the temporal join's encoding):
// the left rows waiting for the right side to end, and the right rows;
// the due index of the keys with waiting rows; the input watermarks.
type lookupJoinOp struct {
	timeJoin
}

func newLookupJoinOp(spec *jobgraph.TemporalJoin, oc OpContext) (*lookupJoinOp, error) {
	j, err := newTimeJoin("lookup join", spec, oc, nil, nil)
	if err != nil {
		return nil, err
	}
	return &lookupJoinOp{j}, nil
}

// rightEnded reports whether the right (bounded) input has ended.
func (op *lookupJoinOp) rightEnded() bool { return op.wm.ports[1] == MaxWatermark }

// Process handles a left (0) or right (1) row.
func (op *lookupJoinOp) Process(port int, row types.Row) error {
	if err := op.checkRow(port, row); err != nil {
		return err
	}
	keys := op.spec.LeftKeys
	if port == 1 {
		keys = op.spec.RightKeys
	}
	op.keyVals = op.keyVals[:0]
	null := false
	for _, k := range keys {
		v := row.Values[k]
		null = null || v.IsNull()
		op.keyVals = append(op.keyVals, v)
	}
	if null {
		if port == 0 && op.left {
			return op.emit(row.Kind, row.Values, op.nulls) // matches nothing
		}
		return nil
	}
	op.keyBuf = types.AppendRow(op.keyBuf[:0], types.Row{Values: op.keyVals})
	e, err := op.cache.get(op.keyBuf)
	if err != nil {
		return fmt.Errorf("lookup join: %w", err)
	}
	op.cache.mark(e)
	k := &e.v
	if port == 0 {
		if op.rightEnded() {
			return op.join(k, tjLeft{kind: row.Kind, vals: row.Values})
		}
		k.left = append(k.left, tjLeft{kind: row.Kind, vals: row.Values})
		if _, has := op.due.at(e.key); !has {
			op.due.set(e.key, slices.Clone(op.keyVals), 0)
		}
		return nil
	}
	// The right table: an insert adds a row, a retraction removes an
	// equal one; what was already joined stays (no retraction).
	if !row.Kind.IsRetraction() {
		k.right = append(k.right, tjVersion{vals: row.Values})
		return nil
	}
	for i, v := range k.right {
		if slices.EqualFunc(v.vals, row.Values, func(a, b types.Value) bool { return types.Compare(a, b) == 0 }) {
			k.right = slices.Delete(k.right, i, i+1)
			break
		}
	}
	return nil
}

// join emits the left row l joined with the right rows of its key.
func (op *lookupJoinOp) join(k *tjKey, l tjLeft) error {
	matched := false
	for _, r := range k.right {
		ok, err := op.matches(l.vals, r.vals)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		matched = true
		if err := op.emit(l.kind, l.vals, r.vals); err != nil {
			return err
		}
	}
	if !matched && op.left {
		return op.emit(l.kind, l.vals, op.nulls)
	}
	return nil
}

// Watermark looks up the waiting left rows once the right input ended,
// then forwards the minimum watermark of both sides.
func (op *lookupJoinOp) Watermark(port int, wm int64) error {
	ended := op.rightEnded()
	w, rose := op.wm.advance(port, wm)
	if !ended && op.rightEnded() {
		for {
			key, _, ok := op.due.pop(MaxWatermark)
			if !ok {
				break
			}
			e, err := op.cache.getString(key)
			if err != nil {
				return fmt.Errorf("lookup join: %w", err)
			}
			op.cache.mark(e)
			k := &e.v
			for _, l := range k.left {
				if err := op.join(k, l); err != nil {
					return err
				}
			}
			clear(k.left)
			k.left = nil
		}
	}
	if !rose {
		return nil
	}
	return op.out.Watermark(w)
}
