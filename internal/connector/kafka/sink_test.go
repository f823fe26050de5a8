package kafka_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/connector/kafka"
	"github.com/eddy-sql/eddy/internal/devkafka"
	"github.com/eddy-sql/eddy/internal/logstore"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// txMarker is the transaction marker a sink writes into the checkpoint
// (docs/decisions/0008 §6.3).
type txMarker struct {
	N     int64            `json:"n"`
	TxID  string           `json:"txid"`
	PID   int64            `json:"pid"`
	Epoch int16            `json:"epoch"`
	Parts map[string]int64 `json:"first_offsets"`
}

// sinkKeys are the checkpoint keys of a job's sink: the marker and the
// output copy.
func sinkKeys(env connector.Env, cfg *kafka.Config) (marker, copyKey string) {
	return string(env.KeyPrefix) + "txn/" + cfg.Table.Name, string(env.KeyPrefix) + "out/" + cfg.Table.Name
}

func openSink(t *testing.T, s *kafka.Sink, env connector.Env, kv connector.KV) connector.SinkWriter {
	t.Helper()
	w, err := s.Open(t.Context(), env, kv)
	require.NoError(t, err)
	t.Cleanup(func() { w.Close() })
	return w
}

func writeRows(t *testing.T, w connector.SinkWriter, rows ...types.Row) {
	t.Helper()
	for _, r := range rows {
		require.NoError(t, w.Write(t.Context(), r))
	}
}

// checkpoint runs one checkpoint: Prepare into a batch, apply it (the
// Pebble commit, the decision), then Commit. It returns the batch.
func checkpoint(t *testing.T, w connector.SinkWriter, kv *memKV) *memBatch {
	t.Helper()
	b := kv.batch()
	require.NoError(t, w.Prepare(t.Context(), b))
	b.apply()
	require.NoError(t, w.Commit(t.Context()))
	return b
}

// decide runs Prepare and the Pebble commit, but not Commit: what a crash
// right after the decision leaves behind.
func decide(t *testing.T, w connector.SinkWriter, kv *memKV) *memBatch {
	t.Helper()
	b := kv.batch()
	require.NoError(t, w.Prepare(t.Context(), b))
	b.apply()
	return b
}

func markerOf(t *testing.T, b *memBatch, key string) txMarker {
	t.Helper()
	v, set, _ := b.get(key)
	require.True(t, set, "the batch sets the marker %s", key)
	var m txMarker
	require.NoError(t, json.Unmarshal(v, &m))
	return m
}

func lso(t *testing.T, kc *devkafka.Cluster, topic string, p int32) (stable, end int64) {
	t.Helper()
	adm := kadm.NewClient(plainClient(t, kc))
	lo, err := adm.ListCommittedOffsets(t.Context(), topic)
	require.NoError(t, err)
	eo, err := adm.ListEndOffsets(t.Context(), topic)
	require.NoError(t, err)
	l, ok := lo.Lookup(topic, p)
	require.True(t, ok)
	e, ok := eo.Lookup(topic, p)
	require.True(t, ok)
	return l.Offset, e.Offset
}

func TestSinkAtLeastOnceAndNone(t *testing.T) {
	for _, delivery := range []string{kafka.AtLeastOnce, kafka.None} {
		t.Run(delivery, func(t *testing.T) {
			kc := startKafka(t)
			createTopic(t, kc, "out", 1)
			cfg := parseTable(t, kc, "out", tableSpec{options: map[string]string{"sink.delivery-guarantee": delivery}})
			kv := newMemKV()
			w := openSink(t, kafka.NewSink(cfg), testEnv("job", nil), kv)
			writeRows(t, w, idRow(1, "a"), idRow(2, "b"))
			b := checkpoint(t, w, kv)
			require.Empty(t, b.ops, "only exactly-once writes recovery data")
			if delivery == kafka.None {
				// No flush at checkpoints: wait for the records.
				require.Eventually(t, func() bool {
					stable, _ := lso(t, kc, "out", 0)
					return stable == 2
				}, 10*time.Second, 10*time.Millisecond)
			}
			want := []string{`{"id":1,"v":"a"}`, `{"id":2,"v":"b"}`}
			require.Equal(t, want, values(readAll(t, kc, "out", true)))
			require.Equal(t, want, values(readAll(t, kc, "out", false)))
			require.NoError(t, w.Close())
		})
	}
}

