package udftest

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
)

// Aggregate runs an aggregate function over one group, as the engine's
// GroupAggregate runs it: one accumulator, rows accumulated and
// retracted, the value read after each change.
type Aggregate struct {
	fn   jobgraph.UserAggregate
	cast []expr.Expr
	t    types.Type
	argT []types.Type
	acc  any
}

// NewAggregate binds f for arguments of the SQL types argTypes (type
// strings, as the columns it would aggregate) and creates its
// accumulator.
func NewAggregate(f udf.AggregateFunction, argTypes ...string) (*Aggregate, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	cols := make([]expr.Expr, len(argTypes))
	ts := make([]types.Type, len(argTypes))
	for i, s := range argTypes {
		t, err := types.ParseType(s)
		if err != nil {
			return nil, fmt.Errorf("udftest: argument type %d: %w", i+1, err)
		}
		if cols[i], err = expr.Col(i, fmt.Sprintf("arg%d", i+1), t); err != nil {
			return nil, err
		}
		ts[i] = t
	}
	fn, cast, t, err := plan.UserAggregateCall("f", f, cols)
	if err != nil {
		return nil, err
	}
	a := &Aggregate{fn: fn, cast: cast, t: t, argT: ts}
	err = guard(func() error {
		var err error
		a.acc, err = fn.CreateAccumulator()
		return err
	})
	return a, err
}

// Type returns the result type of the call.
func (a *Aggregate) Type() types.Type { return a.t }

// args converts Go argument values to the declared column types.
func (a *Aggregate) args(args []any) ([]types.Value, error) {
	if len(args) != len(a.argT) {
		return nil, fmt.Errorf("udftest: %d arguments for %d argument types", len(args), len(a.argT))
	}
	vals := make([]types.Value, len(args))
	for i, x := range args {
		v, ok := x.(types.Value)
		if !ok {
			v = goValue(x)
		}
		c, err := udf.Coerce(v, a.argT[i])
		if err != nil {
			return nil, fmt.Errorf("udftest: argument %d: %w", i+1, err)
		}
		vals[i] = c
	}
	// The casts to the declared argument types, as the engine's
	// pre-projection computes them.
	out := make([]types.Value, len(a.cast))
	for i, x := range a.cast {
		v, err := x.Eval(vals)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// Add accumulates a row (+I, +U).
func (a *Aggregate) Add(args ...any) error {
	vals, err := a.args(args)
	if err != nil {
		return err
	}
	return guard(func() error { return a.fn.Accumulate(a.acc, vals) })
}

// Retract retracts a row (-U, -D).
func (a *Aggregate) Retract(args ...any) error {
	vals, err := a.args(args)
	if err != nil {
		return err
	}
	return guard(func() error { return a.fn.Retract(a.acc, vals) })
}

// Value returns the group's current result.
func (a *Aggregate) Value() (types.Value, error) {
	var v types.Value
	err := guard(func() error {
		var err error
		v, err = a.fn.Value(a.acc)
		return err
	})
	return v, err
}

// Restore encodes the accumulator and decodes it again, as a checkpoint
// and a restore do; later calls use the decoded accumulator.
func (a *Aggregate) Restore() error {
	return guard(func() error {
		b, err := a.fn.EncodeAccumulator(a.acc)
		if err != nil {
			return fmt.Errorf("encoding the accumulator: %w", err)
		}
		acc, err := a.fn.DecodeAccumulator(b)
		if err != nil {
			return fmt.Errorf("decoding the accumulator: %w", err)
		}
		a.acc = acc
		return nil
	})
}
