package udftest

import (
	"fmt"
	"reflect"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
)

// Arg is an argument of a declared SQL type (see Typed).
type Arg struct {
	Value types.Value
	Type  types.Type
}

// Typed returns an argument of SQL type typ (a type string such as
// "DECIMAL(10, 2)" or "INT") holding v, a Go value as for the other
// arguments or a types.Value, converted as CAST(v AS typ) converts it
// (so Typed("DATE", "2026-08-01") is a DATE). It panics on an invalid type
// or a failed cast, as a test helper.
func Typed(typ string, v any) Arg {
	t := types.MustParseType(typ)
	val := goValue(v)
	if val.IsNull() {
		return Arg{Value: types.Null, Type: t.Nullable()}
	}
	if c, err := udf.Coerce(val, t); err == nil {
		return Arg{Value: c, Type: t}
	}
	lit, err := expr.Lit(val, val.InferType().NonNull())
	if err == nil {
		var c expr.Expr
		if c, err = expr.Cast(lit, t, false); err == nil {
			if val, err = c.Eval(nil); err == nil {
				return Arg{Value: val, Type: t}
			}
		}
	}
	panic(fmt.Sprintf("udftest: Typed(%q, %v): %v", typ, v, err))
}

// goTypes are the SQL types of the Go argument values, NOT NULL.
var goTypes = map[reflect.Type]types.Type{
	reflect.TypeFor[bool]():          types.Boolean,
	reflect.TypeFor[int8]():          types.TinyInt,
	reflect.TypeFor[int16]():         types.SmallInt,
	reflect.TypeFor[int32]():         types.Int,
	reflect.TypeFor[int64]():         types.BigInt,
	reflect.TypeFor[int]():           types.BigInt,
	reflect.TypeFor[float32]():       types.Float,
	reflect.TypeFor[float64]():       types.Double,
	reflect.TypeFor[string]():        types.String,
	reflect.TypeFor[[]byte]():        types.Bytes,
	reflect.TypeFor[time.Time]():     types.Timestamp(9),
	reflect.TypeFor[time.Duration](): types.Interval,
}

// goValue converts a Go argument to a SQL value.
func goValue(v any) types.Value {
	switch x := v.(type) {
	case nil:
		return types.Null
	case types.Value:
		return x
	case bool:
		return types.NewBool(x)
	case int8:
		return types.NewInt(int64(x))
	case int16:
		return types.NewInt(int64(x))
	case int32:
		return types.NewInt(int64(x))
	case int64:
		return types.NewInt(x)
	case int:
		return types.NewInt(int64(x))
	case float32:
		return types.NewFloat(float64(x))
	case float64:
		return types.NewFloat(x)
	case string:
		return types.NewString(x)
	case []byte:
		return types.NewBytes(x)
	case time.Time:
		return types.NewTimestampTime(x)
	case time.Duration:
		return types.NewInterval(x)
	case *apd.Decimal:
		if x == nil {
			return types.Null
		}
		return types.NewDecimal(x)
	}
	panic(fmt.Sprintf("udftest: argument of Go type %T has no SQL type; use Typed", v))
}

// literals converts the arguments to literal expressions.
func literals(args []any) ([]expr.Expr, error) {
	out := make([]expr.Expr, len(args))
	for i, a := range args {
		var arg Arg
		switch x := a.(type) {
		case Arg:
			arg = x
		case types.Value:
			if x.IsNull() {
				arg = Arg{Value: x, Type: types.NullType}
			} else {
				arg = Arg{Value: x, Type: x.InferType().NonNull()}
			}
		case nil:
			arg = Arg{Value: types.Null, Type: types.NullType}
		case *apd.Decimal:
			arg = Typed("DECIMAL(38, 18)", x)
		default:
			t, ok := goTypes[reflect.TypeOf(a)]
			if !ok {
				return nil, fmt.Errorf("udftest: argument %d of Go type %T has no SQL type; use Typed", i+1, a)
			}
			arg = Arg{Value: goValue(a), Type: t.NonNull()}
		}
		l, err := expr.Lit(arg.Value, arg.Type)
		if err != nil {
			return nil, fmt.Errorf("udftest: argument %d: %w", i+1, err)
		}
		out[i] = l
	}
	return out, nil
}

// Result is the value of a scalar call and its SQL type.
type Result struct {
	Value types.Value
	Type  types.Type
}

// String renders the result as "value : TYPE".
func (r Result) String() string { return types.Format(r.Value, r.Type) + " : " + r.Type.String() }

// Call calls the scalar function f with args as SQL would.
func Call(f *udf.Scalar, args ...any) (Result, error) {
	if err := f.Validate(); err != nil {
		return Result{}, err
	}
	xs, err := literals(args)
	if err != nil {
		return Result{}, err
	}
	e, err := plan.UserScalarCall("f", f, xs)
	if err != nil {
		return Result{}, err
	}
	v, err := e.Eval(nil)
	return Result{Value: v, Type: e.Type()}, err
}

// Rows are the rows a table function emitted, with its columns.
type Rows struct {
	Columns *types.Schema
	Rows    [][]types.Value
}

// String renders the rows one per line as "[a, 1]".
func (r Rows) String() string {
	s := ""
	for _, row := range r.Rows {
		s += "["
		for i, v := range row {
			if i > 0 {
				s += ", "
			}
			s += types.Format(v, r.Columns.Fields[i].Type)
		}
		s += "]\n"
	}
	return s
}

// CallTable calls the table function f with args as SQL would and returns
// the rows it emitted.
func CallTable(f *udf.Table, args ...any) (Rows, error) {
	if err := f.Validate(); err != nil {
		return Rows{}, err
	}
	xs, err := literals(args)
	if err != nil {
		return Rows{}, err
	}
	fn, cast, cols, err := plan.UserTableCall("f", f, xs)
	if err != nil {
		return Rows{}, err
	}
	vals, err := evalAll(cast)
	if err != nil {
		return Rows{}, err
	}
	out := Rows{Columns: cols}
	err = guard(func() error {
		return fn.Eval(vals, func(row []types.Value) error {
			out.Rows = append(out.Rows, append([]types.Value(nil), row...))
			return nil
		})
	})
	return out, err
}

func evalAll(xs []expr.Expr) ([]types.Value, error) {
	vals := make([]types.Value, len(xs))
	for i, x := range xs {
		v, err := x.Eval(nil)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// guard runs f, turning a panic into an error.
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("function panicked: %v", r)
		}
	}()
	return f()
}
