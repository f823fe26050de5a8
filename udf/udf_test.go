package udf_test

import (
	"context"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
	"github.com/eddy-sql/eddy/udf/udftest"
	"github.com/stretchr/testify/require"
)

// TestTypedSignatures: the SQL types of typed overloads come from the Go
// types (pointers nullable), WithArgs keeps NOT NULL for Go types that
// cannot hold NULL, and Returns overrides the result.
func TestTypedSignatures(t *testing.T) {
	s := &udf.Scalar{Overloads: []udf.Overload{
		udf.Func4(func(context.Context, bool, int8, *int16, float32) (*string, error) { return nil, nil }),
		udf.Func3(func(context.Context, []byte, time.Time, time.Duration) (int32, error) { return 0, nil }),
		udf.Func1(func(context.Context, *apd.Decimal) (*apd.Decimal, error) { return nil, nil }).
			WithArgs("DECIMAL(10, 2)").Returns("DECIMAL(12, 2)"),
		udf.Func1(func(context.Context, string) (string, error) { return "", nil }).WithArgs("VARCHAR(5)"),
		udf.Func1(func(context.Context, types.Value) (types.Value, error) { return types.Null, nil }).Returns("INT"),
		udf.FuncN(func(context.Context, ...int64) (int64, error) { return 0, nil }),
		udf.Func0(func(context.Context) (float64, error) { return 0, nil }),
	}}
	require.NoError(t, s.Validate())
	require.Equal(t, []string{
		"(BOOLEAN NOT NULL, TINYINT NOT NULL, SMALLINT, FLOAT NOT NULL) -> STRING",
		"(BYTES NOT NULL, TIMESTAMP(9) NOT NULL, INTERVAL DAY TO SECOND(3) NOT NULL) -> INT NOT NULL",
		"(DECIMAL(10, 2)) -> DECIMAL(12, 2)",
		"(VARCHAR(5) NOT NULL) -> STRING NOT NULL",
		"(ANY) -> INT",
		"(BIGINT NOT NULL...) -> BIGINT NOT NULL",
		"() -> DOUBLE NOT NULL",
	}, s.Signatures())
}

func TestValidate(t *testing.T) {
	type acc struct{}
	for _, f := range []udf.Function{
		&udf.Scalar{},
		&udf.Scalar{Overloads: []udf.Overload{{Args: []string{"INT"}, Result: "INT"}}},
		&udf.Scalar{Overloads: []udf.Overload{{Args: []string{"NOPE"}, Result: "INT", Eval: func(context.Context, []types.Value) (types.Value, error) { return types.Null, nil }}}},
		&udf.Scalar{Overloads: []udf.Overload{udf.Func1(func(context.Context, types.Value) (types.Value, error) { return types.Null, nil })}},
		&udf.Scalar{Overloads: []udf.Overload{udf.Func1(func(context.Context, chan int) (int64, error) { return 0, nil })}},
		&udf.Table{Output: "ROW<>", Overloads: []udf.TableOverload{udf.Table0(func(context.Context, *udf.Collector) error { return nil })}},
		&udf.Table{Overloads: []udf.TableOverload{udf.Table0(func(context.Context, *udf.Collector) error { return nil })}},
		&udf.Table{Output: "INT"},
		&udf.Aggregate[acc]{Args: []string{"INT"}, Result: "INT"},
		&udf.Aggregate[acc]{Args: []string{"INT"}, Accumulate: func(context.Context, *acc, []types.Value) error { return nil },
			Value: func(context.Context, *acc) (types.Value, error) { return types.Null, nil }},
	} {
		require.Error(t, f.Validate(), "%#v", f)
	}
}

// TestResolve: an exact overload wins over an earlier one the arguments
// cast to; NULL fits any type; arity and variadic overloads.
func TestResolve(t *testing.T) {
	parse := func(decls ...string) udf.OverloadArgs {
		s := &udf.Scalar{Overloads: []udf.Overload{{Args: decls, Result: "INT", Eval: func(context.Context, []types.Value) (types.Value, error) { return types.Null, nil }}}}
		return s.ArgTypes()[0]
	}
	ovs := []udf.OverloadArgs{parse("BIGINT"), parse("INT"), parse("STRING", "INT")}
	v := parse("DOUBLE")
	v.Variadic = true
	ovs = append(ovs, v)
	castable := func(from, to types.Type) bool { return from.IsInteger() && to.IsInteger() && from.ID <= to.ID }
	for _, c := range []struct {
		args []types.Type
		want int
		ok   bool
	}{
		{[]types.Type{types.Int}, 1, true},
		{[]types.Type{types.BigInt}, 0, true},
		{[]types.Type{types.SmallInt}, 0, true}, // cast: the first that fits
		{[]types.Type{types.NullType}, 0, true},
		{[]types.Type{types.String, types.Int.NonNull()}, 2, true},
		{[]types.Type{types.Double, types.Double, types.Double}, 3, true},
		{[]types.Type{types.Boolean}, 0, false},
		{nil, 3, true}, // a variadic overload takes no arguments too
	} {
		r, ok := udf.Resolve(ovs, c.args, castable)
		require.Equal(t, c.ok, ok, "%v", c.args)
		if ok {
			require.Equal(t, c.want, r.Index, "%v", c.args)
		}
	}
}

