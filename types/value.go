package types

import (
	"math"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// Kind is the physical kind of a Value. Several SQL types share a kind (all
// integer types are KindInt); the Type of the column says which one.
type Kind uint8

// The value kinds.
const (
	KindNull Kind = iota
	KindBool
	KindInt       // TINYINT, SMALLINT, INT, BIGINT
	KindFloat     // FLOAT, DOUBLE
	KindDecimal   // DECIMAL
	KindString    // CHAR, VARCHAR
	KindBytes     // BINARY, VARBINARY
	KindDate      // days since 1970-01-01
	KindTime      // nanoseconds since midnight
	KindTimestamp // nanoseconds since 1970-01-01 00:00:00 (UTC for TIMESTAMP_LTZ)
	KindIntervalMonths
	KindIntervalNanos
	KindArray
	KindMap
	KindRow
)

// Value is one SQL value. The zero Value is NULL. Scalar values do not
// allocate; strings share their backing array; DECIMAL, ARRAY, MAP and ROW
// values hold a pointer that must be treated as immutable.
type Value struct {
	k Kind
	n int64
	s string
	x any
}

// Null is the NULL value.
var Null = Value{}

// NewBool returns a BOOLEAN value.
func NewBool(b bool) Value {
	if b {
		return Value{k: KindBool, n: 1}
	}
	return Value{k: KindBool}
}

// NewInt returns an integer value (any integer SQL type).
func NewInt(i int64) Value { return Value{k: KindInt, n: i} }

// NewFloat returns a FLOAT or DOUBLE value.
func NewFloat(f float64) Value { return Value{k: KindFloat, n: int64(math.Float64bits(f))} }

// NewString returns a CHAR or VARCHAR value.
func NewString(s string) Value { return Value{k: KindString, s: s} }

// NewBytes returns a BINARY or VARBINARY value. The slice is not copied.
func NewBytes(b []byte) Value { return Value{k: KindBytes, s: string(b)} }

// NewDecimal returns a DECIMAL value. d must not be modified afterwards.
func NewDecimal(d *apd.Decimal) Value {
	if d == nil {
		return Null
	}
	return Value{k: KindDecimal, x: d}
}

// NewDate returns a DATE value from days since the epoch.
func NewDate(days int64) Value { return Value{k: KindDate, n: days} }

// NewTime returns a TIME value from nanoseconds since midnight.
func NewTime(nanos int64) Value { return Value{k: KindTime, n: nanos} }

// NewTimestamp returns a TIMESTAMP or TIMESTAMP_LTZ value from nanoseconds
// since the epoch (UTC).
func NewTimestamp(nanos int64) Value { return Value{k: KindTimestamp, n: nanos} }

// NewTimestampMillis returns a timestamp value from epoch milliseconds.
func NewTimestampMillis(ms int64) Value { return Value{k: KindTimestamp, n: ms * 1e6} }

// NewTimestampTime returns a timestamp value from a time.Time (as UTC).
func NewTimestampTime(t time.Time) Value { return Value{k: KindTimestamp, n: t.UnixNano()} }

// NewIntervalMonths returns an INTERVAL YEAR TO MONTH value.
func NewIntervalMonths(m int64) Value { return Value{k: KindIntervalMonths, n: m} }

// NewInterval returns an INTERVAL DAY TO SECOND value.
func NewInterval(d time.Duration) Value { return Value{k: KindIntervalNanos, n: int64(d)} }

// NewArray returns an ARRAY value. elems must not be modified afterwards.
func NewArray(elems []Value) Value { return Value{k: KindArray, x: elems} }

// MapEntry is one entry of a MAP value.
type MapEntry struct{ Key, Val Value }

// NewMap returns a MAP value. entries must not be modified afterwards.
func NewMap(entries []MapEntry) Value { return Value{k: KindMap, x: entries} }

// NewRow returns a ROW value. fields must not be modified afterwards.
func NewRow(fields []Value) Value { return Value{k: KindRow, x: fields} }

// Kind returns the value's kind.
func (v Value) Kind() Kind { return v.k }

// IsNull reports whether v is NULL.
func (v Value) IsNull() bool { return v.k == KindNull }

// Bool returns the BOOLEAN value (false for NULL).
func (v Value) Bool() bool { return v.n != 0 }

// Int returns the integer value; DATE, TIME, TIMESTAMP and INTERVAL values
// return their internal number (days, nanoseconds, months).
func (v Value) Int() int64 { return v.n }

// Float returns the FLOAT/DOUBLE value; integers and decimals are converted.
func (v Value) Float() float64 {
	switch v.k {
	case KindFloat:
		return math.Float64frombits(uint64(v.n))
	case KindInt:
		return float64(v.n)
	case KindDecimal:
		f, _ := v.x.(*apd.Decimal).Float64()
		return f
	}
	return 0
}

// Str returns the CHAR/VARCHAR value, or the bytes of a BINARY value.
func (v Value) Str() string { return v.s }

// Bytes returns a BINARY/VARBINARY value as a new slice.
func (v Value) Bytes() []byte { return []byte(v.s) }

// Decimal returns the DECIMAL value, or nil for other kinds. The result must
// not be modified.
func (v Value) Decimal() *apd.Decimal {
	d, _ := v.x.(*apd.Decimal)
	return d
}

// Time returns a TIMESTAMP value as a time.Time in UTC.
func (v Value) Time() time.Time { return time.Unix(0, v.n).UTC() }

// Millis returns a TIMESTAMP value as epoch milliseconds (floor).
func (v Value) Millis() int64 {
	if v.n < 0 && v.n%1e6 != 0 {
		return v.n/1e6 - 1
	}
	return v.n / 1e6
}

// Duration returns an INTERVAL DAY TO SECOND value.
func (v Value) Duration() time.Duration { return time.Duration(v.n) }

// Array returns the elements of an ARRAY value.
func (v Value) Array() []Value { a, _ := v.x.([]Value); return a }

// Map returns the entries of a MAP value.
func (v Value) Map() []MapEntry { m, _ := v.x.([]MapEntry); return m }

// Fields returns the fields of a ROW value.
func (v Value) Fields() []Value { r, _ := v.x.([]Value); return r }

// String renders the value the way Format does, with a type inferred from
// its kind (integers as BIGINT, timestamps with 3 fractional digits unless
// they need more). It is meant for debugging and test output.
func (v Value) String() string { return Format(v, v.InferType()) }

// InferType returns a type for the value from its kind alone (integers as
// BIGINT, decimals with their own scale, timestamps as TIMESTAMP(3) unless
// they need more digits).
func (v Value) InferType() Type {
	switch v.k {
	case KindBool:
		return Boolean
	case KindInt:
		return BigInt
	case KindFloat:
		return Double
	case KindDecimal:
		s := 0
		if e := v.Decimal().Exponent; e < 0 {
			s = int(-e)
		}
		return Decimal(38, s)
	case KindString:
		return String
	case KindBytes:
		return Bytes
	case KindDate:
		return Date
	case KindTime:
		return Time(9)
	case KindTimestamp:
		if v.n%1e6 != 0 {
			return Timestamp(9)
		}
		return Timestamp(3)
	case KindIntervalMonths:
		return IntervalM
	case KindIntervalNanos:
		return Interval
	case KindArray:
		return ArrayOf(NullType)
	case KindMap:
		return MapOf(NullType, NullType)
	case KindRow:
		return RowOf()
	}
	return NullType
}
