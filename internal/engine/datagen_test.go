package engine_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// datagenClock is a manual clock safe for the source task to read while
// the test moves it.
type datagenClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *datagenClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *datagenClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var datagenStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func datagenEngine(t *testing.T, dir string) (*engine.Engine, *datagenClock) {
	t.Helper()
	reg := ptf.NewRegistry()
	require.NoError(t, examples.Register(reg))
	clock := &datagenClock{t: datagenStart}
	e, err := engine.Open(t.Context(), engine.Options{DataDir: dir, Registry: reg, Clock: clock})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e, clock
}

// datagenExec runs statements as a script does and returns the last
// result's rows, formatted.
func datagenExec(t *testing.T, e *engine.Engine, stmts ...string) [][]string {
	t.Helper()
	var out [][]string
	for _, s := range stmts {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		res, err := e.Execute(ctx, s, false)
		require.NoError(t, err, s)
		out = datagenDrain(t, ctx, res)
		cancel()
	}
	return out
}

func datagenDrain(t *testing.T, ctx context.Context, res *cli.Result) [][]string {
	t.Helper()
	if res == nil || res.Rows == nil {
		return nil
	}
	defer res.Rows.Close()
	var out [][]string
	for {
		r, ok, err := res.Rows.Next(ctx)
		require.NoError(t, err)
		if !ok {
			return out
		}
		out = append(out, datagenCells(res.Rows.Schema, r))
	}
}

func datagenCells(s *types.Schema, r types.Row) []string {
	cells := make([]string, len(r.Values))
	for i, v := range r.Values {
		cells[i] = types.Format(v, s.Fields[i].Type)
	}
	return cells
}

func datagenErr(t *testing.T, e *engine.Engine, stmt string) *sqlerr.Error {
	t.Helper()
	_, err := e.Execute(t.Context(), stmt, false)
	require.Error(t, err, stmt)
	se, ok := sqlerr.As(err)
	require.True(t, ok, "%T: %v", err, err)
	return se
}

func TestDatagenSequence(t *testing.T) {
	e, _ := datagenEngine(t, "")
	rows := datagenExec(t, e,
		`CREATE TABLE g (id INT, v DOUBLE) WITH ('connector'='datagen','number-of-rows'='5','fields.id.kind'='sequence','fields.id.start'='1','fields.id.end'='5')`,
		`SELECT * FROM g`)
	require.Len(t, rows, 5)
	for i, r := range rows {
		require.Equal(t, []string{"1", "2", "3", "4", "5"}[i], r[0])
	}
	// The same rows every time, with the creation time from the clock.
	require.Equal(t, rows, datagenExec(t, e, `SELECT * FROM g`))
	show := datagenExec(t, e, `SHOW CREATE TABLE g`)
	require.Nil(t, show)
	res, err := e.Execute(t.Context(), `SHOW CREATE TABLE g`, false)
	require.NoError(t, err)
	require.Contains(t, res.Message, "'eddy.created-at' = '2026-03-01T12:00:00Z'")
	require.Contains(t, res.Message, "'connector' = 'datagen'")
	// Computed columns over generated ones, and a filter.
	rows = datagenExec(t, e,
		`CREATE TABLE g2 (id BIGINT, twice AS id * 2) WITH ('connector'='datagen','fields.id.kind'='sequence','fields.id.start'='10','fields.id.end'='12')`,
		`SELECT id, twice FROM g2 WHERE id > 10`)
	require.Equal(t, [][]string{{"11", "22"}, {"12", "24"}}, rows)
}