func TestSinkExactlyOnce(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 2)
	cfg := parseTable(t, kc, "out", tableSpec{options: map[string]string{"sink.partitioner": "round-robin", "sink.transactional-id-prefix": "app"}})
	kv := newMemKV()
	env := testEnv("job1", nil)
	markerKey, copyKey := sinkKeys(env, cfg)
	w := openSink(t, kafka.NewSink(cfg), env, kv)

	writeRows(t, w, idRow(1, "a"), idRow(2, "b"), idRow(3, "c"))
	b := kv.batch()
	require.NoError(t, w.Prepare(t.Context(), b))
	m := markerOf(t, b, markerKey)
	require.Equal(t, txMarker{N: 0, TxID: "app-job1-0", PID: m.PID, Epoch: m.Epoch, Parts: map[string]int64{"0": 0, "1": 0}}, m)
	_, copySet, _ := b.get(copyKey)
	require.True(t, copySet, "the batch holds the output copy")
	// Flushed but not committed: invisible to read_committed.
	require.Empty(t, readAll(t, kc, "out", true))
	require.Len(t, readAll(t, kc, "out", false), 3)
	b.apply()
	require.NoError(t, w.Commit(t.Context()))
	committed := readAll(t, kc, "out", true)
	require.ElementsMatch(t, []string{`{"id":1,"v":"a"}`, `{"id":2,"v":"b"}`, `{"id":3,"v":"c"}`}, values(committed))
	require.ElementsMatch(t, []string{markerKey, copyKey}, kv.keys(), "the marker stays until the next checkpoint")

	// An empty interval deletes the marker and the copy.
	b = checkpoint(t, w, kv)
	_, _, deleted := b.get(markerKey)
	require.True(t, deleted)
	_, _, deleted = b.get(copyKey)
	require.True(t, deleted)
	require.Empty(t, kv.keys())

	// The next transaction uses the other id, and Commit makes it visible.
	writeRows(t, w, idRow(4, "d"))
	b = checkpoint(t, w, kv)
	require.Equal(t, "app-job1-1", markerOf(t, b, markerKey).TxID)
	require.Len(t, readAll(t, kc, "out", true), 4)
	require.Len(t, readAll(t, kc, "out", false), 4, "nothing was aborted")
}

// TestSinkRecoverDecided: the checkpoint decided (the batch with the
// marker committed) but the process died before the Kafka commit. The
// next Open commits the transaction with the marker's producer id and
// epoch; then, alternating ids, later checkpoints and another such crash
// keep the output exactly once.
func TestSinkRecoverDecided(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 1)
	cfg := parseTable(t, kc, "out", tableSpec{})
	sink := kafka.NewSink(cfg)
	kv := newMemKV()
	logs := &logBuffer{}
	env := testEnv("job1", logs)
	markerKey, copyKey := sinkKeys(env, cfg)

	w := openSink(t, sink, env, kv)
	writeRows(t, w, idRow(1, "a"), idRow(2, "b"), idRow(3, "c"))
	m0 := markerOf(t, decide(t, w, kv), markerKey)
	require.Equal(t, "eddy-job1-0", m0.TxID)
	require.NoError(t, w.Close()) // crash: no Commit

	require.Empty(t, readAll(t, kc, "out", true))
	stable, end := lso(t, kc, "out", 0)
	require.Equal(t, int64(0), stable, "the open transaction holds the last stable offset")
	require.Equal(t, int64(3), end)

	w = openSink(t, sink, env, kv)
	require.Contains(t, logs.String(), "checkpointed transaction is committed")
	require.NotContains(t, logs.String(), "producing it again")
	want := []string{`{"id":1,"v":"a"}`, `{"id":2,"v":"b"}`, `{"id":3,"v":"c"}`}
	require.Equal(t, want, values(readAll(t, kc, "out", true)))
	require.Empty(t, kv.keys(), "recovery deletes the settled marker and its copy")

	// The next checkpoint uses the other transactional id.
	writeRows(t, w, idRow(4, "d"))
	m1 := markerOf(t, checkpoint(t, w, kv), markerKey)
	require.Equal(t, txMarker{N: 1, TxID: "eddy-job1-1", PID: m1.PID, Epoch: m1.Epoch, Parts: map[string]int64{"0": m1.Parts["0"]}}, m1)
	require.NotEqual(t, m0.PID, m1.PID, "two transactional ids, two producers")
	// ... and the one after it the first id again; this one crashes after
	// the decision too.
	writeRows(t, w, idRow(5, "e"))
	m2 := markerOf(t, decide(t, w, kv), markerKey)
	require.Equal(t, int64(2), m2.N)
	require.Equal(t, "eddy-job1-0", m2.TxID)
	require.ElementsMatch(t, []string{markerKey, copyKey}, kv.keys())
	require.NoError(t, w.Close())

	w = openSink(t, sink, env, kv)
	want = append(want, `{"id":4,"v":"d"}`, `{"id":5,"v":"e"}`)
	require.Equal(t, want, values(readAll(t, kc, "out", true)))
	require.Empty(t, kv.keys())
	writeRows(t, w, idRow(6, "f"))
	require.Equal(t, "eddy-job1-1", markerOf(t, checkpoint(t, w, kv), markerKey).TxID)
	want = append(want, `{"id":6,"v":"f"}`)
	require.Equal(t, want, values(readAll(t, kc, "out", true)))
	require.Equal(t, want, values(readAll(t, kc, "out", false)), "no transaction was aborted")
	require.NotContains(t, logs.String(), "producing it again")
}

