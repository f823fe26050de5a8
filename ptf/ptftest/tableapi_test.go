package ptftest_test

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// The harness takes the calls the Table API makes: positional scalar
// arguments, chained calls, and virtual processing time.

func ts(s string) types.Value {
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		panic(err)
	}
	return types.NewTimestampTime(t)
}

// Args passes scalars by position, as Median(TABLE t PARTITION BY k, 3).
func TestPositionalArguments(t *testing.T) {
	tbl := ptftest.Table("input", "ROW<sensor_id INT, temperature DOUBLE>", ptftest.PartitionBy("sensor_id"))
	feed := func(h *ptftest.Harness) string {
		for _, v := range []float64{20, 22, 21, 24} {
			require.NoError(t, h.Insert("input", types.NewInt(1), types.NewFloat(v)))
		}
		return h.Format(h.Output())
	}
	pos, err := ptftest.New(examples.Median, tbl, ptftest.Args(types.NewInt(2)))
	require.NoError(t, err)
	named, err := ptftest.New(examples.Median, tbl, ptftest.Arg("numTrailing", types.NewInt(2)))
	require.NoError(t, err)
	got := feed(pos)
	require.Equal(t, rows("+I[1, 20.0, 20.0]", "+I[1, 22.0, 21.0]", "+I[1, 21.0, 21.5]", "+I[1, 24.0, 22.5]"), got)
	require.Equal(t, got, feed(named))

	_, err = ptftest.New(examples.Median, tbl, ptftest.Args(types.NewInt(2), types.NewInt(3)))
	require.ErrorContains(t, err, "Args: 2 values for the 1 scalar arguments")
	_, err = ptftest.New(examples.Median, tbl, ptftest.Args(types.NewInt(2)), ptftest.Arg("numTrailing", types.NewInt(2)))
	require.ErrorContains(t, err, "Cannot mix positional and named arguments")
}

// Feed chains two calls as the Table API's t.Process(f1).PartitionBy(k).
// Process(f2) runs: the second sees the first's rows and its watermarks
// (TestChainedCalls in package table runs the same pipeline in SQL).
func TestFeedChainsCalls(t *testing.T) {
	first, err := ptftest.New(examples.PassThroughEnrich, ptftest.Name("first"),
		ptftest.Table("input", "ROW<user_id INT, event_time TIMESTAMP(3)>", ptftest.PartitionBy("user_id"), ptftest.TimeAttribute("event_time")),
		ptftest.OnTime("event_time"))
	require.NoError(t, err)
	require.Equal(t, "ROW<`user_id` INT, `event_time` TIMESTAMP(3), `EXPR$0` BIGINT, `rowtime` TIMESTAMP(3) NOT NULL>", first.Schema().RowType().String())
	second, err := ptftest.New(examples.InactivityAlert, ptftest.Name("second"),
		ptftest.Table("input", first.Schema().RowType().String(), ptftest.PartitionBy("user_id"), ptftest.TimeAttribute("rowtime")),
		ptftest.OnTime("rowtime"))
	require.NoError(t, err)
	require.NoError(t, first.Feed(second, "input"))

	for _, e := range []struct {
		user int64
		at   string
	}{{1, "2026-08-01 09:00:00"}, {2, "2026-08-01 09:00:10"}, {1, "2026-08-01 09:00:30"}, {1, "2026-08-01 09:02:00"}} {
		require.NoError(t, first.Insert("input", types.NewInt(e.user), ts(e.at)))
		// The source's watermark follows the rows (WATERMARK FOR ts AS ts).
		require.NoError(t, first.Watermark(ts(e.at).Time()))
	}
	require.Equal(t, "+I[2, inactive, 60000, 2026-08-01 09:01:10.000]\n", second.Format(second.TakeOutput()))

	// A snapshot of both mid-test, restored: the pending timer of user 1
	// fires at the end of the input.
	s1, err := first.Snapshot()
	require.NoError(t, err)
	s2, err := second.Snapshot()
	require.NoError(t, err)
	require.NoError(t, first.Restore(s1))
	require.NoError(t, second.Restore(s2))
	require.NoError(t, first.End())
	require.Equal(t, "+I[1, inactive, 60000, 2026-08-01 09:03:00.000]\n", second.Format(second.TakeOutput()))

	bad, err := ptftest.New(examples.InactivityAlert,
		ptftest.Table("input", "ROW<user_id INT, rowtime TIMESTAMP(3)>", ptftest.PartitionBy("user_id"), ptftest.TimeAttribute("rowtime")),
		ptftest.OnTime("rowtime"))
	require.NoError(t, err)
	require.ErrorContains(t, first.Feed(bad, "input"), "table input is declared with 2 columns, but the function's output has 4")
}

// SetProcessingTime moves the virtual processing time that state TTL
// reads (PTFs have event-time timers only, as in Flink).
func TestSetProcessingTime(t *testing.T) {
	h, err := ptftest.New(examples.TtlCountdown,
		ptftest.Table("input", "ROW<user_id INT>", ptftest.PartitionBy("user_id")))
	require.NoError(t, err)
	require.NoError(t, h.Insert("input", types.NewInt(1234)))
	require.NoError(t, h.SetProcessingTime(h.Now().Add(29*time.Second)))
	require.NoError(t, h.Insert("input", types.NewInt(1234)))
	require.NoError(t, h.SetProcessingTime(h.Now().Add(31*time.Second)))
	require.NoError(t, h.Insert("input", types.NewInt(1234)))
	require.Equal(t, rows("+I[1234, 1]", "+I[1234, 2]", "+I[1234, 1]"), h.Format(h.Output()))
	require.ErrorContains(t, h.SetProcessingTime(h.Now().Add(-time.Second)), "processing time cannot go back")
}
