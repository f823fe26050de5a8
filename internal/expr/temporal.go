package expr

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Internal representations (see types.Value): DATE is days since
// 1970-01-01, TIME nanoseconds since midnight, TIMESTAMP and TIMESTAMP_LTZ
// nanoseconds since the epoch. Without a session time zone (Env.Zone, used
// by CastIn and the temporal functions) TIMESTAMP_LTZ is rendered and
// parsed in UTC, so Cast between TIMESTAMP and TIMESTAMP_LTZ keeps the
// number unchanged.

const nanosPerDay int64 = 86400 * 1e9

// The DATE range that a TIMESTAMP in int64 nanoseconds can hold
// (1677-09-22 .. 2262-04-10, with a day of margin).
var (
	minTsDays = math.MinInt64/nanosPerDay + 1
	maxTsDays = math.MaxInt64/nanosPerDay - 1
)

// errTimestampRange reports a timestamp beyond the int64 nanosecond range.
func errTimestampRange() error { return sqlerr.Newf(sqlerr.Runtime, "timestamp out of range") }

// errParseRange is returned by the parsers for out-of-range values.
var errParseRange = errors.New("out of range")

// Calendar arithmetic is shared with package types.
var (
	daysFromCivil = types.DaysFromCivil
	civilFromDays = types.CivilFromDays
	isLeap        = types.IsLeapYear
	daysInMonth   = types.DaysInMonth
)

// addMonthsDays adds months to a date, clamping the day of month like
// Java's LocalDate.plusMonths (2026-01-31 + 1 month = 2026-02-28).
func addMonthsDays(days, months int64) int64 {
	y, m, d := civilFromDays(days)
	total := y*12 + m - 1 + months
	ny, nm := floorDiv(total, 12), floorMod(total, 12)+1
	return daysFromCivil(ny, nm, min(d, daysInMonth(ny, nm)))
}

// addMonthsNanos adds months to a timestamp; false on overflow.
func addMonthsNanos(ns, months int64) (int64, bool) {
	if months > 12*1000 || months < -12*1000 {
		return 0, false
	}
	nd := addMonthsDays(floorDiv(ns, nanosPerDay), months)
	return tsFromParts(nd, floorMod(ns, nanosPerDay))
}

// tsFromParts combines days and nanoseconds of day; false when out of range.
func tsFromParts(days, tod int64) (int64, bool) {
	if days < minTsDays || days > maxTsDays {
		return 0, false
	}
	return days*nanosPerDay + tod, true
}

// ---------------------------------------------------------------------------
// Parsing.

var errBadDatetime = errors.New("invalid datetime")

// scanner reads fixed-format numeric fields.
type scanner struct{ s string }

// digits reads between lo and hi decimal digits.
func (sc *scanner) digits(lo, hi int) (int64, int, bool) {
	n := 0
	var v int64
	for n < len(sc.s) && n < hi && sc.s[n] >= '0' && sc.s[n] <= '9' {
		v = v*10 + int64(sc.s[n]-'0')
		n++
	}
	if n < lo {
		return 0, 0, false
	}
	sc.s = sc.s[n:]
	return v, n, true
}

func (sc *scanner) skip(c byte) bool {
	if len(sc.s) > 0 && sc.s[0] == c {
		sc.s = sc.s[1:]
		return true
	}
	return false
}

// date reads yyyy-m[m]-d[d].
func (sc *scanner) date() (int64, bool) {
	y, _, ok1 := sc.digits(4, 4)
	ok2 := sc.skip('-')
	m, _, ok3 := sc.digits(1, 2)
	ok4 := sc.skip('-')
	d, _, ok5 := sc.digits(1, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5) || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) {
		return 0, false
	}
	return daysFromCivil(y, m, d), true
}

// time reads h[h]:m[m][:s[s][.f{1,9}]] and returns nanoseconds of day and
// the number of fractional digits.
func (sc *scanner) time() (int64, int, bool) {
	h, _, ok1 := sc.digits(1, 2)
	ok2 := sc.skip(':')
	m, _, ok3 := sc.digits(1, 2)
	if !(ok1 && ok2 && ok3) || h > 23 || m > 59 {
		return 0, 0, false
	}
	var sec, frac int64
	digits := 0
	if sc.skip(':') {
		var ok bool
		if sec, _, ok = sc.digits(1, 2); !ok || sec > 59 {
			return 0, 0, false
		}
		if sc.skip('.') {
			if frac, digits, ok = sc.digits(1, 9); !ok {
				return 0, 0, false
			}
			for i := digits; i < 9; i++ {
				frac *= 10
			}
		}
	}
	return ((h*60+m)*60+sec)*1e9 + frac, digits, true
}