// TestSinkRecoverUndecided: the process died while writing, before any
// checkpoint decided the transaction. Open fences the transactional id,
// which aborts it: read_committed consumers never see the rows.
func TestSinkRecoverUndecided(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 1)
	cfg := parseTable(t, kc, "out", tableSpec{})
	sink := kafka.NewSink(cfg)
	kv := newMemKV()
	env := testEnv("job1", nil)

	w := openSink(t, sink, env, kv)
	writeRows(t, w, idRow(1, "a"), idRow(2, "b"))
	// The writer had produced the rows (a Flush without the Prepare's
	// batch ever committing is the same for Kafka).
	require.Eventually(t, func() bool { _, end := lso(t, kc, "out", 0); return end == 2 }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, w.Close())
	require.Empty(t, kv.keys())

	w = openSink(t, sink, env, kv)
	require.Empty(t, readAll(t, kc, "out", true))
	require.Equal(t, []string{`{"id":1,"v":"a"}`, `{"id":2,"v":"b"}`}, values(readAll(t, kc, "out", false)), "read_uncommitted sees the aborted rows")
	stable, end := lso(t, kc, "out", 0)
	require.Equal(t, end, stable, "nothing holds the last stable offset back")

	writeRows(t, w, idRow(3, "c"))
	checkpoint(t, w, kv)
	require.Equal(t, []string{`{"id":3,"v":"c"}`}, values(readAll(t, kc, "out", true)))
}

// TestSinkRecoverAfterCommit: the checkpoint decided and committed, the
// next interval was being written on the other id when the process died.
// The marker's commit is retried (and succeeds), the interval is aborted.
func TestSinkRecoverAfterCommit(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 1)
	cfg := parseTable(t, kc, "out", tableSpec{})
	sink := kafka.NewSink(cfg)
	kv := newMemKV()
	logs := &logBuffer{}
	env := testEnv("job1", logs)
	markerKey, _ := sinkKeys(env, cfg)

	w := openSink(t, sink, env, kv)
	writeRows(t, w, idRow(1, "a"))
	checkpoint(t, w, kv)
	writeRows(t, w, idRow(2, "b"))
	require.Eventually(t, func() bool { _, end := lso(t, kc, "out", 0); return end >= 3 }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, w.Close())

	w = openSink(t, sink, env, kv)
	require.Contains(t, logs.String(), "checkpointed transaction is committed")
	require.Equal(t, []string{`{"id":1,"v":"a"}`}, values(readAll(t, kc, "out", true)))
	writeRows(t, w, idRow(3, "c"))
	require.Equal(t, "eddy-job1-1", markerOf(t, checkpoint(t, w, kv), markerKey).TxID)
	require.Equal(t, []string{`{"id":1,"v":"a"}`, `{"id":3,"v":"c"}`}, values(readAll(t, kc, "out", true)))
}

