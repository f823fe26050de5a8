package expr

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// javaFloat formats f like Java's Double.toString (bits 64) or
// Float.toString (bits 32), which Flink uses for CAST(x AS STRING): the
// shortest digits that round-trip, plain notation with at least one
// fractional digit for 1e-3 <= |f| < 1e7 ("120.0"), otherwise computerized
// scientific notation ("1.0E7", "1.5E-4").
func javaFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(f); a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, bits)
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

func floatBits(t types.Type) int {
	if t.ID == types.TypeFloat {
		return 32
	}
	return 64
}

// decimalText renders a DECIMAL without exponent, keeping its scale
// ("100.0"), like Java's BigDecimal.toPlainString.
func decimalText(v types.Value) string { return v.Decimal().Text('f') }

// flinkString renders a non-NULL value the way Flink's CAST(x AS STRING)
// does: TRUE/FALSE, Java number formatting, 'yyyy-MM-dd HH:mm:ss.fff'
// timestamps with exactly the type's fractional digits, "+1 02:03:04.000"
// intervals, [a, b] arrays, {k=v} maps and (a, b) rows. NULL elements of
// constructed values render as NULL.
func flinkString(v types.Value, t types.Type) string {
	if v.IsNull() {
		return "NULL"
	}
	if t.ID == types.TypeMultiset {
		t = multisetMap(t)
	}
	switch t.ID {
	case types.TypeBoolean:
		if v.Bool() {
			return "TRUE"
		}
		return "FALSE"
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt:
		return strconv.FormatInt(v.Int(), 10)
	case types.TypeFloat, types.TypeDouble:
		return javaFloat(v.Float(), floatBits(t))
	case types.TypeDecimal:
		return decimalText(v)
	case types.TypeChar, types.TypeVarChar, types.TypeBinary, types.TypeVarBinary:
		return v.Str()
	case types.TypeDate:
		return formatDate(v.Int())
	case types.TypeTime:
		return formatTime(v.Int(), t.Precision)
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		return formatTimestamp(v.Int(), t.Precision)
	case types.TypeIntervalYearMonth:
		return formatIntervalMonths(v.Int())
	case types.TypeIntervalDayTime:
		return formatIntervalNanos(v.Int(), t.Precision)
	case types.TypeArray:
		return seqString("[", "]", v.Array(), func(int) types.Type { return *t.Elem })
	case types.TypeRow:
		return seqString("(", ")", v.Fields(), func(i int) types.Type { return fieldType(t, i) })
	case types.TypeMap:
		var b strings.Builder
		b.WriteByte('{')
		for i, e := range v.Map() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(flinkString(e.Key, *t.Elem))
			b.WriteByte('=')
			b.WriteString(flinkString(e.Val, *t.Val))
		}
		b.WriteByte('}')
		return b.String()
	}
	return "?"
}

func fieldType(t types.Type, i int) types.Type {
	if i < len(t.Fields) {
		return t.Fields[i].Type
	}
	return types.NullType
}

func seqString(open, close string, vs []types.Value, typeAt func(int) types.Type) string {
	var b strings.Builder
	b.WriteString(open)
	for i, e := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(flinkString(e, typeAt(i)))
	}
	b.WriteString(close)
	return b.String()
}

// quoteString renders s as a SQL string literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// sqlLiteral renders a value of type t as SQL literal text for String and
// error messages: 10, 1.50, 1.5E0, 'it”s', TRUE, DATE '2026-08-01',
// TIMESTAMP '2026-08-01 09:00:00.000', INTERVAL '1 02:00:00.000' DAY TO
// SECOND, ARRAY[1, 2], CAST(NULL AS INT).
func sqlLiteral(v types.Value, t types.Type) string {
	if v.IsNull() {
		if t.ID == types.TypeNull {
			return "NULL"
		}
		return "CAST(NULL AS " + typeString(t) + ")"
	}
	if t.ID == types.TypeMultiset {
		return types.FormatSQL(v, t)
	}
	switch t.ID {
	case types.TypeFloat, types.TypeDouble:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "CAST('" + javaFloat(f, 64) + "' AS " + typeString(t) + ")"
		}
		s := javaFloat(f, floatBits(t))
		if !strings.Contains(s, "E") {
			s += "E0"
		}
		return s
	case types.TypeChar, types.TypeVarChar:
		return quoteString(v.Str())
	case types.TypeBinary, types.TypeVarBinary:
		return "X'" + hex.EncodeToString([]byte(v.Str())) + "'"
	case types.TypeDate:
		return "DATE '" + flinkString(v, t) + "'"
	case types.TypeTime:
		return "TIME '" + flinkString(v, t) + "'"
	case types.TypeTimestamp:
		return "TIMESTAMP '" + flinkString(v, t) + "'"
	case types.TypeTimestampLTZ:
		return "CAST('" + flinkString(v, t) + "' AS " + typeString(t) + ")"
	case types.TypeIntervalYearMonth:
		return "INTERVAL '" + strings.TrimPrefix(flinkString(v, t), "+") + "' YEAR TO MONTH"
	case types.TypeIntervalDayTime:
		return "INTERVAL '" + strings.TrimPrefix(flinkString(v, t), "+") + "' DAY TO SECOND"
	case types.TypeArray:
		return "ARRAY[" + joinLiterals(v.Array(), func(int) types.Type { return *t.Elem }) + "]"
	case types.TypeRow:
		return "ROW(" + joinLiterals(v.Fields(), func(i int) types.Type { return fieldType(t, i) }) + ")"
	case types.TypeMap:
		var b strings.Builder
		b.WriteString("MAP[")
		for i, e := range v.Map() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(sqlLiteral(e.Key, *t.Elem) + ", " + sqlLiteral(e.Val, *t.Val))
		}
		b.WriteString("]")
		return b.String()
	}
	return flinkString(v, t)
}

func joinLiterals(vs []types.Value, typeAt func(int) types.Type) string {
	var b strings.Builder
	for i, e := range vs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sqlLiteral(e, typeAt(i)))
	}
	return b.String()
}
