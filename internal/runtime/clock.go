package runtime

import "time"

// Clock supplies processing time.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock. Only the composition root (engine) should
// create it; runtime code receives a Clock.
type SystemClock struct{}

// Now returns the current wall-clock time.
func (SystemClock) Now() time.Time { return time.Now() }

// ManualClock is a clock for tests that only moves when told.
type ManualClock struct{ T time.Time }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time { return c.T }

// Advance moves the clock forward.
func (c *ManualClock) Advance(d time.Duration) { c.T = c.T.Add(d) }
