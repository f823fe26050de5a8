package format

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/types"
)

// TestAppendJava pins values against what Java's toString prints for
// Flink's external types (LocalTime, Duration, Period, BigDecimal, ...).
func TestAppendJava(t *testing.T) {
	for _, tc := range []struct {
		v    types.Value
		typ  string
		want string
	}{
		{types.NewTime((10*3600 + 15*60) * 1e9), "TIME(3)", "10:15"},
		{types.NewTime((10*3600+15*60+30)*1e9 + 5e8), "TIME(3)", "10:15:30.500"},
		{types.NewTime((10*3600+15*60+30)*1e9 + 123456e3), "TIME(6)", "10:15:30.123456"},
		{types.NewTime(1), "TIME(9)", "00:00:00.000000001"},
		{mustTS(t, "1969-12-31 23:59:59.999"), "TIMESTAMP(3)", "1969-12-31T23:59:59.999"},
		{mustTS(t, "2024-01-31 00:00:00"), "TIMESTAMP_LTZ(3)", "2024-01-31T00:00:00Z"},
		{types.NewInterval(0), "INTERVAL DAY TO SECOND", "PT0S"},
		{types.NewInterval(48 * time.Hour), "INTERVAL DAY TO SECOND", "PT48H"},
		{types.NewInterval(-1500 * time.Millisecond), "INTERVAL DAY TO SECOND", "PT-1.5S"},
		{types.NewInterval(-500 * time.Millisecond), "INTERVAL DAY TO SECOND", "PT-0.5S"},
		{types.NewInterval(61*time.Second + 5*time.Millisecond), "INTERVAL DAY TO SECOND", "PT1M1.005S"},
		{types.NewIntervalMonths(14), "INTERVAL YEAR TO MONTH", "P1Y2M"},
		{types.NewIntervalMonths(0), "INTERVAL YEAR TO MONTH", "P0D"},
		{types.NewIntervalMonths(-3), "INTERVAL YEAR TO MONTH", "P-3M"},
		{mustDec(t, "0.0000001"), "DECIMAL(10, 7)", "1E-7"},
		{mustDec(t, "0.000001"), "DECIMAL(10, 6)", "0.000001"},
		{mustDec(t, "-12.3"), "DECIMAL(10, 2)", "-12.30"},
		{types.NewBytes([]byte{0, 127, 128, 255}), "BYTES", "[0, 127, -128, -1]"},
		{types.NewFloat(100), "DOUBLE", "100.0"},
		{types.NewFloat(1e-4), "DOUBLE", "1.0E-4"},
		{types.NewMap([]types.MapEntry{{Key: types.NewString("a"), Val: types.Null}}), "MAP<STRING, INT>", "{a=null}"},
		{types.NewArray([]types.Value{types.NewArray([]types.Value{types.NewInt(1)}), types.Null}), "ARRAY<ARRAY<INT>>", "[[1], null]"},
	} {
		if got := string(AppendJava(nil, tc.v, types.MustParseType(tc.typ))); got != tc.want {
			t.Errorf("%s %v: got %s, want %s", tc.typ, tc.v, got, tc.want)
		}
	}
}
