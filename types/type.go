package types

// TypeID identifies a logical SQL type family.
type TypeID uint8

// The logical type families, as in Flink SQL.
const (
	TypeNull TypeID = iota // NULL (the type of an untyped NULL literal)
	TypeBoolean
	TypeTinyInt
	TypeSmallInt
	TypeInt
	TypeBigInt
	TypeFloat
	TypeDouble
	TypeDecimal
	TypeChar
	TypeVarChar // STRING is VARCHAR(MaxLength)
	TypeBinary
	TypeVarBinary // BYTES is VARBINARY(MaxLength)
	TypeDate
	TypeTime
	TypeTimestamp
	TypeTimestampLTZ
	TypeIntervalYearMonth
	TypeIntervalDayTime
	TypeArray
	TypeMap
	TypeRow
	TypeDescriptor // DESCRIPTOR(...) argument of a PTF call; not a column type
	// TypeMultiset is MULTISET<T> (the result of COLLECT): a bag of
	// elements of type Elem. Its values are maps (KindMap) from each
	// distinct element to its multiplicity, an INT, as Flink's MapData.
	TypeMultiset
)

// MaxLength is the length of STRING and BYTES (VARCHAR/VARBINARY without a
// length), as in Flink.
const MaxLength = 2147483647

// Type is a logical SQL type. The zero value is the nullable NULL type.
// Types are values; nested types (ARRAY, MAP, ROW) share their children, which
// must not be modified after construction.
type Type struct {
	ID TypeID
	// NotNull is true for NOT NULL types.
	NotNull bool
	// Length of CHAR, VARCHAR, BINARY and VARBINARY.
	Length int
	// Precision of DECIMAL, TIME, TIMESTAMP and TIMESTAMP_LTZ.
	Precision int
	// Scale of DECIMAL.
	Scale int
	// Elem is the element type of ARRAY and MULTISET and the key type of
	// MAP.
	Elem *Type
	// Val is the value type of MAP.
	Val *Type
	// Fields are the fields of ROW.
	Fields []Field
}

// Field is a named field of a ROW type or a column of a schema.
type Field struct {
	Name string
	Type Type
}

// Convenience constructors for the common types. All are nullable.
var (
	Boolean   = Type{ID: TypeBoolean}
	TinyInt   = Type{ID: TypeTinyInt}
	SmallInt  = Type{ID: TypeSmallInt}
	Int       = Type{ID: TypeInt}
	BigInt    = Type{ID: TypeBigInt}
	Float     = Type{ID: TypeFloat}
	Double    = Type{ID: TypeDouble}
	String    = Type{ID: TypeVarChar, Length: MaxLength}
	Bytes     = Type{ID: TypeVarBinary, Length: MaxLength}
	Date      = Type{ID: TypeDate}
	NullType  = Type{ID: TypeNull}
	Interval  = Type{ID: TypeIntervalDayTime, Precision: 3}
	IntervalM = Type{ID: TypeIntervalYearMonth}
)

// Decimal returns DECIMAL(p, s).
func Decimal(p, s int) Type { return Type{ID: TypeDecimal, Precision: p, Scale: s} }

// VarChar returns VARCHAR(n).
func VarChar(n int) Type { return Type{ID: TypeVarChar, Length: n} }

// Char returns CHAR(n).
func Char(n int) Type { return Type{ID: TypeChar, Length: n} }

// Timestamp returns TIMESTAMP(p).
func Timestamp(p int) Type { return Type{ID: TypeTimestamp, Precision: p} }

// TimestampLTZ returns TIMESTAMP_LTZ(p).
func TimestampLTZ(p int) Type { return Type{ID: TypeTimestampLTZ, Precision: p} }

// Time returns TIME(p).
func Time(p int) Type { return Type{ID: TypeTime, Precision: p} }

// ArrayOf returns ARRAY<elem>.
func ArrayOf(elem Type) Type { return Type{ID: TypeArray, Elem: &elem} }

// MultisetOf returns MULTISET<elem>.
func MultisetOf(elem Type) Type { return Type{ID: TypeMultiset, Elem: &elem} }

// MapOf returns MAP<k, v>.
func MapOf(k, v Type) Type { return Type{ID: TypeMap, Elem: &k, Val: &v} }

// RowOf returns ROW<fields...>.
func RowOf(fields ...Field) Type { return Type{ID: TypeRow, Fields: fields} }

// NonNull returns t marked NOT NULL.
func (t Type) NonNull() Type { t.NotNull = true; return t }

// Nullable returns t without NOT NULL.
func (t Type) Nullable() Type { t.NotNull = false; return t }

// IsNumeric reports whether t is an exact or approximate number.
func (t Type) IsNumeric() bool {
	switch t.ID {
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt, TypeFloat, TypeDouble, TypeDecimal:
		return true
	}
	return false
}

// IsInteger reports whether t is TINYINT, SMALLINT, INT or BIGINT.
func (t Type) IsInteger() bool {
	return t.ID == TypeTinyInt || t.ID == TypeSmallInt || t.ID == TypeInt || t.ID == TypeBigInt
}

// IsString reports whether t is CHAR or VARCHAR.
func (t Type) IsString() bool { return t.ID == TypeChar || t.ID == TypeVarChar }

// IsTimestamp reports whether t is TIMESTAMP or TIMESTAMP_LTZ.
func (t Type) IsTimestamp() bool { return t.ID == TypeTimestamp || t.ID == TypeTimestampLTZ }

// FieldIndex returns the index of the ROW field with the given name, or -1.
// Names compare exactly (Flink identifiers are case-sensitive).
func (t Type) FieldIndex(name string) int {
	for i, f := range t.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}
