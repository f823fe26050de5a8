package expr

import (
	"testing"

	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func TestSinkColumn(t *testing.T) {
	str := types.NewString
	row := func(vs ...types.Value) types.Value { return types.NewRow(vs) }
	nested := types.MustParseType("ROW<a INT NOT NULL, tags ARRAY<VARCHAR(2)>>")
	tests := []struct {
		name    string
		typ     string
		in      types.Value
		length  LengthEnforcer
		notNull NotNullEnforcer
		want    string // formatted value, or "error: " + message prefix
	}{
		{"ignore keeps long", "VARCHAR(3)", str("hello"), LengthIgnore, NotNullError, "hello"},
		{"ignore does not pad", "CHAR(3)", str("a"), LengthIgnore, NotNullError, "a"},
		{"trim", "VARCHAR(3)", str("hello"), LengthTrimPad, NotNullError, "hel"},
		{"trim counts characters", "VARCHAR(2)", str("äöü"), LengthTrimPad, NotNullError, "äö"},
		{"pad char", "CHAR(3)", str("a"), LengthTrimPad, NotNullError, "a  "},
		{"string type untouched", "STRING", str("hello"), LengthTrimPad, NotNullError, "hello"},
		{"error on long", "VARCHAR(3)", str("hello"), LengthError, NotNullError,
			"error: Column 'c' is VARCHAR(3), however, a value of length 5 is being written into it."},
		{"error fits short", "CHAR(3)", str("ab"), LengthError, NotNullError, "ab "},
		{"error multibyte within length", "VARCHAR(3)", str("äöü"), LengthError, NotNullError, "äöü"},
		{"nested trim", nested.String(), row(types.NewInt(1), types.NewArray([]types.Value{str("abc"), types.Null})), LengthTrimPad, NotNullError, "(1, [ab, NULL])"},
		{"nested error", nested.String(), row(types.NewInt(1), types.NewArray([]types.Value{str("abc")})), LengthError, NotNullError,
			"error: Column 'c.tags[1]' is VARCHAR(2), however, a value of length 3"},
		{"null in not null", "INT NOT NULL", types.Null, LengthIgnore, NotNullError,
			"error: Column 'c' is NOT NULL, however, a null value is being written into it. You can set job configuration 'table.exec.sink.not-null-enforcer'='DROP'"},
		{"nested null", nested.String(), row(types.Null, types.Null), LengthIgnore, NotNullError,
			"error: Column 'c.a' is NOT NULL"},
		{"null allowed", nested.String(), types.Null, LengthIgnore, NotNullError, "<NULL>"},
		{"drop leaves it to the filter", "INT NOT NULL", types.Null, LengthIgnore, NotNullDrop, "<NULL>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ := types.MustParseType(tt.typ)
			in := mustLit(t, tt.in, SinkValueType(typ).Nullable())
			e := SinkColumn(in, "c", typ, tt.length, tt.notNull)
			require.True(t, e.Type().Equal(typ), "type %s", e.Type())
			v, err := e.Eval(nil)
			if len(tt.want) > 7 && tt.want[:7] == "error: " {
				require.Error(t, err)
				require.Contains(t, err.Error(), tt.want[7:])
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, types.Format(v, typ))
		})
	}
}

func TestSinkFilter(t *testing.T) {
	typ := types.MustParseType("ROW<a INT NOT NULL, b STRING>")
	col := mustCol(t, 0, "r", SinkValueType(typ).Nullable())
	f := SinkFilter([]Expr{col}, []types.Type{typ})
	require.NotNil(t, f)
	for _, tt := range []struct {
		v    types.Value
		keep bool
	}{
		{types.NewRow([]types.Value{types.NewInt(1), types.Null}), true},
		{types.NewRow([]types.Value{types.Null, types.NewString("x")}), false},
		{types.Null, true}, // the column itself is nullable
	} {
		v, err := f.Eval([]types.Value{tt.v})
		require.NoError(t, err)
		require.Equal(t, tt.keep, v.Bool(), "%v", tt.v)
	}
	// A column whose type guarantees the NOT NULL parts needs no check.
	require.Nil(t, SinkFilter([]Expr{mustCol(t, 0, "n", types.Int.NonNull())}, []types.Type{types.Int.NonNull()}))
}

func TestParseEnforcers(t *testing.T) {
	for s, want := range map[string]LengthEnforcer{"": LengthIgnore, "ignore": LengthIgnore, "TRIM_PAD": LengthTrimPad, "Error": LengthError} {
		got, ok := ParseLengthEnforcer(s)
		require.True(t, ok, s)
		require.Equal(t, want, got, s)
	}
	_, ok := ParseLengthEnforcer("TRIM")
	require.False(t, ok)
	for s, want := range map[string]NotNullEnforcer{"": NotNullError, "error": NotNullError, "DROP": NotNullDrop} {
		got, ok := ParseNotNullEnforcer(s)
		require.True(t, ok, s)
		require.Equal(t, want, got, s)
	}
	_, ok = ParseNotNullEnforcer("IGNORE")
	require.False(t, ok)
}
