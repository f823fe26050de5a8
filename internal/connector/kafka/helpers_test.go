package kafka_test

import (
	"bytes"
	"context"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/connector/kafka"
	"github.com/eddy-sql/eddy/internal/devkafka"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// startKafka starts an in-process Kafka (kfake) and schema registry for
// one test.
func startKafka(t *testing.T) *devkafka.Cluster {
	t.Helper()
	kc, err := devkafka.Start(t.Context(), devkafka.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { kc.Close() })
	return kc
}

// plainClient is a franz-go client for the test's own reads and writes.
func plainClient(t *testing.T, kc *devkafka.Cluster, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(kc.Bootstrap())}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

func createTopic(t *testing.T, kc *devkafka.Cluster, topic string, partitions int32) {
	t.Helper()
	adm := kadm.NewClient(plainClient(t, kc))
	resp, err := adm.CreateTopic(t.Context(), partitions, 1, nil, topic)
	require.NoError(t, err)
	require.NoError(t, resp.Err)
}

// tableSpec describes a test table: columns "name TYPE", key columns
// (PRIMARY KEY for upsert-kafka, DISTRIBUTED BY otherwise) and options on
// top of connector, topic, bootstrap servers and value.format = json.
type tableSpec struct {
	connector string // default kafka
	columns   []string
	pk        []int
	dist      []int
	options   map[string]string
}

func parseTable(t *testing.T, kc *devkafka.Cluster, topic string, spec tableSpec) *kafka.Config {
	t.Helper()
	if spec.connector == "" {
		spec.connector = kafka.Kafka
	}
	if spec.columns == nil {
		spec.columns = []string{"id INT", "v STRING"}
	}
	opts := map[string]string{
		"connector":                    spec.connector,
		"topic":                        topic,
		"properties.bootstrap.servers": kc.Bootstrap(),
		"value.format":                 "json",
	}
	for k, v := range spec.options {
		opts[k] = v
	}
	tbl := kafka.Table{Name: "cat.db." + topic, Options: opts, PrimaryKey: spec.pk, Distribution: spec.dist}
	for _, c := range spec.columns {
		name, typ, ok := strings.Cut(c, " ")
		require.True(t, ok)
		tbl.Columns = append(tbl.Columns, types.Field{Name: name, Type: types.MustParseType(typ)})
	}
	cfg, err := kafka.Parse(tbl)
	require.NoError(t, err)
	return cfg
}

// logBuffer collects a connector's log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testNow is the fixed clock of the tests' connectors.
var testNow = time.UnixMilli(1_700_000_000_000)

func testEnv(job string, logs *logBuffer) connector.Env {
	var h slog.Handler = slog.DiscardHandler
	if logs != nil {
		h = slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})
	}
	return connector.Env{
		Logger:    slog.New(h),
		Now:       func() time.Time { return testNow },
		Job:       job,
		KeyPrefix: []byte("job/" + job + "/"),
	}
}

// memKV is an in-memory connector.KV: the checkpoint store of a job.
type memKV struct {
	mu      sync.Mutex
	m       map[string][]byte
	commits int
}

func newMemKV() *memKV { return &memKV{m: map[string][]byte{}} }

func (kv *memKV) Get(key []byte) ([]byte, bool, error) {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	v, ok := kv.m[string(key)]
	return bytes.Clone(v), ok, nil
}

// Commit runs fn on a new batch and applies it atomically unless fn fails.
func (kv *memKV) Commit(fn func(b connector.Batch) error) error {
	b := kv.batch()
	if err := fn(b); err != nil {
		return err
	}
	b.apply()
	return nil
}

func (kv *memKV) batch() *memBatch { return &memBatch{kv: kv} }

func (kv *memKV) keys() []string {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	var ks []string
	for k := range kv.m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// memBatch is a connector.Batch of a memKV: nothing is visible until
// apply (the "Pebble commit").
type memBatch struct {
	kv  *memKV
	ops []batchOp
}

type batchOp struct {
	key, value []byte
	del        bool
}

func (b *memBatch) Set(key, value []byte) error {
	b.ops = append(b.ops, batchOp{key: bytes.Clone(key), value: bytes.Clone(value)})
	return nil
}

func (b *memBatch) Delete(key []byte) error {
	b.ops = append(b.ops, batchOp{key: bytes.Clone(key), del: true})
	return nil
}

// get returns what the batch sets a key to (the last operation on it).
func (b *memBatch) get(key string) (value []byte, set, deleted bool) {
	for _, op := range b.ops {
		if string(op.key) == key {
			value, set, deleted = op.value, !op.del, op.del
		}
	}
	return value, set, deleted
}

func (b *memBatch) apply() {
	b.kv.mu.Lock()
	defer b.kv.mu.Unlock()
	for _, op := range b.ops {
		if op.del {
			delete(b.kv.m, string(op.key))
		} else {
			b.kv.m[string(op.key)] = op.value
		}
	}
	b.kv.commits++
}

// readAll reads every record of a topic that a consumer with the given
// isolation level can see now (up to the last stable offset for
// read_committed, the high watermark otherwise).
func readAll(t *testing.T, kc *devkafka.Cluster, topic string, committed bool) []*kgo.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	adm := kadm.NewClient(plainClient(t, kc))
	var ends kadm.ListedOffsets
	var err error
	if committed {
		ends, err = adm.ListCommittedOffsets(ctx, topic)
	} else {
		ends, err = adm.ListEndOffsets(ctx, topic)
	}
	require.NoError(t, err)
	require.NoError(t, ends.Error())
	iso := kgo.ReadUncommitted()
	if committed {
		iso = kgo.ReadCommitted()
	}
	starts := map[int32]kgo.Offset{}
	target := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		starts[o.Partition] = kgo.NewOffset().At(0)
		if o.Offset > 0 {
			target[o.Partition] = o.Offset
		}
	})
	cl := plainClient(t, kc, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: starts}),
		kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords(), kgo.FetchMaxWait(100*time.Millisecond),
		kgo.DisableFetchSessions()) // kgo's Close races with a fetch's session bookkeeping
	next := map[int32]int64{}
	var out []*kgo.Record
	for {
		done := true
		for p, end := range target {
			if next[p] < end {
				done = false
			}
		}
		if done {
			break
		}
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "reading %s: positions %v, targets %v", topic, next, target)
		fs.EachError(func(_ string, p int32, err error) { t.Fatalf("fetching partition %d: %v", p, err) })
		fs.EachRecord(func(r *kgo.Record) {
			next[r.Partition] = r.Offset + 1
			if !r.Attrs.IsControl() {
				out = append(out, r)
			}
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Partition != out[j].Partition {
			return out[i].Partition < out[j].Partition
		}
		return out[i].Offset < out[j].Offset
	})
	return out
}

// values returns the records' values as strings ("<nil>" for a null value).
func values(rs []*kgo.Record) []string {
	var out []string
	for _, r := range rs {
		if r.Value == nil {
			out = append(out, "<nil>")
		} else {
			out = append(out, string(r.Value))
		}
	}
	return out
}

func insert(vals ...types.Value) types.Row { return types.Row{Kind: types.Insert, Values: vals} }

func row(kind types.RowKind, vals ...types.Value) types.Row {
	return types.Row{Kind: kind, Values: vals}
}

func idRow(id int, v string) types.Row {
	return insert(types.NewInt(int64(id)), types.NewString(v))
}
