package reference

import (
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/types"
)

// decimal is coeff × 10^-scale.
func decimal(coeff int64, scale int32) types.Value {
	return types.NewDecimal(apd.New(coeff, -scale))
}

// dateFormat is DATE_FORMAT(ts, layout) for the two layouts the queries
// use ('yyyy-MM-dd' and 'HH:mm'), on a TIMESTAMP (no time zone).
func dateFormat(ms int64, javaLayout string) string {
	layout := map[string]string{"yyyy-MM-dd": "2006-01-02", "HH:mm": "15:04"}[javaLayout]
	return time.UnixMilli(ms).UTC().Format(layout)
}

// hour is HOUR(ts).
func hour(ms int64) int64 { return int64(time.UnixMilli(ms).UTC().Hour()) }
