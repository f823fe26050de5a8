package kafka_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
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

func openSource(t *testing.T, cfg *kafka.Config, from map[int32]int64) (*kafka.Source, connector.Reader) {
	t.Helper()
	s := kafka.NewSource(cfg)
	r, err := s.Open(t.Context(), testEnv("job", nil), from)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return s, r
}

// produceAt writes one record per value to a partition with the given
// timestamps (milliseconds).
func produceAt(t *testing.T, kc *devkafka.Cluster, topic string, p int32, ts []int64, vals ...string) {
	t.Helper()
	cl := plainClient(t, kc, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for i, v := range vals {
		r := &kgo.Record{Partition: p, Value: []byte(v), Timestamp: time.UnixMilli(ts[i])}
		require.NoError(t, cl.ProduceSync(t.Context(), r).FirstErr())
	}
}

// seedTopic creates topic "in" with two partitions: p0 holds offsets 0..2
// at 1000, 2000, 3000 ms and p1 offsets 0..1 at 1500, 2500 ms.
func seedTopic(t *testing.T, kc *devkafka.Cluster) {
	t.Helper()
	createTopic(t, kc, "in", 2)
	produceAt(t, kc, "in", 0, []int64{1000, 2000, 3000}, "a", "b", "c")
	produceAt(t, kc, "in", 1, []int64{1500, 2500}, "d", "e")
}

func commitGroup(t *testing.T, kc *devkafka.Cluster, group string, offsets map[int32]int64) {
	t.Helper()
	os := kadm.Offsets{}
	for p, o := range offsets {
		os.Add(kadm.Offset{Topic: "in", Partition: p, At: o, LeaderEpoch: -1})
	}
	require.NoError(t, kadm.NewClient(plainClient(t, kc)).CommitAllOffsets(t.Context(), group, os))
}

func TestSourceStartupModes(t *testing.T) {
	kc := startKafka(t)
	seedTopic(t, kc)
	commitGroup(t, kc, "g-p0", map[int32]int64{0: 2})
	commitGroup(t, kc, "g-all", map[int32]int64{0: 1, 1: 1})

	for _, tc := range []struct {
		name    string
		options map[string]string
		from    map[int32]int64
		start   map[int32]int64
		err     string
	}{
		{name: "earliest", start: map[int32]int64{0: 0, 1: 0}},
		{name: "latest", options: map[string]string{"scan.startup.mode": "latest-offset"}, start: map[int32]int64{0: 3, 1: 2}},
		{name: "timestamp", options: map[string]string{"scan.startup.mode": "timestamp", "scan.startup.timestamp-millis": "2000"},
			start: map[int32]int64{0: 1, 1: 1}},
		{name: "timestamp-between", options: map[string]string{"scan.startup.mode": "timestamp", "scan.startup.timestamp-millis": "1001"},
			start: map[int32]int64{0: 1, 1: 0}},
		{name: "timestamp-after-all", options: map[string]string{"scan.startup.mode": "timestamp", "scan.startup.timestamp-millis": "9999"},
			start: map[int32]int64{0: 3, 1: 2}},
		{name: "specific", options: map[string]string{"scan.startup.mode": "specific-offsets", "scan.startup.specific-offsets": "partition:0,offset:2"},
			start: map[int32]int64{0: 2, 1: 0}},
		{name: "specific-unknown-partition", options: map[string]string{"scan.startup.mode": "specific-offsets", "scan.startup.specific-offsets": "partition:0,offset:1;partition:5,offset:0"},
			err: "topic in has no partition 5 (named in specific-offsets)"},
		{name: "group", options: map[string]string{"scan.startup.mode": "group-offsets", "properties.group.id": "g-all"},
			start: map[int32]int64{0: 1, 1: 1}},
		{name: "group-partial-earliest", options: map[string]string{"scan.startup.mode": "group-offsets", "properties.group.id": "g-p0", "properties.auto.offset.reset": "earliest"},
			start: map[int32]int64{0: 2, 1: 0}},
		{name: "group-partial-latest", options: map[string]string{"scan.startup.mode": "group-offsets", "properties.group.id": "g-p0", "properties.auto.offset.reset": "latest"},
			start: map[int32]int64{0: 2, 1: 2}},
		{name: "group-none-earliest", options: map[string]string{"scan.startup.mode": "group-offsets", "properties.group.id": "new", "properties.auto.offset.reset": "earliest"},
			start: map[int32]int64{0: 0, 1: 0}},
		{name: "group-none-latest", options: map[string]string{"scan.startup.mode": "group-offsets", "properties.group.id": "new", "properties.auto.offset.reset": "latest"},
			start: map[int32]int64{0: 3, 1: 2}},
		{name: "group-none-no-reset", options: map[string]string{"scan.startup.mode": "group-offsets", "properties.group.id": "new"},
			err: "group new has no committed offset for topic in partition 0 and 'properties.auto.offset.reset' is not set"},
		{name: "group-none-reset-none", options: map[string]string{"scan.startup.mode": "group-offsets", "properties.group.id": "g-p0", "properties.auto.offset.reset": "none"},
			err: "group g-p0 has no committed offset for topic in partition 1 and 'properties.auto.offset.reset' is 'none'"},
		// The checkpoint's positions win; partitions it does not name
		// start by the startup mode, and unknown partitions are ignored.
		{name: "from-checkpoint", options: map[string]string{"scan.startup.mode": "latest-offset"}, from: map[int32]int64{0: 1, 7: 5},
			start: map[int32]int64{0: 1, 1: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := parseTable(t, kc, "in", tableSpec{columns: []string{"v STRING"}, options: withRaw(tc.options)})
			r, err := kafka.NewSource(cfg).Open(t.Context(), testEnv("job", nil), tc.from)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			defer r.Close()
			require.Equal(t, tc.start, r.Start())
			require.Nil(t, r.Bounds(), "unbounded")
			for p, o := range tc.start {
				require.Equal(t, o, r.Next(p), "Next starts at the start offset")
			}
		})
	}
}

func withRaw(o map[string]string) map[string]string {
	out := map[string]string{"value.format": "raw"}
	for k, v := range o {
		out[k] = v
	}
	return out
}

func TestSourceBoundedModes(t *testing.T) {
	kc := startKafka(t)
	seedTopic(t, kc)
	commitGroup(t, kc, "g", map[int32]int64{0: 2, 1: 1})
	for _, tc := range []struct {
		name    string
		options map[string]string
		bounds  map[int32]int64
		err     string
	}{
		{name: "latest", options: map[string]string{"scan.bounded.mode": "latest-offset"}, bounds: map[int32]int64{0: 3, 1: 2}},
		{name: "timestamp", options: map[string]string{"scan.bounded.mode": "timestamp", "scan.bounded.timestamp-millis": "2500"},
			bounds: map[int32]int64{0: 2, 1: 1}},
		{name: "specific", options: map[string]string{"scan.bounded.mode": "specific-offsets", "scan.bounded.specific-offsets": "partition:1,offset:1"},
			bounds: map[int32]int64{0: 0, 1: 1}},
		{name: "specific-unknown", options: map[string]string{"scan.bounded.mode": "specific-offsets", "scan.bounded.specific-offsets": "partition:2,offset:1"},
			err: "topic in has no partition 2"},
		{name: "group", options: map[string]string{"scan.bounded.mode": "group-offsets", "properties.group.id": "g"}, bounds: map[int32]int64{0: 2, 1: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := parseTable(t, kc, "in", tableSpec{columns: []string{"v STRING"}, options: withRaw(tc.options)})
			r, err := kafka.NewSource(cfg).Open(t.Context(), testEnv("job", nil), nil)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			defer r.Close()
			require.Equal(t, tc.bounds, r.Bounds())
			require.Equal(t, map[int32]int64{0: 0, 1: 0}, r.Start())
		})
	}
}

func TestSourceMissingTopic(t *testing.T) {
	kc := startKafka(t)
	cfg := parseTable(t, kc, "nope", tableSpec{})
	_, err := kafka.NewSource(cfg).Open(t.Context(), testEnv("job", nil), nil)
	require.ErrorContains(t, err, "nope")
}

// fetchUntil fetches until Next(p) reaches at least target for every
// partition given, and returns the records.
func fetchUntil(t *testing.T, r connector.Reader, targets map[int32]int64) []connector.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var out []connector.Record
	for {
		done := true
		for p, o := range targets {
			if r.Next(p) < o {
				done = false
			}
		}
		if done {
			return out
		}
		fctx, fcancel := context.WithTimeout(ctx, 200*time.Millisecond)
		recs, err := r.Fetch(fctx)
		fcancel()
		require.NoError(t, err)
		require.NoError(t, ctx.Err(), "positions %d, targets %v", r.Next(0), targets)
		out = append(out, recs...)
	}
}

