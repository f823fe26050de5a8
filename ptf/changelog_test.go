package ptf_test

import (
	"testing"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// TestChangelogModes: the shortcuts match Flink's ChangelogMode.insertOnly(),
// upsert(), upsert(false) and all(), and print as Flink prints them.
func TestChangelogModes(t *testing.T) {
	for _, tc := range []struct {
		name           string
		mode           ptf.ChangelogMode
		str            string
		insertOnly     bool
		upsert         bool
		keyOnlyDeletes bool
	}{
		{"insert-only", ptf.InsertOnly(), "[INSERT]", true, false, false},
		{"upsert", ptf.Upsert(), "[INSERT, UPDATE_AFTER, ~DELETE]", false, true, true},
		{"upsert with full deletes", ptf.UpsertFullDeletes(), "[INSERT, UPDATE_AFTER, DELETE]", false, true, false},
		{"retract", ptf.Retract(), "[INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]", false, false, false},
		{"retract with key-only deletes", ptf.Retract().WithKeyOnlyDeletes(true), "[INSERT, UPDATE_BEFORE, UPDATE_AFTER, ~DELETE]", false, false, true},
		{"upsert without deletes", ptf.ModeOf(types.Insert, types.UpdateAfter), "[INSERT, UPDATE_AFTER]", false, true, false},
		{"key-only without deletes", ptf.InsertOnly().WithKeyOnlyDeletes(true), "[INSERT]", true, false, false},
		{"deletes only", ptf.ModeOf(types.Insert, types.Delete), "[INSERT, DELETE]", false, true, false},
		{"zero", ptf.ChangelogMode{}, "[]", false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.str, tc.mode.String())
			require.Equal(t, tc.insertOnly, tc.mode.IsInsertOnly(), "IsInsertOnly")
			require.Equal(t, tc.upsert, tc.mode.IsUpsert(), "IsUpsert")
			require.Equal(t, tc.keyOnlyDeletes, tc.mode.KeyOnlyDeletes(), "KeyOnlyDeletes")
			require.Equal(t, tc.name == "zero", tc.mode.IsZero(), "IsZero")
		})
	}
	require.True(t, ptf.Retract().Contains(types.UpdateBefore))
	require.False(t, ptf.Upsert().Contains(types.UpdateBefore))
	require.Equal(t, ptf.UpsertFullDeletes(), ptf.ModeOf(types.Insert, types.UpdateAfter, types.Delete))
	require.Equal(t, ptf.Upsert(), ptf.UpsertFullDeletes().WithKeyOnlyDeletes(true))
}

// TestChangelogModeNames: the names of Flink's test summaries, with the
// no-delete modes.
func TestChangelogModeNames(t *testing.T) {
	for mode, want := range map[ptf.ChangelogMode]string{
		ptf.InsertOnly():        "insert-only",
		ptf.Retract():           "retract",
		ptf.Upsert():            "upsert-partial-delete",
		ptf.UpsertFullDeletes(): "upsert",
		ptf.ModeOf(types.Insert, types.UpdateBefore, types.UpdateAfter): "retract-no-delete",
		ptf.ModeOf(types.Insert, types.UpdateAfter):                     "upsert-no-delete",
		ptf.Retract().Without(types.Delete):                             "retract-no-delete",
		ptf.Upsert().Without(types.Delete):                              "upsert-no-delete",
	} {
		require.Equal(t, want, mode.Name(), mode.String())
	}
}

// TestOptionalDescriptor: DESCRIPTOR and DESCRIPTOR NOT NULL are valid
// argument types; an optional argument must be nullable.
func TestOptionalDescriptor(t *testing.T) {
	def := func(args ...ptf.Arg) *ptf.Definition {
		return &ptf.Definition{Args: append([]ptf.Arg{ptf.Table("input")}, args...), Output: "INT", Eval: func(*ptf.Context, ptf.Input) error { return nil }}
	}
	require.NoError(t, def(ptf.Scalar("cols", "DESCRIPTOR NOT NULL"), ptf.OptionalScalar("extra", "DESCRIPTOR")).Validate())
	require.ErrorContains(t, def(ptf.OptionalScalar("cols", "DESCRIPTOR NOT NULL")).Validate(),
		"optional arguments must have a nullable type (argument 'cols' is DESCRIPTOR NOT NULL)")
	require.ErrorContains(t, def(ptf.OptionalScalar("n", "INT NOT NULL")).Validate(), "must have a nullable type")
}
