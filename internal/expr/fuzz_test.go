package expr

import (
	"math"
	"testing"

	"github.com/eddy-sql/eddy/types"
)

// FuzzEval builds random expression trees from the input bytes through the
// public constructors and evaluates them over a row of values and a row of
// NULLs. Constructors may reject a tree; nothing may panic, and every
// successful result must be a valid value of the expression's type (in
// particular never NULL for a NOT NULL type).
func FuzzEval(f *testing.F) {
	for _, seed := range []string{
		"", "\x00", "\x01\x02\x03", "\x10\x20\x30\x40\x50", "\xff\xfe\xfd\xfc\xfb\xfa",
		"\x05\x00\x01\x05\x02\x03\x07", "\x09\x09\x09\x01\x02\x03\x04\x05\x06\x07\x08",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &fuzzGen{data: data}
		e := g.expr(0)
		_ = e.String()
		for _, row := range [][]types.Value{fuzzRow, fuzzNullRow} {
			v, err := e.Eval(row)
			if err != nil {
				continue
			}
			if msg := checkResult(v, e.Type()); msg != "" {
				t.Fatalf("%s: %s", e, msg)
			}
		}
	})
}

var fuzzCols = []types.Type{
	types.Int, types.BigInt, types.TinyInt, types.Double, types.Float, types.Decimal(10, 2),
	types.String, types.Char(3), types.Boolean, types.Timestamp(3), types.TimestampLTZ(3),
	types.Date, types.Time(0), types.Interval, types.IntervalM, types.Bytes,
	types.ArrayOf(types.Int), types.Int.NonNull(),
}

var fuzzRow = []types.Value{
	types.NewInt(math.MaxInt32), types.NewInt(math.MinInt64), types.NewInt(-128), types.NewFloat(math.NaN()),
	types.NewFloat(float64(float32(0.1))), mustDec("-12345678.99"), types.NewString("héllo"), types.NewString("ab "),
	types.NewBool(true), types.NewTimestampMillis(1785574800123), types.NewTimestampMillis(-1),
	types.NewDate(-719162), types.NewTime(nanosPerDay - 1), types.NewInterval(-1), types.NewIntervalMonths(13),
	types.NewBytes([]byte{0, 255}), types.NewArray([]types.Value{types.NewInt(1), types.Null}), types.NewInt(0),
}

// fuzzNullRow is NULL in every nullable column.
var fuzzNullRow = func() []types.Value {
	row := make([]types.Value, len(fuzzCols))
	for i, t := range fuzzCols {
		if t.NotNull {
			row[i] = fuzzRow[i]
		}
	}
	return row
}()

func mustDec(s string) types.Value {
	v, _, err := NumericLiteral(s)
	if err != nil {
		panic(err)
	}
	return v
}

var (
	fuzzLits = []string{"0", "1", "-1", "2147483647", "9223372036854775807", "0.5", "-99.99", "1e308", "-0e0",
		"99999999999999999999999999999999999999", "0.00000000000000000000000000000000000001"}
	fuzzStrings   = []string{"", "a", "1", " 12 ", "true", "2026-08-01 09:00:00", "09:30", "NaN", "%", "a_\\%", "Wörld"}
	fuzzBinary    = []string{"+", "-", "*", "/", "%", "=", "<>", "<", "<=", ">", ">=", "AND", "OR", "||", "LIKE", "NOT LIKE", "IS DISTINCT FROM"}
	fuzzUnary     = []string{"NOT", "-", "+", "IS NULL", "IS NOT NULL", "IS TRUE", "IS NOT FALSE", "IS UNKNOWN"}
	fuzzFuncs     = []string{"COALESCE", "NULLIF", "IF", "UPPER", "LOWER", "SUBSTRING", "CHAR_LENGTH", "CONCAT", "TRIM", "LTRIM", "ABS", "MOD", "RTRIM"}
	fuzzCastTo    = []types.Type{types.Int, types.TinyInt, types.BigInt, types.Double, types.Float, types.Decimal(5, 2), types.Decimal(38, 0), types.String, types.VarChar(2), types.Char(4), types.Boolean, types.Timestamp(0), types.Timestamp(9), types.TimestampLTZ(3), types.Date, types.Time(3), types.Bytes, types.ArrayOf(types.String)}
	fuzzIntervals = []struct{ text, unit string }{{"1", "DAY"}, {"-1-11", "YEAR TO MONTH"}, {"1 02:03:04.5", "DAY TO SECOND"}, {"999999", "HOUR"}}
)

type fuzzGen struct {
	data []byte
	pos  int
}

func (g *fuzzGen) next() int {
	if g.pos >= len(g.data) {
		return 0
	}
	b := g.data[g.pos]
	g.pos++
	return int(b)
}

func pickOf[T any](g *fuzzGen, xs []T) T { return xs[g.next()%len(xs)] }

func (g *fuzzGen) leaf() Expr {
	var e Expr
	var err error
	switch g.next() % 7 {
	case 0, 1:
		i := g.next() % len(fuzzCols)
		e, err = Col(i, "c", fuzzCols[i])
	case 2:
		v, t, lerr := NumericLiteral(pickOf(g, fuzzLits))
		if lerr != nil {
			panic(lerr)
		}
		e, err = Lit(v, t)
	case 3:
		e, err = Lit(StringLiteral(pickOf(g, fuzzStrings)))
	case 4:
		iv := pickOf(g, fuzzIntervals)
		v, t, lerr := IntervalLiteral(iv.text, iv.unit)
		if lerr != nil {
			panic(lerr)
		}
		e, err = Lit(v, t)
	case 5:
		e, err = Lit(types.NewBool(g.next()%2 == 0), types.Boolean.NonNull())
	default:
		e, err = Lit(types.Null, types.NullType)
	}
	if err != nil {
		panic(err)
	}
	return e
}

// expr builds a node; when a constructor rejects the operands it falls
// back to the first operand, so some tree always results.
func (g *fuzzGen) expr(depth int) Expr {
	if depth > 5 || g.pos >= len(g.data) || g.next()%4 == 0 {
		return g.leaf()
	}
	a := g.expr(depth + 1)
	var e Expr
	var err error
	switch g.next() % 8 {
	case 0, 1:
		e, err = Binary(pickOf(g, fuzzBinary), a, g.expr(depth+1))
	case 2:
		e, err = Unary(pickOf(g, fuzzUnary), a)
	case 3:
		e, err = Cast(a, pickOf(g, fuzzCastTo), g.next()%2 == 0)
	case 4:
		args := []Expr{a}
		for n := g.next() % 3; n > 0; n-- {
			args = append(args, g.expr(depth+1))
		}
		e, err = Call(pickOf(g, fuzzFuncs), args...)
	case 5:
		var operand Expr
		if g.next()%2 == 0 {
			operand = g.expr(depth + 1)
		}
		var els Expr
		if g.next()%2 == 0 {
			els = g.expr(depth + 1)
		}
		e, err = Case(operand, []Expr{a}, []Expr{g.expr(depth + 1)}, els)
	case 6:
		e, err = Between(a, g.expr(depth+1), g.expr(depth+1), g.next()%2 == 0)
	default:
		e, err = In(a, []Expr{g.expr(depth + 1), g.expr(depth + 1)}, g.next()%2 == 0)
	}
	if err != nil {
		return a
	}
	return e
}
