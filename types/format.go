package types

import (
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
)

// Format returns v, a value of type t, as Flink's SQL client prints it:
//
//   - NULL is <NULL> (NULL inside an ARRAY, MAP or ROW is NULL);
//   - BOOLEAN is TRUE or FALSE, integers are plain;
//   - FLOAT and DOUBLE follow Java's Float.toString and Double.toString
//     (120.0, 95.5, 1.0E-5, 1.0E20, NaN, Infinity);
//   - DECIMAL has exactly the type's scale (1.0850 in DECIMAL(10, 4));
//   - CHAR and VARCHAR are the string itself, BINARY and VARBINARY x'0a1b';
//   - DATE is 2026-08-01, TIME(p) 09:00:00 and TIMESTAMP(p) 2026-08-01
//     09:00:00.000, with exactly p fractional digits (truncated);
//     TIMESTAMP_LTZ is printed in UTC;
//   - INTERVAL DAY TO SECOND(p) is +0 00:00:05.000 and INTERVAL YEAR TO
//     MONTH +1-02;
//   - ARRAY is [1, 2], MAP {a=1, b=2} and ROW (1, abc).
//
// When t does not describe v (for instance the NULL type for a non-NULL
// value), v is printed by its kind with enough fractional digits to show
// it exactly.
func Format(v Value, t Type) string { return string(AppendFormat(nil, v, t)) }

// AppendFormat appends Format(v, t) to dst and returns the extended buffer.
func AppendFormat(dst []byte, v Value, t Type) []byte {
	if v.k == KindNull {
		return append(dst, "<NULL>"...)
	}
	return appendFormat(dst, v, t)
}

func appendFormat(dst []byte, v Value, t Type) []byte {
	switch v.k {
	case KindNull:
		return append(dst, "NULL"...)
	case KindBool:
		if v.n != 0 {
			return append(dst, "TRUE"...)
		}
		return append(dst, "FALSE"...)
	case KindInt:
		return strconv.AppendInt(dst, v.n, 10)
	case KindFloat:
		bits := 64
		if t.ID == TypeFloat {
			bits = 32
		}
		return appendJavaFloat(dst, v.Float(), bits)
	case KindDecimal:
		scale := -1
		if t.ID == TypeDecimal {
			scale = t.Scale
		}
		return appendDecimal(dst, v.Decimal(), scale)
	case KindString:
		return append(dst, v.s...)
	case KindBytes:
		return appendHex(dst, v.s)
	case KindDate:
		return appendDate(dst, v.n)
	case KindTime:
		return appendTimeOfDay(dst, floorMod(v.n, nanosPerDay), precisionFor(v, t, TypeTime))
	case KindTimestamp:
		days, nanos := floorDiv(v.n, nanosPerDay), floorMod(v.n, nanosPerDay)
		dst = appendDate(dst, days)
		dst = append(dst, ' ')
		return appendTimeOfDay(dst, nanos, precisionFor(v, t, TypeTimestamp))
	case KindIntervalMonths:
		return appendIntervalMonths(dst, v.n, '+')
	case KindIntervalNanos:
		return appendIntervalNanos(dst, v.n, precisionFor(v, t, TypeIntervalDayTime), '+')
	case KindArray:
		elem := elemType(t, TypeArray)
		dst = append(dst, '[')
		for i, e := range v.Array() {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendFormat(dst, e, elem)
		}
		return append(dst, ']')
	case KindMap:
		kt, vt := elemType(t, TypeMap), NullType
		switch t.ID {
		case TypeMap:
			vt = child(t.Val)
		case TypeMultiset: // element=multiplicity
			kt, vt = child(t.Elem), Int
		}
		dst = append(dst, '{')
		for i, e := range v.Map() {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendFormat(dst, e.Key, kt)
			dst = append(dst, '=')
			dst = appendFormat(dst, e.Val, vt)
		}
		return append(dst, '}')
	case KindRow:
		dst = append(dst, '(')
		for i, f := range v.Fields() {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendFormat(dst, f, fieldType(t, i))
		}
		return append(dst, ')')
	}
	return append(dst, '?')
}

// elemType returns the element (or key) type of t if t has the given ID.
func elemType(t Type, id TypeID) Type {
	if t.ID != id {
		return NullType
	}
	return child(t.Elem)
}

// fieldType returns the type of field i of ROW type t, or the NULL type.
func fieldType(t Type, i int) Type {
	if t.ID != TypeRow || i >= len(t.Fields) {
		return NullType
	}
	return t.Fields[i].Type
}

