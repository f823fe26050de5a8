package udftest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
	"github.com/eddy-sql/eddy/udf/udftest"
	"github.com/stretchr/testify/require"
)

var lengths = &udf.Scalar{Overloads: []udf.Overload{
	udf.Func1(func(_ context.Context, s string) (int64, error) {
		switch s {
		case "panic":
			panic("no")
		case "err":
			return 0, errors.New("bad input")
		}
		return int64(len(s)), nil
	}),
	udf.Func1(func(_ context.Context, n int64) (int64, error) { return n, nil }),
}}

// TestCall: overloads by SQL type with implicit casts (INT to BIGINT),
// NULL propagation for NOT NULL arguments, errors and panics as errors,
// and a clear error when no overload fits.
func TestCall(t *testing.T) {
	r, err := udftest.Call(lengths, "héllo")
	require.NoError(t, err)
	require.Equal(t, "6 : BIGINT NOT NULL", r.String())
	r, err = udftest.Call(lengths, int32(7)) // INT to BIGINT
	require.NoError(t, err)
	require.Equal(t, "7 : BIGINT NOT NULL", r.String())
	r, err = udftest.Call(lengths, udftest.Typed("STRING", nil))
	require.NoError(t, err)
	require.Equal(t, "<NULL> : BIGINT", r.String())
	_, err = udftest.Call(lengths, "err")
	require.ErrorContains(t, err, "bad input")
	_, err = udftest.Call(lengths, "panic")
	require.ErrorContains(t, err, "panicked: no")
	_, err = udftest.Call(lengths, true)
	require.ErrorContains(t, err, "No signature")
	_, err = udftest.Call(lengths, struct{}{})
	require.ErrorContains(t, err, "no SQL type")
}

// TestCallResultChecked: a result that does not fit the declared type is
// an error, not a wrong value.
func TestCallResultChecked(t *testing.T) {
	bad := &udf.Scalar{Overloads: []udf.Overload{{
		Result: "INT NOT NULL",
		Eval:   func(context.Context, []types.Value) (types.Value, error) { return types.NewString("x"), nil },
	}, {
		Args:   []string{"INT"},
		Result: "INT NOT NULL",
		Eval:   func(context.Context, []types.Value) (types.Value, error) { return types.Null, nil },
	}}}
	_, err := udftest.Call(bad)
	require.ErrorContains(t, err, "for type INT")
	_, err = udftest.Call(bad, int32(1))
	require.ErrorContains(t, err, "returned NULL")
}

var split = &udf.Table{
	Output: "ROW<part STRING, n INT>",
	Overloads: []udf.TableOverload{
		udf.Table2(func(_ context.Context, out *udf.Collector, s string, sep *string) error {
			d := ","
			if sep != nil {
				d = *sep
			}
			for i, p := range splitOn(s, d) {
				if p == "!" {
					return out.Emit(p) // wrong width
				}
				if err := out.Emit(p, i); err != nil {
					return err
				}
			}
			return nil
		}),
	},
}

func splitOn(s, sep string) []string {
	var out []string
	for {
		i := indexOf(s, sep)
		if i < 0 {
			return append(out, s)
		}
		out, s = append(out, s[:i]), s[i+len(sep):]
	}
}

func indexOf(s, sep string) int {
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i:i+len(sep)] == sep {
			return i
		}
	}
	return -1
}

func TestCallTable(t *testing.T) {
	rows, err := udftest.CallTable(split, "a,b", nil)
	require.NoError(t, err)
	require.Equal(t, "[a, 0]\n[b, 1]\n", rows.String())
	rows, err = udftest.CallTable(split, "a;b", ";")
	require.NoError(t, err)
	require.Len(t, rows.Rows, 2)
	rows, err = udftest.CallTable(split, udftest.Typed("STRING", nil), ";")
	require.NoError(t, err)
	require.Empty(t, rows.Rows, "a NULL NOT NULL argument emits nothing")
	_, err = udftest.CallTable(split, "x,!", nil)
	require.ErrorContains(t, err, "emitted 1 values, but the output has 2 columns")
}

type sumAcc struct{ Sum, N int64 }

var avg = &udf.Aggregate[sumAcc]{
	Args:   []string{"BIGINT"},
	Result: "BIGINT",
	Accumulate: func(_ context.Context, a *sumAcc, args []types.Value) error {
		if !args[0].IsNull() { // a nullable argument: NULL handling is the function's
			a.Sum += args[0].Int()
			a.N++
		}
		return nil
	},
	Retract: func(_ context.Context, a *sumAcc, args []types.Value) error {
		if !args[0].IsNull() {
			a.Sum -= args[0].Int()
			a.N--
		}
		return nil
	},
	Value: func(_ context.Context, a *sumAcc) (types.Value, error) {
		if a.N == 0 {
			return types.Null, nil
		}
		return types.NewInt(a.Sum / a.N), nil
	},
}

// TestAggregate: accumulate, retract, NULLs passed to a nullable
// argument, an INT column cast to the declared BIGINT, and the
// accumulator through its encoding.
func TestAggregate(t *testing.T) {
	g, err := udftest.NewAggregate(avg, "INT")
	require.NoError(t, err)
	require.Equal(t, "BIGINT", g.Type().String())
	v, err := g.Value()
	require.NoError(t, err)
	require.True(t, v.IsNull())
	for _, x := range []any{int64(2), nil, int64(4), int64(9)} {
		require.NoError(t, g.Add(x))
	}
	require.NoError(t, g.Restore())
	require.NoError(t, g.Retract(int64(9)))
	v, err = g.Value()
	require.NoError(t, err)
	require.Equal(t, types.NewInt(3), v)
	require.ErrorContains(t, g.Add("x"), "for type INT")
	require.ErrorContains(t, g.Add(), "0 arguments")
	_, err = udftest.NewAggregate(avg, "STRING")
	require.ErrorContains(t, err, "No signature")
}
