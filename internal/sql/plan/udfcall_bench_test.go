package plan

import (
	"context"
	"testing"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
)

// BenchmarkUserScalar: the cost of calling a typed user-defined scalar
// function, Add(BIGINT, BIGINT), per row, against the built-in a + b and
// a hand-written Go loop (the practical limit).
func BenchmarkUserScalar(b *testing.B) {
	add := &udf.Scalar{Overloads: []udf.Overload{
		udf.Func2(func(_ context.Context, x, y int64) (int64, error) { return x + y, nil }),
	}}
	ca, _ := expr.Col(0, "a", types.BigInt.NonNull())
	cb, _ := expr.Col(1, "b", types.BigInt.NonNull())
	user, err := UserScalarCall("Add", add, []expr.Expr{ca, cb})
	if err != nil {
		b.Fatal(err)
	}
	builtin, err := expr.Binary("+", ca, cb)
	if err != nil {
		b.Fatal(err)
	}
	row := []types.Value{types.NewInt(3), types.NewInt(4)}
	for _, c := range []struct {
		name string
		e    expr.Expr
	}{{"udf", user}, {"builtin", builtin}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.e.Eval(row); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		var sink int64
		for b.Loop() {
			sink += row[0].Int() + row[1].Int()
		}
		_ = sink
	})
}
