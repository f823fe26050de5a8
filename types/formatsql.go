package types

import (
	"math"
	"strconv"
	"strings"
)

// FormatSQL returns v, a value of type t, as a Flink SQL expression that
// evaluates to v: NULL is CAST(NULL AS t) (plain NULL for the NULL type),
// strings are quoted (a quote inside is doubled), BINARY is x'0a1b', DATE, TIME and
// TIMESTAMP are typed literals (TIMESTAMP '2026-08-01 09:00:00.000'), and
// intervals are interval literals. The expression also has type t (up to
// nullability) except that string and binary literals keep their CHAR and
// BINARY literal types, which Flink coerces implicitly, and ROW
// constructors do not carry field names. Types other than INT, BOOLEAN,
// DOUBLE and the literal types are written as CASTs, e.g. CAST(1.0850 AS
// DECIMAL(10, 4)) and CAST(5 AS BIGINT). TIMESTAMP_LTZ values assume the
// session time zone UTC.
func FormatSQL(v Value, t Type) string { return string(AppendFormatSQL(nil, v, t)) }

// AppendFormatSQL appends FormatSQL(v, t) to dst and returns the extended
// buffer.
func AppendFormatSQL(dst []byte, v Value, t Type) []byte {
	t.NotNull = false
	if v.k == KindNull {
		if t.ID == TypeNull {
			return append(dst, "NULL"...)
		}
		dst = append(dst, "CAST(NULL AS "...)
		dst = t.AppendString(dst)
		return append(dst, ')')
	}
	switch v.k {
	case KindBool:
		return appendFormat(dst, v, t)
	case KindInt:
		plain := t.ID == TypeNull || t.ID == TypeInt ||
			(t.ID == TypeBigInt && (v.n < math.MinInt32 || v.n > math.MaxInt32) && v.n != math.MinInt64)
		return appendCast(dst, t, plain, func(dst []byte) []byte { return strconv.AppendInt(dst, v.n, 10) })
	case KindFloat:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			dst = append(dst, "CAST('"...)
			dst = appendJavaFloat(dst, f, 64)
			dst = append(dst, "' AS "...)
			if t.ID == TypeNull {
				t = Double
			}
			dst = t.AppendString(dst)
			return append(dst, ')')
		}
		plain := t.ID == TypeNull || t.ID == TypeDouble
		return appendCast(dst, t, plain, func(dst []byte) []byte { return appendFloatLiteral(dst, v, t) })
	case KindDecimal:
		return appendCast(dst, t, t.ID == TypeNull, func(dst []byte) []byte { return appendFormat(dst, v, t) })
	case KindString:
		return appendQuoted(dst, v.s)
	case KindBytes:
		return appendHex(dst, v.s)
	case KindDate:
		return appendQuotedFormat(append(dst, "DATE "...), v, t)
	case KindTime:
		return appendQuotedFormat(append(dst, "TIME "...), v, t)
	case KindTimestamp:
		if t.ID == TypeTimestampLTZ {
			dst = append(dst, "CAST(TIMESTAMP "...)
			dst = appendQuotedFormat(dst, v, t)
			dst = append(dst, " AS "...)
			dst = t.AppendString(dst)
			return append(dst, ')')
		}
		return appendQuotedFormat(append(dst, "TIMESTAMP "...), v, t)
	case KindIntervalMonths:
		return appendIntervalMonthsSQL(dst, v.n)
	case KindIntervalNanos:
		return appendIntervalNanosSQL(dst, v.n, precisionFor(v, t, TypeIntervalDayTime))
	case KindArray:
		return appendArraySQL(dst, v, t)
	case KindMap:
		if t.ID == TypeMultiset {
			return appendMultisetSQL(dst, v, t)
		}
		return appendMapSQL(dst, v, t)
	case KindRow:
		dst = append(dst, "ROW("...)
		for i, f := range v.Fields() {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendFormatSQL(dst, f, fieldType(t, i))
		}
		return append(dst, ')')
	}
	return append(dst, "NULL"...)
}

// appendCast appends the literal written by lit, wrapped in a CAST to t
// unless plain is set.
func appendCast(dst []byte, t Type, plain bool, lit func([]byte) []byte) []byte {
	if plain {
		return lit(dst)
	}
	dst = append(dst, "CAST("...)
	dst = lit(dst)
	dst = append(dst, " AS "...)
	dst = t.AppendString(dst)
	return append(dst, ')')
}