// TestSinkRecoverAbortedByTimeout: the checkpoint decided, but the broker
// aborted the transaction (its timeout passed) before anyone committed it.
// Recovery produces the output copy again in a new transaction.
func TestSinkRecoverAbortedByTimeout(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 2)
	// kfake accepts any positive timeout up to transaction.max.timeout.ms
	// and aborts a transaction once txStart+timeout passes (a timer, and
	// a check after every request).
	cfg := parseTable(t, kc, "out", tableSpec{options: map[string]string{
		"properties.transaction.timeout.ms": "1500", "sink.partitioner": "round-robin",
	}})
	sink := kafka.NewSink(cfg)
	sink.HeadersCol = 2
	kv := newMemKV()
	logs := &logBuffer{}
	env := testEnv("job1", logs)
	markerKey, copyKey := sinkKeys(env, cfg)

	w := openSink(t, sink, env, kv)
	hdr := types.NewMap([]types.MapEntry{{Key: types.NewString("h"), Val: types.NewBytes([]byte("x"))}, {Key: types.NewString("n"), Val: types.Null}})
	writeRows(t, w,
		insert(types.NewInt(1), types.NewString("a"), hdr),
		insert(types.NewInt(2), types.Null, types.Null),
		insert(types.NewInt(3), types.NewString("c"), types.Null))
	decide(t, w, kv)
	require.NoError(t, w.Close())

	// Wait for the broker to abort it: the abort markers release the LSO.
	require.Eventually(t, func() bool {
		for p := int32(0); p < 2; p++ {
			if stable, end := lso(t, kc, "out", p); stable != end {
				return false
			}
		}
		return true
	}, 10*time.Second, 50*time.Millisecond)
	require.Empty(t, readAll(t, kc, "out", true))
	require.ElementsMatch(t, []string{markerKey, copyKey}, kv.keys())

	w = openSink(t, sink, env, kv)
	require.Contains(t, logs.String(), "producing it again")
	got := readAll(t, kc, "out", true)
	require.ElementsMatch(t, []string{`{"id":1,"v":"a"}`, `{"id":2,"v":null}`, `{"id":3,"v":"c"}`}, values(got))
	for _, r := range got {
		require.Equal(t, testNow.UnixMilli(), r.Timestamp.UnixMilli(), "the copy keeps the timestamp")
		if string(r.Value) == `{"id":1,"v":"a"}` {
			require.Equal(t, []kgo.RecordHeader{{Key: "h", Value: []byte("x")}, {Key: "n"}}, r.Headers, "the copy keeps the headers")
			require.Equal(t, int32(0), r.Partition, "the copy keeps the partition")
		}
	}
	require.Len(t, readAll(t, kc, "out", false), 6, "read_uncommitted sees the aborted first attempt")
	require.Empty(t, kv.keys())

	writeRows(t, w, insert(types.NewInt(4), types.NewString("d"), types.Null))
	require.Equal(t, "eddy-job1-1", markerOf(t, checkpoint(t, w, kv), markerKey).TxID)
	require.Len(t, readAll(t, kc, "out", true), 4)
}

// TestSinkOneOff is how INSERT ... VALUES uses a sink: a fresh job id, an
// empty store, one transaction.
func TestSinkOneOff(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 1)
	cfg := parseTable(t, kc, "out", tableSpec{})
	kv := newMemKV()
	w := openSink(t, kafka.NewSink(cfg), testEnv("insert-7f3a", nil), kv)
	writeRows(t, w, idRow(1, "a"), idRow(2, "b"))
	checkpoint(t, w, kv)
	require.NoError(t, w.Close())
	require.Equal(t, []string{`{"id":1,"v":"a"}`, `{"id":2,"v":"b"}`}, values(readAll(t, kc, "out", true)))
}

func TestSinkMissingTopic(t *testing.T) {
	kc := startKafka(t)
	cfg := parseTable(t, kc, "nope", tableSpec{})
	_, err := kafka.NewSink(cfg).Open(t.Context(), testEnv("job", nil), newMemKV())
	require.ErrorContains(t, err, "nope")
}

