package engine_test

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/stretchr/testify/require"
)

// TestPlanVersion checks that a statement planned with plan version 1 keeps
// the operator DAG of statements created before the rewrite rules (its join
// stores the tables' full rows), that the latest version prunes the join's
// inputs, and that a statement resumes from its state with the version it
// ran with.
func TestPlanVersion(t *testing.T) {
	e, _ := datagenEngine(t, t.TempDir())
	datagenExec(t, e,
		`CREATE TABLE o (id INT, cust BIGINT, amount INT, note STRING)`,
		`CREATE TABLE c (cid BIGINT, name STRING, region STRING)`,
		`CREATE TABLE out_t (id INT, name STRING)`,
		`INSERT INTO o VALUES (1, 10, 5, 'a'), (2, 20, 7, 'b')`,
		`INSERT INTO c VALUES (10, 'ann', 'EU')`)
	const insert = `INSERT INTO out_t SELECT o.id, c.name FROM o JOIN c ON o.cust = c.cid WHERE o.amount > 1`
	ctx := t.Context()
	dry, err := e.Run(ctx, insert, engine.RunOptions{DryRun: true})
	require.NoError(t, err)
	require.Equal(t, plan.LatestPlan, dry.PlanVersion)
	require.Equal(t, "join/0{kind=InnerJoin;left=(INT,BIGINT);right=(BIGINT,STRING);keys=[1]/[0]}", dry.OperatorState)

	out, err := e.Run(ctx, insert, engine.RunOptions{JobID: "v1", PlanVersion: plan.PlanV1, CheckpointInterval: 10 * time.Millisecond})
	require.NoError(t, err)
	require.Equal(t, plan.PlanV1, out.PlanVersion)
	require.Equal(t, "join/0{kind=InnerJoin;left=(INT,BIGINT,INT,STRING);right=(BIGINT,STRING,STRING);keys=[1]/[0]}", out.OperatorState)
	require.NoError(t, out.Job.Sync(ctx))
	out.Job.Cancel()
	_ = out.Job.Wait()

	datagenExec(t, e, `INSERT INTO c VALUES (20, 'bob', 'US')`)
	out, err = e.Run(ctx, insert, engine.RunOptions{JobID: "v1", Resume: true, PlanVersion: plan.PlanV1})
	require.NoError(t, err)
	require.NoError(t, out.Job.Sync(ctx))
	out.Job.Cancel()
	_ = out.Job.Wait()
	rows := datagenExec(t, e, `SELECT * FROM out_t`)
	require.ElementsMatch(t, [][]string{{"1", "ann"}, {"2", "bob"}}, rows, "order 2 joined the customer written while the job was stopped, from the join's state")
}
