package expr

import (
	"testing"

	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func TestRewrite(t *testing.T) {
	a := mustCol(t, 0, "a", types.Int)
	b := mustCol(t, 1, "b", types.String)
	c := mustCol(t, 2, "c", types.Int.NonNull())
	ten := mustLit(t, types.NewInt(10), types.Int.NonNull())
	must := func(e Expr, err error) Expr {
		t.Helper()
		require.NoError(t, err)
		return e
	}
	gt := must(Binary(">", a, ten))
	like := must(Binary("LIKE", b, mustLit(t, types.NewString("x%"), types.String.NonNull())))
	sum := must(Binary("+", a, c))
	cond := must(And(gt, like, must(Binary("=", sum, ten))))

	cols, ok := Columns(cond)
	require.True(t, ok)
	require.Equal(t, []int{0, 1, 2}, cols)
	require.Len(t, Conjuncts(cond), 3)
	require.Equal(t, "a > 10", Conjuncts(cond)[0].String())
	require.Nil(t, Conjuncts(nil))

	// a := x + 1 (an INT), b stays, c := 7: the condition reads the new
	// columns and evaluates as the composition.
	x := mustCol(t, 5, "x", types.Int)
	one := mustLit(t, types.NewInt(1), types.Int.NonNull())
	xPlus1 := must(Binary("+", x, one))
	sub := func(i int) Expr {
		switch i {
		case 0:
			return xPlus1
		case 2:
			return mustLit(t, types.NewInt(7), types.Int.NonNull())
		}
		return nil
	}
	got, ok := Substitute(cond, sub)
	require.True(t, ok)
	require.Equal(t, "x + 1 > 10 AND b LIKE 'x%' AND x + 1 + 7 = 10", got.String())
	row := make([]types.Value, 6)
	row[1], row[5] = types.NewString("xy"), types.NewInt(2)
	v, err := got.Eval(row)
	require.NoError(t, err)
	require.False(t, v.Bool(), "2+1+7 = 10 but 3 > 10 is false")
	row[5] = types.NewInt(12)
	v, err = got.Eval(row)
	require.NoError(t, err)
	require.False(t, v.Bool())
	require.Equal(t, "a > 10 AND b LIKE 'x%' AND a + c = 10", cond.String(), "the original is unchanged")
	s, ok := Substitute(sum, sub)
	require.True(t, ok)
	v, err = s.Eval(row)
	require.NoError(t, err)
	require.Equal(t, int64(20), v.Int(), "x + 1 + 7 with x = 12")

	// A replacement must have the column's type; it may be NOT NULL where
	// the column is nullable, not the other way round.
	_, ok = Substitute(gt, func(i int) Expr { return c })
	require.True(t, ok, "a is nullable, c is NOT NULL")
	_, ok = Substitute(must(Binary(">", c, ten)), func(i int) Expr { return a })
	require.False(t, ok, "c is NOT NULL, a is nullable")
	same, ok := Substitute(gt, func(int) Expr { return nil })
	require.True(t, ok)
	require.Same(t, gt, same)

	// Opaque expressions (a field access renders its original operand)
	// are left alone.
	r := mustCol(t, 3, "r", types.RowOf(types.Field{Name: "f", Type: types.Int}))
	field, err := Field(r, "f")
	require.NoError(t, err)
	_, ok = Columns(field)
	require.False(t, ok)
	_, ok = Substitute(field, func(int) Expr { return nil })
	require.False(t, ok)
	require.True(t, IsOpaque(field))
	require.False(t, IsOpaque(cond))

	// Two spellings of one expression over the same row render alike.
	k1 := mustCol(t, 2, "k", types.Int.NonNull())
	k2 := mustCol(t, 2, "t.k", types.Int.NonNull())
	c1, ok := Canonical(must(Binary("+", k1, one)))
	require.True(t, ok)
	c2, ok := Canonical(must(Binary("+", k2, one)))
	require.True(t, ok)
	require.Equal(t, "$2 + 1", c1)
	require.Equal(t, c1, c2)
	_, ok = Canonical(field)
	require.False(t, ok)

	require.True(t, IsDeterministic(cond))
	rnd := must(Call("RAND"))
	require.False(t, IsDeterministic(must(Binary(">", rnd, mustLit(t, types.NewFloat(0.5), types.Double.NonNull())))))
	require.False(t, IsDeterministic(field), "opaque")
}

func TestSingleValue(t *testing.T) {
	n := mustCol(t, 0, "n", types.BigInt.NonNull())
	v := mustCol(t, 1, "v", types.String.NonNull())
	x, err := SingleValue(n, v, "at 1:11")
	require.NoError(t, err)
	require.False(t, x.Type().NotNull)
	got, err := x.Eval([]types.Value{types.NewInt(1), types.NewString("a")})
	require.NoError(t, err)
	require.Equal(t, "a", got.Str())
	_, err = x.Eval([]types.Value{types.NewInt(2), types.NewString("a")})
	require.EqualError(t, err, "SingleValueAggFunction received more than one element. The scalar subquery at 1:11 returned 2 rows; a scalar subquery may return at most one.")
	_, err = SingleValue(v, n, "")
	require.Error(t, err, "the count must be an integer")
}