// appendFloatLiteral appends an approximate numeric literal, which Flink
// types DOUBLE: Java's Double.toString with E0 added when it has no
// exponent (120.0E0, 1.0E-5).
func appendFloatLiteral(dst []byte, v Value, t Type) []byte {
	start := len(dst)
	dst = appendFormat(dst, v, t)
	if strings.IndexByte(string(dst[start:]), 'E') < 0 {
		dst = append(dst, "E0"...)
	}
	return dst
}

// appendQuoted appends s as a SQL string literal.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			dst = append(dst, '\'')
		}
		dst = append(dst, s[i])
	}
	return append(dst, '\'')
}

// appendQuotedFormat appends Format(v, t) in quotes.
func appendQuotedFormat(dst []byte, v Value, t Type) []byte {
	dst = append(dst, '\'')
	dst = appendFormat(dst, v, t)
	return append(dst, '\'')
}

// appendIntervalMonthsSQL appends INTERVAL '[-]Y-MM' YEAR[(p)] TO MONTH.
func appendIntervalMonthsSQL(dst []byte, months int64) []byte {
	dst = append(dst, "INTERVAL '"...)
	dst = appendIntervalMonths(dst, months, 0)
	dst = append(dst, "' YEAR"...)
	if n := decimalDigits(absUint(months) / 12); n > 2 {
		dst = appendParam(dst, n)
	}
	return append(dst, " TO MONTH"...)
}

// appendIntervalNanosSQL appends INTERVAL '[-]D HH:MM:SS.fff' DAY[(p)] TO
// SECOND(f).
func appendIntervalNanosSQL(dst []byte, nanos int64, p int) []byte {
	dst = append(dst, "INTERVAL '"...)
	dst = appendIntervalNanos(dst, nanos, p, 0)
	dst = append(dst, "' DAY"...)
	if n := decimalDigits(absUint(nanos) / uint64(nanosPerDay)); n > 2 {
		dst = appendParam(dst, n)
	}
	return appendParam(append(dst, " TO SECOND"...), p)
}

func absUint(n int64) uint64 {
	if n < 0 {
		return -uint64(n)
	}
	return uint64(n)
}

// decimalDigits returns the number of decimal digits of u (1 for 0).
func decimalDigits(u uint64) int {
	n := 1
	for ; u >= 10; u /= 10 {
		n++
	}
	return n
}

func appendArraySQL(dst []byte, v Value, t Type) []byte {
	elems := v.Array()
	if len(elems) == 0 {
		return appendEmptyCast(dst, "ARRAY[]", t, TypeArray)
	}
	elem := elemType(t, TypeArray)
	dst = append(dst, "ARRAY["...)
	for i, e := range elems {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = AppendFormatSQL(dst, e, elem)
	}
	return append(dst, ']')
}

func appendMapSQL(dst []byte, v Value, t Type) []byte {
	entries := v.Map()
	if len(entries) == 0 {
		return appendEmptyCast(dst, "MAP[]", t, TypeMap)
	}
	kt, vt := elemType(t, TypeMap), NullType
	if t.ID == TypeMap {
		vt = child(t.Val)
	}
	dst = append(dst, "MAP["...)
	for i, e := range entries {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = AppendFormatSQL(dst, e.Key, kt)
		dst = append(dst, ", "...)
		dst = AppendFormatSQL(dst, e.Val, vt)
	}
	return append(dst, ']')
}

// appendMultisetSQL writes a multiset as Calcite's MULTISET[...] value
// constructor, each element repeated by its multiplicity.
func appendMultisetSQL(dst []byte, v Value, t Type) []byte {
	entries := v.Map()
	if len(entries) == 0 {
		return appendEmptyCast(dst, "MULTISET[]", t, TypeMultiset)
	}
	elem := child(t.Elem)
	dst = append(dst, "MULTISET["...)
	first := true
	for _, e := range entries {
		for range max(e.Val.Int(), 0) {
			if !first {
				dst = append(dst, ", "...)
			}
			first = false
			dst = AppendFormatSQL(dst, e.Key, elem)
		}
	}
	return append(dst, ']')
}

// appendEmptyCast appends an empty constructor, cast to t when t is known.
func appendEmptyCast(dst []byte, ctor string, t Type, id TypeID) []byte {
	if t.ID != id {
		return append(dst, ctor...)
	}
	dst = append(dst, "CAST("...)
	dst = append(dst, ctor...)
	dst = append(dst, " AS "...)
	dst = t.AppendString(dst)
	return append(dst, ')')
}
