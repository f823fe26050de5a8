package format

import (
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/types"
)

// AppendJavaRow appends a row as Flink's Row.toString prints it: the
// kind, then the fields in brackets, each as AppendJava prints it
// ("+I[1, abc, null]"). The 'print' connector writes rows so.
func AppendJavaRow(dst []byte, kind types.RowKind, vals []types.Value, fields []types.Field) []byte {
	dst = append(dst, kind.String()...)
	dst = append(dst, '[')
	for i, v := range vals {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		var t types.Type
		if i < len(fields) {
			t = fields[i].Type
		}
		dst = AppendJava(dst, v, t)
	}
	return append(dst, ']')
}

// AppendJava appends v, a value of type t, as Java's toString of the value Flink converts it
// to (StringUtils.arrayAwareToString): Integer, Double, BigDecimal,
// String, byte[] ("[1, -2]"), LocalDate, LocalTime, LocalDateTime
// ("2024-01-01T10:00"), Instant ("2024-01-01T10:00:00Z"), Period,
// Duration, arrays ("[1, 2]"), maps ("{a=1}", in entry order) and rows
// ("+I[...]").
func AppendJava(dst []byte, v types.Value, t types.Type) []byte {
	if v.IsNull() {
		return append(dst, "null"...)
	}
	switch t.ID {
	case types.TypeBoolean:
		return strconv.AppendBool(dst, v.Bool())
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt:
		return strconv.AppendInt(dst, v.Int(), 10)
	case types.TypeFloat, types.TypeDouble:
		return types.AppendFormat(dst, v, t) // Java's Float/Double.toString
	case types.TypeDecimal:
		return appendBigDecimal(dst, v.Decimal(), t.Scale)
	case types.TypeChar, types.TypeVarChar:
		return append(dst, v.Str()...)
	case types.TypeBinary, types.TypeVarBinary:
		return appendJavaBytes(dst, v.Str())
	case types.TypeDate:
		return types.AppendFormat(dst, v, t) // LocalDate.toString
	case types.TypeTime:
		return appendLocalTime(dst, floorMod(v.Int(), nanosPerDay))
	case types.TypeTimestamp:
		n := v.Int()
		dst = types.AppendFormat(dst, types.NewDate(floorDiv(n, nanosPerDay)), types.Date)
		dst = append(dst, 'T')
		return appendLocalTime(dst, floorMod(n, nanosPerDay))
	case types.TypeTimestampLTZ:
		return appendInstant(dst, v.Int())
	case types.TypeIntervalYearMonth:
		return appendPeriod(dst, v.Int())
	case types.TypeIntervalDayTime:
		return appendDuration(dst, v.Int())
	case types.TypeArray:
		var et types.Type
		if t.Elem != nil {
			et = *t.Elem
		}
		dst = append(dst, '[')
		for i, e := range v.Array() {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendJava(dst, e, et)
		}
		return append(dst, ']')
	case types.TypeMap:
		var kt, vt types.Type
		if t.Elem != nil {
			kt = *t.Elem
		}
		if t.Val != nil {
			vt = *t.Val
		}
		dst = append(dst, '{')
		for i, e := range v.Map() {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendJava(dst, e.Key, kt)
			dst = append(dst, '=')
			dst = AppendJava(dst, e.Val, vt)
		}
		return append(dst, '}')
	case types.TypeRow:
		return AppendJavaRow(dst, types.Insert, v.Fields(), t.Fields)
	}
	// A value of an unknown type: by its kind.
	return append(dst, v.String()...)
}

const nanosPerSecond = int64(1e9)

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// appendJavaBytes appends Arrays.toString(byte[]): signed bytes.
func appendJavaBytes(dst []byte, s string) []byte {
	dst = append(dst, '[')
	for i := 0; i < len(s); i++ {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = strconv.AppendInt(dst, int64(int8(s[i])), 10)
	}
	return append(dst, ']')
}

// appendBigDecimal appends BigDecimal.toString of a value of the given
// scale: plain, unless the adjusted exponent is below -6 (then 1.2E-7).
func appendBigDecimal(dst []byte, d *apd.Decimal, scale int) []byte {
	if d == nil {
		return append(dst, "null"...)
	}
	var q apd.Decimal
	ctx := apd.BaseContext.WithPrecision(uint32(max(apd.NumDigits(&d.Coeff)+int64(d.Exponent)+int64(scale)+1, 1)))
	ctx.Rounding = apd.RoundHalfUp
	if _, err := ctx.Quantize(&q, d, int32(-scale)); err != nil || q.Form != apd.Finite {
		q.Set(d)
	}
	digits := q.Coeff.String()
	adjusted := int64(len(digits)) - 1 + int64(q.Exponent)
	if q.Exponent <= 0 && adjusted >= -6 {
		if q.Coeff.Sign() == 0 && q.Negative {
			q.Negative = false
		}
		return q.Append(dst, 'f')
	}
	if q.Negative {
		dst = append(dst, '-')
	}
	dst = append(dst, digits[0])
	if len(digits) > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:]...)
	}
	dst = append(dst, 'E')
	if adjusted >= 0 {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, adjusted, 10)
}