func TestDatagenMarketplace(t *testing.T) {
	e, _ := datagenEngine(t, t.TempDir())
	rows := datagenExec(t, e, `SELECT * FROM examples.marketplace.clicks LIMIT 5`)
	require.Len(t, rows, 5)
	for i, r := range rows {
		require.Len(t, r, 6)
		require.Regexp(t, `^[0-9a-f-]{36}$`, r[0])
		require.Regexp(t, `^https://www\.acme\.com/product/`, r[2])
		// $rowtime: 50 rows per second from the examples' creation time.
		require.Equal(t, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i)*20*time.Millisecond).Format("2006-01-02 15:04:05.000"), r[5])
	}
	// The same rows in another engine.
	e2, _ := datagenEngine(t, "")
	require.Equal(t, rows, datagenExec(t, e2, `SELECT * FROM examples.marketplace.clicks LIMIT 5`))

	// A snapshot of an unbounded example table reads 'eddy.snapshot.max-rows' rows.
	rows = datagenExec(t, e, `SELECT order_id FROM examples.marketplace.orders`)
	require.Len(t, rows, 1000)

	// Upsert tables deliver a changelog by key.
	_, err := e.Execute(t.Context(), `SET 'sql-client.execution.result-mode' = 'changelog'`, false)
	require.NoError(t, err)
	res, err := e.Execute(t.Context(), `SELECT * FROM examples.marketplace.customers`, false)
	require.NoError(t, err)
	kinds := map[types.RowKind]int{}
	for {
		r, ok, err := res.Rows.Next(t.Context())
		require.NoError(t, err)
		if !ok {
			break
		}
		kinds[r.Kind]++
	}
	res.Rows.Close()
	require.Equal(t, 1000, kinds[types.Insert]+kinds[types.UpdateAfter], "one change per generated row")
	require.Equal(t, kinds[types.UpdateBefore], kinds[types.UpdateAfter])
	require.True(t, kinds[types.Insert] > 200 && kinds[types.Insert] <= 250, "customer ids 3000..3249: %v", kinds)

	// Catalog browsing and DDL.
	require.Contains(t, datagenExec(t, e, `SHOW CATALOGS`), []string{"examples"})
	datagenExec(t, e, `USE CATALOG examples`)
	require.Equal(t, [][]string{{"marketplace"}}, datagenExec(t, e, `SHOW DATABASES`))
	require.Equal(t, [][]string{{"clicks"}, {"customers"}, {"orders"}, {"products"}}, datagenExec(t, e, `SHOW TABLES`))
	desc := datagenExec(t, e, `DESCRIBE clicks`)
	require.Equal(t, []string{"click_id", "user_id", "url", "user_agent", "view_time", "$rowtime"}, datagenColumn(desc, 0))
	require.Equal(t, "TIMESTAMP_LTZ(3) *ROWTIME*", desc[5][1])
	res, err = e.Execute(t.Context(), `SHOW CREATE TABLE products`, false)
	require.NoError(t, err)
	require.Contains(t, res.Message, "PRIMARY KEY (product_id) NOT ENFORCED")
	require.Contains(t, res.Message, "'changelog.mode' = 'upsert'")
}

func datagenColumn(rows [][]string, i int) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r[i])
	}
	return out
}

func TestDatagenExamplesPersist(t *testing.T) {
	dir := t.TempDir()
	e, _ := datagenEngine(t, dir)
	first := datagenExec(t, e, `SELECT * FROM examples.marketplace.products LIMIT 3`)
	require.NoError(t, e.Close())
	e, _ = datagenEngine(t, dir)
	require.Equal(t, first, datagenExec(t, e, `SELECT * FROM examples.marketplace.products LIMIT 3`))
	require.Equal(t, [][]string{{"default_catalog"}, {"examples"}}, datagenExec(t, e, `SHOW CATALOGS`))
}

func TestDatagenPTF(t *testing.T) {
	e, _ := datagenEngine(t, "")
	clicks := datagenExec(t, e, `SELECT user_id FROM examples.marketplace.clicks LIMIT 8`)
	datagenExec(t, e,
		`CREATE FUNCTION TtlCountdown AS 'examples.TtlCountdown'`,
		`CREATE FUNCTION PassThroughEnrich AS 'examples.PassThroughEnrich'`)
	rows := datagenExec(t, e, `SELECT * FROM TtlCountdown(input => TABLE examples.marketplace.clicks PARTITION BY user_id, uid => 'ttl-countdown-v1') LIMIT 8`)
	require.Len(t, rows, 8)
	for i, r := range rows {
		require.Equal(t, clicks[i][0], r[0], "the function sees the clicks in order")
		require.Equal(t, "1", r[1], "a user rarely clicks twice among 8 clicks of 2000 users")
	}
	rows = datagenExec(t, e, `SELECT * FROM PassThroughEnrich(input => TABLE examples.marketplace.clicks PARTITION BY user_id, uid => 'pass-through-enrich-v1') LIMIT 3`)
	require.Len(t, rows, 3)
	require.Len(t, rows[0], 7, "the clicks' columns and the count")

	// Per-user counts over the whole snapshot are consistent.
	rows = datagenExec(t, e, `SELECT * FROM TtlCountdown(input => TABLE examples.marketplace.clicks PARTITION BY user_id)`)
	require.Len(t, rows, 1000)
	last := map[string]int{}
	for _, r := range rows {
		last[r[0]]++
		require.Equal(t, last[r[0]], datagenAtoi(t, r[1]))
	}
	// With parallelism, keys are routed to subtasks; every click still
	// arrives once.
	datagenExec(t, e, `SET 'parallelism.default' = '4'`)
	require.Len(t, datagenExec(t, e, `SELECT * FROM TtlCountdown(input => TABLE examples.marketplace.clicks PARTITION BY user_id)`), 1000)
}

