package types

import (
	"cmp"
	"fmt"
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/require"
)

func dec(t testing.TB, s string) Value { return NewDecimal(mustDecimal(t, s)) }

// orderedGroups returns groups of values in increasing order; the values of
// one group are equal.
func orderedGroups(t testing.TB) [][]Value {
	negZero := math.Copysign(0, -1)
	return [][]Value{
		{Null, Null},
		{NewBool(false)},
		{NewBool(true)},
		{NewFloat(math.Inf(-1)), NewDecimal(&apd.Decimal{Form: apd.Infinite, Negative: true})},
		{NewInt(math.MinInt64), NewFloat(-0x1p63), dec(t, "-9223372036854775808")},
		{dec(t, "-9223372036854775807.5")},
		{NewInt(-2), NewFloat(-2), dec(t, "-2.000")},
		{NewFloat(-1.5), dec(t, "-1.50")},
		{NewFloat(-math.SmallestNonzeroFloat64)},
		{NewFloat(negZero)},
		{NewInt(0), NewFloat(0), dec(t, "0"), dec(t, "-0.00")},
		{dec(t, "1E-400")},
		{dec(t, "0.1")},
		{NewFloat(0.1)}, // exactly 0.1000000000000000055511151231257827...
		{NewInt(1), NewFloat(1), dec(t, "1"), dec(t, "1.00"), dec(t, "0.1E1")},
		{dec(t, "1.0000000000000000000000001")},
		{NewFloat(1.5), dec(t, "1.5")},
		{NewInt(math.MaxInt64)},
		{NewFloat(0x1p63), dec(t, "9223372036854775808")},
		{dec(t, "1E+400")},
		{NewFloat(math.Inf(1)), NewDecimal(&apd.Decimal{Form: apd.Infinite})},
		{NewFloat(math.NaN()), NewFloat(math.Float64frombits(0x7ff0000000000001)), NewDecimal(&apd.Decimal{Form: apd.NaN})},
		{NewString("")},
		{NewString("a")},
		{NewString("a\x00")},
		{NewString("b")},
		{NewString("é")},
		{NewBytes(nil)},
		{NewBytes([]byte{0})},
		{NewDate(-1)},
		{NewDate(0)},
		{NewTime(0)},
		{NewTimestamp(-1)},
		{NewTimestamp(0), NewTimestampMillis(0)},
		{NewIntervalMonths(-1)},
		{NewIntervalMonths(3)},
		{NewInterval(0)},
		{NewArray(nil), NewArray([]Value{})},
		{NewArray([]Value{Null})},
		{NewArray([]Value{NewInt(1)}), NewArray([]Value{dec(t, "1.0")})},
		{NewArray([]Value{NewInt(1), NewInt(0)})},
		{NewArray([]Value{NewInt(2)})},
		{NewMap(nil)},
		{
			NewMap([]MapEntry{{NewString("a"), NewInt(1)}, {NewString("b"), NewInt(2)}}),
			NewMap([]MapEntry{{NewString("b"), NewInt(2)}, {NewString("a"), NewInt(1)}}),
		},
		{NewMap([]MapEntry{{NewString("a"), NewInt(2)}})},
		{NewRow(nil)},
		{NewRow([]Value{NewString("x"), Null})},
		{NewRow([]Value{NewString("x"), NewInt(0)})},
	}
}

func TestCompareTotalOrder(t *testing.T) {
	groups := orderedGroups(t)
	type item struct {
		v     Value
		group int
	}
	var items []item
	for g, vs := range groups {
		for _, v := range vs {
			items = append(items, item{v, g})
		}
	}
	for _, a := range items {
		for _, b := range items {
			want := cmp.Compare(a.group, b.group)
			name := fmt.Sprintf("%s vs %s", Format(a.v, NullType), Format(b.v, NullType))
			require.Equal(t, want, Compare(a.v, b.v), name)
			require.Equal(t, want == 0, Equal(a.v, b.v), name)
		}
	}
}

// TestHashConsistent checks that equal values of the same kind, and equal
// integral numbers of any kind, hash alike.
func TestHashConsistent(t *testing.T) {
	for _, vs := range orderedGroups(t) {
		for _, a := range vs {
			for _, b := range vs {
				integral := a.Kind() != KindDecimal || a.Decimal().Form == apd.Finite
				if a.Kind() == b.Kind() || (integral && isIntegral(a) && isIntegral(b)) {
					require.Equal(t, Hash64([]Value{a}), Hash64([]Value{b}), "%v vs %v", a, b)
				}
			}
		}
	}
	require.NotEqual(t, Hash64([]Value{NewInt(1)}), Hash64([]Value{NewInt(2)}))
	require.NotEqual(t, Hash64([]Value{NewString("a"), NewString("b")}), Hash64([]Value{NewString("ab"), NewString("")}))
	require.NotEqual(t, Hash64([]Value{NewString("a")}), Hash64([]Value{NewBytes([]byte("a"))}))
}

func isIntegral(v Value) bool {
	switch v.Kind() {
	case KindInt:
		return true
	case KindFloat:
		f := v.Float()
		return f == math.Trunc(f) && !math.IsInf(f, 0) && f >= -0x1p63 && f < 0x1p63 && !(f == 0 && math.Signbit(f))
	case KindDecimal:
		d := v.Decimal()
		var frac, integ apd.Decimal
		d.Modf(&integ, &frac)
		_, err := integ.Int64()
		return d.Form == apd.Finite && frac.IsZero() && err == nil
	}
	return false
}

func TestCompareRows(t *testing.T) {
	a := Row{Kind: Insert, Values: []Value{NewInt(1), NewString("a")}}
	b := Row{Kind: Delete, Values: []Value{NewInt(1), NewString("a")}}
	c := Row{Kind: Insert, Values: []Value{NewInt(1), NewString("b")}}
	d := Row{Kind: Insert, Values: []Value{NewInt(1)}}
	require.Equal(t, 0, CompareRows(a, a))
	require.Equal(t, -1, CompareRows(a, b))
	require.Equal(t, 1, CompareRows(b, a))
	require.Equal(t, -1, CompareRows(b, c))
	require.Equal(t, -1, CompareRows(d, a))
}

func TestCompareFloatsJava(t *testing.T) {
	negZero := math.Copysign(0, -1)
	require.Equal(t, -1, Compare(NewFloat(negZero), NewFloat(0)))
	require.Equal(t, 0, Compare(NewFloat(math.NaN()), NewFloat(-math.NaN())))
	require.Equal(t, 1, Compare(NewFloat(math.NaN()), NewFloat(math.Inf(1))))
	require.True(t, Equal(NewFloat(math.NaN()), NewFloat(math.NaN())))
}

func TestExactDecimal(t *testing.T) {
	for f, want := range map[float64]string{
		0.1:    "0.1000000000000000055511151231257827021181583404541015625",
		1:      "1",
		-2.5:   "-2.5",
		0x1p70: "1180591620717411303424",
		0:      "0",
	} {
		require.Equal(t, want, exactDecimal(f).Text('f'), "%g", f)
	}
}
