package expr

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// TestSessionZone checks the local-time functions and the conversions of
// TIMESTAMP_LTZ in a session time zone, with a fixed clock.
func TestSessionZone(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	now := time.Date(2024, 7, 1, 22, 30, 15, 123e6, time.UTC).UnixNano() // 00:30 on 2 July in Berlin
	for _, c := range []struct {
		zone *time.Location
		fn   string
		want string
	}{
		{nil, "CURRENT_TIMESTAMP", "2024-07-01 22:30:15.123"},
		{nil, "LOCALTIMESTAMP", "2024-07-01 22:30:15.123"},
		{nil, "CURRENT_DATE", "2024-07-01"},
		{berlin, "CURRENT_TIMESTAMP", "2024-07-01 22:30:15.123"}, // an instant, shown in UTC by Format
		{berlin, "LOCALTIMESTAMP", "2024-07-02 00:30:15.123"},
		{berlin, "CURRENT_DATE", "2024-07-02"},
		{berlin, "CURRENT_TIME", "00:30:15"},
		{berlin, "LOCALTIME", "00:30:15"},
	} {
		e, err := CallEnv(Env{Now: func() int64 { return now }, Zone: c.zone}, c.fn)
		require.NoError(t, err, c.fn)
		v, err := e.Eval(nil)
		require.NoError(t, err)
		require.Equal(t, c.want, types.Format(v, e.Type()), "%s in %v", c.fn, c.zone)
	}

	ltz, err := Lit(types.NewTimestamp(now), types.TimestampLTZ(3).NonNull())
	require.NoError(t, err)
	for to, want := range map[string]string{
		"STRING": "2024-07-02 00:30:15.123", "TIMESTAMP(3)": "2024-07-02 00:30:15.123", "DATE": "2024-07-02", "TIME(0)": "00:30:15",
	} {
		e, err := CastIn(ltz, mustType(t, to), false, berlin)
		require.NoError(t, err)
		v, err := e.Eval(nil)
		require.NoError(t, err)
		require.Equal(t, want, types.Format(v, e.Type()), "CAST(ltz AS %s)", to)
	}
	wall, err := Lit(types.NewTimestamp(time.Date(2024, 1, 15, 12, 0, 0, 0, time.UTC).UnixNano()), types.Timestamp(3).NonNull())
	require.NoError(t, err)
	e, err := CastIn(wall, types.TimestampLTZ(3), false, berlin)
	require.NoError(t, err)
	v, err := e.Eval(nil)
	require.NoError(t, err)
	require.Equal(t, time.Date(2024, 1, 15, 11, 0, 0, 0, time.UTC).UnixNano(), v.Int(), "12:00 CET is 11:00 UTC")
}
