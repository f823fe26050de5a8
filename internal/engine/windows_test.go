package engine_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/types"
)

// finalRows runs a query and folds its changelog into its final rows,
// sorted, one string each.
func finalRows(t *testing.T, e *engine.Engine, q string) []string {
	t.Helper()
	res, err := e.Execute(t.Context(), q, false)
	require.NoError(t, err, q)
	require.NotNil(t, res.Rows, q)
	defer res.Rows.Close()
	alive := map[string]int{}
	for {
		r, ok, err := res.Rows.Next(t.Context())
		require.NoError(t, err, q)
		if !ok {
			break
		}
		s := strings.Join(datagenCells(res.Rows.Schema, r), ", ")
		switch r.Kind {
		case types.Insert, types.UpdateAfter:
			alive[s]++
		default:
			alive[s]--
		}
	}
	var out []string
	for s, n := range alive {
		require.GreaterOrEqual(t, n, 0, "%s retracted more often than inserted", s)
		for range n {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// TestWindowAggregateRandom checks window aggregates against plain GROUP BY
// aggregates over the window columns of the same window TVF, on random
// rows: the window aggregate (the TVF fused into it, assigning windows
// itself) must give, when every window has fired, the final rows of the
// updating aggregate (the TVF's rows grouped by a computed key, so that no
// window aggregate is recognised). The watermark lags an hour behind, so
// no row is late.
func TestWindowAggregateRandom(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 7))
	e, _ := datagenEngine(t, "")
	datagenExec(t, e, `CREATE TABLE ev (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' HOUR)`)
	var vals []string
	base := time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)
	for range 300 {
		ts := base.Add(time.Duration(rng.IntN(600_000)) * time.Millisecond)
		v := "NULL"
		if rng.IntN(10) > 0 {
			v = fmt.Sprint(rng.IntN(100) - 20)
		}
		vals = append(vals, fmt.Sprintf("('%c', %s, TIMESTAMP '%s')", 'a'+rng.IntN(4), v, ts.Format("2006-01-02 15:04:05.000")))
	}
	datagenExec(t, e, "INSERT INTO ev VALUES "+strings.Join(vals, ", "))
	const aggs = "COUNT(*) AS n, SUM(v) AS s, MIN(v) AS lo, MAX(v) AS hi, COUNT(DISTINCT v) AS d"
	for _, tvf := range []string{
		"TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE)",
		"TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '17' SECOND)",
		"HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '20' SECOND, INTERVAL '1' MINUTE)",
		"CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '15' SECOND, INTERVAL '1' MINUTE)",
		"SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND)",
	} {
		window := finalRows(t, e, fmt.Sprintf("SELECT k, window_start, window_end, %s FROM TABLE(%s) GROUP BY k, window_start, window_end", aggs, tvf))
		plain := finalRows(t, e, fmt.Sprintf("SELECT k, window_start, window_end + INTERVAL '0' SECOND AS window_end, %s FROM TABLE(%s) GROUP BY k, window_start, window_end + INTERVAL '0' SECOND", aggs, tvf))
		require.NotEmpty(t, window, tvf)
		t.Logf("%s: %d rows, e.g. %s", tvf, len(window), window[len(window)/2])
		require.Equal(t, plain, window, "%s (seed %d)", tvf, seed)
		// The global aggregate per window (no key) too.
		window = finalRows(t, e, fmt.Sprintf("SELECT window_start, window_end, COUNT(*) AS n, SUM(v) AS s FROM TABLE(%s) GROUP BY window_start, window_end", tvf))
		plain = finalRows(t, e, fmt.Sprintf("SELECT window_start, MAX(window_end) AS window_end, COUNT(*) AS n, SUM(v) AS s FROM TABLE(%s) GROUP BY window_start, window_end + INTERVAL '0' SECOND", tvf))
		if !strings.HasPrefix(tvf, "SESSION") { // sessions of different keys may share a start
			require.Equal(t, plain, window, "%s (seed %d)", tvf, seed)
		}
	}
	// The legacy group window is the same window aggregate.
	legacy := finalRows(t, e, "SELECT k, SESSION_START(ts, INTERVAL '5' SECOND) AS ws, SESSION_END(ts, INTERVAL '5' SECOND) AS we, "+aggs+" FROM ev GROUP BY k, SESSION(ts, INTERVAL '5' SECOND)")
	tvf := finalRows(t, e, "SELECT k, window_start, window_end, "+aggs+" FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end")
	require.Equal(t, tvf, legacy, "seed %d", seed)
}