// TestGoValues: values convert to Go parameters and back, pointers carry
// NULL.
func TestGoValues(t *testing.T) {
	echo := func(o udf.Overload) *udf.Scalar { return &udf.Scalar{Overloads: []udf.Overload{o}} }
	ts := time.Date(2026, 8, 1, 9, 30, 0, 123456789, time.UTC)
	for _, c := range []struct {
		f    *udf.Scalar
		arg  any
		want string
	}{
		{echo(udf.Func1(func(_ context.Context, b bool) (bool, error) { return !b, nil })), true, "FALSE : BOOLEAN NOT NULL"},
		{echo(udf.Func1(func(_ context.Context, i int8) (int8, error) { return i + 1, nil })), int8(1), "2 : TINYINT NOT NULL"},
		{echo(udf.Func1(func(_ context.Context, i int) (int, error) { return i * 2, nil })), int64(21), "42 : BIGINT NOT NULL"},
		{echo(udf.Func1(func(_ context.Context, f float32) (float32, error) { return f / 2, nil })), float32(3), "1.5 : FLOAT NOT NULL"},
		{echo(udf.Func1(func(_ context.Context, b []byte) ([]byte, error) { return append(b, 0xff), nil })), []byte{1}, "x'01ff' : BYTES NOT NULL"},
		{echo(udf.Func1(func(_ context.Context, tm time.Time) (time.Time, error) { return tm.Add(time.Hour), nil })), ts, "2026-08-01 10:30:00.123456789 : TIMESTAMP(9) NOT NULL"},
		{echo(udf.Func1(func(_ context.Context, d time.Duration) (time.Duration, error) { return 2 * d, nil })), time.Minute, "+0 00:02:00.000 : INTERVAL DAY TO SECOND(3) NOT NULL"},
		{echo(udf.Func1(func(_ context.Context, p *int64) (*int64, error) { return p, nil })), nil, "<NULL> : BIGINT"},
		{echo(udf.Func1(func(_ context.Context, p *string) (string, error) {
			if p == nil {
				return "nil", nil
			}
			return *p, nil
		})), nil, "nil : STRING NOT NULL"},
		{echo(udf.Func1(func(_ context.Context, d *apd.Decimal) (*apd.Decimal, error) { return d, nil }).WithArgs("DECIMAL(5, 2)").Returns("DECIMAL(5, 2)")),
			udftest.Typed("DECIMAL(5, 2)", "1.25"), "1.25 : DECIMAL(5, 2)"},
	} {
		r, err := udftest.Call(c.f, c.arg)
		require.NoError(t, err, c.want)
		require.Equal(t, c.want, r.String())
	}
}

func TestRegistry(t *testing.T) {
	r := udf.NewRegistry()
	s := &udf.Scalar{Overloads: []udf.Overload{udf.Func0(func(context.Context) (int64, error) { return 1, nil })}}
	require.NoError(t, r.Register("acme.One", s))
	require.ErrorContains(t, r.Register("acme.One", s), "already registered")
	require.ErrorContains(t, r.Register("not an id", s), "dotted identifiers")
	require.ErrorContains(t, r.Register("acme.Bad", &udf.Scalar{}), "no overloads")
	require.ErrorContains(t, r.Register("acme.Nil", nil), "nil")
	f, ok := r.Lookup("acme.One")
	require.True(t, ok)
	require.Same(t, s, f)
	require.Equal(t, []string{"acme.One"}, r.IDs())
	var none *udf.Registry
	_, ok = none.Lookup("x")
	require.False(t, ok)
}

func TestCoerce(t *testing.T) {
	v, err := udf.Coerce(types.NewInt(2), types.Double)
	require.NoError(t, err)
	require.Equal(t, types.NewFloat(2), v)
	_, err = udf.Coerce(types.NewString("x"), types.Int)
	require.ErrorContains(t, err, "for type INT")
	_, err = udf.Coerce(types.Null, types.Int.NonNull())
	require.Error(t, err)
}
