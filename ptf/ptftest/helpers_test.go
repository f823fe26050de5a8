package ptftest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// The tests in this package check the rules of the ptf SDK through the
// harness, with small test-only definitions. Most of them read their input
// table as ROW<k STRING, op STRING, at TIMESTAMP(3)>: k is the partition key,
// op a space-separated list of steps the definition performs, and at a time
// some steps use.

const opsTable = "ROW<k STRING, op STRING, at TIMESTAMP(3)>"

// t0 is the event time the tests start at.
var t0 = time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)

// at returns t0 plus d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// newOps returns a harness for def over the ops table partitioned by k. The
// column at is a time attribute; pass ptftest.OnTime("at") to use it.
func newOps(t *testing.T, def *ptf.Definition, opts ...ptftest.Option) *ptftest.Harness {
	t.Helper()
	opts = append([]ptftest.Option{
		ptftest.Table("input", opsTable, ptftest.PartitionBy("k"), ptftest.TimeAttribute("at")),
	}, opts...)
	h, err := ptftest.New(def, opts...)
	require.NoError(t, err)
	return h
}

// send feeds one row of the ops table.
func send(h *ptftest.Harness, key, op string, when time.Time) error {
	return h.Insert("input", types.NewString(key), types.NewString(op), types.NewTimestampTime(when))
}

// mustSend is send that fails the test on error.
func mustSend(t *testing.T, h *ptftest.Harness, key, op string, when time.Time) {
	t.Helper()
	require.NoError(t, send(h, key, op, when))
}

// ops splits the op column of a row into its steps.
func ops(in ptf.Input) []string { return strings.Fields(in.Row.Get("op").Str()) }

// key returns a one-column STRING partition key.
func key(k string) []types.Value { return []types.Value{types.NewString(k)} }

// take returns the rows emitted since the last call, formatted.
func take(h *ptftest.Harness) string { return h.Format(h.TakeOutput()) }

// rows joins expected rows into the format of take.
func rows(lines ...string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
