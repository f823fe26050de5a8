package types

import (
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/require"
)

func mustDecimal(t testing.TB, s string) *apd.Decimal {
	t.Helper()
	d, err := ParseDecimal(s)
	require.NoError(t, err)
	return d
}

func TestParseTimestamp(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Time
		wantErr string
	}{
		{in: "2026-08-01 09:00:00", want: time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)},
		{in: "2026-08-01T09:00:00.123", want: time.Date(2026, 8, 1, 9, 0, 0, 123e6, time.UTC)},
		{in: " 2026-08-01 09:00:00.123456789 ", want: time.Date(2026, 8, 1, 9, 0, 0, 123456789, time.UTC)},
		{in: "2026-08-01 09:00", want: time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)},
		{in: "2026-08-01", want: time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)},
		{in: "2026-8-1 9:05:07.5", want: time.Date(2026, 8, 1, 9, 5, 7, 5e8, time.UTC)},
		{in: "1969-12-31 23:59:59.999", want: time.Date(1969, 12, 31, 23, 59, 59, 999e6, time.UTC)},
		{in: "2024-02-29 00:00:00", want: time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		{in: "1677-09-21 00:12:43.145224192", want: time.Unix(0, -9223372036854775808).UTC()},
		{in: "2262-04-11 23:47:16.854775807", want: time.Unix(0, 9223372036854775807).UTC()},
		{in: "2262-04-11 23:47:16.854775808", wantErr: "out of range"},
		{in: "1677-09-21 00:12:43.145224191", wantErr: "out of range"},
		{in: "9999-12-31 23:59:59", wantErr: "out of range"},
		{in: "2026-08-01 09:00:00.1234567891", wantErr: "too many digits"},
		{in: "2025-02-29 00:00:00", wantErr: "day 29 out of range"},
		{in: "2026-13-01", wantErr: "month 13 out of range"},
		{in: "2026-08-01 24:00:00", wantErr: "out of range"},
		{in: "2026-08-01 09:60", wantErr: "out of range"},
		{in: "2026-08-01X09:00:00", wantErr: "expected ' ' or 'T'"},
		{in: "2026-08-01 09:00:00Z", wantErr: `unexpected "Z"`},
		{in: "2026-08-01 09:00:00.", wantErr: "expected fraction"},
		{in: "20260801", wantErr: "too many digits"},
		{in: "", wantErr: "expected year"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v, err := ParseTimestamp(tt.in)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				require.ErrorContains(t, err, "invalid TIMESTAMP")
				return
			}
			require.NoError(t, err)
			require.Equal(t, KindTimestamp, v.Kind())
			require.Equal(t, tt.want, v.Time())
		})
	}
}

func TestParseDateTime(t *testing.T) {
	dates := []struct {
		in   string
		want int64
	}{
		{"1970-01-01", 0},
		{"1969-12-31", -1},
		{"2026-08-01", 20666},
		{"2000-03-01", 11017},
		{"0001-01-01", -719162},
		{"9999-12-31", 2932896},
	}
	for _, tt := range dates {
		v, err := ParseDate(tt.in)
		require.NoError(t, err, tt.in)
		require.Equal(t, NewDate(tt.want), v, tt.in)
		require.Equal(t, tt.in, Format(v, Date))
	}
	for _, bad := range []string{"2026-08-01 00:00", "2026-02-30", "2026-08", "x"} {
		_, err := ParseDate(bad)
		require.ErrorContains(t, err, "invalid DATE", bad)
	}

	times := []struct {
		in   string
		want time.Duration
	}{
		{"00:00", 0},
		{"09:00:00", 9 * time.Hour},
		{"23:59:59.999999999", 24*time.Hour - 1},
		{"12:34:56.7", 12*time.Hour + 34*time.Minute + 56*time.Second + 700*time.Millisecond},
	}
	for _, tt := range times {
		v, err := ParseTime(tt.in)
		require.NoError(t, err, tt.in)
		require.Equal(t, NewTime(int64(tt.want)), v, tt.in)
	}
	for _, bad := range []string{"24:00", "12:60", "12:00:60", "12", "12:00:00 PM"} {
		_, err := ParseTime(bad)
		require.ErrorContains(t, err, "invalid TIME", bad)
	}
}

// TestCivilDays checks the date arithmetic against package time over a wide
// range of days.
func TestCivilDays(t *testing.T) {
	for days := int64(-800_000); days <= 3_000_000; days += 997 {
		want := time.Unix(days*86400, 0).UTC()
		y, m, d := civilFromDays(days)
		require.Equal(t, [3]int64{int64(want.Year()), int64(want.Month()), int64(want.Day())}, [3]int64{y, m, d}, "day %d", days)
		require.Equal(t, days, daysFromCivil(y, m, d))
	}
}

func TestParseDecimal(t *testing.T) {
	for in, want := range map[string]string{
		"1.085":  "1.085",
		"-42":    "-42",
		" 1.5E3": "1.5E+3",
		"-0.00":  "0.00",
		".5":     "0.5",
	} {
		d, err := ParseDecimal(in)
		require.NoError(t, err, in)
		require.Equal(t, want, d.String(), in)
	}
	for _, bad := range []string{"NaN", "Infinity", "-inf", "1.2.3", "", "abc", "1e999999999999"} {
		_, err := ParseDecimal(bad)
		require.ErrorContains(t, err, "invalid DECIMAL", bad)
	}
}

func TestRoundDecimal(t *testing.T) {
	tests := []struct {
		in      string
		p, s    int
		want    string
		wantErr string
	}{
		{in: "1.085", p: 10, s: 2, want: "1.09"},
		{in: "-1.085", p: 10, s: 2, want: "-1.09"},
		{in: "1.084", p: 10, s: 2, want: "1.08"},
		{in: "1.5", p: 10, s: 0, want: "2"},
		{in: "2.5", p: 10, s: 0, want: "3"},
		{in: "42", p: 10, s: 4, want: "42.0000"},
		{in: "1E+2", p: 5, s: 2, want: "100.00"},
		{in: "-0.001", p: 10, s: 2, want: "0.00"},
		{in: "99.995", p: 4, s: 2, wantErr: "does not fit DECIMAL(4, 2)"},
		{in: "99.995", p: 5, s: 2, want: "100.00"},
		{in: "99.994", p: 4, s: 2, want: "99.99"},
		{in: "12345", p: 4, s: 0, wantErr: "does not fit"},
		{in: "1E+99999", p: 38, s: 2, wantErr: "does not fit"},
		{in: "1E-99999", p: 38, s: 2, want: "0.00"},
		{in: "0.5", p: 1, s: 1, want: "0.5"},
		{in: "1", p: 0, s: 0, wantErr: "invalid type DECIMAL(0, 0)"},
		{in: "1", p: 10, s: 11, wantErr: "invalid type"},
		{in: "1", p: 39, s: 0, wantErr: "invalid type"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d := mustDecimal(t, tt.in)
			orig := d.String()
			got, err := RoundDecimal(d, tt.p, tt.s)
			require.Equal(t, orig, d.String(), "input modified")
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got.Text('f'))
			require.Equal(t, int32(-tt.s), got.Exponent)
		})
	}
	_, err := RoundDecimal(&apd.Decimal{Form: apd.NaN}, 10, 2)
	require.ErrorContains(t, err, "not a finite number")
}
