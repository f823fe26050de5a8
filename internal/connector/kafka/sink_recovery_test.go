package kafka_test

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/connector/kafka"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestSinkCloseAbortsUndecided: a writer closed with a transaction no
// checkpoint recorded (an INSERT that failed, a job that failed) aborts
// it, so the last stable offset moves at once.
func TestSinkCloseAbortsUndecided(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 1)
	cfg := parseTable(t, kc, "out", tableSpec{})
	w, err := kafka.NewSink(cfg).Open(t.Context(), testEnv("values-x", nil), newMemKV())
	require.NoError(t, err)
	writeRows(t, w, idRow(1, "a"))
	require.NoError(t, w.Close())
	require.Eventually(t, func() bool {
		stable, end := lso(t, kc, "out", 0)
		return end > 0 && stable == end
	}, 5*time.Second, 20*time.Millisecond, "the LSO is not held by an abandoned transaction")
}

// TestSinkProbeAfterRetention: when the first offset of a decided
// transaction is gone from the log (retention, DeleteRecords), recovery
// cannot tell whether it committed: it fails instead of producing it again.
func TestSinkProbeAfterRetention(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 1)
	cfg := parseTable(t, kc, "out", tableSpec{})
	sink := kafka.NewSink(cfg)
	kv := newMemKV()
	env := testEnv("job1", nil)
	w := openSink(t, sink, env, kv)
	writeRows(t, w, idRow(1, "a"), idRow(2, "b"))
	checkpoint(t, w, kv) // committed in Kafka, marker in the checkpoint
	require.NoError(t, w.Close())
	fence(t, kc, "eddy-job1-0")
	fence(t, kc, "eddy-job1-0")
	other := plainClient(t, kc, kgo.DefaultProduceTopic("out"))
	require.NoError(t, other.ProduceSync(t.Context(), &kgo.Record{Value: []byte("later")}).FirstErr())
	o := kadm.Offsets{}
	o.Add(kadm.Offset{Topic: "out", Partition: 0, At: 3})
	resp, err := kadm.NewClient(plainClient(t, kc)).DeleteRecords(t.Context(), o)
	require.NoError(t, err)
	require.NoError(t, resp.Error())
	_, err = sink.Open(t.Context(), env, kv)
	require.ErrorContains(t, err, "cannot tell whether transaction eddy-job1-0")
}

// TestSinkNoneFlushes: 'sink.delivery-guarantee' = 'none' still flushes
// at a checkpoint, so an INSERT or a stop loses nothing.
func TestSinkNoneFlushes(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "out", 1)
	cfg := parseTable(t, kc, "out", tableSpec{options: map[string]string{"sink.delivery-guarantee": "none"}})
	kv := newMemKV()
	w := openSink(t, kafka.NewSink(cfg), testEnv("values-y", nil), kv)
	writeRows(t, w, idRow(1, "a"), idRow(2, "b"))
	checkpoint(t, w, kv)
	require.NoError(t, w.Close())
	_, end := lso(t, kc, "out", 0)
	require.Equal(t, int64(2), end)
}