// TestWindowLateRows: a row whose window has fired is dropped and counted
// in the job's metrics (eddy_statement_late_records_dropped_total).
func TestWindowLateRows(t *testing.T) {
	e, _ := datagenEngine(t, "")
	datagenExec(t, e,
		`CREATE TABLE ev (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)`,
		`CREATE TABLE counts (k STRING, n BIGINT, ws TIMESTAMP(3))`,
		`INSERT INTO ev VALUES ('a', TIMESTAMP '2026-08-01 09:00:01'), ('a', TIMESTAMP '2026-08-01 09:00:12'),
			('a', TIMESTAMP '2026-08-01 09:00:09'), ('b', TIMESTAMP '2026-08-01 09:00:11.5'), ('a', TIMESTAMP '2026-08-01 09:00:10.999')`)
	out, err := e.Run(t.Context(), `INSERT INTO counts SELECT k, COUNT(*), window_start FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end`,
		engine.RunOptions{JobID: "late"})
	require.NoError(t, err)
	require.NoError(t, out.Job.Sync(t.Context()))
	out.Job.Cancel()
	_ = out.Job.Wait()
	// 09:00:12 moves the watermark to 09:00:11, which fires [09:00:00,
	// 09:00:10): 09:00:09 is late; 09:00:10.999 is not (its window is open).
	require.Equal(t, int64(1), out.Job.Metrics().LateRecordsDropped)
	rows := datagenExec(t, e, `SELECT * FROM counts`)
	require.Equal(t, [][]string{{"a", "1", "2026-08-01 09:00:00.000"}}, rows, "the open window [09:00:10, 09:00:20) has not fired")
}

// TestWindowResume: a window aggregate statement stopped at a checkpoint
// resumes with its open windows and its watermark: a window open at the
// stop fires after it with the rows of both runs, and a row late before
// the stop is still late.
func TestWindowResume(t *testing.T) {
	e, _ := datagenEngine(t, t.TempDir())
	datagenExec(t, e,
		`CREATE TABLE ev (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)`,
		`CREATE TABLE counts (k STRING, n BIGINT, ws TIMESTAMP(3))`,
		`INSERT INTO ev VALUES ('a', TIMESTAMP '2026-08-01 09:00:01'), ('a', TIMESTAMP '2026-08-01 09:00:11'), ('b', TIMESTAMP '2026-08-01 09:00:12')`)
	const q = `INSERT INTO counts SELECT k, COUNT(*), window_start FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end`
	run := func(resume bool) *engine.Outcome {
		out, err := e.Run(t.Context(), q, engine.RunOptions{JobID: "wresume", Resume: resume, CheckpointInterval: time.Hour})
		require.NoError(t, err)
		require.NoError(t, out.Job.Sync(t.Context()))
		require.NoError(t, out.Job.Checkpoint(t.Context()))
		out.Job.Cancel()
		_ = out.Job.Wait()
		return out
	}
	run(false)
	require.Equal(t, [][]string{{"a", "1", "2026-08-01 09:00:01.000"}}, datagenExec(t, e, `SELECT * FROM counts`))
	datagenExec(t, e, `INSERT INTO ev VALUES ('a', TIMESTAMP '2026-08-01 09:00:03'), ('a', TIMESTAMP '2026-08-01 09:00:14'), ('b', TIMESTAMP '2026-08-01 09:00:30')`)
	out := run(true)
	require.Equal(t, int64(1), out.Job.Metrics().LateRecordsDropped, "09:00:03 is behind the restored watermark")
	require.Equal(t, [][]string{
		{"a", "1", "2026-08-01 09:00:01.000"},
		{"b", "1", "2026-08-01 09:00:12.000"}, // [09:00:12, 09:00:17) fires first
		{"a", "2", "2026-08-01 09:00:11.000"},
	}, datagenExec(t, e, `SELECT * FROM counts`))
}

// TestWindowProcTime: a TUMBLE over PROCTIME() runs on the engine's clock:
// rows take the clock's time when they arrive, and the window fires when
// the clock passes its end.
func TestWindowProcTime(t *testing.T) {
	e, clock := datagenEngine(t, "") // 2026-03-01 12:00:00 UTC
	datagenExec(t, e,
		`CREATE TABLE ev (k STRING)`,
		`CREATE VIEW pev AS SELECT *, PROCTIME() AS pt FROM ev`,
		`CREATE TABLE counts (k STRING, n BIGINT, ws TIMESTAMP(3), we TIMESTAMP(3))`,
		`INSERT INTO ev VALUES ('a'), ('b'), ('a')`)
	out, err := e.Run(t.Context(), `INSERT INTO counts SELECT k, COUNT(*), window_start, window_end FROM TABLE(TUMBLE(TABLE pev, DESCRIPTOR(pt), INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end`,
		engine.RunOptions{JobID: "proc"})
	require.NoError(t, err)
	t.Cleanup(func() { out.Job.Cancel(); _ = out.Job.Wait() })
	require.NoError(t, out.Job.Sync(t.Context()))
	require.Empty(t, datagenExec(t, e, `SELECT * FROM counts`), "the window [12:00, 12:01) is open")
	clock.advance(time.Minute)
	require.NoError(t, out.Job.Sync(t.Context()))
	require.NoError(t, out.Job.Checkpoint(t.Context()))
	require.Equal(t, [][]string{
		{"a", "2", "2026-03-01 12:00:00.000", "2026-03-01 12:01:00.000"},
		{"b", "1", "2026-03-01 12:00:00.000", "2026-03-01 12:01:00.000"},
	}, datagenExec(t, e, `SELECT * FROM counts`))
}
