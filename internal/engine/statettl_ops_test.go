package engine_test

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/stretchr/testify/require"
)

// openTTL opens an engine on a clock the test moves, with a one-hour
// 'table.exec.state.ttl'.
func openTTL(t *testing.T) (*engine.Engine, *setClock) {
	t.Helper()
	clock := &setClock{t: time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)}
	e, err := engine.Open(t.Context(), engine.Options{Clock: clock})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	datagenExec(t, e, `SET 'table.exec.state.ttl' = '1 h'`)
	return e, clock
}

// TestStateTTLTopN: a Top-N forgets rows not written for the TTL, without
// retracting them, as if they had never been seen: after the TTL a smaller
// value becomes the partition's top; a row written within the TTL is kept
// and still ranks.
func TestStateTTLTopN(t *testing.T) {
	e, clock := openTTL(t)
	datagenExec(t, e,
		`CREATE TABLE ev (k INT, v INT)`,
		`CREATE TABLE top1 (k INT PRIMARY KEY NOT ENFORCED, v INT)`,
		`INSERT INTO top1 SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM ev) WHERE rn <= 1`,
		`INSERT INTO ev VALUES (1, 10), (2, 50)`,
	)
	syncJobs(t, e)
	clock.advance(40 * time.Minute)
	datagenExec(t, e, `INSERT INTO ev VALUES (2, 60)`)
	syncJobs(t, e)
	clock.advance(40 * time.Minute) // (1, 10) is 80 minutes old, (2, 60) 40
	datagenExec(t, e, `INSERT INTO ev VALUES (1, 3), (2, 5)`)
	syncJobs(t, e)
	got := changelog(t, e, `SELECT * FROM top1`)
	// The sink's changelog, read back, shows the new top of partition 1
	// as an update of its row (no -D: the old top was forgotten); (2, 5)
	// ranks below (2, 60).
	require.Equal(t, []string{"+I[1, 10]", "+I[2, 50]", "-D[2, 50]", "+I[2, 60]", "-U[1, 10]", "+U[1, 3]"}, got)
}

// TestStateTTLDeduplicate: keep-first deduplication emits a key's row
// again once the key was not written for the TTL (its later rows do not
// renew it, as in Flink); keep-last starts an expired key afresh with +I
// (the upsert sink's changelog, read back, shows it as an update).
func TestStateTTLDeduplicate(t *testing.T) {
	e, clock := openTTL(t)
	datagenExec(t, e,
		`CREATE TABLE ev (k INT, v INT)`,
		`CREATE VIEW pev AS SELECT *, PROCTIME() AS pt FROM ev`,
		`CREATE TABLE firsts (k INT, v INT)`,
		`CREATE TABLE lasts (k INT PRIMARY KEY NOT ENFORCED, v INT)`,
		`INSERT INTO firsts SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt ASC) AS rn FROM pev) WHERE rn = 1`,
		`INSERT INTO lasts SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC) AS rn FROM pev) WHERE rn = 1`,
		`INSERT INTO ev VALUES (1, 1), (2, 1)`,
	)
	syncJobs(t, e)
	clock.advance(40 * time.Minute)
	datagenExec(t, e, `INSERT INTO ev VALUES (1, 2)`)
	syncJobs(t, e)
	clock.advance(40 * time.Minute) // key 1 first written 80 minutes ago, last 40
	datagenExec(t, e, `INSERT INTO ev VALUES (1, 3), (2, 3)`)
	syncJobs(t, e)
	require.Equal(t, []string{"+I[1, 1]", "+I[2, 1]", "+I[1, 3]", "+I[2, 3]"}, changelog(t, e, `SELECT * FROM firsts`))
	require.Equal(t, []string{"+I[1, 1]", "+I[2, 1]", "-U[1, 1]", "+U[1, 2]", "-U[1, 2]", "+U[1, 3]", "-U[2, 1]", "+U[2, 3]"},
		changelog(t, e, `SELECT * FROM lasts`))
}

// TestStateTTLMaterializer: the sink upsert materializer forgets a primary
// key not written for the TTL: the row that was alive there before is not
// shown again when the later one is retracted (the key is deleted), while
// without the TTL it comes back. (The aggregate's own TTL does not matter
// here: its groups are new.)
func TestStateTTLMaterializer(t *testing.T) {
	for _, ttl := range []string{"0 s", "1 h"} {
		t.Run(ttl, func(t *testing.T) {
			e, clock := openTTL(t)
			datagenExec(t, e,
				`SET 'table.exec.state.ttl' = '`+ttl+`'`,
				`CREATE TABLE src (k INT, g INT)`,
				`CREATE TABLE byg (g INT PRIMARY KEY NOT ENFORCED, k INT)`,
				`INSERT INTO byg SELECT g, k FROM (SELECT k, MAX(g) AS g FROM src GROUP BY k) ON CONFLICT DO DEDUPLICATE`,
				`INSERT INTO src VALUES (1, 10)`,
			)
			syncJobs(t, e)
			clock.advance(2 * time.Hour)
			datagenExec(t, e, `INSERT INTO src VALUES (2, 10)`)
			syncJobs(t, e)
			datagenExec(t, e, `INSERT INTO src VALUES (2, 20)`)
			syncJobs(t, e)
			want := []string{"+I[10, 1]", "-U[10, 1]", "+U[10, 2]", "-U[10, 2]", "+U[10, 1]", "+I[20, 2]"}
			if ttl != "0 s" { // (10, 1) was forgotten: the key is deleted
				want = []string{"+I[10, 1]", "-U[10, 1]", "+U[10, 2]", "-D[10, 2]", "+I[20, 2]"}
			}
			require.Equal(t, want, changelog(t, e, `SELECT * FROM byg`))
		})
	}
}
