package types

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"
)

// TestParseType runs testdata/parse_type.txt. Each input line of a "parse"
// directive is a type string; the output line is its canonical String() or
// the error. Every parsed type must also round-trip through String().
func TestParseType(t *testing.T) {
	datadriven.RunTest(t, "testdata/parse_type.txt", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "parse" {
			d.Fatalf(t, "unknown command %q", d.Cmd)
		}
		var out strings.Builder
		for _, line := range strings.Split(d.Input, "\n") {
			typ, err := ParseType(line)
			if err != nil {
				var pe *ParseError
				require.True(t, errors.As(err, &pe), "error %v is not a *ParseError", err)
				fmt.Fprintf(&out, "error at %d: %s\n", pe.Pos, pe.Msg)
				continue
			}
			s := typ.String()
			back, err := ParseType(s)
			require.NoError(t, err, "reparsing %q", s)
			require.True(t, back.Equal(typ), "%q reparsed as %#v, want %#v", s, back, typ)
			out.WriteString(s + "\n")
		}
		return out.String()
	})
}

func TestParseTypeStructure(t *testing.T) {
	tests := []struct {
		in   string
		want Type
	}{
		{"int", Int},
		{"INT NOT NULL", Int.NonNull()},
		{"INT NULL", Int},
		{"STRING", String},
		{"VARCHAR", String},
		{"VARBINARY", Bytes},
		{"CHAR", Char(1)},
		{"ROW<status VARCHAR>", RowOf(Field{"status", String})},
		{"DECIMAL", Decimal(10, 0)},
		{"NUMERIC(5)", Decimal(5, 0)},
		{"TIMESTAMP", Timestamp(6)},
		{"TIMESTAMP(3) WITH LOCAL TIME ZONE", TimestampLTZ(3)},
		{"INTERVAL DAY TO SECOND(3)", Interval},
		{"INTERVAL HOUR TO MINUTE", Interval},
		{"INTERVAL YEAR(4) TO MONTH", IntervalM},
		{"ARRAY<INT NOT NULL>", ArrayOf(Int.NonNull())},
		{"INT NOT NULL ARRAY NOT NULL", ArrayOf(Int.NonNull()).NonNull()},
		{"MAP<STRING, BIGINT>", MapOf(String, BigInt)},
		{"ROW<status STRING>", RowOf(Field{"status", String})},
		{"ROW(`a``b` INT NOT NULL 'doc', c DATE)", RowOf(Field{"a`b", Int.NonNull()}, Field{"c", Date})},
		{"ROW<>", RowOf()},
		{"DESCRIPTOR", Type{ID: TypeDescriptor}},
		{"NULL", NullType},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseType(tt.in)
			require.NoError(t, err)
			require.True(t, got.Equal(tt.want), "got %s, want %s", got, tt.want)
		})
	}
}

func TestTypeEqualSame(t *testing.T) {
	tests := []struct {
		a, b        Type
		equal, same bool
	}{
		{Int, Int, true, true},
		{Int, Int.NonNull(), false, true},
		{Int, BigInt, false, false},
		{Int, Type{ID: TypeInt, Length: 7}, true, true}, // irrelevant parameter
		{Decimal(10, 2), Decimal(10, 3), false, false},
		{VarChar(5), VarChar(6), false, false},
		{Timestamp(3), TimestampLTZ(3), false, false},
		{ArrayOf(Int.NonNull()), ArrayOf(Int), false, true},
		{ArrayOf(Int), Type{ID: TypeArray}, false, false},
		{Type{ID: TypeArray}, ArrayOf(NullType), true, true},
		{MapOf(String, Int), MapOf(String, Int), true, true},
		{MapOf(String, Int), MapOf(String, BigInt), false, false},
		{RowOf(Field{"a", Int}), RowOf(Field{"a", Int.NonNull()}), false, true},
		{RowOf(Field{"a", Int}), RowOf(Field{"A", Int}), false, false},
		{RowOf(Field{"a", Int}), RowOf(), false, false},
		{RowOf(), Type{ID: TypeRow}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.a.String()+" vs "+tt.b.String(), func(t *testing.T) {
			require.Equal(t, tt.equal, tt.a.Equal(tt.b))
			require.Equal(t, tt.equal, tt.b.Equal(tt.a))
			require.Equal(t, tt.same, tt.a.Same(tt.b))
			require.Equal(t, tt.same, tt.b.Same(tt.a))
		})
	}
}

func TestParseTypeDepth(t *testing.T) {
	deep := strings.Repeat("ARRAY<", 200) + "INT" + strings.Repeat(">", 200)
	_, err := ParseType(deep)
	require.ErrorContains(t, err, "nested more than")
	_, err = ParseType("INT" + strings.Repeat(" ARRAY", 200))
	require.ErrorContains(t, err, "nested more than")
	ok := strings.Repeat("ARRAY<", 50) + "INT" + strings.Repeat(">", 50)
	_, err = ParseType(ok)
	require.NoError(t, err)
}

func TestParseErrorMessage(t *testing.T) {
	_, err := ParseType("ROW<a INT, b>")
	require.EqualError(t, err, `invalid type "ROW<a INT, b>" at position 12: expected a type, found ">"`)
}

// FuzzParseType checks that ParseType never panics and that every type it
// accepts round-trips through String.
func FuzzParseType(f *testing.F) {
	for _, s := range []string{
		"INT", "int not null", "DECIMAL(10, 4)", "DEC(38,38)", "CHAR", "VARCHAR(5)",
		"STRING", "BINARY(3)", "VARBINARY", "BYTES", "DATE", "TIME(9)",
		"TIMESTAMP(3) WITHOUT TIME ZONE", "TIMESTAMP WITH LOCAL TIME ZONE",
		"TIMESTAMP_LTZ(0)", "INTERVAL YEAR(3) TO MONTH", "INTERVAL MONTH",
		"INTERVAL DAY(6) TO SECOND(9)", "INTERVAL MINUTE TO SECOND", "INTERVAL SECOND(0)",
		"ARRAY<INT NOT NULL>", "INT ARRAY", "MAP<STRING, ARRAY<DOUBLE PRECISION>>",
		"ROW<`status` STRING NOT NULL 'the status', `a``b` INT>", "ROW(a INT, b ROW<c DATE>)",
		"ROW<>", "DESCRIPTOR", "NULL", "BOOLEAN NULL", "ROW<a INT,", "`unterminated",
		"ROW<'x' INT>", "DECIMAL(99999999999999999999)", "ROW<ä BIGINT>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		typ, err := ParseType(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Pos < 0 || pe.Pos > len(s) {
				t.Fatalf("ParseType(%q): bad error %v", s, err)
			}
			return
		}
		str := typ.String()
		back, err := ParseType(str)
		if err != nil {
			t.Fatalf("ParseType(%q) = %s, which does not parse: %v", s, str, err)
		}
		if !back.Equal(typ) || back.String() != str {
			t.Fatalf("ParseType(%q) = %s, reparsed as %s", s, str, back)
		}
	})
}
