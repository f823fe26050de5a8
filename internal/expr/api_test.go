package expr

import (
	"math"
	"sync"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func mustLit(t testing.TB, v types.Value, typ types.Type) Expr {
	e, err := Lit(v, typ)
	require.NoError(t, err)
	return e
}

func mustCol(t testing.TB, i int, name string, typ types.Type) Expr {
	e, err := Col(i, name, typ)
	require.NoError(t, err)
	return e
}

func requireCode(t *testing.T, err error, code sqlerr.Code) {
	t.Helper()
	require.Error(t, err)
	e, ok := sqlerr.As(err)
	require.True(t, ok, "not a *sqlerr.Error: %v", err)
	require.Equal(t, code, e.Code, "%v", err)
	require.False(t, e.Pos.IsValid(), "constructor errors carry no position")
}

func TestLitValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    types.Value
		t    types.Type
		ok   bool
	}{
		{"int", types.NewInt(1), types.Int, true},
		{"tinyint range", types.NewInt(300), types.TinyInt, false},
		{"int range", types.NewInt(math.MaxInt32 + 1), types.Int, false},
		{"kind mismatch", types.NewString("x"), types.Int, false},
		{"null nullable", types.Null, types.Int, true},
		{"null not null", types.Null, types.Int.NonNull(), false},
		{"untyped null", types.Null, types.NullType, true},
		{"value of NULL type", types.NewInt(1), types.NullType, false},
		{"decimal overflow", types.NewDecimal(apd.New(12345, 0)), types.Decimal(4, 0), false},
		{"array elem", types.NewArray([]types.Value{types.NewString("x")}), types.ArrayOf(types.Int), false},
		{"row arity", types.NewRow([]types.Value{types.NewInt(1)}), types.RowOf(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Lit(tc.v, tc.t)
			if tc.ok {
				require.NoError(t, err)
			} else {
				requireCode(t, err, sqlerr.TypeMismatch)
			}
		})
	}
	// DECIMAL literals are rescaled (HALF_UP) to the type's scale.
	e, err := Lit(types.NewDecimal(apd.New(125, -2)), types.Decimal(3, 1))
	require.NoError(t, err)
	v, err := e.Eval(nil)
	require.NoError(t, err)
	require.Equal(t, "1.3", v.Decimal().Text('f'))
}

func TestConstructorErrors(t *testing.T) {
	one := mustLit(t, types.NewInt(1), types.Int.NonNull())
	_, err := Col(-1, "x", types.Int)
	requireCode(t, err, sqlerr.Internal)
	_, err = Binary("^", one, one)
	requireCode(t, err, sqlerr.Internal)
	_, err = Binary("+", one, nil)
	requireCode(t, err, sqlerr.Internal)
	_, err = Unary("~", one)
	requireCode(t, err, sqlerr.Internal)
	_, err = Case(nil, []Expr{one}, nil, nil)
	requireCode(t, err, sqlerr.Internal)
	_, err = In(one, nil, false)
	requireCode(t, err, sqlerr.Internal)
	_, err = Call("FOO", one)
	requireCode(t, err, sqlerr.UnknownFunction)
	_, err = Call("upper")
	requireCode(t, err, sqlerr.InvalidFunction)
	_, err = Binary("+", one, mustLit(t, types.NewString("a"), types.String))
	requireCode(t, err, sqlerr.TypeMismatch)
	require.EqualError(t, err, "cannot apply '+' to arguments of type INT and STRING")
	_, err = Binary("=", one, mustLit(t, types.NewString("a"), types.String))
	require.EqualError(t, err, "cannot compare INT with STRING")
	_, _, err = NumericLiteral("x")
	requireCode(t, err, sqlerr.Syntax)
	_, _, err = IntervalLiteral("1", "FORTNIGHT")
	requireCode(t, err, sqlerr.Syntax)
	// Operators are case- and space-insensitive.
	e, err := Unary("is  not null", one)
	require.NoError(t, err)
	require.Equal(t, "1 IS NOT NULL", e.String())
}

func TestEvalErrors(t *testing.T) {
	c := mustCol(t, 3, "d", types.Int)
	_, err := c.Eval([]types.Value{types.NewInt(1)})
	requireCode(t, err, sqlerr.Internal)
	zero := mustLit(t, types.NewInt(0), types.Int.NonNull())
	div, err := Binary("/", mustLit(t, types.NewInt(1), types.Int.NonNull()), zero)
	require.NoError(t, err)
	_, err = div.Eval(nil)
	requireCode(t, err, sqlerr.Runtime)
	require.Equal(t, "$0", mustCol(t, 0, "", types.Int).String())
}