func offsetsOf(recs []connector.Record) []int64 {
	var out []int64
	for _, r := range recs {
		out = append(out, r.Offset)
	}
	return out
}

// TestSourceReadCommitted: the targets are the last stable offsets, reads
// skip aborted records, and positions move past control records.
func TestSourceReadCommitted(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "in", 1)
	ctx := t.Context()
	plain := plainClient(t, kc, kgo.DefaultProduceTopic("in"))
	require.NoError(t, plain.ProduceSync(ctx,
		&kgo.Record{Key: []byte("k0"), Value: []byte("v0"), Timestamp: time.UnixMilli(1000), Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("x")}}},
		&kgo.Record{Value: []byte("v1"), Timestamp: time.UnixMilli(1001)}).FirstErr()) // offsets 0, 1
	txn := func(id string, end *kgo.TransactionEndTry, vals ...string) *kgo.Client {
		cl := plainClient(t, kc, kgo.DefaultProduceTopic("in"), kgo.TransactionalID(id))
		require.NoError(t, cl.BeginTransaction())
		for _, v := range vals {
			require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Value: []byte(v)}).FirstErr())
		}
		if end != nil {
			// Wait out franz-go's first-load race before ending (see
			// verifyCommitted in sink.go).
			require.NoError(t, cl.AbortBufferedRecords(ctx))
			require.NoError(t, cl.EndTransaction(ctx, *end))
		}
		return cl
	}
	commit, abort := kgo.TryCommit, kgo.TryAbort
	_ = txn("committed", &commit, "v2", "v3") // offsets 2, 3, commit marker 4
	_ = txn("aborted", &abort, "v5")          // offset 5, abort marker 6
	open := txn("open", nil, "v7")            // offset 7, open

	cfg := parseTable(t, kc, "in", tableSpec{columns: []string{"v STRING"}, options: withRaw(nil)})
	src, r := openSource(t, cfg, nil)
	targets, err := r.Targets(ctx)
	require.NoError(t, err)
	require.Equal(t, map[int32]int64{0: 7}, targets, "the open transaction holds the last stable offset")
	_, end := lso(t, kc, "in", 0)
	require.Equal(t, int64(8), end)

	recs := fetchUntil(t, r, targets)
	require.Equal(t, []int64{0, 1, 2, 3}, offsetsOf(recs), "no aborted and no control records")
	require.Equal(t, int64(7), r.Next(0), "past the abort marker at 6")
	first := recs[0]
	require.Equal(t, connector.Record{
		Partition: 0, Offset: 0, Timestamp: 1000, TimestampType: connector.CreateTime, LeaderEpoch: first.LeaderEpoch,
		Key: []byte("k0"), Value: []byte("v0"), Headers: []connector.Header{{Key: "h", Value: []byte("x")}},
	}, first)
	require.Equal(t, "topic in partition 0 offset 3", src.Describe(&recs[3]))

	// Once the foreign transaction commits, the target moves past its
	// marker and the reader gets there.
	require.NoError(t, open.AbortBufferedRecords(ctx))
	require.NoError(t, open.EndTransaction(ctx, kgo.TryCommit))
	targets, err = r.Targets(ctx)
	require.NoError(t, err)
	require.Equal(t, map[int32]int64{0: 9}, targets)
	recs = fetchUntil(t, r, targets)
	require.Equal(t, []int64{7}, offsetsOf(recs))
	require.Equal(t, int64(9), r.Next(0), "past the commit marker at 8")

	// A read_uncommitted source targets the high watermark and reads the
	// aborted record.
	cfg = parseTable(t, kc, "in", tableSpec{columns: []string{"v STRING"}, options: withRaw(map[string]string{"properties.isolation.level": "read_uncommitted"})})
	_, r = openSource(t, cfg, map[int32]int64{0: 4})
	targets, err = r.Targets(ctx)
	require.NoError(t, err)
	require.Equal(t, map[int32]int64{0: 9}, targets)
	recs = fetchUntil(t, r, targets)
	require.Equal(t, []int64{5, 7}, offsetsOf(recs))
}

