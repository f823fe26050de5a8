package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/devkafka"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKafkaIdleTimeout: with SET 'table.exec.source.idle-timeout', a
// partition of a Kafka table without records for that long (on the
// engine's clock) stops holding the watermark back, so a window over the
// other partition fires in a continuous job; without it the quiet
// partition stalls the window (reference §7.3).
func TestKafkaIdleTimeout(t *testing.T) {
	run := func(t *testing.T, idle string) (before, after [][]string) {
		clock, produce, counts := startKafkaWindow(t, idle)
		// Every partition has a watermark before the window could fire (a
		// partition that has not produced yet holds the watermark back
		// too: TestKafkaEmptyPartitionHoldsWatermark).
		produce(0, "a", "09:00:01")
		produce(1, "b", "09:00:02")
		require.Empty(t, counts())
		produce(0, "c", "09:00:12")
		// Partition 1's watermark (09:00:02) holds the window [0 s, 10 s) back.
		before = counts()
		// Both partitions are quiet for 6 s; then partition 0 produces
		// again, and only partition 1 is idle.
		clock.advance(6 * time.Second)
		produce(0, "d", "09:00:13")
		deadline := time.Now().Add(10 * time.Second)
		for {
			after = counts()
			if len(after) > 0 || idle == "" || time.Now().After(deadline) {
				return before, after
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	t.Run("idle-timeout", func(t *testing.T) {
		before, after := run(t, "5 s")
		require.Empty(t, before, "no partition is idle yet")
		require.Equal(t, "[2026-08-01 09:00:00.000 2]", rowsString(after), "partition 1 is idle: the watermark is partition 0's, 09:00:13")
	})
	t.Run("no-timeout", func(t *testing.T) {
		before, after := run(t, "")
		require.Empty(t, before)
		require.Empty(t, after, "the quiet partition holds the watermark at 09:00:02")
	})
}

// TestKafkaEmptyPartitionHoldsWatermark: in a continuous job, a partition
// of a Kafka table that has not produced a record holds the table's
// watermark back, even when it was empty when the statement started, as
// a Flink split does (reference §7.3): the window over partition 0's rows
// fires only once partition 1 produced, or, with an idle timeout, once
// partition 1 was idle that long since the statement started.
func TestKafkaEmptyPartitionHoldsWatermark(t *testing.T) {
	t.Run("holds", func(t *testing.T) {
		_, produce, counts := startKafkaWindow(t, "")
		produce(0, "a", "09:00:01")
		produce(0, "b", "09:00:12")
		produce(0, "c", "09:00:25")
		require.Empty(t, counts(), "partition 1 has not produced: no watermark")
		produce(1, "d", "09:00:14")
		// The watermark is min(25 s, 14 s): [0 s, 10 s) fires, d is on time.
		deadline := time.Now().Add(10 * time.Second)
		for len(counts()) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		require.Equal(t, "[2026-08-01 09:00:00.000 1]", rowsString(counts()))
	})
	t.Run("idle-timeout", func(t *testing.T) {
		clock, produce, counts := startKafkaWindow(t, "5 s")
		produce(0, "a", "09:00:01")
		produce(0, "b", "09:00:12")
		require.Empty(t, counts(), "partition 1 is not idle yet")
		clock.advance(6 * time.Second)
		produce(0, "c", "09:00:13")
		deadline := time.Now().Add(10 * time.Second)
		for len(counts()) == 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		require.Equal(t, "[2026-08-01 09:00:00.000 1]", rowsString(counts()), "partition 1 is idle: the watermark is partition 0's")
	})
}

// startKafkaWindow starts a continuous TUMBLE count over a two-partition
// Kafka table (kfake), with the idle timeout idle if not empty, and returns
// the engine's clock, a producer to a partition and the counts so far.
func startKafkaWindow(t *testing.T, idle string) (*datagenClock, func(int32, string, string), func() [][]string) {
	t.Helper()
	kc, err := devkafka.Start(t.Context(), devkafka.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { kc.Close() })
	clock := &datagenClock{t: datagenStart}
	e, err := engine.Open(t.Context(), engine.Options{DataDir: t.TempDir(), Clock: clock})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	clicks, produce := kafkaClicks(t, kc)
	var stmts []string
	if idle != "" {
		stmts = append(stmts, fmt.Sprintf("SET 'table.exec.source.idle-timeout' = '%s'", idle))
	}
	stmts = append(stmts,
		"SET 'execution.checkpointing.interval' = '20 ms'",
		clicks,
		"CREATE TABLE counts (ws TIMESTAMP(3), n BIGINT)",
		`INSERT INTO counts SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
		  GROUP BY window_start, window_end`)
	datagenExec(t, e, stmts...)
	return clock, produce, func() [][]string { return datagenExec(t, e, "SELECT * FROM counts") }
}

func rowsString(rows [][]string) string {
	var b []string
	for _, r := range rows {
		b = append(b, fmt.Sprint(r))
	}
	return strings.Join(b, "\n")
}

// kafkaClicks returns the DDL of table clicks over kc's topic 'clicks'
// (two partitions, JSON, a watermark on ts) and a producer of a click of
// user u at ts (a time on 2026-08-01) to a partition.
func kafkaClicks(t *testing.T, kc *devkafka.Cluster) (string, func(p int32, u, ts string)) {
	t.Helper()
	ddl := `CREATE TABLE clicks (u STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) DISTRIBUTED INTO 2 BUCKETS WITH (
	  'connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = '` + kc.Bootstrap() + `',
	  'scan.startup.mode' = 'earliest-offset', 'value.format' = 'json')`
	cl, err := kgo.NewClient(kgo.SeedBrokers(kc.Bootstrap()), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return ddl, func(p int32, u, ts string) {
		v := fmt.Sprintf(`{"u": %q, "ts": "2026-08-01 %s"}`, u, ts)
		require.NoError(t, cl.ProduceSync(t.Context(), &kgo.Record{Topic: "clicks", Partition: p, Value: []byte(v)}).FirstErr())
	}
}
