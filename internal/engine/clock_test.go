package engine_test

import (
	"sync"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/stretchr/testify/require"
)

// tickClock moves one second each time it is read.
type tickClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *tickClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// TestCurrentTimePerRow: the current-time functions read the engine's
// clock for each row (Flink's streaming semantics), not the planning time.
func TestCurrentTimePerRow(t *testing.T) {
	clock := &tickClock{t: time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)}
	e, err := engine.Open(t.Context(), engine.Options{Clock: clock})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	datagenExec(t, e, `CREATE TABLE ticks (n INT)`, `INSERT INTO ticks VALUES (1), (2), (3)`)
	rows := datagenExec(t, e, `SELECT n, CURRENT_TIMESTAMP, LOCALTIMESTAMP FROM ticks`)
	require.Len(t, rows, 3)
	seen := map[string]bool{}
	for i, r := range rows {
		require.NotEqual(t, r[1], r[2], "row %d: two readings of the clock", i)
		require.False(t, seen[r[1]], "row %d repeats a time: %v", i, rows)
		seen[r[1]] = true
		if i > 0 {
			require.Greater(t, r[1], rows[i-1][1], "times increase")
		}
		require.Contains(t, r[1], "2026-08-01 09:00:")
	}
}