// TestSourceFetchAfterClose: a closed reader's Fetch fails instead of
// blocking.
func TestSourceFetchAfterClose(t *testing.T) {
	kc := startKafka(t)
	createTopic(t, kc, "in", 1)
	cfg := parseTable(t, kc, "in", tableSpec{columns: []string{"v STRING"}, options: withRaw(nil)})
	r, err := kafka.NewSource(cfg).Open(t.Context(), testEnv("job", nil), nil)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err = r.Fetch(ctx)
	require.Error(t, err)
	require.NoError(t, ctx.Err())
}

func TestSourceAccessors(t *testing.T) {
	kc := startKafka(t)
	cfg := parseTable(t, kc, "in", tableSpec{options: map[string]string{"scan.watermark.idle-timeout": "5 s"}})
	s := kafka.NewSource(cfg)
	require.Equal(t, "kafka:cat.db.in", s.Name())
	require.Equal(t, "in", s.Topic())
	require.Equal(t, 5*time.Second, s.IdleTimeout())
	require.Equal(t, "topic in partition 2 offset 42", s.Describe(&connector.Record{Partition: 2, Offset: 42}))
}

func TestSourceDecode(t *testing.T) {
	kc := startKafka(t)
	for _, topic := range []string{"appends", "retracts", "upserts", "keyed", "raws", "avros"} {
		createTopic(t, kc, topic, 1)
	}
	decoder := func(t *testing.T, topic string, spec tableSpec) *kafka.Source {
		s, _ := openSource(t, parseTable(t, kc, topic, spec), nil)
		return s
	}
	one, a := types.NewInt(1), types.NewString("a")
	jsonRow := []byte(`{"id":1,"v":"a"}`)
	op := func(v ...byte) []connector.Header { return []connector.Header{{Key: "op", Value: v}} }

	t.Run("append", func(t *testing.T) {
		s := decoder(t, "appends", tableSpec{})
		// dst is appended to.
		prefix := []types.Value{types.NewString("before")}
		vals, kind, err := decode1(s, &connector.Record{Value: jsonRow}, prefix)
		require.NoError(t, err)
		require.Equal(t, types.Insert, kind)
		require.Equal(t, []types.Value{types.NewString("before"), one, a}, vals)

		// An op header means nothing to an append table.
		_, kind, err = decode1(s, &connector.Record{Value: jsonRow, Headers: op(3)}, nil)
		require.NoError(t, err)
		require.Equal(t, types.Insert, kind)

		// A tombstone is skipped (docs/decisions/0008 §2).
		vals, _, err = decode1(s, &connector.Record{Key: []byte("k")}, nil)
		require.NoError(t, err)
		require.Nil(t, vals)

		_, _, err = decode1(s, &connector.Record{Value: []byte(`{"id":`)}, nil)
		require.ErrorIs(t, err, connector.ErrBadRecord)
		require.ErrorContains(t, err, "value: json")
		_, _, err = decode1(s, &connector.Record{Value: []byte(`{"id":"one"}`)}, nil)
		require.ErrorIs(t, err, connector.ErrBadRecord)
	})

	t.Run("retract", func(t *testing.T) {
		s := decoder(t, "retracts", tableSpec{options: map[string]string{"changelog.mode": "retract"}})
		for _, tc := range []struct {
			headers []connector.Header
			kind    types.RowKind
			err     string
		}{
			{headers: nil, kind: types.Insert},
			{headers: []connector.Header{{Key: "other", Value: []byte{3}}}, kind: types.Insert},
			{headers: op(0), kind: types.Insert},
			{headers: op(1), kind: types.UpdateBefore},
			{headers: op(2), kind: types.UpdateAfter},
			{headers: op(3), kind: types.Delete},
			{headers: op('0'), kind: types.Insert},
			{headers: op('1'), kind: types.UpdateBefore},
			{headers: op('2'), kind: types.UpdateAfter},
			{headers: op('3'), kind: types.Delete},
			// The last op header wins.
			{headers: append(op(1), connector.Header{Key: "op", Value: []byte{3}}), kind: types.Delete},
			{headers: op(4), err: `header 'op' = "\x04" is not 0, 1, 2 or 3`},
			{headers: op('9'), err: `header 'op' = "9" is not 0, 1, 2 or 3`},
			{headers: op('1', '2'), err: `header 'op' = "12" is not 0, 1, 2 or 3`},
			{headers: op(), err: `header 'op' = "" is not 0, 1, 2 or 3`},
			{headers: []connector.Header{{Key: "op"}}, err: `header 'op' = "" is not 0, 1, 2 or 3`},
		} {
			vals, kind, err := decode1(s, &connector.Record{Value: jsonRow, Headers: tc.headers}, nil)
			if tc.err != "" {
				require.ErrorIs(t, err, connector.ErrBadRecord, "%v", tc.headers)
				require.ErrorContains(t, err, "header: op header: "+tc.err)
				require.Nil(t, vals)
				continue
			}
			require.NoError(t, err, "%v", tc.headers)
			require.Equal(t, tc.kind, kind, "%v", tc.headers)
			require.Equal(t, []types.Value{one, a}, vals)
		}
	})

	t.Run("upsert", func(t *testing.T) {
		s := decoder(t, "upserts", tableSpec{connector: kafka.UpsertKafka, pk: []int{0}, options: map[string]string{"key.format": "raw", "value.fields-include": "EXCEPT_KEY"}})
		key := []byte{0, 0, 0, 1}
		vals, kind, err := decode1(s, &connector.Record{Key: key, Value: []byte(`{"v":"a"}`)}, nil)
		require.NoError(t, err)
		require.Equal(t, types.UpdateAfter, kind)
		require.Equal(t, []types.Value{one, a}, vals)

		vals, kind, err = decode1(s, &connector.Record{Key: key}, nil)
		require.NoError(t, err)
		require.Equal(t, types.Delete, kind, "a tombstone deletes the key")
		require.Equal(t, []types.Value{one, types.Null}, vals)

		_, _, err = decode1(s, &connector.Record{Value: []byte(`{"v":"a"}`)}, nil)
		require.ErrorIs(t, err, connector.ErrBadRecord)
		require.ErrorContains(t, err, "record without a key in an upsert-kafka table")

		_, _, err = decode1(s, &connector.Record{Key: []byte{1, 2, 3}, Value: []byte(`{"v":"a"}`)}, nil)
		require.ErrorIs(t, err, connector.ErrBadRecord)
		require.ErrorContains(t, err, "key: raw")
	})

	t.Run("raw key", func(t *testing.T) {
		s := decoder(t, "keyed", tableSpec{dist: []int{0}, options: map[string]string{"key.format": "raw", "value.fields-include": "EXCEPT_KEY"}})
		vals, kind, err := decode1(s, &connector.Record{Key: []byte{0, 0, 0, 1}, Value: []byte(`{"v":"a"}`)}, nil)
		require.NoError(t, err)
		require.Equal(t, types.Insert, kind)
		require.Equal(t, []types.Value{one, a}, vals)

		// No key: the key columns are NULL.
		vals, _, err = decode1(s, &connector.Record{Value: []byte(`{"v":"a"}`)}, nil)
		require.NoError(t, err)
		require.Equal(t, []types.Value{types.Null, a}, vals)

		// A key with a null value in a 'kafka' table: a tombstone, skipped.
		vals, _, err = decode1(s, &connector.Record{Key: []byte{0, 0, 0, 1}}, nil)
		require.NoError(t, err)
		require.Nil(t, vals)
	})

	t.Run("raw value", func(t *testing.T) {
		s := decoder(t, "raws", tableSpec{columns: []string{"n INT"}, options: map[string]string{"value.format": "raw"}})
		vals, kind, err := decode1(s, &connector.Record{Value: []byte{0, 0, 1, 0}}, nil)
		require.NoError(t, err)
		require.Equal(t, types.Insert, kind)
		require.Equal(t, []types.Value{types.NewInt(256)}, vals)
		// raw: a null value is a NULL column, not a tombstone.
		vals, kind, err = decode1(s, &connector.Record{Key: []byte("k")}, nil)
		require.NoError(t, err)
		require.Equal(t, types.Insert, kind)
		require.Equal(t, []types.Value{types.Null}, vals)
		_, _, err = decode1(s, &connector.Record{Value: []byte{1}}, nil)
		require.ErrorIs(t, err, connector.ErrBadRecord)
	})

	t.Run("registry", func(t *testing.T) {
		// The registry behind a proxy the test can take away.
		target, err := url.Parse(kc.RegistryURL())
		require.NoError(t, err)
		proxy := httptest.NewServer(httputil.NewSingleHostReverseProxy(target))
		defer proxy.Close()
		s := decoder(t, "avros", tableSpec{options: map[string]string{"value.format": "avro-confluent", "value.avro-confluent.url": proxy.URL}})
		// No Confluent header: a bad record.
		_, _, err = decode1(s, &connector.Record{Value: []byte{7}}, nil)
		require.ErrorIs(t, err, connector.ErrBadRecord)
		// Schema id 12345 is not registered: the registry says so, a bad
		// record.
		_, _, err = decode1(s, &connector.Record{Value: []byte{0, 0, 0, 0x30, 0x39, 2}}, nil)
		require.ErrorIs(t, err, connector.ErrBadRecord)
		require.ErrorContains(t, err, "unknown schema id 12345")
		// The registry cannot be reached: not the record's fault.
		proxy.Close()
		_, _, err = decode1(s, &connector.Record{Value: []byte{0, 0, 0, 0x30, 0x3a, 2}}, nil)
		require.Error(t, err)
		require.NotErrorIs(t, err, connector.ErrBadRecord)
	})
}

// decode1 decodes a record that holds at most one row: nil values when the
// source skips it.
func decode1(s *kafka.Source, rec *connector.Record, dst []types.Value) ([]types.Value, types.RowKind, error) {
	vals, kinds, err := s.Decode(rec, dst, nil)
	if err != nil || len(kinds) == 0 {
		return nil, 0, err
	}
	if len(kinds) != 1 {
		return nil, 0, errors.New("decoded more than one row")
	}
	return vals, kinds[0], nil
}