func datagenAtoi(t *testing.T, s string) int {
	n := 0
	for _, c := range s {
		require.True(t, c >= '0' && c <= '9', s)
		n = n*10 + int(c-'0')
	}
	return n
}

func TestDatagenReadOnly(t *testing.T) {
	e, _ := datagenEngine(t, "")
	for _, tc := range []struct{ stmt, msg string }{
		{`INSERT INTO examples.marketplace.clicks SELECT * FROM examples.marketplace.clicks`, "The catalog 'examples' is read-only: its tables cannot be written into"},
		{`DROP TABLE examples.marketplace.orders`, "its tables cannot be dropped"},
		{`DROP TABLE IF EXISTS examples.marketplace.orders`, "its tables cannot be dropped"},
		{`CREATE TABLE examples.marketplace.t (a INT)`, "tables cannot be created in it"},
		{`CREATE DATABASE examples.mine`, "databases cannot be created in it"},
	} {
		se := datagenErr(t, e, tc.stmt)
		require.Equal(t, sqlerr.Unsupported, se.Code, tc.stmt)
		require.Contains(t, se.Message, tc.msg, tc.stmt)
	}
	datagenExec(t, e, `USE CATALOG examples`)
	se := datagenErr(t, e, `CREATE TABLE t (a INT)`)
	require.Contains(t, se.Message, "read-only")

	datagenExec(t, e, `USE CATALOG default_catalog`,
		`CREATE TABLE g (id INT) WITH ('connector' = 'datagen')`)
	for _, stmt := range []string{`INSERT INTO g VALUES (1)`, `INSERT INTO g SELECT * FROM g`} {
		se = datagenErr(t, e, stmt)
		require.Contains(t, se.Message, "Connector 'datagen' can only be used as a source. It cannot be used as a sink.")
		require.True(t, se.Pos.IsValid(), stmt)
	}
	se = datagenErr(t, e, `CREATE TABLE c WITH ('connector' = 'datagen') AS SELECT * FROM g`)
	require.Contains(t, se.Message, "cannot be created AS SELECT")
	// Copying generated rows into a log table works.
	rows := datagenExec(t, e,
		`CREATE TABLE copy AS SELECT click_id, user_id FROM examples.marketplace.clicks`,
		`SELECT * FROM copy`)
	require.Len(t, rows, 1000)
}

func TestDatagenOptionErrors(t *testing.T) {
	e, _ := datagenEngine(t, "")
	se := datagenErr(t, e, "CREATE TABLE g (id INT) WITH (\n  'connector' = 'datagen',\n  'fields.id.kind' = 'sequence',\n  'fields.id.start' = '1')")
	require.Equal(t, sqlerr.InvalidOption, se.Code)
	require.Contains(t, se.Message, "Could not find required option 'fields.id.end'")
	se = datagenErr(t, e, "CREATE TABLE g (id INT) WITH (\n  'connector' = 'datagen',\n  'fields.id.max' = 'lots')")
	require.Equal(t, sqlerr.Pos{Line: 3, Col: 21}, se.Pos, "the error points at the option's value")
	require.Contains(t, se.Message, "Invalid value 'lots' for option 'fields.id.max'")
	se = datagenErr(t, e, "CREATE TABLE g (id INT) WITH ('connector' = 'datagen', 'rows-per-secnd' = '5')")
	require.Contains(t, se.Message, "Unsupported option 'rows-per-secnd' for connector 'datagen'")
	require.Equal(t, "did you mean 'rows-per-second'?", se.Hint)
	se = datagenErr(t, e, "CREATE TABLE g (id INT, p INT METADATA FROM 'partition' VIRTUAL) WITH ('connector' = 'datagen')")
	require.Contains(t, se.Message, "no metadata columns")
}

func TestDatagenUnboundedSnapshot(t *testing.T) {
	e, clock := datagenEngine(t, "")
	datagenExec(t, e, `CREATE TABLE u (id INT, ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'rows-per-second' = '4', 'eddy.snapshot.max-rows' = '10')`)
	// Nothing has been generated yet at the creation time...
	require.Empty(t, datagenExec(t, e, `SELECT * FROM u`))
	// ...then rows-per-second × the time since creation...
	clock.advance(1500 * time.Millisecond)
	rows := datagenExec(t, e, `SELECT * FROM u`)
	require.Len(t, rows, 6)
	require.Equal(t, "2026-03-01 12:00:01.250", rows[5][1])
	// ...up to 'eddy.snapshot.max-rows'.
	clock.advance(time.Hour)
	require.Len(t, datagenExec(t, e, `SELECT * FROM u`), 10)
}

