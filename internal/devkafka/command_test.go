package devkafka_test

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/devkafka"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
)

// syncBuffer is a bytes.Buffer safe for a writing command and a reading test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runCommand runs `dev args...` under ctx in the background; the returned
// channel gets its error.
func runCommand(ctx context.Context, stdout, stderr *syncBuffer, args ...string) <-chan error {
	cmd := devkafka.Command(stdout, stderr)
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	return done
}

var (
	kafkaLine    = regexp.MustCompile(`listening on (127\.0\.0\.1:\d+)\n`)
	registryLine = regexp.MustCompile(`Schema registry \(srfake\) on (http://127\.0\.0\.1:\d+)\n`)
)

// awaitBanner waits until stdout has the whole banner and returns it.
func awaitBanner(t *testing.T, stdout *syncBuffer, done <-chan error) string {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		if out := stdout.String(); strings.Contains(out, "  );\n") {
			return out
		}
		select {
		case err := <-done:
			t.Fatalf("command ended before printing its banner: %v\nstdout:\n%s", err, stdout.String())
		case <-deadline:
			t.Fatalf("no banner after %s; stdout:\n%s", waitTimeout, stdout.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr syncBuffer
	done := runCommand(ctx, &stdout, &stderr, "kafka", "--port", "0", "--registry-port", "0", "--partitions", "2")
	out := awaitBanner(t, &stdout, done)

	m := kafkaLine.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	bootstrap := m[1]
	m = registryLine.FindStringSubmatch(out)
	require.NotNil(t, m, out)
	registry := m[1]
	require.Contains(t, out, "Kafka (kfake, in memory, development only) listening on "+bootstrap+"\n")
	require.Contains(t, out, "Data is lost when this process exits. Stop with Ctrl-C.\n")
	require.Contains(t, out, "'properties.bootstrap.servers' = '"+bootstrap+"'")
	require.Contains(t, out, "'value.avro-confluent.url' = '"+registry+"'")

	// Kafka works, with the --partitions default.
	tctx := testContext(t)
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap))
	require.NoError(t, err)
	resp, err := kadm.NewClient(cl).CreateTopic(tctx, -1, -1, nil, "order-events")
	require.NoError(t, err)
	require.NoError(t, resp.Err)
	require.Equal(t, int32(2), resp.NumPartitions)
	require.NoError(t, cl.ProduceSync(tctx, &kgo.Record{Topic: "order-events", Value: []byte("v")}).FirstErr())
	cl.Close()

	// So does the registry.
	rc, err := sr.NewClient(sr.URLs(registry))
	require.NoError(t, err)
	_, err = rc.CreateSchema(tctx, "order-events-value", sr.Schema{Schema: orderSchema, Type: sr.TypeAvro})
	require.NoError(t, err)

	cancel() // what Ctrl-C does through the signal context
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(waitTimeout):
		t.Fatal("the command did not stop after its context was cancelled")
	}
	require.True(t, strings.HasSuffix(stdout.String(), "stopped\n"), stdout.String())
	require.Empty(t, stderr.String())
}

func TestCommandNoRegistry(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr syncBuffer
	done := runCommand(ctx, &stdout, &stderr, "kafka", "--port", "0", "--registry-port", "-1")
	out := awaitBanner(t, &stdout, done)
	require.Contains(t, out, "No schema registry (--registry-port -1).\n")
	require.Contains(t, out, "'value.format' = 'json'\n")
	require.NotContains(t, out, "avro-confluent")
	cancel()
	require.NoError(t, <-done)
	require.Contains(t, stdout.String(), "stopped\n")
}

func TestCommandPortInUse(t *testing.T) {
	busy := busyPort(t)
	var stdout, stderr syncBuffer
	err := <-runCommand(t.Context(), &stdout, &stderr, "kafka", "--port", strconv.Itoa(busy), "--registry-port", "0")
	require.EqualError(t, err, "Kafka port "+strconv.Itoa(busy)+" on 127.0.0.1 is already in use: "+
		"stop the program using it, or pass --port 0 for a random free port")
	require.Empty(t, stdout.String(), "nothing is printed before both ports are bound")

	busy = busyPort(t)
	err = <-runCommand(t.Context(), &stdout, &stderr, "kafka", "--port", "0", "--registry-port", strconv.Itoa(busy))
	require.ErrorContains(t, err, "schema registry port "+strconv.Itoa(busy)+" on 127.0.0.1 is already in use")
	require.ErrorContains(t, err, "--registry-port 0 for a random free port")
}

func TestCommandInvalidFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"kafka", "--port", "-1"}, "invalid --port -1"},
		{[]string{"kafka", "--registry-port", "-2"}, "invalid --registry-port -2"},
		{[]string{"kafka", "--partitions", "0"}, "invalid --partitions 0"},
		{[]string{"kafka", "extra"}, `unknown command "extra"`},
	} {
		var stdout, stderr syncBuffer
		err := <-runCommand(t.Context(), &stdout, &stderr, tc.args...)
		require.ErrorContains(t, err, tc.want, tc.args)
	}
}

func TestCommandHelp(t *testing.T) {
	var stdout, stderr syncBuffer
	require.NoError(t, <-runCommand(t.Context(), &stdout, &stderr))
	require.Contains(t, stdout.String(), "Never use them\nin production")
	require.Contains(t, stdout.String(), "kafka       Run an in-memory Kafka")
}