func TestSinkChangelogModes(t *testing.T) {
	kc := startKafka(t)
	for _, topic := range []string{"upserts", "retracts", "appends"} {
		createTopic(t, kc, topic, 1)
	}
	open := func(t *testing.T, cfg *kafka.Config) (connector.SinkWriter, *memKV) {
		kv := newMemKV()
		return openSink(t, kafka.NewSink(cfg), testEnv("job-"+cfg.Topic, nil), kv), kv
	}
	a, b := types.NewString("a"), types.NewString("b")
	one := types.NewInt(1)

	t.Run("upsert", func(t *testing.T) {
		cfg := parseTable(t, kc, "upserts", tableSpec{connector: kafka.UpsertKafka, pk: []int{0}, options: map[string]string{"key.format": "raw"}})
		w, kv := open(t, cfg)
		writeRows(t, w, row(types.Insert, one, a), row(types.UpdateBefore, one, a), row(types.UpdateAfter, one, b), row(types.Delete, one, b))
		checkpoint(t, w, kv)
		got := readAll(t, kc, "upserts", true)
		require.Equal(t, []string{`{"id":1,"v":"a"}`, `{"id":1,"v":"b"}`, "<nil>"}, values(got), "-U is dropped, -D is a tombstone")
		for _, r := range got {
			require.Equal(t, []byte{0, 0, 0, 1}, r.Key, "an INT key is 4 bytes big-endian")
			require.Empty(t, r.Headers)
		}
	})

	t.Run("retract", func(t *testing.T) {
		cfg := parseTable(t, kc, "retracts", tableSpec{options: map[string]string{"changelog.mode": "retract"}})
		w, kv := open(t, cfg)
		writeRows(t, w, row(types.Insert, one, a), row(types.UpdateBefore, one, a), row(types.UpdateAfter, one, b), row(types.Delete, one, b))
		checkpoint(t, w, kv)
		got := readAll(t, kc, "retracts", true)
		require.Len(t, got, 4)
		require.Empty(t, got[0].Headers, "+I has no op header")
		for i, op := range []byte{1, 2, 3} {
			require.Equal(t, []kgo.RecordHeader{{Key: "op", Value: []byte{op}}}, got[i+1].Headers)
		}
		require.Equal(t, `{"id":1,"v":"b"}`, string(got[3].Value), "-D carries the row")
		require.Nil(t, got[0].Key)
	})

	t.Run("append", func(t *testing.T) {
		cfg := parseTable(t, kc, "appends", tableSpec{})
		w, kv := open(t, cfg)
		for _, k := range []types.RowKind{types.UpdateBefore, types.UpdateAfter, types.Delete} {
			err := w.Write(t.Context(), row(k, one, a))
			require.ErrorContains(t, err, "table cat.db.appends is append-only ('changelog.mode' = 'append') and cannot store a "+k.String()+" row")
		}
		writeRows(t, w, row(types.Insert, one, a))
		checkpoint(t, w, kv)
		require.Equal(t, []string{`{"id":1,"v":"a"}`}, values(readAll(t, kc, "appends", true)))
	})
}

func TestSinkEncodeError(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 1)
	cfg := parseTable(t, kc, "out", tableSpec{columns: []string{"id INT"}, options: map[string]string{"value.format": "raw"}})
	w := openSink(t, kafka.NewSink(cfg), testEnv("job", nil), newMemKV())
	err := w.Write(t.Context(), insert(types.NewString("not an int")))
	require.ErrorContains(t, err, "encoding a row for cat.db.out")
}

func TestSinkPartitioners(t *testing.T) {
	kc := startKafka(t)
	const parts = 4
	run := func(t *testing.T, topic string, spec tableSpec, rows []types.Row) []*kgo.Record {
		createTopic(t, kc, topic, parts)
		if spec.options == nil {
			spec.options = map[string]string{}
		}
		spec.options["sink.delivery-guarantee"] = kafka.AtLeastOnce
		cfg := parseTable(t, kc, topic, spec)
		kv := newMemKV()
		w := openSink(t, kafka.NewSink(cfg), testEnv("job-"+topic, nil), kv)
		writeRows(t, w, rows...)
		checkpoint(t, w, kv)
		got := readAll(t, kc, topic, true)
		require.Len(t, got, len(rows))
		return got
	}
	var rows []types.Row
	for i := 0; i < 40; i++ {
		rows = append(rows, idRow(i, fmt.Sprint(i)))
	}
	idOf := func(t *testing.T, r *kgo.Record) int {
		var v struct{ ID int }
		require.NoError(t, json.Unmarshal(r.Value, &v))
		return v.ID
	}

	t.Run("default-keyed", func(t *testing.T) {
		got := run(t, "keyed", tableSpec{dist: []int{0}, options: map[string]string{"key.format": "raw"}}, rows)
		used := map[int32]bool{}
		for _, r := range got {
			require.Equal(t, binary.BigEndian.AppendUint32(nil, uint32(idOf(t, r))), r.Key)
			require.Equal(t, int32(logstore.Partition(r.Key, parts)), r.Partition, "Kafka's murmur2 partition of key %x", r.Key)
			used[r.Partition] = true
		}
		require.Len(t, used, parts, "40 keys spread over every partition")
	})

	t.Run("default-json-key", func(t *testing.T) {
		got := run(t, "jsonkeyed", tableSpec{options: map[string]string{"key.fields": "id", "key.format": "json"}}, rows)
		for _, r := range got {
			require.Equal(t, fmt.Sprintf(`{"id":%d}`, idOf(t, r)), string(r.Key))
			require.Equal(t, int32(logstore.Partition(r.Key, parts)), r.Partition)
		}
	})

	t.Run("default-null-key", func(t *testing.T) {
		// No key columns, or a raw key that is NULL: round-robin in
		// write order.
		got := run(t, "unkeyed", tableSpec{}, rows[:8])
		for _, r := range got {
			require.Nil(t, r.Key)
			require.Equal(t, int32(idOf(t, r)%parts), r.Partition)
		}
		nullKeys := []types.Row{insert(types.Null, types.NewString("x")), insert(types.Null, types.NewString("y"))}
		got = run(t, "nullkey", tableSpec{dist: []int{0}, options: map[string]string{"key.format": "raw"}}, nullKeys)
		require.Nil(t, got[0].Key)
		require.Equal(t, []int32{0, 1}, []int32{got[0].Partition, got[1].Partition})
	})

	t.Run("round-robin", func(t *testing.T) {
		got := run(t, "rr", tableSpec{dist: []int{0}, options: map[string]string{"key.format": "raw", "sink.partitioner": "round-robin"}}, rows[:8])
		for _, r := range got {
			require.NotNil(t, r.Key)
			require.Equal(t, int32(idOf(t, r)%parts), r.Partition, "the key is ignored")
		}
	})

	t.Run("fixed", func(t *testing.T) {
		got := run(t, "fixed", tableSpec{dist: []int{0}, options: map[string]string{"key.format": "raw", "sink.partitioner": "fixed"}}, rows[:8])
		for _, r := range got {
			require.Equal(t, int32(0), r.Partition, "one producer: subtask 0's partition")
		}
	})
}

