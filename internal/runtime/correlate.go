package runtime

import (
	"errors"
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// correlateOp runs a jobgraph.Correlate: for each input row it calls the
// table function (or unnests the collection) and emits the input row
// joined with each function row, with the input row's kind.
type correlateOp struct {
	spec  *jobgraph.Correlate
	out   Output
	width int // function columns
	args  []types.Value
	row   types.Row // the input row being processed
	n     int       // function rows emitted for it
	emit  func([]types.Value) error
}

func newCorrelateOp(spec *jobgraph.Correlate, out Output) (*correlateOp, error) {
	if spec.Columns == nil {
		return nil, errors.New("correlate: no function columns")
	}
	if (spec.Func == nil) == (spec.Unnest == nil) {
		return nil, errors.New("correlate: exactly one of a function and UNNEST is needed")
	}
	if spec.Unnest != nil && len(spec.Args) != 1 {
		return nil, fmt.Errorf("correlate: UNNEST of %d arguments", len(spec.Args))
	}
	op := &correlateOp{spec: spec, out: out, width: spec.Columns.Len(), args: make([]types.Value, len(spec.Args))}
	op.emit = op.emitRow
	return op, nil
}

// Process implements Operator.
func (op *correlateOp) Process(_ int, row types.Row) error {
	for i, e := range op.spec.Args {
		v, err := e.Eval(row.Values)
		if err != nil {
			return fmt.Errorf("evaluating %s: %w", e, err)
		}
		op.args[i] = v
	}
	op.row, op.n = row, 0
	var err error
	if op.spec.Unnest != nil {
		err = unnest(op.spec.Unnest, op.args[0], op.emit)
	} else {
		err = op.call()
	}
	if err != nil {
		return err
	}
	if op.n == 0 && op.spec.Left {
		return op.emitRow(make([]types.Value, op.width)) // all NULL
	}
	return nil
}

// call runs the user's function, turning a panic into an error.
func (op *correlateOp) call() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("table function panicked: %v", r)
		}
	}()
	return op.spec.Func.Eval(op.args, op.emit)
}

// emitRow emits the input row joined with fn, a row of the function.
func (op *correlateOp) emitRow(fn []types.Value) error {
	if len(fn) != op.width {
		return fmt.Errorf("correlate: the function emitted %d values for %d columns", len(fn), op.width)
	}
	op.n++
	vals := make([]types.Value, 0, len(op.row.Values)+op.width)
	vals = append(append(vals, op.row.Values...), fn...)
	return op.out.Emit(types.Row{Kind: op.row.Kind, Values: vals})
}

// Watermark implements Operator.
func (op *correlateOp) Watermark(_ int, wm int64) error { return op.out.Watermark(wm) }

// Flush implements Operator: the operator has no state.
func (op *correlateOp) Flush() error { return nil }

// unnest emits the rows of UNNEST(x).
func unnest(u *jobgraph.Unnest, x types.Value, emit func([]types.Value) error) error {
	if x.IsNull() {
		return nil
	}
	pos := int64(0)
	one := func(vals ...types.Value) error {
		pos++
		if u.Ordinality {
			vals = append(vals, types.NewInt(pos))
		}
		return emit(vals)
	}
	switch u.Of.ID {
	case types.TypeArray:
		rowElems := u.Of.Elem != nil && u.Of.Elem.ID == types.TypeRow
		for _, e := range x.Array() {
			var err error
			switch {
			case rowElems && e.IsNull():
				err = one(make([]types.Value, len(u.Of.Elem.Fields))...)
			case rowElems:
				err = one(append([]types.Value(nil), e.Fields()...)...)
			default:
				err = one(e)
			}
			if err != nil {
				return err
			}
		}
	case types.TypeMap:
		for _, e := range x.Map() {
			if err := one(e.Key, e.Val); err != nil {
				return err
			}
		}
	case types.TypeMultiset:
		for _, e := range x.Map() {
			for range max(e.Val.Int(), 0) {
				if err := one(e.Key); err != nil {
					return err
				}
			}
		}
	default:
		return fmt.Errorf("UNNEST of %s", u.Of)
	}
	return nil
}
