package runtime

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// recSink records the calls of a sink writer.
type recSink struct {
	mu    sync.Mutex
	calls []string
}

func (s *recSink) log(f string, a ...any) {
	s.mu.Lock()
	s.calls = append(s.calls, fmt.Sprintf(f, a...))
	s.mu.Unlock()
}
func (s *recSink) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}
func (s *recSink) Open(ctx context.Context, env connector.Env, kv connector.KV) (connector.SinkWriter, error) {
	return s, nil
}
func (s *recSink) Write(ctx context.Context, row types.Row) error {
	s.log("write %d", row.Values[0].Int())
	return nil
}
func (s *recSink) Prepare(ctx context.Context, b connector.Batch) error { s.log("prepare"); return nil }
func (s *recSink) Commit(ctx context.Context) error                     { s.log("commit"); return nil }
func (s *recSink) Close() error                                         { return nil }

// TestIdleOutputCommitted: output that a watermark released by the idle
// timeout (on a tick, without a new record) wrote is checkpointed and
// committed by the next tick, not left in an open transaction.
func TestIdleOutputCommitted(t *testing.T) {
	env, clock := newTestEnv(t)
	topic := newFakeTopic("idle", 2)
	topic.add(0, 10_000, 1, "x")
	topic.add(1, 5_000, 2, "x")
	src := &fakeSource{topic: topic, idle: 10 * time.Second}
	g := orderedJob(withWatermark(fakeInput(src)))
	sink := &recSink{}
	g.Sink = jobgraph.Sink{Kind: jobgraph.ExternalSink, Table: "cat.db.out", Schema: g.Nodes[0].Out, External: sink}
	j := startJob(t, env, g, Options{ID: "idle", CheckpointInterval: 5 * time.Millisecond})
	syncJob(t, j)
	t.Logf("after sync: %v", sink.get())
	clock.Advance(6 * time.Second)
	topic.add(0, 20_000, 3, "x")
	syncJob(t, j)
	t.Logf("after sync 2: %v", sink.get())
	clock.Advance(6 * time.Second)
	require.Eventually(t, func() bool {
		c := sink.get()
		for i, call := range c {
			if call == "write 3" {
				return slicesContains(c[i:], "prepare") && c[len(c)-1] == "commit"
			}
		}
		return false
	}, 5*time.Second, time.Millisecond, "row 3, released by the idle timeout, is prepared and committed")
}

func slicesContains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}
