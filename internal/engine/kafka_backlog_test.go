package engine_test

import (
	"sync"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/devkafka"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestKafkaBacklogHoldsWatermark: a continuous statement starts on a topic
// whose two partitions both have records, but the broker answers the
// fetches of partition 1 only after partition 0's backlog was fetched.
// Partition 1, which has not produced yet, holds the watermark back (as a
// Flink split without a watermark does), so its row still falls into the
// window instead of being dropped as late (decision 0037).
func TestKafkaBacklogHoldsWatermark(t *testing.T) {
	kc, err := devkafka.Start(t.Context(), devkafka.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { kc.Close() })
	e, err := engine.Open(t.Context(), engine.Options{DataDir: t.TempDir(), Clock: &datagenClock{t: datagenStart}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	clicks, produce := kafkaClicks(t, kc)
	datagenExec(t, e,
		"SET 'execution.checkpointing.interval' = '20 ms'",
		clicks,
		"CREATE TABLE counts (ws TIMESTAMP(3), n BIGINT)")
	produce(0, "a", "09:00:01")
	produce(0, "b", "09:00:05")
	produce(0, "c", "09:00:12")
	produce(1, "d", "09:00:03")

	// Until released, fetches leave partition 1 out; p0read is closed once
	// a fetch asks for partition 0 past its backlog (offset 3).
	var mu sync.Mutex
	held := true
	p0read := make(chan struct{})
	var once sync.Once
	kc.Kafka().ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		kc.Kafka().KeepControl()
		mu.Lock()
		defer mu.Unlock()
		freq := req.(*kmsg.FetchRequest)
		for i := range freq.Topics {
			parts := freq.Topics[i].Partitions[:0]
			for _, p := range freq.Topics[i].Partitions {
				if p.Partition == 0 && p.FetchOffset >= 3 {
					once.Do(func() { close(p0read) })
				}
				if p.Partition != 1 || !held {
					parts = append(parts, p)
				}
			}
			freq.Topics[i].Partitions = parts
		}
		return nil, nil, false // handled by the broker, without partition 1
	})
	datagenExec(t, e, `INSERT INTO counts SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
	  GROUP BY window_start, window_end`)
	select {
	case <-p0read:
	case <-time.After(time.Minute):
		t.Fatal("partition 0's backlog was not fetched")
	}
	// Give the statement time to process partition 0's rows: without the
	// hold, the watermark would now be 09:00:12 and the window [0 s, 10 s)
	// would fire with 2 rows.
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	held = false
	mu.Unlock()
	produce(1, "e", "09:00:15")
	require.Equal(t, "[2026-08-01 09:00:00.000 3]", rowsString(datagenExec(t, e, "SELECT * FROM counts")),
		"partition 1's row at 09:00:03 is counted, not late")
}