// TestSinkMetadataColumns: the writable metadata columns 'timestamp' and
// 'headers' come after the physical columns of the rows.
func TestSinkMetadataColumns(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 1)
	cfg := parseTable(t, kc, "out", tableSpec{options: map[string]string{"changelog.mode": "retract"}})
	sink := kafka.NewSink(cfg)
	sink.TimestampCol, sink.HeadersCol = 2, 3
	kv := newMemKV()
	w := openSink(t, sink, testEnv("job", nil), kv)
	ts := types.NewTimestampMillis(1_600_000_000_123)
	hdr := types.NewMap([]types.MapEntry{
		{Key: types.NewString("trace"), Val: types.NewBytes([]byte("abc"))},
		{Key: types.NewString("empty"), Val: types.Null},
	})
	writeRows(t, w,
		insert(types.NewInt(1), types.NewString("a"), ts, hdr),
		insert(types.NewInt(2), types.NewString("b"), types.Null, types.Null),
		row(types.Delete, types.NewInt(1), types.NewString("a"), ts, hdr),
	)
	checkpoint(t, w, kv)
	got := readAll(t, kc, "out", true)
	require.Len(t, got, 3)
	require.Equal(t, `{"id":1,"v":"a"}`, string(got[0].Value), "metadata columns are not in the value")
	require.Equal(t, int64(1_600_000_000_123), got[0].Timestamp.UnixMilli())
	require.Equal(t, []kgo.RecordHeader{{Key: "trace", Value: []byte("abc")}, {Key: "empty"}}, got[0].Headers)
	require.Equal(t, testNow.UnixMilli(), got[1].Timestamp.UnixMilli(), "a NULL timestamp: the job clock")
	require.Empty(t, got[1].Headers)
	require.Equal(t, []kgo.RecordHeader{{Key: "op", Value: []byte{3}}, {Key: "trace", Value: []byte("abc")}, {Key: "empty"}}, got[2].Headers)

	// Without metadata columns the sink uses the job clock.
	createTopic(t, kc, "plain", 1)
	cfg = parseTable(t, kc, "plain", tableSpec{})
	w = openSink(t, kafka.NewSink(cfg), testEnv("job2", nil), kv)
	writeRows(t, w, idRow(1, "a"))
	checkpoint(t, w, kv)
	got = readAll(t, kc, "plain", true)
	require.Equal(t, testNow.UnixMilli(), got[0].Timestamp.UnixMilli())
}

// TestSinkConcurrentWrites: Write is called by several subtasks at once.
func TestSinkConcurrentWrites(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 3)
	cfg := parseTable(t, kc, "out", tableSpec{dist: []int{0}, options: map[string]string{"key.format": "raw"}})
	kv := newMemKV()
	w := openSink(t, kafka.NewSink(cfg), testEnv("job", nil), kv)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; i < 50; i++ {
				if err := w.Write(ctx, idRow(g*1000+i, "x")); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 4; g++ {
		require.NoError(t, <-errs)
	}
	b := checkpoint(t, w, kv)
	markerKey, _ := sinkKeys(testEnv("job", nil), cfg)
	m := markerOf(t, b, markerKey)
	require.NotEmpty(t, m.Parts)
	got := readAll(t, kc, "out", true)
	require.Len(t, got, 200)
	for _, r := range got {
		require.Equal(t, int32(logstore.Partition(r.Key, 3)), r.Partition)
	}
	// The marker's first offsets are the first of each partition.
	for p, off := range m.Parts {
		require.Equal(t, int64(0), off, "partition %s", p)
	}
}

