package ptftest_test

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// TestHarnessRefusesImpossibleInput: the harness rejects what a call in SQL
// could never see, instead of running the function on it.
func TestHarnessRefusesImpossibleInput(t *testing.T) {
	auditor := examples.ChangelogAuditor
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"unknown table in New", func() error {
			_, err := ptftest.New(auditor, ptftest.Table("inptu", "ROW<currency STRING, rate DECIMAL(10, 4)>"))
			return err
		}, `the function has no table argument named "inptu"`},
		{"table declared twice", func() error {
			_, err := ptftest.New(auditor,
				ptftest.Table("input", "ROW<currency STRING>", ptftest.PartitionBy("currency")),
				ptftest.Table("input", "ROW<currency STRING>", ptftest.PartitionBy("currency")))
			return err
		}, "table input is declared twice"},
		{"not a row type", func() error {
			_, err := ptftest.New(auditor, ptftest.Table("input", "INT"))
			return err
		}, "the type must be a ROW<...>"},
		{"delete into an append-only table", func() error {
			h := mustNew(t, auditor, ptftest.Table("input", "ROW<currency STRING>", ptftest.PartitionBy("currency")))
			return h.Process("input", types.Delete, types.NewString("EUR"))
		}, "table input delivers [INSERT] to the function; a row of kind DELETE cannot occur"},
		{"update before into an upsert table", func() error {
			h := mustNew(t, examples.RunningMax, ptftest.Table("input", "ROW<currency STRING>",
				ptftest.PartitionBy("currency")))
			return h.Process("input", types.UpdateBefore, types.NewString("EUR"))
		}, "table input delivers [INSERT] to the function; a row of kind UPDATE_BEFORE cannot occur"},
		{"wrong number of values", func() error {
			h := mustNew(t, auditor, ptftest.Table("input", "ROW<currency STRING>", ptftest.PartitionBy("currency")))
			return h.Insert("input", types.NewString("EUR"), types.NewInt(1))
		}, "table input has 1 columns, got 2 values"},
		{"unknown table in Insert", func() error {
			h := mustNew(t, auditor, ptftest.Table("input", "ROW<currency STRING>", ptftest.PartitionBy("currency")))
			return h.Insert("other", types.NewString("EUR"))
		}, `unknown table argument "other"`},
		{"unknown table in TableWatermark", func() error {
			h := mustNew(t, auditor, ptftest.Table("input", "ROW<currency STRING>", ptftest.PartitionBy("currency")))
			return h.TableWatermark("other", t0)
		}, `unknown table argument "other"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorContains(t, tc.run(), tc.want)
		})
	}
}

func mustNew(t *testing.T, def *ptf.Definition, opts ...ptftest.Option) *ptftest.Harness {
	t.Helper()
	h, err := ptftest.New(def, opts...)
	require.NoError(t, err)
	return h
}

// TestHarnessOutputs: Output keeps every row, TakeOutput only those since
// the last take; Collected has the rows without the key prefix.
func TestHarnessOutputs(t *testing.T) {
	h := mustNew(t, examples.PassThroughEnrich,
		ptftest.Table("input", "ROW<user_id INT, url STRING>", ptftest.PartitionBy("user_id")),
		ptftest.StartTime(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)))
	require.Equal(t, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), h.Now())
	h.AdvanceTime(time.Hour)
	require.Equal(t, time.Date(2030, 1, 1, 1, 0, 0, 0, time.UTC), h.Now())
	require.NoError(t, h.Insert("input", types.NewInt(1), types.NewString("/a")))
	require.Equal(t, "+I[1, /a, 1]\n", take(h))
	require.NoError(t, h.Insert("input", types.NewInt(1), types.NewString("/b")))
	require.Equal(t, "+I[1, /b, 2]\n", h.Format(h.Output()))
	require.Equal(t, "+I[1, /b, 2]\n", take(h))
	require.Empty(t, h.TakeOutput())
	require.Equal(t, []ptftest.Collected{
		{Kind: types.Insert, Values: []types.Value{types.NewInt(1)}},
		{Kind: types.Insert, Values: []types.Value{types.NewInt(2)}},
	}, h.Collected())
}