// precisionFor returns the fractional-second precision to print v with:
// t's precision if t is of family id (TIMESTAMP_LTZ counts as TIMESTAMP),
// else the least of 0, 3, 6 and 9 digits that shows v exactly.
func precisionFor(v Value, t Type, id TypeID) int {
	if t.ID == id || (id == TypeTimestamp && t.ID == TypeTimestampLTZ) {
		return min(max(t.Precision, 0), MaxTimePrecision)
	}
	frac := floorMod(v.n, nanosPerSecond)
	switch {
	case frac == 0:
		return 0
	case frac%1e6 == 0:
		return 3
	case frac%1e3 == 0:
		return 6
	}
	return 9
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// appendJavaFloat appends f as Java's Double.toString (bits 64) or
// Float.toString (bits 32) of JDK 19 and later: the shortest decimal that
// reads back as f, with at least two digits, in plain notation for
// 1e-3 <= |f| < 1e7 and as d.dddEn otherwise.
func appendJavaFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	var buf [32]byte
	digits, exp := floatDigits(buf[:0], f, -1, bits)
	if len(digits) == 1 {
		// Java picks the two-digit decimal closest to f when one digit
		// suffices (4.9E-324 rather than 5.0E-324).
		digits, exp = floatDigits(buf[:0], f, 1, bits)
	}
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	if exp < -3 || exp >= 7 {
		dst = append(dst, digits[0], '.')
		if len(digits) > 1 {
			dst = append(dst, digits[1:]...)
		} else {
			dst = append(dst, '0')
		}
		dst = append(dst, 'E')
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	if exp < 0 {
		dst = append(dst, "0."...)
		for i := -1; i > exp; i-- {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	for i := 0; i <= exp; i++ {
		if i < len(digits) {
			dst = append(dst, digits[i])
		} else {
			dst = append(dst, '0')
		}
	}
	dst = append(dst, '.')
	if exp+1 < len(digits) {
		return append(dst, digits[exp+1:]...)
	}
	return append(dst, '0')
}

// floatDigits returns the significant digits of f > 0 formatted with the
// given precision and the decimal exponent of the first digit.
func floatDigits(buf []byte, f float64, prec, bits int) ([]byte, int) {
	s := strconv.AppendFloat(buf, f, 'e', prec, bits) // d.ddde±XX
	e := len(s) - 1
	for s[e] != 'e' {
		e--
	}
	exp := 0
	for _, c := range s[e+2:] {
		exp = exp*10 + int(c-'0')
	}
	if s[e+1] == '-' {
		exp = -exp
	}
	digits := s[:e]
	if len(digits) > 1 { // drop the decimal point
		digits = append(digits[:1], digits[2:]...)
	}
	return digits, exp
}

// appendDecimal appends d in plain notation with the given number of
// fractional digits (HALF_UP), or as is when scale is negative.
func appendDecimal(dst []byte, d *apd.Decimal, scale int) []byte {
	if d == nil {
		return append(dst, "NULL"...)
	}
	switch d.Form {
	case apd.NaN, apd.NaNSignaling:
		return append(dst, "NaN"...)
	case apd.Infinite:
		if d.Negative {
			return append(dst, "-Infinity"...)
		}
		return append(dst, "Infinity"...)
	}
	if scale >= 0 && scale <= MaxDecimalPrecision && d.Exponent != int32(-scale) {
		digits := apd.NumDigits(&d.Coeff) + int64(d.Exponent) + int64(scale) + 1
		ctx := apd.BaseContext.WithPrecision(uint32(max(digits, 1)))
		ctx.Rounding = apd.RoundHalfUp
		var r apd.Decimal
		if _, err := ctx.Quantize(&r, d, int32(-scale)); err == nil {
			d = &r
		}
	}
	if d.Coeff.Sign() == 0 && d.Negative {
		var z apd.Decimal
		z.Set(d)
		z.Negative = false
		d = &z
	}
	return d.Append(dst, 'f')
}

const hexDigits = "0123456789abcdef"

func appendHex(dst []byte, s string) []byte {
	dst = append(dst, "x'"...)
	for i := 0; i < len(s); i++ {
		dst = append(dst, hexDigits[s[i]>>4], hexDigits[s[i]&0xf])
	}
	return append(dst, '\'')
}

// appendDate appends days since the epoch as YYYY-MM-DD (Java's
// LocalDate.toString: a sign before years beyond 9999 or before 0).
func appendDate(dst []byte, days int64) []byte {
	y, m, d := civilFromDays(days)
	switch {
	case y < 0:
		dst = append(dst, '-')
		y = -y
	case y > 9999:
		dst = append(dst, '+')
	}
	dst = appendPadded(dst, y, 4)
	dst = append(dst, '-')
	dst = appendPadded(dst, m, 2)
	dst = append(dst, '-')
	return appendPadded(dst, d, 2)
}

// appendTimeOfDay appends HH:MM:SS with p fractional digits (truncated).
func appendTimeOfDay(dst []byte, nanos int64, p int) []byte {
	secs := nanos / nanosPerSecond
	dst = appendPadded(dst, secs/3600, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, secs/60%60, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, secs%60, 2)
	return appendFraction(dst, nanos%nanosPerSecond, p)
}

// appendFraction appends "." and the first p digits of a nanosecond count
// below one second; nothing for p == 0.
func appendFraction(dst []byte, nanos int64, p int) []byte {
	if p <= 0 {
		return dst
	}
	var buf [9]byte
	for i := 8; i >= 0; i-- {
		buf[i] = byte('0' + nanos%10)
		nanos /= 10
	}
	dst = append(dst, '.')
	return append(dst, buf[:min(p, 9)]...)
}

// appendPadded appends n >= 0 with at least width digits.
func appendPadded(dst []byte, n int64, width int) []byte {
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], n, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// appendIntervalMonths appends ±Y-MM; plus is the sign of a positive
// interval (0 for none).
func appendIntervalMonths(dst []byte, months int64, plus byte) []byte {
	u := uint64(months)
	if months < 0 {
		dst = append(dst, '-')
		u = -u
	} else if plus != 0 {
		dst = append(dst, plus)
	}
	dst = strconv.AppendUint(dst, u/12, 10)
	dst = append(dst, '-')
	return appendPadded(dst, int64(u%12), 2)
}

// appendIntervalNanos appends ±D HH:MM:SS with p fractional digits; plus
// is the sign of a positive interval (0 for none).
func appendIntervalNanos(dst []byte, nanos int64, p int, plus byte) []byte {
	u := uint64(nanos)
	if nanos < 0 {
		dst = append(dst, '-')
		u = -u
	} else if plus != 0 {
		dst = append(dst, plus)
	}
	dst = strconv.AppendUint(dst, u/uint64(nanosPerDay), 10)
	dst = append(dst, ' ')
	return appendTimeOfDay(dst, int64(u%uint64(nanosPerDay)), p)
}