// parseDate parses 'yyyy-mm-dd' (surrounding spaces are ignored).
func parseDate(s string) (int64, error) {
	sc := scanner{strings.TrimSpace(s)}
	d, ok := sc.date()
	if !ok || sc.s != "" {
		return 0, errBadDatetime
	}
	return d, nil
}

// parseTime parses 'hh:mm[:ss[.fffffffff]]'.
func parseTime(s string) (int64, int, error) {
	sc := scanner{strings.TrimSpace(s)}
	t, digits, ok := sc.time()
	if !ok || sc.s != "" {
		return 0, 0, errBadDatetime
	}
	return t, digits, nil
}

// parseTimestamp parses 'yyyy-mm-dd[( |T)hh:mm[:ss[.fffffffff]]]' and
// returns epoch nanoseconds and the number of fractional digits written.
func parseTimestamp(s string) (int64, int, error) {
	sc := scanner{strings.TrimSpace(s)}
	days, ok := sc.date()
	if !ok {
		return 0, 0, errBadDatetime
	}
	var tod int64
	digits := 0
	if sc.skip(' ') || sc.skip('T') {
		for sc.skip(' ') {
		}
		if tod, digits, ok = sc.time(); !ok {
			return 0, 0, errBadDatetime
		}
	}
	if sc.s != "" {
		return 0, 0, errBadDatetime
	}
	ns, ok := tsFromParts(days, tod)
	if !ok {
		return 0, 0, errParseRange
	}
	return ns, digits, nil
}

// truncateNanos drops fractional digits beyond precision p (0..9), rounding
// toward negative infinity so that the date part never changes.
func truncateNanos(ns int64, p int) int64 {
	if p >= 9 || p < 0 {
		return ns
	}
	unit := int64(math.Pow10(9 - p))
	return ns - floorMod(ns, unit)
}

// ---------------------------------------------------------------------------
// Formatting.

func appendPad(b []byte, v int64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

func appendDate(b []byte, days int64) []byte {
	y, m, d := civilFromDays(days)
	if y < 0 {
		b = append(b, '-')
		y = -y
	}
	b = appendPad(b, y, 4)
	b = append(b, '-')
	b = appendPad(b, m, 2)
	b = append(b, '-')
	return appendPad(b, d, 2)
}

// appendTime renders nanoseconds of day as HH:mm:ss with p fractional
// digits.
func appendTime(b []byte, tod int64, p int) []byte {
	sec := tod / 1e9
	b = appendPad(b, sec/3600, 2)
	b = append(b, ':')
	b = appendPad(b, sec/60%60, 2)
	b = append(b, ':')
	b = appendPad(b, sec%60, 2)
	return appendFraction(b, tod%1e9, p)
}

func appendFraction(b []byte, nanos int64, p int) []byte {
	if p <= 0 {
		return b
	}
	p = min(p, 9)
	b = append(b, '.')
	var tmp [9]byte
	s := appendPad(tmp[:0], nanos, 9)
	return append(b, s[:p]...)
}

func formatDate(days int64) string { return string(appendDate(nil, days)) }

func formatTime(tod int64, p int) string { return string(appendTime(nil, tod, p)) }

// formatTimestamp renders 'yyyy-MM-dd HH:mm:ss' with exactly p fractional
// digits, like Flink's CAST(TIMESTAMP(p) AS STRING).
func formatTimestamp(ns int64, p int) string {
	b := appendDate(make([]byte, 0, 32), floorDiv(ns, nanosPerDay))
	b = append(b, ' ')
	return string(appendTime(b, floorMod(ns, nanosPerDay), p))
}

// formatIntervalMonths renders Flink's "+Y-MM".
func formatIntervalMonths(m int64) string {
	b := []byte{'+'}
	if m < 0 {
		b[0] = '-'
		m = -m
	}
	b = strconv.AppendInt(b, m/12, 10)
	b = append(b, '-')
	return string(appendPad(b, m%12, 2))
}

// formatIntervalNanos renders Flink's "+D HH:mm:ss.fff" with p fractional
// digits.
func formatIntervalNanos(ns int64, p int) string {
	b := []byte{'+'}
	if ns < 0 {
		b[0] = '-'
		ns = -ns // MinInt64 stays negative; it is far beyond any interval literal.
	}
	b = strconv.AppendInt(b, ns/nanosPerDay, 10)
	b = append(b, ' ')
	return string(appendTime(b, ns%nanosPerDay, p))
}
