package expr

import (
	"math"
	"testing"

	"github.com/eddy-sql/eddy/types"
)

// BenchmarkEvalFilter evaluates a > 10 AND b IS NOT NULL over (INT, STRING).
func BenchmarkEvalFilter(b *testing.B) {
	e := filterExpr(b)
	rows := [][]types.Value{
		{types.NewInt(11), types.NewString("x")},
		{types.NewInt(5), types.NewString("y")},
		{types.NewInt(20), types.Null},
		{types.Null, types.NewString("z")},
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := e.Eval(rows[i&3]); err != nil {
			b.Fatal(err)
		}
	}
}

func benchExpr(b *testing.B, src string, cols []types.Type, row []types.Value) {
	names := []string{"a", "b", "c", "d"}
	env := &testEnv{names: names[:len(cols)], cols: cols, row: row}
	e, err := env.parse(src)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Eval(row); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvalIntArith(b *testing.B) {
	benchExpr(b, "(+ (* a 3) (- b 1))", []types.Type{types.Int, types.BigInt},
		[]types.Value{types.NewInt(7), types.NewInt(9)})
}

func BenchmarkEvalTimestampPlusInterval(b *testing.B) {
	benchExpr(b, "(< (+ a (interval '5' SECOND)) b)", []types.Type{types.Timestamp(3), types.Timestamp(3)},
		[]types.Value{types.NewTimestampMillis(1785574800000), types.NewTimestampMillis(1785574900000)})
}

func BenchmarkEvalDecimalArith(b *testing.B) {
	benchExpr(b, "(* (+ a 1.5) a)", []types.Type{types.Decimal(10, 2)},
		[]types.Value{mustDecimal(b, "123.45")})
}

func BenchmarkEvalStringCompare(b *testing.B) {
	benchExpr(b, "(and (= a 'hello') (like b 'wor%'))", []types.Type{types.String, types.String},
		[]types.Value{types.NewString("hello"), types.NewString("world")})
}

func mustDecimal(b *testing.B, s string) types.Value {
	v, _, err := NumericLiteral(s)
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkEvalMathFuncs evaluates fixed-width math functions; it reports
// 0 allocs/op (see TestNoAlloc).
func BenchmarkEvalMathFuncs(b *testing.B) {
	benchExpr(b, "(> (+ (POWER a 2) (SQRT (ABS b))) (SIGN (FLOOR a)))", []types.Type{types.Double, types.Double},
		[]types.Value{types.NewFloat(1.5), types.NewFloat(-9)})
}

// BenchmarkEvalRoundDouble evaluates ROUND on a DOUBLE, which rounds the
// shortest decimal representation HALF_UP like Java's BigDecimal (so
// ROUND(2.675, 2) is 2.68) and allocates.
func BenchmarkEvalRoundDouble(b *testing.B) {
	benchExpr(b, "(ROUND a 2)", []types.Type{types.Double}, []types.Value{types.NewFloat(2.675)})
}

// BenchmarkEvalTemporalFuncs evaluates EXTRACT, FLOOR TO and TIMESTAMPADD.
func BenchmarkEvalTemporalFuncs(b *testing.B) {
	benchExpr(b, "(and (> (EXTRACT 'HOUR' a) 3) (< (FLOOR a 'DAY') (TIMESTAMPADD 'MONTH' 1 a)))",
		[]types.Type{types.Timestamp(3)}, []types.Value{types.NewTimestampMillis(1785574800000)})
}

// BenchmarkEvalRegexpLiteral evaluates REGEXP with a literal pattern,
// compiled once when the expression is built.
func BenchmarkEvalRegexpLiteral(b *testing.B) {
	benchExpr(b, "(REGEXP a '^[a-z]+[0-9]{2}$')", []types.Type{types.String},
		[]types.Value{types.NewString("order42")})
}

// BenchmarkEvalStringFuncs evaluates string functions that build strings
// (these allocate their result).
func BenchmarkEvalStringFuncs(b *testing.B) {
	benchExpr(b, "(CONCAT_WS '-' (UPPER a) (LPAD a 10 '*') (REPLACE a 'o' '0'))", []types.Type{types.String},
		[]types.Value{types.NewString("hello")})
}

// BenchmarkEvalFixedWidth checks the zero-allocation claim for
// fixed-width expressions: a filter and a projection over INT, BIGINT and
// DOUBLE columns with operators, CASE and math functions, evaluated per
// row, against a hand-written Go loop computing the same values (the
// practical limit). Both report allocs/op; the expression's must be 0.
func BenchmarkEvalFixedWidth(b *testing.B) {
	cols := []types.Type{types.Int, types.BigInt, types.Double}
	env := &testEnv{names: []string{"a", "b", "c"}, cols: cols}
	srcs := []string{
		"(and (> (+ (* a 3) b) 10) (is-not-null c))",
		"(+ (SQRT (ABS c)) (POWER c 2))",
		"(case (when (> a 0) (MOD b 7)) (else (- b)))",
	}
	var es []Expr
	for _, s := range srcs {
		e, err := env.parse(s)
		if err != nil {
			b.Fatal(err)
		}
		es = append(es, e)
	}
	rows := make([][]types.Value, 1024)
	for i := range rows {
		rows[i] = []types.Value{types.NewInt(int64(i%50 - 10)), types.NewInt(int64(i * 7)), types.NewFloat(float64(i) / 3)}
	}
	b.Run("expr", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			row := rows[i&1023]
			for _, e := range es {
				if _, err := e.Eval(row); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		var sink float64
		for i := 0; b.Loop(); i++ {
			row := rows[i&1023]
			a, bb, c := row[0].Int(), row[1].Int(), row[2].Float()
			if int64(int32(a*3))+bb > 10 && !row[2].IsNull() {
				sink++
			}
			sink += math.Sqrt(math.Abs(c)) + math.Pow(c, 2)
			if a > 0 {
				sink += float64(bb % 7)
			} else {
				sink -= float64(bb)
			}
		}
		_ = sink
	})
}