// fence initializes a producer on a transactional id, as another process
// (or DeleteJobData) would: it bumps the epoch and aborts an open
// transaction.
func fence(t *testing.T, kc *devkafka.Cluster, txid string) {
	t.Helper()
	cl := plainClient(t, kc, kgo.TransactionalID(txid))
	_, _, err := cl.ProducerID(t.Context())
	require.NoError(t, err)
	cl.Close()
}

// TestSinkRecoverProbe: the marker's producer epoch is gone (fenced after
// the commit or the abort), so EndTxn answers PRODUCER_FENCED and recovery
// probes the partition: a committed transaction is left alone, an aborted
// one is produced again.
func TestSinkRecoverProbe(t *testing.T) {
	for _, committed := range []bool{true, false} {
		t.Run(fmt.Sprintf("committed=%v", committed), func(t *testing.T) {
			kc := startKafka(t)
			createTopic(t, kc, "out", 2)
			cfg := parseTable(t, kc, "out", tableSpec{options: map[string]string{"sink.partitioner": "round-robin"}})
			sink := kafka.NewSink(cfg)
			kv := newMemKV()
			logs := &logBuffer{}
			env := testEnv("job1", logs)

			// Other records first, so the transaction's first offsets are
			// not 0.
			other := plainClient(t, kc, kgo.DefaultProduceTopic("out"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
			require.NoError(t, other.ProduceSync(t.Context(),
				&kgo.Record{Partition: 0, Value: []byte("other0")}, &kgo.Record{Partition: 1, Value: []byte("other1")}).FirstErr())

			w := openSink(t, sink, env, kv)
			writeRows(t, w, idRow(1, "a"), idRow(2, "b"))
			if committed {
				checkpoint(t, w, kv)
			} else {
				decide(t, w, kv)
			}
			require.NoError(t, w.Close())
			// Two fences (the first aborts an open transaction): the
			// marker's epoch is at least two behind, which kfake answers
			// with PRODUCER_FENCED even to an EndTxn v5 retry.
			fence(t, kc, "eddy-job1-0")
			fence(t, kc, "eddy-job1-0")

			w = openSink(t, sink, env, kv)
			if committed {
				require.Contains(t, logs.String(), "checkpointed transaction is committed")
				require.NotContains(t, logs.String(), "producing it again")
			} else {
				require.Contains(t, logs.String(), "producing it again")
			}
			want := []string{"other0", `{"id":1,"v":"a"}`, "other1", `{"id":2,"v":"b"}`}
			require.ElementsMatch(t, want, values(readAll(t, kc, "out", true)))
			require.Empty(t, kv.keys())
			writeRows(t, w, idRow(3, "c"))
			checkpoint(t, w, kv)
			require.Len(t, readAll(t, kc, "out", true), 5)
		})
	}
}

func TestSinkRecoverErrors(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 1)
	cfg := parseTable(t, kc, "out", tableSpec{})
	sink := kafka.NewSink(cfg)
	env := testEnv("job1", nil)
	markerKey, copyKey := sinkKeys(env, cfg)

	t.Run("corrupt marker", func(t *testing.T) {
		kv := newMemKV()
		require.NoError(t, kv.Commit(func(b connector.Batch) error { return b.Set([]byte(markerKey), []byte("{not json")) }))
		_, err := sink.Open(t.Context(), env, kv)
		require.ErrorContains(t, err, "reading the transaction marker of cat.db.out")
	})

	t.Run("aborted without a copy", func(t *testing.T) {
		kv := newMemKV()
		w := openSink(t, sink, env, kv)
		writeRows(t, w, idRow(1, "a"))
		decide(t, w, kv)
		require.NoError(t, w.Close())
		fence(t, kc, "eddy-job1-0")
		require.NoError(t, kv.Commit(func(b connector.Batch) error { return b.Delete([]byte(copyKey)) }))
		_, err := sink.Open(t.Context(), env, kv)
		require.ErrorContains(t, err, "transaction eddy-job1-0 was aborted by Kafka and its output copy is missing")
		require.Equal(t, []string{markerKey}, kv.keys(), "a failed recovery keeps the marker")
	})
}

// TestSinkZombieFenced: a new Open of the same job fences the writer of
// the earlier run; that writer can no longer commit, and its output never
// becomes visible.
func TestSinkZombieFenced(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 1)
	cfg := parseTable(t, kc, "out", tableSpec{})
	sink := kafka.NewSink(cfg)
	env := testEnv("job1", nil)

	zombie := openSink(t, sink, env, newMemKV())
	writeRows(t, zombie, idRow(1, "zombie"))
	require.NoError(t, zombie.Prepare(t.Context(), newMemKV().batch()))

	kv := newMemKV()
	w := openSink(t, sink, env, kv)
	require.Error(t, zombie.Commit(t.Context()), "a fenced producer cannot commit")

	writeRows(t, w, idRow(2, "b"))
	checkpoint(t, w, kv)
	require.Equal(t, []string{`{"id":2,"v":"b"}`}, values(readAll(t, kc, "out", true)))
}

