package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/stretchr/testify/require"
)

// nexmarkDDL is Flink's Nexmark table with the given options.
func nexmarkDDL(name, options string) string {
	return fmt.Sprintf(`CREATE TABLE %s (
    event_type int,
    person ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR, state VARCHAR, `+"`dateTime`"+` TIMESTAMP(3), extra VARCHAR>,
    auction ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, `+"`dateTime`"+` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR>,
    bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, `+"`dateTime`"+` TIMESTAMP(3), extra VARCHAR>
) WITH ('connector' = 'nexmark', %s)`, name, options)
}

// TestNexmarkResume stops a job reading a paced Nexmark table half-way
// (at a checkpoint), resumes it, and checks that its output equals an
// uninterrupted run's: the source continues at the next event, which is
// the same event it would have generated.
func TestNexmarkResume(t *testing.T) {
	e, clock := datagenEngine(t, t.TempDir())
	const events = 3000
	datagenExec(t, e,
		nexmarkDDL("nx", fmt.Sprintf(`'events.num' = '%d', 'max-emit-speed' = 'false', 'first-event.rate' = '1000', 'eddy.created-at' = '2015-07-15T00:00:00Z'`, events)),
		`CREATE TABLE resumed (event_type INT, id BIGINT, price BIGINT, name STRING)`,
		`CREATE TABLE whole (event_type INT, id BIGINT, price BIGINT, name STRING)`)
	const query = `SELECT event_type, COALESCE(person.id, auction.id, bid.auction), bid.price, COALESCE(person.name, auction.itemName, bid.channel) FROM nx`
	ctx := t.Context()
	out, err := e.Run(ctx, `INSERT INTO resumed `+query, engine.RunOptions{JobID: "nx-resume", CheckpointInterval: time.Hour})
	require.NoError(t, err)
	// Paced at 1000 events per second of the clock: 1.2 s makes 1200 due.
	clock.advance(1200 * time.Millisecond)
	deadline := time.Now().Add(time.Minute)
	for out.Job.Metrics().RecordsIn < 1000 {
		require.True(t, time.Now().Before(deadline), "the job read %d events", out.Job.Metrics().RecordsIn)
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, out.Job.Checkpoint(ctx))
	out.Job.Cancel()
	_ = out.Job.Wait()
	pos, err := out.Job.CommittedPositions()
	require.NoError(t, err)
	read := pos["gen:default_catalog.default_database.nx"]
	require.True(t, read >= 1000 && read < events, "stopped half-way, at %d (%v)", read, pos)

	out, err = e.Run(ctx, `INSERT INTO resumed `+query, engine.RunOptions{JobID: "nx-resume", Resume: true})
	require.NoError(t, err)
	require.NoError(t, out.Job.Sync(ctx))
	out.Job.Cancel()
	_ = out.Job.Wait()
	m := out.Job.Metrics()
	require.Equal(t, events-read, m.RecordsOut)
	require.Equal(t, m.RecordsOut, m.LatencySamples, "every row written has its latency measured")

	whole := datagenExec(t, e, `INSERT INTO whole `+query, `SELECT * FROM whole`)
	resumed := datagenExec(t, e, `SELECT * FROM resumed`)
	require.Len(t, whole, events)
	require.Equal(t, whole, resumed, "the resumed job continued with the same events, none twice")
}

// TestNexmarkSnapshotUnbounded: a SELECT in a script reads the events
// of an unbounded table whose time has come, at most
// 'eddy.snapshot.max-rows'.
func TestNexmarkSnapshotUnbounded(t *testing.T) {
	e, clock := datagenEngine(t, "")
	datagenExec(t, e, nexmarkDDL("nx", `'first-event.rate' = '100', 'eddy.snapshot.max-rows' = '500'`))
	require.Empty(t, datagenExec(t, e, `SELECT event_type FROM nx`), "created at the clock's time: no event yet")
	clock.advance(2 * time.Second)
	require.Len(t, datagenExec(t, e, `SELECT event_type FROM nx`), 200)
	clock.advance(time.Hour)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := e.Execute(ctx, `SELECT COUNT(*) FROM nx`, false)
	require.NoError(t, err)
	rows := datagenDrain(t, ctx, res)
	require.Equal(t, "500", rows[len(rows)-1][0])
}
