package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/devkafka"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestCrashKafka: a statement reads a Kafka topic (2 partitions) through
// examples.PassThroughEnrich into a Kafka topic with
// 'sink.delivery-guarantee' = 'exactly-once'. The eddy server running it
// is killed with SIGKILL several times while it writes and restarted;
// Kafka (kfake, in this test process) survives. At the end a
// read_committed consumer must see every input id exactly once, with the
// per-key running counts 1..n (a replayed or lost row would repeat or skip
// a count). A read_uncommitted consumer may see the aborted output of the
// killed runs: the test logs how much.
func TestCrashKafka(t *testing.T) {
	const (
		rows = 300_000
		keys = 1000
	)
	kc, err := devkafka.Start(t.Context(), devkafka.Options{RegistryPort: -1})
	require.NoError(t, err)
	defer kc.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(kc.Bootstrap()), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	_, err = adm.CreateTopic(t.Context(), 2, 1, nil, "in")
	require.NoError(t, err)
	// Per key, ids go to one partition in increasing order.
	var recs []*kgo.Record
	for id := 1; id <= rows; id++ {
		k := id % keys
		recs = append(recs, &kgo.Record{Topic: "in", Partition: int32(k % 2), Value: fmt.Appendf(nil, `{"id":%d,"k":%d}`, id, k)})
		if len(recs) == 10_000 {
			require.NoError(t, cl.ProduceSync(t.Context(), recs...).FirstErr())
			recs = recs[:0]
		}
	}

	bins := crashBinaries{eddy: buildEddy(t), inspector: buildInspector(t)}
	e := newCrashEnv(t, bins, rows)
	e.start()
	e.c.run("fn", "CREATE FUNCTION PassThroughEnrich AS 'examples.PassThroughEnrich'")
	e.c.run("src", fmt.Sprintf(`CREATE TABLE src (id BIGINT, k BIGINT) WITH ('connector' = 'kafka', 'topic' = 'in',
  'properties.bootstrap.servers' = '%s', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset')`, kc.Bootstrap()))
	e.c.run("dst", fmt.Sprintf(`CREATE TABLE dst (id BIGINT, k BIGINT, cnt BIGINT) DISTRIBUTED BY (k) INTO 2 BUCKETS WITH ('connector' = 'kafka', 'topic' = 'out',
  'properties.bootstrap.servers' = '%s', 'key.format' = 'json', 'value.format' = 'json', 'sink.delivery-guarantee' = 'exactly-once')`, kc.Bootstrap()))
	const name = "enrich"
	e.create(name, "INSERT INTO dst SELECT * FROM PassThroughEnrich(input => TABLE src PARTITION BY k)",
		map[string]string{"execution.checkpointing.interval": crashInterval.String()})

	for i := 1; i <= 6; i++ {
		c, ok := e.waitCounters(name, waitTimeout, func(c jobCounters) bool { return c.in > 0 })
		if !ok {
			// It finished: nothing left to kill.
			t.Logf("kill %d: the statement had nothing left to read", i)
			break
		}
		d := time.Duration(20+e.rng.IntN(300)) * time.Millisecond
		time.Sleep(d)
		c = e.counters(name)
		e.kill()
		if c.ok {
			t.Logf("kill %d: %v after the job started reading; it had read %d rows and taken %d checkpoints", i, d, c.in, c.checkpoints)
		} else {
			t.Logf("kill %d: %v after the job started reading; the statement had completed by then", i, d)
		}
		if i%2 == 0 {
			// Restart after a pause: the killed run's transaction stays
			// open meanwhile, holding back read_committed readers.
			time.Sleep(time.Duration(e.rng.IntN(500)) * time.Millisecond)
		}
		e.start()
		e.requireHealthy(name, v1.Running, v1.Completed)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for e.c.get(name).Status.Phase != v1.Completed {
		require.True(t, time.Now().Before(deadline), "%s did not complete: %s", name, e.c.get(name).Status.Detail)
		time.Sleep(50 * time.Millisecond)
	}
	e.requireHealthy(name, v1.Completed)
	e.term()

	committed := readOut(t, kc.Bootstrap(), kgo.ReadCommitted())
	require.Len(t, committed, rows, "read_committed sees each row once")
	byKey := map[int64][]outRow{}
	seen := map[int64]bool{}
	for _, r := range committed {
		require.False(t, seen[r.ID], "id %d twice", r.ID)
		seen[r.ID] = true
		require.Equal(t, r.ID%keys, r.K)
		byKey[r.K] = append(byKey[r.K], r)
	}
	for k, rs := range byKey {
		sort.Slice(rs, func(i, j int) bool { return rs[i].ID < rs[j].ID })
		for i, r := range rs {
			require.Equal(t, int64(i+1), r.Cnt, "key %d: id %d has count %d", k, r.ID, r.Cnt)
		}
	}
	all := readOut(t, kc.Bootstrap(), kgo.ReadUncommitted())
	t.Logf("read_committed: %d rows, each id once, counts 1..n per key; read_uncommitted: %d rows (%d from aborted transactions)", len(committed), len(all), len(all)-len(committed))
}

type outRow struct {
	ID  int64 `json:"id"`
	K   int64 `json:"k"`
	Cnt int64 `json:"cnt"`
}

func readOut(t *testing.T, bootstrap string, iso kgo.IsolationLevel) []outRow {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.ConsumeTopics("out"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords())
	require.NoError(t, err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	var ends kadm.ListedOffsets
	if iso == kgo.ReadCommitted() {
		ends, err = adm.ListCommittedOffsets(ctx, "out")
	} else {
		ends, err = adm.ListEndOffsets(ctx, "out")
	}
	require.NoError(t, err)
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) { want[o.Partition] = o.Offset })
	got := map[int32]int64{}
	var out []outRow
	for {
		done := true
		for p, o := range want {
			done = done && got[p] >= o
		}
		if done {
			return out
		}
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		fs.EachRecord(func(r *kgo.Record) {
			got[r.Partition] = r.Offset + 1
			if r.Attrs.IsControl() {
				return
			}
			var row outRow
			require.NoError(t, json.Unmarshal(r.Value, &row))
			out = append(out, row)
		})
	}
}
