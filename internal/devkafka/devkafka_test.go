package devkafka_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/devkafka"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sr"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// waitTimeout bounds every Kafka and registry call of a test.
const waitTimeout = 30 * time.Second

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	t.Cleanup(cancel)
	return ctx
}

// start starts a cluster closed at the end of the test.
func start(t *testing.T, opts devkafka.Options) *devkafka.Cluster {
	t.Helper()
	c, err := devkafka.Start(t.Context(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	return c
}

// client returns a kgo client of c closed at the end of the test (before
// the cluster, since cleanups run last-registered first).
func client(t *testing.T, c *devkafka.Cluster, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(c.Bootstrap())}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return cl
}

// createTopic creates topic with the broker's default partition count and
// returns that count.
func createTopic(t *testing.T, c *devkafka.Cluster, topic string) int32 {
	t.Helper()
	ctx := testContext(t)
	adm := kadm.NewClient(client(t, c))
	resp, err := adm.CreateTopic(ctx, -1, -1, nil, topic)
	require.NoError(t, err)
	require.NoError(t, resp.Err)
	topics, err := adm.ListTopics(ctx, topic)
	require.NoError(t, err)
	require.NoError(t, topics.Error())
	return int32(len(topics[topic].Partitions))
}

// consume reads from topic until it has n records.
func consume(t *testing.T, c *devkafka.Cluster, topic string, n int, opts ...kgo.Opt) []*kgo.Record {
	t.Helper()
	ctx := testContext(t)
	opts = append([]kgo.Opt{kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, opts...)
	cl := client(t, c, opts...)
	var recs []*kgo.Record
	for len(recs) < n {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "waiting for %d records, have %d", n, len(recs))
		for _, fe := range fs.Errors() {
			require.NoError(t, fe.Err, "fetching %s/%d", fe.Topic, fe.Partition)
		}
		recs = append(recs, fs.Records()...)
	}
	return recs
}

func TestAddresses(t *testing.T) {
	c := start(t, devkafka.Options{})
	require.True(t, strings.HasPrefix(c.Bootstrap(), "127.0.0.1:"), c.Bootstrap())
	require.True(t, strings.HasPrefix(c.RegistryURL(), "http://127.0.0.1:"), c.RegistryURL())
	require.NotNil(t, c.Kafka())
	require.NotNil(t, c.Registry())
	require.Equal(t, []string{c.Bootstrap()}, c.Kafka().ListenAddrs())
}

func TestProduceConsume(t *testing.T) {
	c := start(t, devkafka.Options{})
	require.Equal(t, int32(1), createTopic(t, c, "order-events"), "default partitions")

	ctx := testContext(t)
	p := client(t, c)
	res := p.ProduceSync(ctx, &kgo.Record{Topic: "order-events", Key: []byte("k1"), Value: []byte("v1")})
	require.NoError(t, res.FirstErr())

	recs := consume(t, c, "order-events", 1)
	require.Equal(t, "k1", string(recs[0].Key))
	require.Equal(t, "v1", string(recs[0].Value))
	require.Equal(t, int64(0), recs[0].Offset)
}

func TestPartitions(t *testing.T) {
	c := start(t, devkafka.Options{Partitions: 3})
	require.Equal(t, int32(3), createTopic(t, c, "three"))

	ctx := testContext(t)
	resp, err := kadm.NewClient(client(t, c)).CreateTopic(ctx, 5, 1, nil, "five")
	require.NoError(t, err)
	require.NoError(t, resp.Err)
	require.Equal(t, int32(5), resp.NumPartitions)
}

func TestNoAutoTopicCreation(t *testing.T) {
	c := start(t, devkafka.Options{})
	ctx := testContext(t)
	cl := client(t, c)
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = true
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr("missing")
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	require.NoError(t, err)
	require.Len(t, resp.Topics, 1)
	require.ErrorIs(t, kerr.ErrorForCode(resp.Topics[0].ErrorCode), kerr.UnknownTopicOrPartition)

	topics, err := kadm.NewClient(cl).ListTopics(ctx)
	require.NoError(t, err)
	require.Empty(t, topics.Names())
}

func TestTransactions(t *testing.T) {
	c := start(t, devkafka.Options{})
	createTopic(t, c, "tx")
	ctx := testContext(t)
	p := client(t, c, kgo.TransactionalID("eddy-test-1"), kgo.DefaultProduceTopic("tx"))

	// An aborted transaction, then a committed one.
	require.NoError(t, p.BeginTransaction())
	require.NoError(t, p.ProduceSync(ctx, kgo.StringRecord("aborted")).FirstErr())
	require.NoError(t, p.EndTransaction(ctx, kgo.TryAbort))
	require.NoError(t, p.BeginTransaction())
	require.NoError(t, p.ProduceSync(ctx, kgo.StringRecord("committed")).FirstErr())
	require.NoError(t, p.EndTransaction(ctx, kgo.TryCommit))

	recs := consume(t, c, "tx", 1, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	require.Len(t, recs, 1)
	require.Equal(t, "committed", string(recs[0].Value))

	// read_uncommitted sees both data records (control records are skipped).
	recs = consume(t, c, "tx", 2, kgo.FetchIsolationLevel(kgo.ReadUncommitted()))
	require.Equal(t, "aborted", string(recs[0].Value))
	require.Equal(t, "committed", string(recs[1].Value))
}

func TestOpenTransactionInvisibleToReadCommitted(t *testing.T) {
	c := start(t, devkafka.Options{})
	createTopic(t, c, "open")
	ctx := testContext(t)
	p := client(t, c, kgo.TransactionalID("eddy-test-open"), kgo.DefaultProduceTopic("open"))
	require.NoError(t, p.BeginTransaction())
	require.NoError(t, p.ProduceSync(ctx, kgo.StringRecord("pending")).FirstErr())

	offsets, err := kadm.NewClient(client(t, c)).ListEndOffsets(ctx, "open")
	require.NoError(t, err)
	o, ok := offsets.Lookup("open", 0)
	require.True(t, ok)
	require.NoError(t, o.Err)
	require.Equal(t, int64(1), o.Offset, "high watermark")

	rc := client(t, c, kgo.ConsumeTopics("open"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	pctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	fs := rc.PollFetches(pctx)
	cancel()
	require.Empty(t, fs.Records(), "read_committed must not see an open transaction")

	require.NoError(t, p.EndTransaction(ctx, kgo.TryCommit))
	recs := consume(t, c, "open", 1, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	require.Equal(t, "pending", string(recs[0].Value))
}

const orderSchema = `{"type":"record","name":"OrderEvent","fields":[{"name":"order_id","type":"long"},{"name":"status","type":"string"}]}`

func TestRegistry(t *testing.T) {
	c := start(t, devkafka.Options{})
	ctx := testContext(t)
	rc, err := sr.NewClient(sr.URLs(c.RegistryURL()))
	require.NoError(t, err)

	ss, err := rc.CreateSchema(ctx, "order-events-value", sr.Schema{Schema: orderSchema, Type: sr.TypeAvro})
	require.NoError(t, err)
	require.Positive(t, ss.ID)
	require.Equal(t, 1, ss.Version)

	got, err := rc.SchemaByID(ctx, ss.ID)
	require.NoError(t, err)
	require.JSONEq(t, orderSchema, got.Schema)

	subjects, err := rc.Subjects(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"order-events-value"}, subjects)

	_, ok := c.Registry().GetSchema("order-events-value", 1)
	require.True(t, ok, "the registry behind RegistryURL is Registry()")
}

func TestNoRegistry(t *testing.T) {
	c := start(t, devkafka.Options{RegistryPort: -1})
	require.Empty(t, c.RegistryURL())
	require.Nil(t, c.Registry())
	require.Equal(t, int32(1), createTopic(t, c, "t"))
}

// ports returns the ports of c's addresses.
func ports(t *testing.T, c *devkafka.Cluster) (kafka, registry int) {
	t.Helper()
	_, kp, err := net.SplitHostPort(c.Bootstrap())
	require.NoError(t, err)
	_, rp, err := net.SplitHostPort(strings.TrimPrefix(c.RegistryURL(), "http://"))
	require.NoError(t, err)
	kafka, err = strconv.Atoi(kp)
	require.NoError(t, err)
	registry, err = strconv.Atoi(rp)
	require.NoError(t, err)
	return kafka, registry
}

func TestCloseReleasesPorts(t *testing.T) {
	ctx := testContext(t)
	c1, err := devkafka.Start(ctx, devkafka.Options{})
	require.NoError(t, err)
	kp, rp := ports(t, c1)

	// Use both with a client, so that connections are open at Close.
	cl, err := kgo.NewClient(kgo.SeedBrokers(c1.Bootstrap()))
	require.NoError(t, err)
	_, err = kadm.NewClient(cl).CreateTopic(ctx, 1, -1, nil, "before")
	require.NoError(t, err)
	rc, err := sr.NewClient(sr.URLs(c1.RegistryURL()))
	require.NoError(t, err)
	_, err = rc.CreateSchema(ctx, "before-value", sr.Schema{Schema: orderSchema})
	require.NoError(t, err)

	require.NoError(t, c1.Close())
	require.NoError(t, c1.Close(), "a second Close is a no-op")
	cl.Close()

	c2 := start(t, devkafka.Options{Port: kp, RegistryPort: rp})
	require.Equal(t, "127.0.0.1:"+strconv.Itoa(kp), c2.Bootstrap())
	require.Equal(t, "http://127.0.0.1:"+strconv.Itoa(rp), c2.RegistryURL())

	// In memory: the new cluster has none of the old one's data.
	topics, err := kadm.NewClient(client(t, c2)).ListTopics(ctx)
	require.NoError(t, err)
	require.Empty(t, topics.Names())
	rc2, err := sr.NewClient(sr.URLs(c2.RegistryURL()))
	require.NoError(t, err)
	subjects, err := rc2.Subjects(ctx)
	require.NoError(t, err)
	require.Empty(t, subjects)
}

// busyPort returns a port held by a listener until the end of the test.
func busyPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// freePort returns a port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return port
}

func TestPortInUse(t *testing.T) {
	t.Run("kafka", func(t *testing.T) {
		busy, rp := busyPort(t), freePort(t)
		_, err := devkafka.Start(t.Context(), devkafka.Options{Port: busy, RegistryPort: rp})
		var pe *devkafka.PortInUseError
		require.ErrorAs(t, err, &pe)
		require.Equal(t, "Kafka", pe.Service)
		require.Equal(t, busy, pe.Port)
		require.ErrorIs(t, err, syscall.EADDRINUSE)
		require.EqualError(t, err, "Kafka port "+strconv.Itoa(busy)+" on 127.0.0.1 is already in use")

		// The registry's listener was released.
		ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(rp))
		require.NoError(t, err)
		require.NoError(t, ln.Close())
	})
	t.Run("registry", func(t *testing.T) {
		busy := busyPort(t)
		_, err := devkafka.Start(t.Context(), devkafka.Options{RegistryPort: busy})
		var pe *devkafka.PortInUseError
		require.ErrorAs(t, err, &pe)
		require.Equal(t, "schema registry", pe.Service)
		require.Equal(t, busy, pe.Port)
		require.ErrorIs(t, err, syscall.EADDRINUSE)
	})
}

func TestInvalidOptions(t *testing.T) {
	for _, tc := range []struct {
		opts devkafka.Options
		want string
	}{
		{devkafka.Options{Port: -1}, "invalid Kafka port -1"},
		{devkafka.Options{Port: 70000}, "invalid Kafka port 70000"},
		{devkafka.Options{RegistryPort: -2}, "invalid schema registry port -2"},
		{devkafka.Options{Partitions: -1}, "invalid partition count -1"},
	} {
		_, err := devkafka.Start(t.Context(), tc.opts)
		require.ErrorContains(t, err, tc.want)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := devkafka.Start(ctx, devkafka.Options{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestCloseWithoutUse(t *testing.T) {
	c, err := devkafka.Start(t.Context(), devkafka.Options{})
	require.NoError(t, err)
	require.NoError(t, c.Close())
	_, err = net.Dial("tcp", c.Bootstrap())
	require.Error(t, err, "Kafka still accepts connections after Close")
	_, err = net.Dial("tcp", strings.TrimPrefix(c.RegistryURL(), "http://"))
	require.Error(t, err, "the registry still accepts connections after Close")
}
