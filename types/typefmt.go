package types

import (
	"strconv"
	"strings"
)

// String returns the type in Flink's canonical form, the form Flink's
// DESCRIBE prints: "INT", "INT NOT NULL", "STRING" (VARCHAR(2147483647)),
// "VARCHAR(5)", "DECIMAL(10, 4)", "TIMESTAMP(3)", "TIMESTAMP_LTZ(3)",
// "INTERVAL DAY TO SECOND(3)", "ARRAY<INT>", "MULTISET<INT>", "MAP<STRING, INT>" or
// "ROW<`status` STRING>". ParseType(t.String()) equals t for every type
// ParseType can return.
func (t Type) String() string { return string(t.AppendString(nil)) }

// AppendString appends t.String() to dst and returns the extended buffer.
func (t Type) AppendString(dst []byte) []byte {
	switch t.ID {
	case TypeNull:
		dst = append(dst, "NULL"...)
	case TypeBoolean:
		dst = append(dst, "BOOLEAN"...)
	case TypeTinyInt:
		dst = append(dst, "TINYINT"...)
	case TypeSmallInt:
		dst = append(dst, "SMALLINT"...)
	case TypeInt:
		dst = append(dst, "INT"...)
	case TypeBigInt:
		dst = append(dst, "BIGINT"...)
	case TypeFloat:
		dst = append(dst, "FLOAT"...)
	case TypeDouble:
		dst = append(dst, "DOUBLE"...)
	case TypeDecimal:
		dst = append(dst, "DECIMAL("...)
		dst = strconv.AppendInt(dst, int64(t.Precision), 10)
		dst = append(dst, ", "...)
		dst = strconv.AppendInt(dst, int64(t.Scale), 10)
		dst = append(dst, ')')
	case TypeChar:
		dst = appendParam(append(dst, "CHAR"...), t.Length)
	case TypeVarChar:
		if t.Length == MaxLength {
			dst = append(dst, "STRING"...)
		} else {
			dst = appendParam(append(dst, "VARCHAR"...), t.Length)
		}
	case TypeBinary:
		dst = appendParam(append(dst, "BINARY"...), t.Length)
	case TypeVarBinary:
		if t.Length == MaxLength {
			dst = append(dst, "BYTES"...)
		} else {
			dst = appendParam(append(dst, "VARBINARY"...), t.Length)
		}
	case TypeDate:
		dst = append(dst, "DATE"...)
	case TypeTime:
		dst = appendParam(append(dst, "TIME"...), t.Precision)
	case TypeTimestamp:
		dst = appendParam(append(dst, "TIMESTAMP"...), t.Precision)
	case TypeTimestampLTZ:
		dst = appendParam(append(dst, "TIMESTAMP_LTZ"...), t.Precision)
	case TypeIntervalYearMonth:
		dst = append(dst, "INTERVAL YEAR TO MONTH"...)
	case TypeIntervalDayTime:
		dst = appendParam(append(dst, "INTERVAL DAY TO SECOND"...), t.Precision)
	case TypeArray:
		dst = append(dst, "ARRAY<"...)
		dst = child(t.Elem).AppendString(dst)
		dst = append(dst, '>')
	case TypeMultiset:
		dst = append(dst, "MULTISET<"...)
		dst = child(t.Elem).AppendString(dst)
		dst = append(dst, '>')
	case TypeMap:
		dst = append(dst, "MAP<"...)
		dst = child(t.Elem).AppendString(dst)
		dst = append(dst, ", "...)
		dst = child(t.Val).AppendString(dst)
		dst = append(dst, '>')
	case TypeRow:
		dst = append(dst, "ROW<"...)
		for i, f := range t.Fields {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendQuotedIdent(dst, f.Name)
			dst = append(dst, ' ')
			dst = f.Type.AppendString(dst)
		}
		dst = append(dst, '>')
	case TypeDescriptor:
		dst = append(dst, "DESCRIPTOR"...)
	default:
		dst = append(dst, "UNKNOWN("...)
		dst = strconv.AppendInt(dst, int64(t.ID), 10)
		dst = append(dst, ')')
	}
	if t.NotNull {
		dst = append(dst, " NOT NULL"...)
	}
	return dst
}

func appendParam(dst []byte, n int) []byte {
	dst = append(dst, '(')
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, ')')
}

// appendQuotedIdent appends name in backticks, doubling backticks inside.
func appendQuotedIdent(dst []byte, name string) []byte {
	dst = append(dst, '`')
	if strings.IndexByte(name, '`') < 0 {
		dst = append(dst, name...)
	} else {
		dst = append(dst, strings.ReplaceAll(name, "`", "``")...)
	}
	return append(dst, '`')
}

// child returns *c, or the NULL type for a missing child.
func child(c *Type) Type {
	if c == nil {
		return NullType
	}
	return *c
}

// Equal reports whether t and u are the same type, including nullability
// and the nullability of nested types. Only the parameters that belong to
// the type family are compared (the Length of an INT is ignored), ROW field
// names compare exactly, and a missing ARRAY or MAP child equals NULL.
func (t Type) Equal(u Type) bool { return equalTypes(t, u, false) }

// Same reports whether t and u are the same type apart from nullability, at
// every nesting level: INT NOT NULL is the same as INT, and ARRAY<INT NOT
// NULL> as ARRAY<INT> NOT NULL.
func (t Type) Same(u Type) bool { return equalTypes(t, u, true) }

func equalTypes(t, u Type, ignoreNull bool) bool {
	if t.ID != u.ID || (!ignoreNull && t.NotNull != u.NotNull) {
		return false
	}
	switch t.ID {
	case TypeDecimal:
		return t.Precision == u.Precision && t.Scale == u.Scale
	case TypeChar, TypeVarChar, TypeBinary, TypeVarBinary:
		return t.Length == u.Length
	case TypeTime, TypeTimestamp, TypeTimestampLTZ, TypeIntervalDayTime:
		return t.Precision == u.Precision
	case TypeArray, TypeMultiset:
		return equalTypes(child(t.Elem), child(u.Elem), ignoreNull)
	case TypeMap:
		return equalTypes(child(t.Elem), child(u.Elem), ignoreNull) &&
			equalTypes(child(t.Val), child(u.Val), ignoreNull)
	case TypeRow:
		if len(t.Fields) != len(u.Fields) {
			return false
		}
		for i := range t.Fields {
			if t.Fields[i].Name != u.Fields[i].Name ||
				!equalTypes(t.Fields[i].Type, u.Fields[i].Type, ignoreNull) {
				return false
			}
		}
	}
	return true
}
