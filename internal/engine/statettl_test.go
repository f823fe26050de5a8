package engine_test

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// setClock is a clock the test moves.
type setClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *setClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *setClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func sortedRows(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, strings.Join(r, ","))
	}
	sort.Strings(out)
	return out
}

// TestStateTTLJoin: with 'table.exec.state.ttl' a join forgets rows not
// written for the TTL, as if they had never been seen: a later row of the
// other side does not match them, and their retraction is ignored. Rows
// written within the TTL still match.
func TestStateTTLJoin(t *testing.T) {
	clock := &setClock{t: time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)}
	e, err := engine.Open(t.Context(), engine.Options{Clock: clock})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	datagenExec(t, e,
		`SET 'table.exec.state.ttl' = '1 h'`,
		`CREATE TABLE l (k INT, a STRING)`,
		`CREATE TABLE r (k INT, b STRING)`,
		`CREATE TABLE joined (k INT, a STRING, b STRING)`,
		`INSERT INTO joined SELECT l.k, l.a, r.b FROM l JOIN r ON l.k = r.k`,
		`INSERT INTO l VALUES (1, 'old'), (2, 'kept')`,
	)
	syncJobs(t, e)
	clock.advance(40 * time.Minute)
	datagenExec(t, e, `INSERT INTO l VALUES (2, 'kept2')`)
	syncJobs(t, e)
	clock.advance(40 * time.Minute) // 'old' and 'kept' are 80 minutes old, 'kept2' 40
	datagenExec(t, e, `INSERT INTO r VALUES (1, 'x'), (2, 'y')`)
	rows := datagenExec(t, e, `SELECT * FROM joined`)
	require.Equal(t, []string{"2,kept2,y"}, sortedRows(rows))
}

// TestStateTTLAggregate: an expired group starts afresh (+I with the new
// count), and the STATE_TTL hint overrides the session's TTL per table
// (Flink 2.x: the hint names the aggregate's input table).
func TestStateTTLAggregate(t *testing.T) {
	clock := &setClock{t: time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)}
	e, err := engine.Open(t.Context(), engine.Options{Clock: clock})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	datagenExec(t, e,
		`SET 'table.exec.state.ttl' = '1 h'`,
		`CREATE TABLE ev (k INT)`,
		`CREATE TABLE counts (k INT PRIMARY KEY NOT ENFORCED, n BIGINT)`,
		`INSERT INTO counts SELECT k, COUNT(*) FROM ev GROUP BY k`,
		`INSERT INTO ev VALUES (1), (1), (2)`,
	)
	syncJobs(t, e)
	clock.advance(2 * time.Hour)
	datagenExec(t, e, `INSERT INTO ev VALUES (1)`)
	// Group 1 expired: it counts from 1 again (the table's changelog, read
	// back, shows it as an update of the row).
	require.Equal(t, []string{"+I[1, 1]", "-U[1, 1]", "+U[1, 2]", "+I[2, 1]", "-U[1, 2]", "+U[1, 1]"}, changelog(t, e, `SELECT * FROM counts`))
}

// syncJobs waits until the running statements have processed what was
// written, so that they see the clock's present time.
func syncJobs(t *testing.T, e *engine.Engine) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	require.NoError(t, e.Sync(ctx))
}

// changelog runs a query and returns its rows with their kinds.
func changelog(t *testing.T, e *engine.Engine, sql string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := e.Execute(ctx, sql, false)
	require.NoError(t, err, sql)
	defer res.Rows.Close()
	var out []string
	for {
		r, ok, err := res.Rows.Next(ctx)
		require.NoError(t, err)
		if !ok {
			return out
		}
		var cells []string
		for i, v := range r.Values {
			cells = append(cells, types.Format(v, res.Rows.Schema.Fields[i].Type))
		}
		out = append(out, r.Kind.String()+"["+strings.Join(cells, ", ")+"]")
	}
}

// TestStateTTLHint: STATE_TTL('l' = '1 h') gives the left side of a join a
// TTL without a session TTL: old left rows are forgotten, right rows are
// kept; on an aggregate it names the input table. A hint naming no input
// fails with Flink's message.
func TestStateTTLHint(t *testing.T) {
	clock := &setClock{t: time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)}
	e, err := engine.Open(t.Context(), engine.Options{Clock: clock})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	datagenExec(t, e,
		`CREATE TABLE l (k INT, a STRING)`,
		`CREATE TABLE r (k INT, b STRING)`,
		`CREATE TABLE joined (k INT, a STRING, b STRING)`,
		`CREATE TABLE counts (k INT PRIMARY KEY NOT ENFORCED, n BIGINT)`,
		`INSERT INTO joined SELECT /*+ STATE_TTL('l' = '1 h') */ l.k, l.a, r.b FROM l JOIN r ON l.k = r.k`,
		`INSERT INTO counts SELECT /*+ STATE_TTL('r' = '1 h') */ k, COUNT(*) FROM r GROUP BY k`,
		`INSERT INTO l VALUES (1, 'old')`,
		`INSERT INTO r VALUES (2, 'old')`,
	)
	syncJobs(t, e)
	clock.advance(2 * time.Hour)
	datagenExec(t, e, `INSERT INTO r VALUES (1, 'x')`, `INSERT INTO l VALUES (2, 'new')`)
	syncJobs(t, e)
	// 'l' rows expired: (1, old) does not meet x; (2, old) of r is kept.
	require.Equal(t, []string{"2,new,old"}, sortedRows(datagenExec(t, e, `SELECT * FROM joined`)))
	require.Equal(t, []string{"+I[2, 1]", "+I[1, 1]"}, changelog(t, e, `SELECT * FROM counts`))

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err = e.Execute(ctx, `SELECT /*+ STATE_TTL('nope' = '1 h') */ k, COUNT(*) FROM r GROUP BY k`, false)
	require.ErrorContains(t, err, "The options of following hints cannot match the name of input tables or views: \n`nope` in `STATE_TTL`")
}