// TestDatagenContinuous reads an unbounded generated table in a
// continuous (interactive) query: rows come at rows-per-second as the
// clock moves.
func TestDatagenContinuous(t *testing.T) {
	e, clock := datagenEngine(t, "")
	datagenExec(t, e, `CREATE TABLE c (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '1000000')`)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := e.Execute(ctx, `SELECT * FROM c`, true)
	require.NoError(t, err)
	defer res.Rows.Close()
	next := func() string {
		r, ok, err := res.Rows.Next(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		return types.Format(r.Values[0], types.BigInt)
	}
	// Row 0 is due at once; the next ones every 200ms of the clock.
	require.Equal(t, "0", next())
	got := make(chan string, 1)
	go func() {
		r, ok, err := res.Rows.Next(ctx)
		if err == nil && ok {
			got <- types.Format(r.Values[0], types.BigInt)
		}
		close(got)
	}()
	select {
	case v := <-got:
		t.Fatalf("row %s arrived before the clock moved", v)
	case <-time.After(300 * time.Millisecond):
	}
	clock.advance(time.Second)
	require.Equal(t, "1", <-got)
	for i := 2; i <= 5; i++ {
		require.Equal(t, strings.TrimSpace(types.Format(types.NewInt(int64(i)), types.BigInt)), next())
	}
}

// TestDatagenScriptSync: a continuous INSERT from a bounded generated
// table has written all its rows when the next statement of a script runs,
// however slow the pace.
func TestDatagenScriptSync(t *testing.T) {
	e, _ := datagenEngine(t, "")
	rows := datagenExec(t, e,
		`CREATE TABLE g (id INT, s STRING) WITH ('connector'='datagen', 'rows-per-second'='1', 'fields.id.kind'='sequence','fields.id.start'='1','fields.id.end'='50', 'fields.s.length'='4')`,
		`CREATE TABLE sink (id INT, s STRING)`,
		`INSERT INTO sink SELECT * FROM g`,
		`SELECT id FROM sink`)
	require.Len(t, rows, 50)
	require.Equal(t, "50", rows[49][0])
	// Unbounded example tables sync to what a snapshot would read.
	rows = datagenExec(t, e,
		`CREATE TABLE clicks_copy (user_id INT, n BIGINT)`,
		`CREATE FUNCTION TtlCountdown AS 'examples.TtlCountdown'`,
		`INSERT INTO clicks_copy SELECT * FROM TtlCountdown(input => TABLE examples.marketplace.clicks PARTITION BY user_id)`,
		`SELECT * FROM clicks_copy`)
	require.Len(t, rows, 1000)
}

func TestDatagenResume(t *testing.T) {
	e, _ := datagenEngine(t, t.TempDir())
	datagenExec(t, e,
		`CREATE TABLE g (id BIGINT) WITH ('connector'='datagen', 'rows-per-second'='1000000000', 'fields.id.kind'='sequence','fields.id.start'='1','fields.id.end'='100000')`,
		`CREATE TABLE sink (id BIGINT)`)
	ctx := t.Context()
	out, err := e.Run(ctx, `INSERT INTO sink SELECT * FROM g`, engine.RunOptions{JobID: "dg-resume", CheckpointInterval: 10 * time.Millisecond})
	require.NoError(t, err)
	require.NotNil(t, out.Job)
	require.NoError(t, out.Job.Sync(ctx))
	out.Job.Cancel()
	_ = out.Job.Wait()
	pos, err := out.Job.CommittedPositions()
	require.NoError(t, err)
	read, ok := pos["gen:default_catalog.default_database.g"]
	require.True(t, ok, "%v", pos)
	require.Equal(t, int64(100000), read, "the sync released the whole bounded table")
	out, err = e.Run(ctx, `INSERT INTO sink SELECT * FROM g`, engine.RunOptions{JobID: "dg-resume", Resume: true})
	require.NoError(t, err)
	require.NoError(t, out.Job.Sync(ctx))
	out.Job.Cancel()
	_ = out.Job.Wait()
	rows := datagenExec(t, e, `SELECT id FROM sink WHERE id > 99998`)
	require.Equal(t, [][]string{{"99999"}, {"100000"}}, rows, "the resumed job read nothing twice")
}
