package plan

import (
	"errors"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// The mini-batch options, as Flink names them.
const (
	MiniBatchEnabledKey = "table.exec.mini-batch.enabled"
	MiniBatchLatencyKey = "table.exec.mini-batch.allow-latency"
	MiniBatchSizeKey    = "table.exec.mini-batch.size"
)

// ParseMiniBatchOption checks the value of one of the mini-batch options
// (SET validates with it).
func ParseMiniBatchOption(key, value string) error {
	_, err := miniBatchValue(key, value)
	return err
}

// miniBatchValue parses the value of a mini-batch option: 1 or 0 for
// 'enabled', nanoseconds for 'allow-latency', rows for 'size'.
func miniBatchValue(key, value string) (int64, error) {
	switch key {
	case MiniBatchEnabledKey:
		on, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return 0, sqlerr.Newf(sqlerr.InvalidOption, "Invalid '%s' = '%s': not a boolean", key, value).
				WithHint("use 'true' or 'false'")
		}
		if on {
			return 1, nil
		}
		return 0, nil
	case MiniBatchLatencyKey:
		d, err := ParseDuration(value)
		if err != nil {
			return 0, sqlerr.Newf(sqlerr.InvalidOption, "Invalid '%s' = '%s': %v", key, value, err)
		}
		return int64(d), nil
	case MiniBatchSizeKey:
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return 0, sqlerr.Newf(sqlerr.InvalidOption, "Invalid '%s' = '%s': not an integer", key, value)
		}
		return n, nil
	}
	return 0, nil
}

// miniBatch returns the session's mini-batch setting for group
// aggregates: zero unless 'table.exec.mini-batch.enabled' is true, and
// then an error unless both the latency and the size are positive, as
// Flink requires. (Options given as a statement's properties did not pass
// SET, so they are checked here too.)
func (p *Planner) miniBatch(pos sqlerr.Pos) (jobgraph.MiniBatch, error) {
	cfg := p.Session.Config
	if on, err := miniBatchValue(MiniBatchEnabledKey, cfg[MiniBatchEnabledKey]); err != nil || on == 0 {
		return jobgraph.MiniBatch{}, nil
	}
	var mb jobgraph.MiniBatch
	for _, o := range []struct {
		key string
		dst *int64
	}{{MiniBatchLatencyKey, &mb.Latency}, {MiniBatchSizeKey, &mb.Size}} {
		if s := cfg[o.key]; s != "" {
			v, err := miniBatchValue(o.key, s)
			if err != nil {
				var se *sqlerr.Error
				if errors.As(err, &se) {
					return mb, se.At(pos)
				}
				return mb, err
			}
			*o.dst = v
		}
	}
	if mb.Latency <= 0 {
		return mb, errAt(pos, sqlerr.InvalidOption, "%s must be greater than 0 when mini-batch is enabled.", MiniBatchLatencyKey).
			WithHint("SET '" + MiniBatchLatencyKey + "' = '2 s' (and '" + MiniBatchSizeKey + "'), or SET '" + MiniBatchEnabledKey + "' = 'false'")
	}
	if mb.Size <= 0 {
		return mb, errAt(pos, sqlerr.InvalidOption, "%s should be greater than 0.", MiniBatchSizeKey).
			WithHint("SET '" + MiniBatchSizeKey + "' = '50000', or SET '" + MiniBatchEnabledKey + "' = 'false'")
	}
	return mb, nil
}
