package udf_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
	"github.com/eddy-sql/eddy/udf/udftest"
)

// A scalar function with two overloads built from Go functions: SQL picks
// the one that fits the arguments' types. A NULL string (declared NOT NULL
// by the Go type string) gives NULL without a call.
func ExampleScalar() {
	repeat := &udf.Scalar{
		Doc: "Repeat(s, n) is s repeated n times; Repeat(n) is n stars.",
		Overloads: []udf.Overload{
			udf.Func2(func(_ context.Context, s string, n int64) (string, error) {
				if n < 0 {
					return "", fmt.Errorf("negative count %d", n)
				}
				return strings.Repeat(s, int(n)), nil
			}),
			udf.Func1(func(_ context.Context, n int32) (string, error) { return strings.Repeat("*", int(n)), nil }),
		},
	}
	for _, args := range [][]any{{"ab", int64(3)}, {"x", int32(2)}, {int32(4)}, {nil, int64(2)}, {"x", int64(-1)}} {
		r, err := udftest.Call(repeat, args...)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(r)
	}
	// Output:
	// ababab : STRING NOT NULL
	// xx : STRING NOT NULL
	// **** : STRING NOT NULL
	// <NULL> : STRING
	// error: function f: negative count -1
}

// Type inference: the result type follows the argument's type.
func ExampleOverload_WithInfer() {
	twice := &udf.Scalar{Overloads: []udf.Overload{udf.Overload{
		Args: []string{"ARRAY<INT>"},
		Eval: func(_ context.Context, a []types.Value) (types.Value, error) {
			if a[0].IsNull() {
				return types.Null, nil
			}
			return types.NewArray(append(a[0].Array(), a[0].Array()...)), nil
		},
	}.WithInfer(func(args []types.Type) (types.Type, error) { return args[0], nil })}}
	r, err := udftest.Call(twice, udftest.Typed("ARRAY<INT>", types.NewArray([]types.Value{types.NewInt(1), types.NewInt(2)})))
	fmt.Println(r, err)
	// Output: [1, 2, 1, 2] : ARRAY<INT> <nil>
}

// A table function: SELECT ... FROM t, LATERAL TABLE(Pairs(t.csv)).
func ExampleTable() {
	pairs := &udf.Table{
		Output: "ROW<k STRING, v STRING>",
		Overloads: []udf.TableOverload{
			udf.Table1(func(_ context.Context, out *udf.Collector, s string) error {
				for _, kv := range strings.Split(s, ",") {
					k, v, _ := strings.Cut(kv, "=")
					if err := out.Emit(k, v); err != nil {
						return err
					}
				}
				return nil
			}),
		},
	}
	rows, err := udftest.CallTable(pairs, "a=1,b=2")
	fmt.Print(rows)
	fmt.Println(err)
	// Output:
	// [a, 1]
	// [b, 2]
	// <nil>
}

// An aggregate function with a Go accumulator, kept in state between
// rows; Retract lets it aggregate updating input.
func ExampleAggregate() {
	type acc struct{ Max, Count int64 }
	maxCount := &udf.Aggregate[acc]{
		Doc:    "MaxCount(x): how many rows hold the largest x seen (without retraction of the maximum, for brevity).",
		Args:   []string{"BIGINT NOT NULL"},
		Result: "BIGINT NOT NULL",
		Accumulate: func(_ context.Context, a *acc, args []types.Value) error {
			switch x := args[0].Int(); {
			case a.Count == 0 || x > a.Max:
				a.Max, a.Count = x, 1
			case x == a.Max:
				a.Count++
			}
			return nil
		},
		Retract: func(_ context.Context, a *acc, args []types.Value) error {
			if args[0].Int() == a.Max {
				a.Count--
			}
			return nil
		},
		Value: func(_ context.Context, a *acc) (types.Value, error) { return types.NewInt(a.Count), nil },
	}
	g, err := udftest.NewAggregate(maxCount, "BIGINT")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, x := range []int64{3, 5, 5, 1} {
		_ = g.Add(x)
	}
	_ = g.Restore() // through the state encoding, as after a checkpoint
	_ = g.Retract(int64(5))
	v, _ := g.Value()
	fmt.Println(v, g.Type())
	// Output: 1 BIGINT NOT NULL
}
