package plan

import (
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
	switch key {
	case MiniBatchEnabledKey:
		if _, err := strconv.ParseBool(strings.TrimSpace(value)); err != nil {
			return sqlerr.Newf(sqlerr.InvalidOption, "Invalid '%s' = '%s': not a boolean", key, value).
				WithHint("use 'true' or 'false'")
		}
	case MiniBatchLatencyKey:
		if _, err := ParseDuration(value); err != nil {
			return sqlerr.Newf(sqlerr.InvalidOption, "Invalid '%s' = '%s': %v", key, value, err)
		}
	case MiniBatchSizeKey:
		if _, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64); err != nil {
			return sqlerr.Newf(sqlerr.InvalidOption, "Invalid '%s' = '%s': not an integer", key, value)
		}
	}
	return nil
}

// miniBatch returns the session's mini-batch setting for group
// aggregates: zero unless 'table.exec.mini-batch.enabled' is true, and
// then an error unless both the latency and the size are positive, as
// Flink requires.
func (p *Planner) miniBatch(pos sqlerr.Pos) (jobgraph.MiniBatch, error) {
	cfg := p.Session.Config
	on, err := strconv.ParseBool(strings.TrimSpace(cfg[MiniBatchEnabledKey]))
	if err != nil || !on {
		return jobgraph.MiniBatch{}, nil
	}
	var mb jobgraph.MiniBatch
	if s := cfg[MiniBatchLatencyKey]; s != "" {
		d, err := ParseDuration(s)
		if err != nil {
			return mb, errAt(pos, sqlerr.InvalidOption, "Invalid '%s' = '%s': %v", MiniBatchLatencyKey, s, err)
		}
		mb.Latency = int64(d)
	}
	if mb.Latency <= 0 {
		return mb, errAt(pos, sqlerr.InvalidOption, "%s must be greater than 0 when mini-batch is enabled.", MiniBatchLatencyKey).
			WithHint("SET '" + MiniBatchLatencyKey + "' = '2 s' (and '" + MiniBatchSizeKey + "'), or SET '" + MiniBatchEnabledKey + "' = 'false'")
	}
	mb.Size = -1
	if s := cfg[MiniBatchSizeKey]; s != "" {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return mb, errAt(pos, sqlerr.InvalidOption, "Invalid '%s' = '%s': not an integer", MiniBatchSizeKey, s)
		}
		mb.Size = n
	}
	if mb.Size <= 0 {
		return mb, errAt(pos, sqlerr.InvalidOption, "%s should be greater than 0.", MiniBatchSizeKey).
			WithHint("SET '" + MiniBatchSizeKey + "' = '50000', or SET '" + MiniBatchEnabledKey + "' = 'false'")
	}
	return mb, nil
}
