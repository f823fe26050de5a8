package udf

import (
	"context"

	"github.com/eddy-sql/eddy/types"
)

// The typed helpers build an Overload from a Go function whose parameters
// and result have Go types with SQL types (see the table in gotypes.go):
// the declared argument and result types come from the Go types, and the
// values are converted on the way in and out. Override the SQL types with
// WithArgs and Returns.

// typed collects the declarations of a typed overload.
type typed struct {
	o Overload
}

func (t *typed) arg(a ArgType, err error) {
	if err != nil && t.o.goErr == nil {
		t.o.goErr = err
	}
	t.o.Args = append(t.o.Args, a.String())
	t.o.goNotNull = append(t.o.goNotNull, !a.Any && a.Type.NotNull)
}

func (t *typed) result(a ArgType, err error) {
	if err != nil && t.o.goErr == nil {
		t.o.goErr = err
	}
	if !a.Any { // types.Value results need Returns or WithInfer
		t.o.Result = a.Type.String()
	}
}

func argOf[T any](t *typed) { t.arg(goType[T]()) }

func resultOf[R any](t *typed) { t.result(goType[R]()) }

// ret converts a typed result.
func ret[R any](r R, err error) (types.Value, error) {
	if err != nil {
		return types.Null, err
	}
	return toValue(r), nil
}

// Func0 declares an overload without arguments.
func Func0[R any](fn func(ctx context.Context) (R, error)) Overload {
	t := &typed{}
	resultOf[R](t)
	t.o.Eval = func(ctx context.Context, _ []types.Value) (types.Value, error) { return ret(fn(ctx)) }
	return t.o
}

// Func1 declares an overload of one argument.
func Func1[A, R any](fn func(ctx context.Context, a A) (R, error)) Overload {
	t := &typed{}
	argOf[A](t)
	resultOf[R](t)
	t.o.Eval = func(ctx context.Context, v []types.Value) (types.Value, error) {
		return ret(fn(ctx, fromValue[A](v[0])))
	}
	return t.o
}

// Func2 declares an overload of two arguments.
func Func2[A, B, R any](fn func(ctx context.Context, a A, b B) (R, error)) Overload {
	t := &typed{}
	argOf[A](t)
	argOf[B](t)
	resultOf[R](t)
	t.o.Eval = func(ctx context.Context, v []types.Value) (types.Value, error) {
		return ret(fn(ctx, fromValue[A](v[0]), fromValue[B](v[1])))
	}
	return t.o
}

// Func3 declares an overload of three arguments.
func Func3[A, B, C, R any](fn func(ctx context.Context, a A, b B, c C) (R, error)) Overload {
	t := &typed{}
	argOf[A](t)
	argOf[B](t)
	argOf[C](t)
	resultOf[R](t)
	t.o.Eval = func(ctx context.Context, v []types.Value) (types.Value, error) {
		return ret(fn(ctx, fromValue[A](v[0]), fromValue[B](v[1]), fromValue[C](v[2])))
	}
	return t.o
}

// Func4 declares an overload of four arguments.
func Func4[A, B, C, D, R any](fn func(ctx context.Context, a A, b B, c C, d D) (R, error)) Overload {
	t := &typed{}
	argOf[A](t)
	argOf[B](t)
	argOf[C](t)
	argOf[D](t)
	resultOf[R](t)
	t.o.Eval = func(ctx context.Context, v []types.Value) (types.Value, error) {
		return ret(fn(ctx, fromValue[A](v[0]), fromValue[B](v[1]), fromValue[C](v[2]), fromValue[D](v[3])))
	}
	return t.o
}

// FuncN declares a variadic overload: any number of arguments of one
// type (at least none).
func FuncN[A, R any](fn func(ctx context.Context, args ...A) (R, error)) Overload {
	t := &typed{}
	argOf[A](t)
	resultOf[R](t)
	t.o.Variadic = true
	t.o.Eval = func(ctx context.Context, v []types.Value) (types.Value, error) {
		args := make([]A, len(v))
		for i, x := range v {
			args[i] = fromValue[A](x)
		}
		return ret(fn(ctx, args...))
	}
	return t.o
}

// typedTable collects the declarations of a typed table overload.
func typedTable(args ...func(*typed)) TableOverload {
	t := &typed{}
	for _, a := range args {
		a(t)
	}
	return TableOverload{Args: t.o.Args, goNotNull: t.o.goNotNull, goErr: t.o.goErr}
}

// Table0 declares a table function overload without arguments.
func Table0(fn func(ctx context.Context, out *Collector) error) TableOverload {
	o := typedTable()
	o.Eval = func(ctx context.Context, out *Collector, _ []types.Value) error { return fn(ctx, out) }
	return o
}

// Table1 declares a table function overload of one argument.
func Table1[A any](fn func(ctx context.Context, out *Collector, a A) error) TableOverload {
	o := typedTable(argOf[A])
	o.Eval = func(ctx context.Context, out *Collector, v []types.Value) error {
		return fn(ctx, out, fromValue[A](v[0]))
	}
	return o
}

// Table2 declares a table function overload of two arguments.
func Table2[A, B any](fn func(ctx context.Context, out *Collector, a A, b B) error) TableOverload {
	o := typedTable(argOf[A], argOf[B])
	o.Eval = func(ctx context.Context, out *Collector, v []types.Value) error {
		return fn(ctx, out, fromValue[A](v[0]), fromValue[B](v[1]))
	}
	return o
}

// Table3 declares a table function overload of three arguments.
func Table3[A, B, C any](fn func(ctx context.Context, out *Collector, a A, b B, c C) error) TableOverload {
	o := typedTable(argOf[A], argOf[B], argOf[C])
	o.Eval = func(ctx context.Context, out *Collector, v []types.Value) error {
		return fn(ctx, out, fromValue[A](v[0]), fromValue[B](v[1]), fromValue[C](v[2]))
	}
	return o
}

// TableN declares a variadic table function overload.
func TableN[A any](fn func(ctx context.Context, out *Collector, args ...A) error) TableOverload {
	o := typedTable(argOf[A])
	o.Variadic = true
	o.Eval = func(ctx context.Context, out *Collector, v []types.Value) error {
		args := make([]A, len(v))
		for i, x := range v {
			args[i] = fromValue[A](x)
		}
		return fn(ctx, out, args...)
	}
	return o
}
