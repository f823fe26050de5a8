package plan

import (
	"time"

	"github.com/eddy-sql/eddy/types"
)

// ParseDuration parses Flink's duration syntax (see types.ParseDuration).
func ParseDuration(s string) (time.Duration, error) { return types.ParseDuration(s) }
