package types

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration parses Flink's duration syntax: a number with an optional
// unit ("30 s", "45 min", "3 days", "500"; no unit means milliseconds).
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9') {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("invalid duration %q: expected a number with an optional unit such as '30 s' or '3 days'", s)
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: %w", s, err)
	}
	unit := strings.ToLower(strings.TrimSpace(s[i:]))
	var d time.Duration
	switch unit {
	case "", "ms", "milli", "millis", "millisecond", "milliseconds":
		d = time.Millisecond
	case "us", "micro", "micros", "microsecond", "microseconds", "µs":
		d = time.Microsecond
	case "ns", "nano", "nanos", "nanosecond", "nanoseconds":
		d = time.Nanosecond
	case "s", "sec", "secs", "second", "seconds":
		d = time.Second
	case "m", "min", "mins", "minute", "minutes":
		d = time.Minute
	case "h", "hour", "hours":
		d = time.Hour
	case "d", "day", "days":
		d = 24 * time.Hour
	default:
		return 0, fmt.Errorf("invalid duration %q: unknown unit '%s'", s, unit)
	}
	if n > int64(math.MaxInt64/d) {
		return 0, fmt.Errorf("invalid duration %q: too long", s)
	}
	return time.Duration(n) * d, nil
}
