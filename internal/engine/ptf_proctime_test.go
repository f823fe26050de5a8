package engine_test

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/stretchr/testify/require"
)

// TestPTFProcessingTimers: a function with processing-time timers
// (examples.IdleAlert, decision 0033) runs from SQL on the engine's clock:
// its timers fire when the clock passes them, at a checkpoint or after
// input, and on an idle input at the job's ticks; they survive a stop and
// a resume of the statement.
func TestPTFProcessingTimers(t *testing.T) {
	ctx := t.Context()
	e, clock := datagenEngine(t, t.TempDir()) // 2026-03-01 12:00:00 UTC
	datagenExec(t, e,
		`CREATE FUNCTION IdleAlert AS 'examples.IdleAlert'`,
		`CREATE TABLE ev (user_id STRING, action STRING)`,
		`CREATE TABLE alerts (user_id STRING, alert_type STRING, events BIGINT, idle_ms BIGINT)`,
		`INSERT INTO ev VALUES ('a', 'click'), ('b', 'click'), ('a', 'scroll')`)
	alerts := func() string {
		var out []string
		for _, r := range datagenExec(t, e, `SELECT * FROM alerts`) {
			out = append(out, strings.Join(r, " "))
		}
		sort.Strings(out)
		return strings.Join(out, "\n")
	}
	insert := `INSERT INTO alerts SELECT * FROM IdleAlert(input => TABLE ev PARTITION BY user_id)`
	start := func(resume bool, interval time.Duration) *engine.Outcome {
		out, err := e.Run(ctx, insert, engine.RunOptions{JobID: "idle", Resume: resume, CheckpointInterval: interval})
		require.NoError(t, err)
		t.Cleanup(func() { out.Job.Cancel(); _ = out.Job.Wait() })
		require.NoError(t, out.Job.Sync(ctx))
		return out
	}
	out := start(false, time.Hour) // checkpoints only when the test asks
	require.NoError(t, out.Job.Checkpoint(ctx))
	require.Empty(t, alerts(), "12:00: the timers are at 12:05")

	clock.advance(4 * time.Minute)
	datagenExec(t, e, `INSERT INTO ev VALUES ('b', 'scroll')`) // b's timer moves to 12:09
	require.NoError(t, out.Job.Sync(ctx))
	clock.advance(time.Minute)
	require.NoError(t, out.Job.Checkpoint(ctx))
	require.Equal(t, "a idle 2 300000", alerts(), "12:05: a has been idle for 5 minutes")

	// A stop and a resume: b's timer comes back from the checkpoint.
	out.Job.Cancel()
	_ = out.Job.Wait()
	clock.advance(3 * time.Minute) // 12:08
	out = start(true, 10*time.Millisecond)
	require.NoError(t, out.Job.Checkpoint(ctx))
	require.Equal(t, "a idle 2 300000", alerts())

	// No input arrives: the job's ticks move processing time, and b's
	// timer fires once the clock passes 12:09.
	clock.advance(2 * time.Minute) // 12:10
	require.Eventually(t, func() bool { return strings.Contains(alerts(), "b idle") }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, "a idle 2 300000\nb idle 2 360000", alerts())
}
