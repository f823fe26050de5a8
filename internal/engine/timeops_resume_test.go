package engine_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/stretchr/testify/require"
)

// TestTimeOperatorsResume: the Top-N, deduplication, OVER aggregate,
// interval join and temporal join of INSERT statements keep their state
// across a stop and a resume: the second half of the input is ranked,
// deduplicated, summed and joined with the first, as in one run
// (decision 0026; each operator's own restore test is in the runtime).
func TestTimeOperatorsResume(t *testing.T) {
	ctx := t.Context()
	e, err := engine.Open(ctx, engine.Options{DataDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	datagenExec(t, e,
		`CREATE TABLE bids (auction INT, price INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)`,
		`CREATE TABLE opens (id INT, ots TIMESTAMP(3), WATERMARK FOR ots AS ots)`,
		`CREATE TABLE fees (auction INT PRIMARY KEY NOT ENFORCED, fee INT, fts TIMESTAMP(3), WATERMARK FOR fts AS fts)`,
		`CREATE TABLE top2 (auction INT, price INT, rn BIGINT, PRIMARY KEY (auction, rn) NOT ENFORCED)`,
		`CREATE TABLE last_bid (auction INT PRIMARY KEY NOT ENFORCED, price INT)`,
		`CREATE TABLE totals (auction INT, price INT, total INT)`,
		`CREATE TABLE early (id INT, price INT)`,
		`CREATE TABLE charged (auction INT, price INT, fee INT)`,
		`INSERT INTO opens VALUES (1, TIMESTAMP '2026-01-01 00:00:00'), (2, TIMESTAMP '2026-01-01 00:00:02')`,
		`INSERT INTO fees VALUES (1, 5, TIMESTAMP '2026-01-01 00:00:00'), (2, 7, TIMESTAMP '2026-01-01 00:00:00')`,
		`INSERT INTO bids VALUES (1, 10, TIMESTAMP '2026-01-01 00:00:01'), (1, 30, TIMESTAMP '2026-01-01 00:00:02'), (2, 5, TIMESTAMP '2026-01-01 00:00:03')`)
	inserts := map[string]string{
		"top2":     `INSERT INTO top2 SELECT auction, price, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rn FROM bids) WHERE rn <= 2`,
		"last_bid": `INSERT INTO last_bid SELECT auction, price FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY ts DESC) AS rn FROM bids) WHERE rn = 1`,
		"totals":   `INSERT INTO totals SELECT auction, price, SUM(price) OVER (PARTITION BY auction ORDER BY ts) FROM bids`,
		"early":    `INSERT INTO early SELECT o.id, b.price FROM opens o JOIN bids b ON o.id = b.auction AND b.ts BETWEEN o.ots AND o.ots + INTERVAL '5' SECOND`,
		"charged":  `INSERT INTO charged SELECT b.auction, b.price, f.fee FROM bids AS b JOIN fees FOR SYSTEM_TIME AS OF b.ts AS f ON b.auction = f.auction`,
	}
	run := func(resume bool) {
		for name, insert := range inserts {
			out, err := e.Run(ctx, insert, engine.RunOptions{JobID: name, Resume: resume, CheckpointInterval: 10 * time.Millisecond})
			require.NoError(t, err, name)
			require.NoError(t, out.Job.Sync(ctx), name)
			out.Job.Cancel()
			_ = out.Job.Wait()
		}
	}
	run(false)
	datagenExec(t, e,
		`INSERT INTO fees VALUES (1, 6, TIMESTAMP '2026-01-01 00:00:05')`,
		`INSERT INTO opens VALUES (3, TIMESTAMP '2026-01-01 00:00:06')`,
		`INSERT INTO bids VALUES (1, 20, TIMESTAMP '2026-01-01 00:00:04'), (2, 7, TIMESTAMP '2026-01-01 00:00:06'), (1, 40, TIMESTAMP '2026-01-01 00:00:07'), (3, 1, TIMESTAMP '2026-01-01 00:00:08'), (9, 0, TIMESTAMP '2026-01-01 00:01:00')`,
		`INSERT INTO opens VALUES (9, TIMESTAMP '2026-01-01 00:02:00')`,
		`INSERT INTO fees VALUES (9, 0, TIMESTAMP '2026-01-01 00:02:00')`)
	run(true)
	rows := func(q string) []string {
		var out []string
		for _, r := range materialized(t, e, q) {
			out = append(out, fmt.Sprint(r))
		}
		return out
	}
	require.ElementsMatch(t, []string{"[1 40 1]", "[1 30 2]", "[2 7 1]", "[2 5 2]", "[3 1 1]", "[9 0 1]"}, rows(`SELECT * FROM top2`))
	require.ElementsMatch(t, []string{"[1 40]", "[2 7]", "[3 1]", "[9 0]"}, rows(`SELECT * FROM last_bid`))
	require.ElementsMatch(t, []string{"[1 10 10]", "[1 30 40]", "[2 5 5]", "[1 20 60]", "[2 7 12]", "[1 40 100]", "[3 1 1]", "[9 0 0]"}, rows(`SELECT * FROM totals`))
	require.ElementsMatch(t, []string{"[1 10]", "[1 30]", "[2 5]", "[1 20]", "[2 7]", "[3 1]"}, rows(`SELECT * FROM early`))
	require.ElementsMatch(t, []string{"[1 10 5]", "[1 30 5]", "[2 5 7]", "[1 20 5]", "[2 7 7]", "[1 40 6]"}, rows(`SELECT * FROM charged`))
}
