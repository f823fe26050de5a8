package expr

import (
	"errors"
	"fmt"
	"sync"

	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// ExternalFunc is the implementation of a function defined outside this
// package (a user-defined scalar function): it gets the evaluated
// arguments, a slice valid only during the call, and returns the result,
// which must be a value of the call's type (NULL allowed only for a
// nullable type).
type ExternalFunc func(args []types.Value) (types.Value, error)

// External returns a call of the function fn named name with arguments
// args and result type t. An argument whose strict flag is set never
// passes NULL to fn: the call is then NULL. A panic in fn becomes an
// error, as does a result that is not a value of t; errors are
// sqlerr.Runtime errors naming the function, so they fail the statement
// with the function's message.
func External(name string, args []Expr, strict []bool, t types.Type, fn ExternalFunc) (Expr, error) {
	for _, a := range args {
		if a == nil {
			return nil, errNilArg(name)
		}
	}
	if len(strict) != len(args) {
		return nil, fmt.Errorf("function %s: %d strict flags for %d arguments", name, len(strict), len(args))
	}
	if fn == nil {
		return nil, fmt.Errorf("function %s has no implementation", name)
	}
	kind, known := kindOf(t.ID)
	e := &externalExpr{name: name, args: args, strict: strict, t: t, fn: fn, kind: kind, known: known}
	e.pool.New = func() any { s := make([]types.Value, len(args)); return &s }
	return e, nil
}

type externalExpr struct {
	name   string
	args   []Expr
	strict []bool
	t      types.Type
	fn     ExternalFunc
	kind   types.Kind
	known  bool
	// pool holds argument slices, so that a call does not allocate (an
	// expression may be evaluated by several goroutines).
	pool sync.Pool
}

func (e *externalExpr) Type() types.Type { return e.t }
func (e *externalExpr) String() string   { return e.name + "(" + joinExprs(e.args) + ")" }

func (e *externalExpr) Eval(row []types.Value) (types.Value, error) {
	p := e.pool.Get().(*[]types.Value)
	defer e.pool.Put(p)
	vals := *p
	for i, a := range e.args {
		v, err := a.Eval(row)
		if err != nil {
			return types.Null, err
		}
		if v.IsNull() && e.strict[i] {
			return types.Null, nil
		}
		vals[i] = v
	}
	v, err := e.call(vals)
	if err != nil {
		return types.Null, err
	}
	switch {
	case v.IsNull() && e.t.NotNull:
		return types.Null, runtimeErrorf("function %s returned NULL for its result type %s", e.name, typeString(e.t))
	case v.IsNull():
	case e.known && v.Kind() != e.kind:
		if v.Kind() == types.KindInt && e.kind == types.KindFloat {
			return types.NewFloat(float64(v.Int())), nil
		}
		return types.Null, runtimeErrorf("function %s returned %s, which is not a value of its result type %s", e.name, v, typeString(e.t))
	}
	return v, nil
}

// call runs fn, turning a panic into an error.
func (e *externalExpr) call(vals []types.Value) (v types.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = runtimeErrorf("function %s panicked: %v", e.name, r)
		}
	}()
	v, err = e.fn(vals)
	if err != nil {
		var se *sqlerr.Error
		if errors.As(err, &se) {
			return types.Null, err
		}
		return types.Null, runtimeErrorf("function %s: %v", e.name, err)
	}
	return v, nil
}
