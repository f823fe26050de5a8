package nexmark

import (
	"testing"
	"time"

	nexgen "github.com/eddy-sql/eddy/internal/connector/nexmark"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/nexmark/reference"
	"github.com/stretchr/testify/require"
)

// testStart is the time of the first event: 40 s before midnight, so that
// the per-day queries see two days and the windows cross the day.
var testStart = time.Date(2015, 7, 15, 23, 59, 20, 0, time.UTC)

// TestQueries runs every query of the suite through Eddy (the scripts of
// examples/nexmark, with the result table made readable) over 100,000
// events at 1000 events per second (100 s of event time: ten 10 s
// windows), and compares the final result with the reference
// implementation's. Queries listed as running (Query.Waits empty) must
// match; the others must still fail, so that the list stays true: when
// one starts to run, clear its Waits and let this test compare it.
func TestQueries(t *testing.T) {
	for _, q := range Queries {
		t.Run(q.Name, func(t *testing.T) {
			o, err := Verify(t.Context(), q.Name, Check{Events: testEvents, TPS: 1000, Start: testStart})
			require.NoError(t, err)
			if q.Runs() {
				require.True(t, o.Matches(), "%s is listed as running: %s", q.Name, o)
				require.Positive(t, o.Rows, "%s has an empty result: the test would prove nothing", q.Name)
				return
			}
			if o.Err == nil {
				if !reference.Supported(q.Name) {
					t.Fatalf("%s runs now, but it has no reference implementation to compare with", q.Name)
				}
				t.Fatalf("%s runs now (%s): clear its Waits (it waited for %s) so that it is checked", q.Name, o, q.Waits)
			}
			t.Logf("%s waits for %s: %v", q.Name, q.Waits, o.Err)
		})
	}
}

// TestQueriesMiniBatch runs the queries with a regular GROUP BY (q3's
// join aside: q4, q9's Top-N aside: q15, q16, q17) with the suite's
// mini-batch setting (decision 0039): the final result must not change.
func TestQueriesMiniBatch(t *testing.T) {
	// The settings Verify executes reach the planner (an earlier version
	// of Bench set them on a session its statement did not use).
	e, err := engine.Open(t.Context(), engine.Options{})
	require.NoError(t, err)
	defer e.Close()
	require.NoError(t, Exec(t.Context(), e, append(append([]string(nil), miniBatchSettings...),
		"CREATE TABLE mb (k INT, v INT)")))
	res, err := e.Execute(t.Context(), "EXPLAIN SELECT k, SUM(v) FROM mb GROUP BY k", false)
	require.NoError(t, err)
	require.Contains(t, res.Message, "miniBatch=[2000ms, 50000 rows]")

	for _, name := range []string{"q4", "q15", "q16", "q17"} {
		t.Run(name, func(t *testing.T) {
			o, err := Verify(t.Context(), name, Check{Events: testEvents, TPS: 1000, Start: testStart, MiniBatch: true})
			require.NoError(t, err)
			require.True(t, o.Matches(), "%s with mini-batch: %s", name, o)
			require.Positive(t, o.Rows)
		})
	}
}

func TestDiff(t *testing.T) {
	require.Empty(t, diff([]string{"a", "b"}, []string{"a", "b"}, 10))
	require.Equal(t, []string{"- a", "+ c"}, diff([]string{"a", "b"}, []string{"b", "c"}, 10))
	require.Equal(t, []string{"- a", "- a"}, diff([]string{"a", "a", "b"}, []string{"b"}, 10), "multisets")
	require.Len(t, diff([]string{"a", "b", "c"}, nil, 2), 2)
}

// TestVerifyDetects makes sure a wrong result is reported: q2's rows
// compared with the reference result of q0.
func TestVerifyDetects(t *testing.T) {
	check := Check{Events: 2000, TPS: 1000, Start: testStart}
	o, err := Verify(t.Context(), "q2", check)
	require.NoError(t, err)
	require.True(t, o.Matches(), "%s", o)
	computeReference = func(_ string, events []nexgen.Event, opts reference.Options) (*reference.Table, error) {
		return reference.Compute("q0", events, opts)
	}
	t.Cleanup(func() { computeReference = reference.Compute })
	o, err = Verify(t.Context(), "q2", check)
	require.NoError(t, err)
	require.False(t, o.Matches())
	require.NotEmpty(t, o.Diff)
	require.Contains(t, o.String(), "differs from the reference")
}

func TestScript(t *testing.T) {
	s, err := Script("q2", DefaultVars(5000))
	require.NoError(t, err)
	require.Contains(t, s, "'events.num' = '5000'")
	require.Contains(t, s, "'first-event.rate' = '10000000'")
	require.Contains(t, s, "FROM datagen WHERE event_type = 2")
	require.NotContains(t, s, "${")
	stmts := Statements(s, true)
	require.Len(t, stmts, 6) // the table, three views, the result table, the insert
	require.Contains(t, stmts[4], "WITH ('changelog.mode' = 'retract')")
	require.NotContains(t, Statements(s, false)[4], "changelog.mode")
	require.Equal(t, 23, len(QueryNames()))
	require.Equal(t, "q10", QueryNames()[10])
}

func TestStatementsPartitioned(t *testing.T) {
	s, err := Script("q10", DefaultVars(10))
	require.NoError(t, err)
	var sink string
	for _, st := range Statements(s, true) {
		if isSinkDDL(st) {
			sink = st
		}
	}
	require.NotContains(t, sink, "PARTITIONED")
	require.Contains(t, sink, "hm STRING\n) WITH ('changelog.mode' = 'retract')")
}