func TestJavaFloat(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		bits int
		want string
	}{
		{120, 64, "120.0"},
		{0.1, 64, "0.1"},
		{-0.0, 64, "0.0"},
		{math.Copysign(0, -1), 64, "-0.0"},
		{1e7, 64, "1.0E7"},
		{9999999, 64, "9999999.0"},
		{0.001, 64, "0.001"},
		{0.0009, 64, "9.0E-4"},
		{1.2345e-10, 64, "1.2345E-10"},
		{math.MaxFloat64, 64, "1.7976931348623157E308"},
		{float64(float32(0.1)), 32, "0.1"},
		{float64(float32(3.4e38)), 32, "3.4E38"},
		{math.Inf(1), 64, "Infinity"},
		{math.NaN(), 64, "NaN"},
	} {
		require.Equal(t, tc.want, javaFloat(tc.f, tc.bits), "%v", tc.f)
	}
}

// TestConcurrentEval checks (under -race) that expressions are safe for
// concurrent use.
func TestConcurrentEval(t *testing.T) {
	e := filterExpr(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			row := []types.Value{types.NewInt(11), types.NewString("x")}
			for range 1000 {
				v, err := e.Eval(row)
				if err != nil || !v.Bool() {
					t.Errorf("got %v, %v", v, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// filterExpr is a > 10 AND b IS NOT NULL over (a INT, b STRING).
func filterExpr(t testing.TB) Expr {
	a := mustCol(t, 0, "a", types.Int)
	b := mustCol(t, 1, "b", types.String)
	v, typ, err := NumericLiteral("10")
	require.NoError(t, err)
	gt, err := Binary(">", a, mustLit(t, v, typ))
	require.NoError(t, err)
	nn, err := Unary("IS NOT NULL", b)
	require.NoError(t, err)
	and, err := Binary("AND", gt, nn)
	require.NoError(t, err)
	return and
}

// TestNoAlloc pins the zero-allocation guarantee of the hot paths.
func TestNoAlloc(t *testing.T) {
	cols := []types.Type{types.Int, types.String, types.BigInt, types.Timestamp(3), types.Boolean, types.Double, types.Date}
	row := []types.Value{types.NewInt(11), types.NewString("x"), types.NewInt(5),
		types.NewTimestampMillis(1785574800000), types.NewBool(true), types.NewFloat(1.5), types.NewDate(20000)}
	env := &testEnv{names: []string{"a", "b", "c", "t", "f", "d", "dt"}, cols: cols, row: row}
	for _, src := range []string{
		"(and (> a 10) (is-not-null b))",
		"(or (= c 5) (< a 0))",
		"(+ (* a 3) (- c 1))",
		"(/ c (% a 7))",
		"(- a)",
		"(not f)",
		"(is-true f)",
		"(+ t (interval '90' MINUTE))",
		"(- t (interval '1' MONTH))",
		"(< t (+ t (interval '1' SECOND)))",
		"(+ dt (interval '1' DAY))",
		"(= dt t)",
		"(> (* d 2) 1e0)",
		"(between a 1 20)",
		"(in a 1 2 11)",
		"(= b 'x')",
		"(like b 'x%')",
		"(CHAR_LENGTH b)",
		"(SUBSTRING b 1 1)",
		"(COALESCE a c)",
		"(case (when (> a 10) c) (else 0))",
		"(distinct a c)",
		"(cast a \"BIGINT\")",
		"(ABS (- a))",
		// Fixed-width built-in functions (fnExpr passes arguments by value).
		"(POWER d 2)",
		"(> (SQRT (ABS d)) (LN (EXP d)))",
		"(SIGN c)",
		"(FLOOR d)",
		"(ROUND a -1)",
		"(MOD a 3)",
		"(EXTRACT 'HOUR' t)",
		"(DAYOFWEEK dt)",
		"(FLOOR t 'HOUR')",
		"(CEIL dt 'MONTH')",
		"(TIMESTAMPADD 'DAY' 3 t)",
		"(TIMESTAMPDIFF 'MONTH' dt t)",
		"(CURRENT_TIMESTAMP)",
		"(UNIX_TIMESTAMP)",
		"(POSITION 'x' b)",
		"(LOCATE 'x' b 1)",
		"(ASCII b)",
		"(REGEXP b 'x+')",
		"(STARTSWITH b 'x')",
		"(LEFT b 1)",
		"(HASH_CODE c)",
		"(RAND 7)",
		"(RAND_INTEGER 7 10)",
		"(GREATEST a 3)",
		"(IFNULL a 0)",
		"(IF f a 0)",
	} {
		e, err := env.parse(src)
		require.NoError(t, err, src)
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := e.Eval(row); err != nil {
				t.Fatal(err)
			}
		})
		require.Zero(t, allocs, "%s allocates", src)
	}
}
