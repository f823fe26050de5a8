package ptf

import (
	"fmt"
	"regexp"
	"strings"
)

// Trait is a property of a table argument, as Flink's ArgumentTrait.
type Trait uint16

// The table argument traits.
const (
	// RowSemantic: rows are independent; PARTITION BY is not allowed. The
	// default for table arguments without SetSemantic.
	RowSemantic Trait = 1 << iota
	// SetSemantic: PARTITION BY defines sets processed by one virtual
	// processor with keyed state and timers.
	SetSemantic
	// OptionalPartitionBy: PARTITION BY may be omitted (one global set).
	OptionalPartitionBy
	// PassColumnsThrough: all input columns are forwarded to the output.
	PassColumnsThrough
	// SupportUpdates: the table may be updating (-U, +U, -D).
	SupportUpdates
	// RequireUpdateBefore: updates arrive as retractions (-U before +U).
	RequireUpdateBefore
	// RequireFullDelete: deletes carry all fields, not only the key.
	RequireFullDelete
	// RequireOnTime: the call must name a time column with on_time.
	RequireOnTime
)

var traitNames = []struct {
	t    Trait
	name string
}{
	{RowSemantic, "ROW_SEMANTIC_TABLE"},
	{SetSemantic, "SET_SEMANTIC_TABLE"},
	{OptionalPartitionBy, "OPTIONAL_PARTITION_BY"},
	{PassColumnsThrough, "PASS_COLUMNS_THROUGH"},
	{SupportUpdates, "SUPPORT_UPDATES"},
	{RequireUpdateBefore, "REQUIRE_UPDATE_BEFORE"},
	{RequireFullDelete, "REQUIRE_FULL_DELETE"},
	{RequireOnTime, "REQUIRE_ON_TIME"},
}

// String lists the traits with Flink's names.
func (t Trait) String() string {
	var parts []string
	for _, tn := range traitNames {
		if t&tn.t != 0 {
			parts = append(parts, tn.name)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Has reports whether all traits in x are set.
func (t Trait) Has(x Trait) bool { return t&x == x }

// ArgKind says whether an argument is a table or a scalar.
type ArgKind uint8

// The argument kinds.
const (
	ScalarArg ArgKind = iota
	TableArg
)

// Arg declares one argument of a function.
type Arg struct {
	Name string
	Kind ArgKind
	// Traits of a table argument.
	Traits Trait
	// Type is the SQL type string of a scalar ("INT", "INTERVAL DAY TO
	// SECOND", "DESCRIPTOR") or of a typed table ("ROW<a INT, b STRING>").
	// Empty for a polymorphic table, which accepts any row.
	Type string
	// Optional scalars may be omitted (they are NULL then).
	Optional bool
}

// Table declares a polymorphic table argument. Without SetSemantic the
// table has row semantics.
func Table(name string, traits ...Trait) Arg {
	a := Arg{Name: name, Kind: TableArg}
	for _, t := range traits {
		a.Traits |= t
	}
	if !a.Traits.Has(SetSemantic) {
		a.Traits |= RowSemantic
	}
	return a
}

// TypedTable declares a table argument whose rows are cast by position to
// rowType, for example "ROW<name STRING, score INT>".
func TypedTable(name, rowType string, traits ...Trait) Arg {
	a := Table(name, traits...)
	a.Type = rowType
	return a
}

// Scalar declares a required scalar argument of the given SQL type.
func Scalar(name, typ string) Arg { return Arg{Name: name, Kind: ScalarArg, Type: typ} }

// OptionalScalar declares a scalar argument that may be omitted.
func OptionalScalar(name, typ string) Arg {
	return Arg{Name: name, Kind: ScalarArg, Type: typ, Optional: true}
}

// IsDescriptor reports whether a is a DESCRIPTOR argument (declared
// "DESCRIPTOR" or "DESCRIPTOR NOT NULL").
func (a Arg) IsDescriptor() bool {
	f := strings.Fields(strings.ToUpper(a.Type))
	return a.Kind == ScalarArg && len(f) > 0 && f[0] == "DESCRIPTOR" && (len(f) == 1 || len(f) == 3 && f[1] == "NOT" && f[2] == "NULL")
}

// NotNull reports whether a scalar argument's type is declared NOT NULL.
func (a Arg) NotNull() bool {
	return strings.HasSuffix(strings.Join(strings.Fields(strings.ToUpper(a.Type)), " "), "NOT NULL")
}

// IsTable reports whether a is a table argument.
func (a Arg) IsTable() bool { return a.Kind == TableArg }

var argName = regexp.MustCompile(`^[a-zA-Z_$][a-zA-Z_$0-9]*$`)

func (a Arg) validate() error {
	if !argName.MatchString(a.Name) {
		return fmt.Errorf("invalid argument name %q: names must match [a-zA-Z_$][a-zA-Z_$0-9]*", a.Name)
	}
	if a.Name == "on_time" || a.Name == "uid" {
		return fmt.Errorf("function signature must not declare system arguments. Reserved argument names are: [on_time, uid]")
	}
	if a.Kind == ScalarArg {
		if a.Traits != 0 {
			return fmt.Errorf("scalar argument '%s' must not declare table traits %s", a.Name, a.Traits)
		}
		if a.Type == "" {
			return fmt.Errorf("scalar argument '%s' needs a type", a.Name)
		}
		if a.Optional && a.NotNull() {
			// Flink's StaticArgument.checkOptionalType.
			return fmt.Errorf("optional arguments must have a nullable type (argument '%s' is %s)", a.Name, a.Type)
		}
		return nil
	}
	if a.Optional {
		return fmt.Errorf("table arguments must not be optional (argument '%s')", a.Name)
	}
	t := a.Traits
	if t.Has(RowSemantic) && t.Has(SetSemantic) {
		return fmt.Errorf("invalid argument traits for argument '%s'. A table has either row or set semantics", a.Name)
	}
	if t.Has(OptionalPartitionBy) && !t.Has(SetSemantic) {
		return fmt.Errorf("invalid argument traits for argument '%s'. Trait OPTIONAL_PARTITION_BY requires SET_SEMANTIC_TABLE", a.Name)
	}
	for _, req := range []Trait{RequireUpdateBefore, RequireFullDelete} {
		if t.Has(req) && !t.Has(SupportUpdates) {
			return fmt.Errorf("invalid argument traits for argument '%s'. Trait %s requires SUPPORT_UPDATES", a.Name, strings.Trim(req.String(), "[]"))
		}
	}
	if t.Has(SupportUpdates) && t.Has(PassColumnsThrough) {
		return fmt.Errorf("signatures with updating inputs must not pass columns through (argument '%s')", a.Name)
	}
	return nil
}
