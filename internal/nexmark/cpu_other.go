//go:build !unix

package nexmark

import "time"

// cpuTime is unknown on this platform: zero, and the benchmark reports
// no per-core figure.
func cpuTime() time.Duration { return 0 }
