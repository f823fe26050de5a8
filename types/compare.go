package types

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Compare returns -1, 0 or +1 as a sorts before, equal to or after b in a
// total order over all values, meant for sorting and for keys:
//
//   - NULL sorts first and equals NULL;
//   - numbers (integers, FLOAT/DOUBLE and DECIMAL) compare by exact value
//     across kinds, so INT 1, DOUBLE 1.0 and DECIMAL 1.00 are equal;
//     FLOAT/DOUBLE follow Java's Double.compare: -0.0 sorts just before
//     every other zero and NaN after every number, equal to itself;
//   - strings and byte strings compare bytewise;
//   - DATE, TIME, TIMESTAMP and intervals compare by value;
//   - ARRAY and ROW compare lexicographically (a prefix sorts first), MAP
//     compares its entries sorted by key, lexicographically;
//   - values of kinds that do not compare (a string and a date) order by
//     kind: NULL, BOOLEAN, numbers, strings, byte strings, DATE, TIME,
//     TIMESTAMP, year-month and day-time intervals, ARRAY, MAP, ROW.
//
// Compare is not SQL comparison: NULL equals NULL here.
func Compare(a, b Value) int {
	if a.k == b.k {
		switch a.k {
		case KindNull:
			return 0
		case KindBool, KindInt, KindDate, KindTime, KindTimestamp, KindIntervalMonths, KindIntervalNanos:
			return cmp.Compare(a.n, b.n)
		case KindFloat:
			return compareFloats(a.Float(), b.Float())
		case KindDecimal:
			return compareDecimals(a.Decimal(), b.Decimal())
		case KindString, KindBytes:
			return strings.Compare(a.s, b.s)
		case KindArray, KindRow:
			return compareSlices(a.Fields(), b.Fields())
		case KindMap:
			return compareMaps(a.Map(), b.Map())
		}
		return 0
	}
	ra, rb := kindRank(a.k), kindRank(b.k)
	if ra != rb {
		return cmp.Compare(ra, rb)
	}
	return compareNumbers(a, b)
}

// Equal reports whether Compare(a, b) == 0. NULL equals NULL: Equal is for
// keys and materialization, not SQL's = operator.
func Equal(a, b Value) bool {
	if a.k == b.k {
		switch a.k {
		case KindNull:
			return true
		case KindBool, KindInt, KindDate, KindTime, KindTimestamp, KindIntervalMonths, KindIntervalNanos:
			return a.n == b.n
		case KindString, KindBytes:
			return a.s == b.s
		}
	}
	return Compare(a, b) == 0
}

// CompareRows compares the values of two rows lexicographically with
// Compare (a shorter row that is a prefix sorts first), then their kinds.
func CompareRows(a, b Row) int {
	if c := compareSlices(a.Values, b.Values); c != 0 {
		return c
	}
	return cmp.Compare(a.Kind, b.Kind)
}

// kindRank groups the numeric kinds together.
func kindRank(k Kind) Kind {
	if k == KindFloat || k == KindDecimal {
		return KindInt
	}
	return k
}

