package ptf_test

import (
	"testing"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func noop(*ptf.Context, ptf.Input) error { return nil }

// TestValidate: Definition.Validate enforces the signature rules of Flink's
// SystemTypeInference and StaticArgument (reference §2), case-insensitively
// on the message.
func TestValidate(t *testing.T) {
	set := ptf.Table("in", ptf.SetSemantic)
	for _, tc := range []struct {
		name string
		def  ptf.Definition
		want string // "" for valid
	}{
		{name: "minimal", def: ptf.Definition{Args: []ptf.Arg{set}, Output: "INT"}},
		{name: "no tables", def: ptf.Definition{Output: "ROW<a INT>"}},
		{name: "several set tables and scalars", def: ptf.Definition{Output: "INT",
			Args: []ptf.Arg{set, ptf.Scalar("n", "INT"), ptf.Table("in2", ptf.SetSemantic), ptf.OptionalScalar("d", "DESCRIPTOR")}}},
		{name: "updates with all traits", def: ptf.Definition{Output: "INT",
			Args: []ptf.Arg{ptf.Table("in", ptf.SetSemantic, ptf.SupportUpdates, ptf.RequireUpdateBefore, ptf.RequireFullDelete)}}},
		{name: "typed table", def: ptf.Definition{Output: "INT",
			Args: []ptf.Arg{ptf.TypedTable("in", "ROW<a INT, b STRING>", ptf.SetSemantic)}}},

		{name: "reserved on_time", def: ptf.Definition{Output: "INT", Args: []ptf.Arg{set, ptf.Scalar("on_time", "DESCRIPTOR")}},
			want: "Function signature must not declare system arguments. Reserved argument names are: [on_time, uid]"},
		{name: "reserved uid", def: ptf.Definition{Output: "INT", Args: []ptf.Arg{ptf.Table("uid")}},
			want: "Function signature must not declare system arguments. Reserved argument names are: [on_time, uid]"},
		{name: "multiple row-semantic tables", def: ptf.Definition{Output: "INT", Args: []ptf.Arg{ptf.Table("a"), ptf.Table("b")}},
			want: "All table arguments must use set semantics if multiple table arguments are declared"},
		{name: "a row-semantic table among set tables", def: ptf.Definition{Output: "INT", Args: []ptf.Arg{set, ptf.Table("b")}},
			want: "All table arguments must use set semantics if multiple table arguments are declared"},
		{name: "pass-through with several tables", def: ptf.Definition{Output: "INT",
			Args: []ptf.Arg{ptf.Table("a", ptf.SetSemantic, ptf.PassColumnsThrough), ptf.Table("b", ptf.SetSemantic)}},
			want: "Pass-through columns are not supported if multiple table arguments are declared"},
		{name: "updates and pass-through", def: ptf.Definition{Output: "INT",
			Args: []ptf.Arg{ptf.Table("a", ptf.SetSemantic, ptf.SupportUpdates, ptf.PassColumnsThrough)}},
			want: "Signatures with updating inputs must not pass columns through"},
		{name: "optional table", def: ptf.Definition{Output: "INT",
			Args: []ptf.Arg{{Name: "t", Kind: ptf.TableArg, Traits: ptf.SetSemantic, Optional: true}}},
			want: "Table arguments must not be optional"},
		{name: "OPTIONAL_PARTITION_BY without set semantics", def: ptf.Definition{Output: "INT",
			Args: []ptf.Arg{ptf.Table("r", ptf.OptionalPartitionBy)}},
			want: "Invalid argument traits for argument 'r'. Trait OPTIONAL_PARTITION_BY requires SET_SEMANTIC_TABLE"},
		{name: "REQUIRE_UPDATE_BEFORE without updates", def: ptf.Definition{Output: "INT",
			Args: []ptf.Arg{ptf.Table("r", ptf.SetSemantic, ptf.RequireUpdateBefore)}},
			want: "Trait REQUIRE_UPDATE_BEFORE requires SUPPORT_UPDATES"},
		{name: "REQUIRE_FULL_DELETE without updates", def: ptf.Definition{Output: "INT",
			Args: []ptf.Arg{ptf.Table("r", ptf.SetSemantic, ptf.RequireFullDelete)}},
			want: "Trait REQUIRE_FULL_DELETE requires SUPPORT_UPDATES"},
		{name: "row and set semantics", def: ptf.Definition{Output: "INT",
			Args: []ptf.Arg{ptf.Table("r", ptf.RowSemantic, ptf.SetSemantic)}},
			want: "A table has either row or set semantics"},
		{name: "invalid argument name", def: ptf.Definition{Output: "INT", Args: []ptf.Arg{ptf.Scalar("1n", "INT")}},
			want: "names must match [a-zA-Z_$][a-zA-Z_$0-9]*"},
		{name: "duplicate argument", def: ptf.Definition{Output: "INT", Args: []ptf.Arg{set, ptf.Scalar("in", "INT")}},
			want: "argument 'in' is declared twice"},
		{name: "scalar without type", def: ptf.Definition{Output: "INT", Args: []ptf.Arg{{Name: "n"}}},
			want: "scalar argument 'n' needs a type"},
		{name: "scalar with traits", def: ptf.Definition{Output: "INT", Args: []ptf.Arg{{Name: "n", Type: "INT", Traits: ptf.SetSemantic}}},
			want: "scalar argument 'n' must not declare table traits [SET_SEMANTIC_TABLE]"},
		{name: "invalid scalar type", def: ptf.Definition{Output: "INT", Args: []ptf.Arg{ptf.Scalar("n", "NUMBER")}},
			want: "invalid type of argument 'n'"},
		{name: "typed table of an atomic type", def: ptf.Definition{Output: "INT", Args: []ptf.Arg{ptf.TypedTable("t", "INT", ptf.SetSemantic)}},
			want: "Typed table arguments must use a composite type"},
		{name: "invalid output type", def: ptf.Definition{Output: "ROW<a>"},
			want: "invalid output type"},
		{name: "duplicate state", def: ptf.Definition{Output: "INT", Args: []ptf.Arg{set},
			State: []ptf.StateEntry{ptf.NewValue[int]("s"), ptf.NewList[int]("s")}},
			want: "state entry 's' is declared twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			def := tc.def
			def.Eval = noop
			err := def.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			require.Containsf(t, lower(err.Error()), lower(tc.want), "error: %v", err)
		})
	}
	require.ErrorContains(t, (&ptf.Definition{Output: "INT"}).Validate(), "definition has no Eval function")
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// TestTableTraits: Table adds row semantics unless SetSemantic is given;
// traits print with Flink's names.
func TestTableTraits(t *testing.T) {
	for _, tc := range []struct {
		arg  ptf.Arg
		want string
	}{
		{ptf.Table("t"), "[ROW_SEMANTIC_TABLE]"},
		{ptf.Table("t", ptf.PassColumnsThrough), "[ROW_SEMANTIC_TABLE, PASS_COLUMNS_THROUGH]"},
		{ptf.Table("t", ptf.SetSemantic, ptf.OptionalPartitionBy), "[SET_SEMANTIC_TABLE, OPTIONAL_PARTITION_BY]"},
		{ptf.Table("t", ptf.SetSemantic, ptf.SupportUpdates, ptf.RequireUpdateBefore, ptf.RequireFullDelete, ptf.RequireOnTime),
			"[SET_SEMANTIC_TABLE, SUPPORT_UPDATES, REQUIRE_UPDATE_BEFORE, REQUIRE_FULL_DELETE, REQUIRE_ON_TIME]"},
		{ptf.Scalar("n", "INT"), "[]"},
	} {
		require.Equal(t, tc.want, tc.arg.Traits.String())
	}
	a := ptf.Table("t", ptf.SetSemantic, ptf.SupportUpdates)
	require.True(t, a.IsTable())
	require.True(t, a.Traits.Has(ptf.SetSemantic|ptf.SupportUpdates))
	require.False(t, a.Traits.Has(ptf.SetSemantic|ptf.PassColumnsThrough))
	require.False(t, ptf.OptionalScalar("n", "INT").IsTable())
	require.True(t, ptf.OptionalScalar("n", "INT").Optional)
}

// TestTableArgsAndProducedMode: the helpers the planner uses.
func TestTableArgsAndProducedMode(t *testing.T) {
	def := &ptf.Definition{Args: []ptf.Arg{ptf.Scalar("n", "INT"), ptf.Table("a", ptf.SetSemantic), ptf.Table("b", ptf.SetSemantic)}}
	var names []string
	for _, a := range def.TableArgs() {
		names = append(names, a.Name)
	}
	require.Equal(t, []string{"a", "b"}, names)
	require.Equal(t, ptf.InsertOnly(), def.ProducedMode(ptf.ChangelogContext{}))
	def.Changelog = func(c ptf.ChangelogContext) ptf.ChangelogMode {
		if c.Required.Contains(types.UpdateBefore) { // the consumer needs retractions
			return ptf.Retract()
		}
		return ptf.Upsert()
	}
	require.Equal(t, ptf.Retract(), def.ProducedMode(ptf.ChangelogContext{Required: ptf.Retract()}))
	require.Equal(t, ptf.Upsert(), def.ProducedMode(ptf.ChangelogContext{Required: ptf.Upsert()}))
}
