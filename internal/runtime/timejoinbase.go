package runtime

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// timeJoin is what the event-time temporal join and the lookup join share:
// the keyed state of both sides per join key ("rows", the tjKey encoding),
// the due index, the input watermarks, and building, filtering and
// emitting joined rows. name prefixes its errors.
type timeJoin struct {
	name  string
	spec  *jobgraph.TemporalJoin
	oc    OpContext
	out   Output
	wm    minWatermark
	cache *keyedCache[tjKey]
	due   *dueIndex
	left  bool // LEFT JOIN
	width [2]int
	nulls []types.Value

	keyVals []types.Value
	keyBuf  []byte
	concat  []types.Value
	wmBuf   []byte
	slab    valueSlab
}

// newTimeJoin checks spec (INNER or LEFT, matching keys, and the columns
// each side reads: its keys plus extra) and restores the shared state.
func newTimeJoin(name string, spec *jobgraph.TemporalJoin, oc OpContext, leftExtra, rightExtra []int) (timeJoin, error) {
	if spec.Left == nil || spec.Right == nil {
		return timeJoin{}, fmt.Errorf("%s: missing input schema", name)
	}
	if len(spec.LeftKeys) != len(spec.RightKeys) || len(spec.LeftKeys) == 0 {
		return timeJoin{}, fmt.Errorf("%s: %d left keys but %d right keys", name, len(spec.LeftKeys), len(spec.RightKeys))
	}
	op := timeJoin{name: name, spec: spec, oc: oc, out: oc.Out,
		cache: newKeyedCache[tjKey](oc, "rows", tjCodec{}),
		due:   newDueIndex(oc, "due"),
		width: [2]int{spec.Left.Len(), spec.Right.Len()},
	}
	switch spec.Kind {
	case jobgraph.InnerJoin:
	case jobgraph.LeftJoin:
		op.left = true
	default:
		return timeJoin{}, fmt.Errorf("%s: unsupported join kind %s (only INNER and LEFT)", name, spec.Kind)
	}
	if err := checkColumns(name+" left", op.width[0], append(append([]int(nil), spec.LeftKeys...), leftExtra...)...); err != nil {
		return timeJoin{}, err
	}
	if err := checkColumns(name+" right", op.width[1], append(append([]int(nil), spec.RightKeys...), rightExtra...)...); err != nil {
		return timeJoin{}, err
	}
	op.nulls = make([]types.Value, op.width[1])
	if err := op.due.restore(); err != nil {
		return timeJoin{}, fmt.Errorf("%s: %w", name, err)
	}
	var err error
	if op.wm, err = loadWatermarks(oc, 2); err != nil {
		return timeJoin{}, fmt.Errorf("%s: %w", name, err)
	}
	return op, nil
}

// checkRow checks a row's port and width.
func (op *timeJoin) checkRow(port int, row types.Row) error {
	if port != 0 && port != 1 {
		return fmt.Errorf("%s: no input port %d", op.name, port)
	}
	if len(row.Values) != op.width[port] {
		return fmt.Errorf("%s: row has %d values, want %d", op.name, len(row.Values), op.width[port])
	}
	return nil
}

// matches reports whether the residual condition (if any) holds for the
// left and right row.
func (op *timeJoin) matches(left, right []types.Value) (bool, error) {
	if op.spec.Residual == nil {
		return true, nil
	}
	op.concat = append(append(op.concat[:0], left...), right...)
	v, err := op.spec.Residual.Eval(op.concat)
	if err != nil {
		return false, fmt.Errorf("%s: %w", op.name, err)
	}
	return !v.IsNull() && v.Bool(), nil
}

// emit sends left ++ right with the left row's kind.
func (op *timeJoin) emit(kind types.RowKind, left, right []types.Value) error {
	out := op.slab.alloc(len(left) + len(right))
	copy(out, left)
	copy(out[len(left):], right)
	return op.out.Emit(types.Row{Kind: kind, Values: out})
}

// Flush implements Operator.
func (op *timeJoin) Flush() error {
	if err := op.due.flush(); err != nil {
		return fmt.Errorf("%s: %w", op.name, err)
	}
	if err := op.cache.flush(); err != nil {
		return fmt.Errorf("%s: %w", op.name, err)
	}
	var err error
	if op.wmBuf, err = saveWatermarks(op.oc, &op.wm, op.wmBuf); err != nil {
		return fmt.Errorf("%s: %w", op.name, err)
	}
	return nil
}