// appendLocalTime appends LocalTime.toString: HH:mm, then :ss when the
// seconds or nanos are not zero, then 3, 6 or 9 fractional digits.
func appendLocalTime(dst []byte, nanos int64) []byte {
	secs := nanos / nanosPerSecond
	dst = appendTwo(dst, secs/3600)
	dst = append(dst, ':')
	dst = appendTwo(dst, secs/60%60)
	frac := nanos % nanosPerSecond
	if secs%60 > 0 || frac > 0 {
		dst = append(dst, ':')
		dst = appendTwo(dst, secs%60)
		dst = appendNanos(dst, frac)
	}
	return dst
}

// appendNanos appends "." and 3, 6 or 9 digits of a fraction of a second
// (nothing for 0), as java.time prints it.
func appendNanos(dst []byte, frac int64) []byte {
	switch {
	case frac == 0:
		return dst
	case frac%1_000_000 == 0:
		return append(append(dst, '.'), strconv.FormatInt(frac/1_000_000+1000, 10)[1:]...)
	case frac%1000 == 0:
		return append(append(dst, '.'), strconv.FormatInt(frac/1000+1_000_000, 10)[1:]...)
	}
	return append(append(dst, '.'), strconv.FormatInt(frac+1_000_000_000, 10)[1:]...)
}

func appendTwo(dst []byte, n int64) []byte {
	if n < 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, n, 10)
}

// appendInstant appends Instant.toString (ISO_INSTANT, UTC): seconds
// always, the fraction in groups of three digits as needed.
func appendInstant(dst []byte, nanos int64) []byte {
	day, rest := floorDiv(nanos, nanosPerDay), floorMod(nanos, nanosPerDay)
	dst = types.AppendFormat(dst, types.NewDate(day), types.Date)
	secs := rest / nanosPerSecond
	dst = append(dst, 'T')
	dst = appendTwo(dst, secs/3600)
	dst = append(dst, ':')
	dst = appendTwo(dst, secs/60%60)
	dst = append(dst, ':')
	dst = appendTwo(dst, secs%60)
	dst = appendNanos(dst, rest%nanosPerSecond)
	return append(dst, 'Z')
}

// appendPeriod appends Period.toString of a month count (P1Y2M, P0D).
func appendPeriod(dst []byte, months int64) []byte {
	if months == 0 {
		return append(dst, "P0D"...)
	}
	dst = append(dst, 'P')
	if y := months / 12; y != 0 {
		dst = strconv.AppendInt(dst, y, 10)
		dst = append(dst, 'Y')
	}
	if m := months % 12; m != 0 {
		dst = strconv.AppendInt(dst, m, 10)
		dst = append(dst, 'M')
	}
	return dst
}

// appendDuration appends Duration.toString of a nanosecond count
// (PT8H6M12.345S, PT0S), with Java's rules for negative durations.
func appendDuration(dst []byte, total int64) []byte {
	if total == 0 {
		return append(dst, "PT0S"...)
	}
	seconds, nanos := floorDiv(total, nanosPerSecond), floorMod(total, nanosPerSecond)
	eff := seconds
	if seconds < 0 && nanos > 0 {
		eff++
	}
	hours, minutes, secs := eff/3600, (eff%3600)/60, eff%60
	start := len(dst)
	dst = append(dst, "PT"...)
	if hours != 0 {
		dst = strconv.AppendInt(dst, hours, 10)
		dst = append(dst, 'H')
	}
	if minutes != 0 {
		dst = strconv.AppendInt(dst, minutes, 10)
		dst = append(dst, 'M')
	}
	if secs == 0 && nanos == 0 && len(dst)-start > 2 {
		return dst
	}
	if seconds < 0 && nanos > 0 && secs == 0 {
		dst = append(dst, "-0"...)
	} else {
		dst = strconv.AppendInt(dst, secs, 10)
	}
	if nanos > 0 {
		var frac int64
		if seconds < 0 {
			frac = 2*nanosPerSecond - nanos
		} else {
			frac = nanos + nanosPerSecond
		}
		s := strconv.FormatInt(frac, 10)
		for len(s) > 0 && s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		dst = append(dst, '.')
		dst = append(dst, s[1:]...)
	}
	return append(dst, 'S')
}
