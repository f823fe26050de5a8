package plan

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"500":          500 * time.Millisecond,
		"30 s":         30 * time.Second,
		" 45 min ":     45 * time.Minute,
		"3 days":       72 * time.Hour,
		"1h":           time.Hour,
		"2 HOURS":      2 * time.Hour,
		"10 us":        10 * time.Microsecond,
		"7 nanos":      7,
		"0":            0,
		"106751 d":     106751 * 24 * time.Hour,
		"9223372036 s": 9223372036 * time.Second,
	} {
		got, err := ParseDuration(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "s", "-1 s", "1.5 s", "forever", "3 fortnights", "106752 days", "9223372037 s", "99999999999999999999"} {
		_, err := ParseDuration(in)
		require.Error(t, err, in)
	}
}

// TestUniqueNames checks Flink's rule for duplicate output column names:
// later duplicates get the first free suffix 0, 1, ...
func TestUniqueNames(t *testing.T) {
	names := func(fs []types.Field) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Name)
		}
		return out
	}
	fields := func(ns ...string) []types.Field {
		var out []types.Field
		for _, n := range ns {
			out = append(out, types.Field{Name: n, Type: types.Int})
		}
		return out
	}
	for _, tc := range []struct{ in, want []string }{
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{"k", "k"}, []string{"k", "k0"}},
		{[]string{"k", "k", "k"}, []string{"k", "k0", "k1"}},
		{[]string{"k", "k0", "k"}, []string{"k", "k0", "k1"}},
		{[]string{"EXPR$0", "EXPR$0"}, []string{"EXPR$0", "EXPR$00"}},
	} {
		in := fields(tc.in...)
		require.Equal(t, tc.want, names(uniqueNames(in)), "%v", tc.in)
		require.Equal(t, tc.in, names(in), "the input is not modified")
	}
}

func TestSuggest(t *testing.T) {
	opts := []string{"order_id", "event_type", "event_time"}
	require.Equal(t, "; did you mean 'order_id'?", suggest("order_idd", opts))
	require.Equal(t, "; did you mean 'event_type'?", suggest("EVNT_TYPE", opts))
	require.Equal(t, "", suggest("price", opts))
	require.Equal(t, "", suggest("x", nil))
	require.Equal(t, 0, sqlerr.Distance("", ""))
	require.Equal(t, 3, sqlerr.Distance("abc", ""))
	require.Equal(t, 1, sqlerr.Distance("kitten", "sitten"))
	require.Equal(t, 3, sqlerr.Distance("kitten", "sitting"))
}
