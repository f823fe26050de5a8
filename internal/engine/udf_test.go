package engine_test

import (
	"slices"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/udf"
	"github.com/stretchr/testify/require"
)

// TestUserAggregateResume: a user-defined aggregate's accumulators are
// state: a job stopped after a checkpoint and resumed goes on from them
// and from its input positions, giving the uninterrupted run's results.
func TestUserAggregateResume(t *testing.T) {
	udfs := udf.NewRegistry()
	require.NoError(t, examples.RegisterUserFunctions(udfs))
	require.NoError(t, registerTestUserFunctions(udfs))
	ctx := t.Context()
	e, err := engine.Open(ctx, engine.Options{DataDir: t.TempDir(), UDFs: udfs})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	datagenExec(t, e,
		`CREATE FUNCTION WeightedAvg AS 'examples.WeightedAvg'`,
		`CREATE FUNCTION Total AS 'test.Total'`,
		`CREATE TABLE votes (post INT, score DOUBLE, n BIGINT)`,
		`CREATE TABLE post_avg (post INT PRIMARY KEY NOT ENFORCED, wavg DOUBLE, total BIGINT)`,
		`INSERT INTO votes VALUES (1, 4.0, 10), (2, 2.0, 1), (1, 1.0, 30)`)
	const insert = `INSERT INTO post_avg SELECT post, WeightedAvg(score, n), Total(n) FROM votes GROUP BY post`
	run := func(resume bool) {
		out, err := e.Run(ctx, insert, engine.RunOptions{JobID: "wavg", Resume: resume, CheckpointInterval: 10 * time.Millisecond})
		require.NoError(t, err)
		require.NoError(t, out.Job.Sync(ctx))
		out.Job.Cancel()
		_ = out.Job.Wait()
	}
	run(false)
	require.ElementsMatch(t, [][]string{{"1", "1.75", "40"}, {"2", "2.0", "1"}}, materialized(t, e, `SELECT * FROM post_avg`))
	datagenExec(t, e, `INSERT INTO votes VALUES (1, 5.0, 60), (2, 4.0, 1)`)
	run(true)
	require.ElementsMatch(t, [][]string{{"1", "3.7", "100"}, {"2", "3.0", "2"}}, materialized(t, e, `SELECT * FROM post_avg`))
}

// materialized runs a query and applies its changelog: the rows left.
func materialized(t *testing.T, e *engine.Engine, query string) [][]string {
	t.Helper()
	res, err := e.Execute(t.Context(), query, false)
	require.NoError(t, err)
	defer res.Rows.Close()
	var live [][]string
	for {
		r, ok, err := res.Rows.Next(t.Context())
		require.NoError(t, err)
		if !ok {
			return live
		}
		cells := datagenCells(res.Rows.Schema, r)
		if !r.Kind.IsRetraction() {
			live = append(live, cells)
			continue
		}
		i := slices.IndexFunc(live, func(c []string) bool { return slices.Equal(c, cells) })
		require.GreaterOrEqual(t, i, 0, "retraction of a row not emitted: %v", cells)
		live = slices.Delete(live, i, i+1)
	}
}