func compareSlices(a, b []Value) int {
	for i := range min(len(a), len(b)) {
		if c := Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func compareMaps(a, b []MapEntry) int {
	a, b = sortedEntries(a), sortedEntries(b)
	for i := range min(len(a), len(b)) {
		if c := Compare(a[i].Key, b[i].Key); c != 0 {
			return c
		}
		if c := Compare(a[i].Val, b[i].Val); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// sortedEntries returns the entries sorted by key (and value), copying
// them if they are not sorted already.
func sortedEntries(m []MapEntry) []MapEntry {
	less := func(x, y MapEntry) int {
		if c := Compare(x.Key, y.Key); c != 0 {
			return c
		}
		return Compare(x.Val, y.Val)
	}
	if slices.IsSortedFunc(m, less) {
		return m
	}
	m = slices.Clone(m)
	slices.SortFunc(m, less)
	return m
}

// javaDoubleBits returns the bits Java's Double.compare orders by: the
// IEEE 754 bits as a signed integer with every NaN made canonical.
func javaDoubleBits(f float64) int64 {
	if f != f {
		return 0x7ff8000000000000
	}
	return int64(math.Float64bits(f))
}

// compareFloats is Java's Double.compare.
func compareFloats(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	// Equal, or a NaN, or zeros of different signs.
	return cmp.Compare(javaDoubleBits(a), javaDoubleBits(b))
}

// decimalRank orders the forms of decimals: -Infinity, finite, +Infinity,
// NaN.
func decimalRank(d *apd.Decimal) int {
	switch d.Form {
	case apd.Finite:
		return 0
	case apd.Infinite:
		if d.Negative {
			return -1
		}
		return 1
	}
	return 2
}

func compareDecimals(a, b *apd.Decimal) int {
	if a == nil || b == nil { // not produced by NewDecimal; be safe
		switch {
		case a == b:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	if ra, rb := decimalRank(a), decimalRank(b); ra != 0 || rb != 0 {
		return cmp.Compare(ra, rb)
	}
	return a.Cmp(b)
}

// compareNumbers compares two numbers of different kinds by exact value.
func compareNumbers(a, b Value) int {
	// Order the kinds Int < Float < Decimal and flip the result if swapped.
	if a.k > b.k {
		return -compareNumbers(b, a)
	}
	switch {
	case a.k == KindInt && b.k == KindFloat:
		return compareIntFloat(a.n, b.Float())
	case a.k == KindInt && b.k == KindDecimal:
		var d apd.Decimal
		d.SetInt64(a.n)
		return compareDecimals(&d, b.Decimal())
	default: // Float and Decimal
		return compareFloatDecimal(a.Float(), b.Decimal())
	}
}

// compareIntFloat compares an integer with a float exactly.
func compareIntFloat(i int64, f float64) int {
	switch {
	case f != f:
		return -1 // NaN is greater than every number
	case f == 0 && math.Signbit(f):
		if i == 0 {
			return 1 // -0.0 sorts before the other zeros
		}
		return cmp.Compare(i, 0)
	case f >= 0x1p63:
		return -1
	case f < -0x1p63:
		return 1
	}
	t := math.Trunc(f)
	if c := cmp.Compare(i, int64(t)); c != 0 {
		return c
	}
	return cmp.Compare(t, f) // the fraction decides
}

func compareFloatDecimal(f float64, d *apd.Decimal) int {
	if d == nil {
		return 1
	}
	switch {
	case f != f:
		if d.Form == apd.NaN || d.Form == apd.NaNSignaling {
			return 0
		}
		return 1
	case math.IsInf(f, 0):
		r := 1
		if f < 0 {
			r = -1
		}
		return cmp.Compare(r, decimalRank(d))
	case d.Form != apd.Finite:
		return cmp.Compare(0, decimalRank(d))
	case f == 0 && math.Signbit(f) && d.Coeff.Sign() == 0:
		return -1
	}
	return compareDecimals(exactDecimal(f), d)
}

// exactDecimal returns the exact decimal value of a finite float.
func exactDecimal(f float64) *apd.Decimal {
	d := new(apd.Decimal)
	if f == 0 {
		return d
	}
	d.Negative = f < 0
	frac, exp := math.Frexp(math.Abs(f)) // f = frac × 2^exp, 0.5 <= frac < 1
	m := uint64(frac * (1 << 53))
	e := exp - 53
	tz := bits.TrailingZeros64(m)
	m >>= tz
	e += tz
	d.Coeff.SetUint64(m)
	if e >= 0 {
		d.Coeff.Lsh(&d.Coeff, uint(e))
		return d
	}
	// m / 2^k = m × 5^k / 10^k
	var five apd.BigInt
	five.Exp(apd.NewBigInt(5), apd.NewBigInt(int64(-e)), nil)
	d.Coeff.Mul(&d.Coeff, &five)
	d.Exponent = int32(e)
	return d
}