// TestSinkProduceError: a record the broker refuses fails the next
// Prepare (so the checkpoint does not commit positions past lost output)
// and every later Write.
func TestSinkProduceError(t *testing.T) {
	for _, delivery := range []string{kafka.AtLeastOnce, kafka.ExactlyOnce} {
		t.Run(delivery, func(t *testing.T) {
			kc := startKafka(t)
			createTopic(t, kc, "out", 1)
			cfg := parseTable(t, kc, "out", tableSpec{options: map[string]string{"sink.delivery-guarantee": delivery}})
			kv := newMemKV()
			w := openSink(t, kafka.NewSink(cfg), testEnv("job", nil), kv)
			// Refuse every produce with a non-retriable error.
			kc.Kafka().ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
				kc.Kafka().KeepControl()
				preq := req.(*kmsg.ProduceRequest)
				resp := preq.ResponseKind().(*kmsg.ProduceResponse)
				for _, rt := range preq.Topics {
					st := kmsg.NewProduceResponseTopic()
					st.Topic, st.TopicID = rt.Topic, rt.TopicID
					for _, rp := range rt.Partitions {
						sp := kmsg.NewProduceResponseTopicPartition()
						sp.Partition = rp.Partition
						sp.ErrorCode = kerr.MessageTooLarge.Code
						st.Partitions = append(st.Partitions, sp)
					}
					resp.Topics = append(resp.Topics, st)
				}
				return resp, nil, true
			})
			writeRows(t, w, idRow(1, "a"))
			b := kv.batch()
			err := w.Prepare(t.Context(), b)
			require.ErrorContains(t, err, "writing to topic out")
			require.ErrorIs(t, err, kerr.MessageTooLarge)
			require.Empty(t, b.ops, "no marker for a failed interval")
			require.ErrorIs(t, w.Write(t.Context(), idRow(2, "b")), kerr.MessageTooLarge)
		})
	}
}

// TestSinkCommitLost: EndTransaction returned nil but the broker aborted
// the transaction (franz-go v1.22.3 can do that to a client's first
// transaction, see verifyCommitted; here kfake turns the EndTxn into an
// abort). Commit must fail rather than report a commit, and the next Open
// produces the decided output again, exactly once.
func TestSinkCommitLost(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 1)
	cfg := parseTable(t, kc, "out", tableSpec{})
	sink := kafka.NewSink(cfg)
	kv := newMemKV()
	logs := &logBuffer{}
	env := testEnv("job1", logs)

	w := openSink(t, sink, env, kv)
	writeRows(t, w, idRow(1, "a"), idRow(2, "b"))
	decide(t, w, kv)
	// The next EndTxn aborts. (An unhandled control function stays
	// installed: it must not touch later requests.)
	var flipped atomic.Bool
	kc.Kafka().ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if !flipped.Swap(true) {
			req.(*kmsg.EndTxnRequest).Commit = false
		}
		return nil, nil, false
	})
	err := w.Commit(t.Context())
	require.ErrorContains(t, err, "committing transaction eddy-job1-0 on topic out: the transaction was aborted instead of committed")
	require.NoError(t, w.Close())
	require.Empty(t, readAll(t, kc, "out", true))

	w = openSink(t, sink, env, kv)
	require.Contains(t, logs.String(), "producing it again")
	require.Equal(t, []string{`{"id":1,"v":"a"}`, `{"id":2,"v":"b"}`}, values(readAll(t, kc, "out", true)))
	writeRows(t, w, idRow(3, "c"))
	checkpoint(t, w, kv)
	require.Len(t, readAll(t, kc, "out", true), 3)
}
