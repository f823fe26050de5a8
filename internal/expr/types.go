package expr

import (
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// maxDecimalPrecision is the largest DECIMAL precision, as in Flink.
const maxDecimalPrecision = 38

// typeString renders t in Flink's SQL syntax without the NOT NULL suffix,
// e.g. "DECIMAL(4, 1)", "STRING", "TIMESTAMP(3)", "ARRAY<INT NOT NULL>".
func typeString(t types.Type) string {
	var b strings.Builder
	writeType(&b, t)
	return b.String()
}

// typeStringFull renders t including " NOT NULL".
func typeStringFull(t types.Type) string {
	s := typeString(t)
	if t.NotNull {
		s += " NOT NULL"
	}
	return s
}

func writeType(b *strings.Builder, t types.Type) {
	p := func(name string, args ...int) {
		b.WriteString(name)
		b.WriteByte('(')
		for i, a := range args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(a))
		}
		b.WriteByte(')')
	}
	switch t.ID {
	case types.TypeNull:
		b.WriteString("NULL")
	case types.TypeBoolean:
		b.WriteString("BOOLEAN")
	case types.TypeTinyInt:
		b.WriteString("TINYINT")
	case types.TypeSmallInt:
		b.WriteString("SMALLINT")
	case types.TypeInt:
		b.WriteString("INT")
	case types.TypeBigInt:
		b.WriteString("BIGINT")
	case types.TypeFloat:
		b.WriteString("FLOAT")
	case types.TypeDouble:
		b.WriteString("DOUBLE")
	case types.TypeDecimal:
		p("DECIMAL", t.Precision, t.Scale)
	case types.TypeChar:
		p("CHAR", t.Length)
	case types.TypeVarChar:
		if t.Length == types.MaxLength {
			b.WriteString("STRING")
		} else {
			p("VARCHAR", t.Length)
		}
	case types.TypeBinary:
		p("BINARY", t.Length)
	case types.TypeVarBinary:
		if t.Length == types.MaxLength {
			b.WriteString("BYTES")
		} else {
			p("VARBINARY", t.Length)
		}
	case types.TypeDate:
		b.WriteString("DATE")
	case types.TypeTime:
		p("TIME", t.Precision)
	case types.TypeTimestamp:
		p("TIMESTAMP", t.Precision)
	case types.TypeTimestampLTZ:
		p("TIMESTAMP_LTZ", t.Precision)
	case types.TypeIntervalYearMonth:
		b.WriteString("INTERVAL YEAR TO MONTH")
	case types.TypeIntervalDayTime:
		p("INTERVAL DAY TO SECOND", t.Precision)
	case types.TypeArray:
		b.WriteString("ARRAY<")
		writeFull(b, *t.Elem)
		b.WriteByte('>')
	case types.TypeMultiset:
		b.WriteString("MULTISET<")
		writeFull(b, *t.Elem)
		b.WriteByte('>')
	case types.TypeMap:
		b.WriteString("MAP<")
		writeFull(b, *t.Elem)
		b.WriteString(", ")
		writeFull(b, *t.Val)
		b.WriteByte('>')
	case types.TypeRow:
		b.WriteString("ROW<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("`" + strings.ReplaceAll(f.Name, "`", "``") + "` ")
			writeFull(b, f.Type)
		}
		b.WriteByte('>')
	case types.TypeDescriptor:
		b.WriteString("DESCRIPTOR")
	default:
		b.WriteString("UNKNOWN")
	}
}

func writeFull(b *strings.Builder, t types.Type) {
	writeType(b, t)
	if t.NotNull {
		b.WriteString(" NOT NULL")
	}
}

// ---------------------------------------------------------------------------
// Numeric helpers.

// intRank orders the integer types: TINYINT 1 .. BIGINT 4; 0 otherwise.
func intRank(id types.TypeID) int {
	switch id {
	case types.TypeTinyInt:
		return 1
	case types.TypeSmallInt:
		return 2
	case types.TypeInt:
		return 3
	case types.TypeBigInt:
		return 4
	}
	return 0
}

// exactPS returns the DECIMAL precision and scale that holds every value of
// an exact numeric type: TINYINT is DECIMAL(3, 0), INT is DECIMAL(10, 0).
func exactPS(t types.Type) (p, s int) {
	switch t.ID {
	case types.TypeTinyInt:
		return 3, 0
	case types.TypeSmallInt:
		return 5, 0
	case types.TypeInt:
		return 10, 0
	case types.TypeBigInt:
		return 19, 0
	case types.TypeDecimal:
		return t.Precision, t.Scale
	}
	return 0, 0
}

func isApprox(t types.Type) bool { return t.ID == types.TypeFloat || t.ID == types.TypeDouble }

func isExact(t types.Type) bool { return t.IsInteger() || t.ID == types.TypeDecimal }

func isBinary(t types.Type) bool { return t.ID == types.TypeBinary || t.ID == types.TypeVarBinary }

func isInterval(t types.Type) bool {
	return t.ID == types.TypeIntervalDayTime || t.ID == types.TypeIntervalYearMonth
}

// commonNumeric returns the type both numeric operands are converted to,
// following Flink's LogicalTypeMerging: DOUBLE wins; DECIMAL with an
// approximate type gives DOUBLE; FLOAT with an exact type gives FLOAT;
// integers widen; exact types with a DECIMAL give a DECIMAL that keeps the
// most integer digits and the largest scale.
func commonNumeric(a, b types.Type) types.Type {
	switch {
	case a.ID == types.TypeDouble || b.ID == types.TypeDouble:
		return types.Double
	case isApprox(a) || isApprox(b):
		if a.ID == types.TypeDecimal || b.ID == types.TypeDecimal {
			return types.Double
		}
		return types.Float
	case a.ID != types.TypeDecimal && b.ID != types.TypeDecimal:
		if intRank(a.ID) >= intRank(b.ID) {
			return types.Type{ID: a.ID}
		}
		return types.Type{ID: b.ID}
	}
	p1, s1 := exactPS(a)
	p2, s2 := exactPS(b)
	d := min(max(p1-s1, p2-s2), maxDecimalPrecision)
	s := min(max(s1, s2), maxDecimalPrecision-d)
	return types.Decimal(d+s, s)
}

// adjustDecimal caps a derived DECIMAL at precision 38, giving up scale
// (but keeping at least min(s, 6) digits) to keep the integer part, like
// Flink's adjustPrecisionScale.
func adjustDecimal(p, s int) types.Type {
	if p <= maxDecimalPrecision {
		return types.Decimal(p, s)
	}
	digits := p - s
	minScale := min(s, 6)
	return types.Decimal(maxDecimalPrecision, max(maxDecimalPrecision-digits, minScale))
}

// ---------------------------------------------------------------------------
// Common type.

// CommonType returns the most specific type all of ts can be implicitly
// converted to, as Flink's findCommonType does for CASE branches, COALESCE
// arguments, IN lists and the columns of a VALUES clause. The result is
// nullable if any input is nullable. Untyped NULLs (types.TypeNull) take
// the type of the others; if all inputs are NULL the result is the NULL
// type. It reports false when no common type exists (e.g. INT and STRING)
// or ts is empty.
//
// Rules: numeric types merge as in arithmetic (INT, BIGINT → BIGINT; INT,
// DECIMAL(5, 2) → DECIMAL(12, 2); any DOUBLE → DOUBLE; DECIMAL and FLOAT
// → DOUBLE); CHAR(n) values merge to CHAR(n) only when all lengths are
// equal, otherwise to VARCHAR(max) so that no padding is introduced (same
// for BINARY); TIME, TIMESTAMP and intervals take the largest precision,
// and TIMESTAMP with TIMESTAMP_LTZ gives TIMESTAMP_LTZ; ARRAY, MAP and ROW
// merge element-wise (ROW fields keep the first input's names).
func CommonType(ts ...types.Type) (types.Type, bool) {
	if len(ts) == 0 {
		return types.Type{}, false
	}
	notNull := true
	var res types.Type
	found := false
	for _, t := range ts {
		if !t.NotNull {
			notNull = false
		}
		if t.ID == types.TypeNull {
			continue
		}
		if !found {
			res, found = t, true
			continue
		}
		var ok bool
		if res, ok = commonPair(res, t); !ok {
			return types.Type{}, false
		}
	}
	if !found {
		return types.NullType, true
	}
	return withNull(res, notNull), true
}

// commonPair merges two non-NULL types, ignoring top-level nullability.
func commonPair(a, b types.Type) (types.Type, bool) {
	switch {
	case a.IsNumeric() && b.IsNumeric():
		return commonNumeric(a, b), true
	case a.IsString() && b.IsString():
		return commonLength(a, b, types.TypeChar, types.TypeVarChar), true
	case isBinary(a) && isBinary(b):
		return commonLength(a, b, types.TypeBinary, types.TypeVarBinary), true
	case a.IsTimestamp() && b.IsTimestamp():
		id := a.ID
		if b.ID == types.TypeTimestampLTZ {
			id = b.ID
		}
		return types.Type{ID: id, Precision: max(a.Precision, b.Precision)}, true
	case a.ID != b.ID:
		return types.Type{}, false
	}
	switch a.ID {
	case types.TypeBoolean, types.TypeDate, types.TypeIntervalYearMonth:
		return types.Type{ID: a.ID}, true
	case types.TypeTime, types.TypeIntervalDayTime:
		return types.Type{ID: a.ID, Precision: max(a.Precision, b.Precision)}, true
	case types.TypeArray, types.TypeMultiset:
		e, ok := CommonType(*a.Elem, *b.Elem)
		if !ok {
			return types.Type{}, false
		}
		if a.ID == types.TypeMultiset {
			return types.MultisetOf(e), true
		}
		return types.ArrayOf(e), true
	case types.TypeMap:
		k, ok1 := CommonType(*a.Elem, *b.Elem)
		v, ok2 := CommonType(*a.Val, *b.Val)
		if !ok1 || !ok2 {
			return types.Type{}, false
		}
		return types.MapOf(k, v), true
	case types.TypeRow:
		if len(a.Fields) != len(b.Fields) {
			return types.Type{}, false
		}
		fs := make([]types.Field, len(a.Fields))
		for i := range fs {
			ft, ok := CommonType(a.Fields[i].Type, b.Fields[i].Type)
			if !ok {
				return types.Type{}, false
			}
			fs[i] = types.Field{Name: a.Fields[i].Name, Type: ft}
		}
		return types.RowOf(fs...), true
	}
	return types.Type{}, false
}

// commonLength merges two character (or binary) string types.
func commonLength(a, b types.Type, fixed, varying types.TypeID) types.Type {
	n := max(a.Length, b.Length)
	if a.ID == fixed && b.ID == fixed && a.Length == b.Length {
		return types.Type{ID: fixed, Length: n}
	}
	return types.Type{ID: varying, Length: n}
}

// ---------------------------------------------------------------------------
// Castability.

// CanCastImplicitly reports whether a value of type from can be used where
// to is expected without an explicit CAST, i.e. without losing
// information: numeric widening (TINYINT < SMALLINT < INT < BIGINT, any
// number to FLOAT/DOUBLE including DECIMAL, an exact number into a DECIMAL
// with at least as many integer and fraction digits), any character string
// to VARCHAR and CHAR to CHAR (lengths are not checked, as in Flink; sinks
// enforce them), the same for binary strings, TIME(p) to TIME(q),
// TIMESTAMP(p) to TIMESTAMP(q) and TIMESTAMP_LTZ(q), NULL to anything, and
// element-wise for ARRAY, MAP and ROW. Nullability is ignored; callers check
// NOT NULL constraints separately.
func CanCastImplicitly(from, to types.Type) bool {
	if from.ID == types.TypeNull {
		return true
	}
	if from.ID == types.TypeMultiset && to.ID == types.TypeMultiset {
		return CanCastImplicitly(*from.Elem, *to.Elem)
	}
	switch {
	case from.IsNumeric() && to.IsNumeric():
		return implicitNumeric(from, to)
	case from.IsString() && to.IsString():
		return to.ID == types.TypeVarChar || from.ID == types.TypeChar
	case isBinary(from) && isBinary(to):
		return to.ID == types.TypeVarBinary || from.ID == types.TypeBinary
	case from.IsTimestamp() && to.IsTimestamp():
		return true
	}
	if from.ID != to.ID {
		return false
	}
	switch from.ID {
	case types.TypeArray:
		return CanCastImplicitly(*from.Elem, *to.Elem)
	case types.TypeMap:
		return CanCastImplicitly(*from.Elem, *to.Elem) && CanCastImplicitly(*from.Val, *to.Val)
	case types.TypeRow:
		return childrenCast(from, to, CanCastImplicitly)
	case types.TypeDescriptor:
		return false
	}
	return true
}

func implicitNumeric(from, to types.Type) bool {
	switch {
	case to.ID == types.TypeDouble:
		return true
	case to.ID == types.TypeFloat:
		return from.ID != types.TypeDouble
	case isApprox(from):
		return false
	case to.ID == types.TypeDecimal:
		p, s := exactPS(from)
		return to.Scale >= s && to.Precision-to.Scale >= p-s
	case from.ID == types.TypeDecimal:
		return false
	}
	return intRank(from.ID) <= intRank(to.ID)
}

func childrenCast(from, to types.Type, f func(a, b types.Type) bool) bool {
	if len(from.Fields) != len(to.Fields) {
		return false
	}
	for i := range from.Fields {
		if !f(from.Fields[i].Type, to.Fields[i].Type) {
			return false
		}
	}
	return true
}

// CanCast reports whether CAST(x AS to) is allowed for x of type from,
// following Flink's explicit cast rules: everything CanCastImplicitly
// allows, any number to any number, numbers and BOOLEAN to and from
// character strings, integers to and from BOOLEAN, BOOLEAN and TIMESTAMP
// to numbers (epoch seconds), numbers to TIMESTAMP and TIMESTAMP_LTZ,
// character strings to BINARY/VARBINARY, DATE, TIME and timestamps, every
// predefined and constructed type to CHAR/VARCHAR, between DATE, TIME,
// TIMESTAMP and TIMESTAMP_LTZ, and element-wise for ARRAY, MAP and ROW.
// Nullability is ignored.
func CanCast(from, to types.Type) bool {
	if CanCastImplicitly(from, to) {
		return true
	}
	if from.ID == types.TypeMultiset && to.ID == types.TypeMultiset {
		return CanCast(*from.Elem, *to.Elem)
	}
	if to.ID == types.TypeDescriptor || from.ID == types.TypeDescriptor {
		return false
	}
	if to.IsString() {
		return true
	}
	switch {
	case to.ID == types.TypeBoolean:
		return from.IsString() || from.IsInteger()
	case isBinary(to):
		return from.IsString() || isBinary(from)
	case to.IsNumeric():
		return from.IsNumeric() || from.IsString() || from.ID == types.TypeBoolean || from.IsTimestamp()
	case to.ID == types.TypeDate:
		return from.IsTimestamp() || from.IsString()
	case to.ID == types.TypeTime:
		return from.IsTimestamp() || from.IsString()
	case to.IsTimestamp():
		return from.IsString() || from.IsNumeric() ||
			from.ID == types.TypeDate || from.ID == types.TypeTime
	}
	if from.ID != to.ID {
		return false
	}
	switch from.ID {
	case types.TypeArray:
		return CanCast(*from.Elem, *to.Elem)
	case types.TypeMap:
		return CanCast(*from.Elem, *to.Elem) && CanCast(*from.Val, *to.Val)
	case types.TypeRow:
		return childrenCast(from, to, CanCast)
	}
	return false
}

// needsConversion reports whether values of type from must be converted to
// be valid values of type to. It is false when the representation is shared
// (INT as BIGINT, FLOAT as DOUBLE, CHAR(3) as VARCHAR(5), TIMESTAMP(3) as
// TIMESTAMP(6)), which lets implicit coercions compile to nothing.
func needsConversion(from, to types.Type) bool {
	switch {
	case from.ID == types.TypeNull:
		return false
	case from.ID == types.TypeMultiset && to.ID == types.TypeMultiset:
		return needsConversion(*from.Elem, *to.Elem)
	case from.IsInteger() && to.IsInteger():
		return intRank(from.ID) > intRank(to.ID)
	case from.ID == types.TypeFloat && to.ID == types.TypeDouble:
		return false
	case from.ID == types.TypeVarChar && to.ID == types.TypeVarChar,
		from.ID == types.TypeChar && to.ID == types.TypeVarChar,
		isBinary(from) && to.ID == types.TypeVarBinary:
		return from.Length > to.Length
	case from.IsTimestamp() && to.IsTimestamp(),
		from.ID == types.TypeTime && to.ID == types.TypeTime,
		from.ID == types.TypeIntervalDayTime && to.ID == types.TypeIntervalDayTime:
		return from.Precision > to.Precision
	case from.ID != to.ID:
		return true
	}
	switch from.ID {
	case types.TypeDecimal:
		return from.Scale != to.Scale || from.Precision-from.Scale > to.Precision-to.Scale
	case types.TypeChar, types.TypeBinary:
		return from.Length != to.Length
	case types.TypeArray:
		return needsConversion(*from.Elem, *to.Elem)
	case types.TypeMap:
		return needsConversion(*from.Elem, *to.Elem) || needsConversion(*from.Val, *to.Val)
	case types.TypeRow:
		if len(from.Fields) != len(to.Fields) {
			return true
		}
		for i := range from.Fields {
			if needsConversion(from.Fields[i].Type, to.Fields[i].Type) {
				return true
			}
		}
	}
	return false
}

// coerce converts e to type to (which must be implicitly castable from e's
// type), keeping e's nullability. It returns e itself when no conversion is
// needed, so it costs nothing at runtime in the common case.
func coerce(e Expr, to types.Type) Expr {
	from := e.Type()
	if !needsConversion(from, to) {
		return e
	}
	to.NotNull = from.NotNull
	return &castExpr{e: e, t: to, conv: castFunc(from, to), implicit: true}
}

// multisetMap returns the map type of the values of MULTISET type t: each
// distinct element to its multiplicity.
func multisetMap(t types.Type) types.Type {
	m := types.MapOf(*t.Elem, types.Int.NonNull())
	m.NotNull = t.NotNull
	return m
}
