package types

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

const (
	nanosPerSecond = int64(1e9)
	nanosPerDay    = 86400 * nanosPerSecond
	nanosPerMilli  = int64(1e6)
)

// ParseDate parses a DATE literal "YYYY-MM-DD" (month and day may have one
// digit). Surrounding spaces are ignored.
func ParseDate(s string) (Value, error) {
	sc := dateScanner{s: strings.TrimSpace(s)}
	days, err := sc.date()
	if err == nil && sc.i != len(sc.s) {
		err = fmt.Errorf("unexpected %q after the date", sc.s[sc.i:])
	}
	if err != nil {
		return Null, fmt.Errorf("invalid DATE %q: %w", s, err)
	}
	return NewDate(days), nil
}

// ParseTime parses a TIME literal "HH:MM[:SS[.fffffffff]]" with up to 9
// fractional digits. Surrounding spaces are ignored.
func ParseTime(s string) (Value, error) {
	sc := dateScanner{s: strings.TrimSpace(s)}
	nanos, err := sc.time()
	if err == nil && sc.i != len(sc.s) {
		err = fmt.Errorf("unexpected %q after the time", sc.s[sc.i:])
	}
	if err != nil {
		return Null, fmt.Errorf("invalid TIME %q: %w", s, err)
	}
	return NewTime(nanos), nil
}

// ParseTimestamp parses a TIMESTAMP literal "YYYY-MM-DD[( |T)HH:MM[:SS[.f]]]"
// with up to 9 fractional digits, such as "2026-08-01 09:00:00" or
// "2026-08-01T09:00:00.123". A date alone means midnight. The result counts
// nanoseconds since the epoch, so it must lie between the years 1677 and
// 2262. Surrounding spaces are ignored.
func ParseTimestamp(s string) (Value, error) {
	sc := dateScanner{s: strings.TrimSpace(s)}
	n, err := sc.timestamp()
	if err != nil {
		return Null, fmt.Errorf("invalid TIMESTAMP %q: %w", s, err)
	}
	return NewTimestamp(n), nil
}

// dateScanner scans the parts of date and time literals.
type dateScanner struct {
	s string
	i int
}

// num scans 1 to maxDigits decimal digits.
func (sc *dateScanner) num(what string, maxDigits int) (int64, error) {
	start := sc.i
	var n int64
	for sc.i < len(sc.s) && sc.i-start < maxDigits && sc.s[sc.i] >= '0' && sc.s[sc.i] <= '9' {
		n = n*10 + int64(sc.s[sc.i]-'0')
		sc.i++
	}
	if sc.i == start {
		return 0, fmt.Errorf("expected %s at position %d", what, start)
	}
	if sc.i < len(sc.s) && sc.s[sc.i] >= '0' && sc.s[sc.i] <= '9' {
		return 0, fmt.Errorf("%s at position %d has too many digits", what, start)
	}
	return n, nil
}

func (sc *dateScanner) sep(c byte) error {
	if sc.i >= len(sc.s) || sc.s[sc.i] != c {
		return fmt.Errorf("expected %q at position %d", c, sc.i)
	}
	sc.i++
	return nil
}

// date scans YYYY-MM-DD and returns days since the epoch.
func (sc *dateScanner) date() (int64, error) {
	y, err := sc.num("year", 4)
	if err != nil {
		return 0, err
	}
	if err := sc.sep('-'); err != nil {
		return 0, err
	}
	m, err := sc.num("month", 2)
	if err != nil {
		return 0, err
	}
	if err := sc.sep('-'); err != nil {
		return 0, err
	}
	d, err := sc.num("day", 2)
	if err != nil {
		return 0, err
	}
	if m < 1 || m > 12 {
		return 0, fmt.Errorf("month %d out of range", m)
	}
	if d < 1 || d > daysIn(y, m) {
		return 0, fmt.Errorf("day %d out of range for %04d-%02d", d, y, m)
	}
	return daysFromCivil(y, m, d), nil
}

// time scans HH:MM[:SS[.fffffffff]] and returns nanoseconds since midnight.
func (sc *dateScanner) time() (int64, error) {
	h, err := sc.num("hour", 2)
	if err != nil {
		return 0, err
	}
	if err := sc.sep(':'); err != nil {
		return 0, err
	}
	m, err := sc.num("minute", 2)
	if err != nil {
		return 0, err
	}
	var sec, frac int64
	if sc.i < len(sc.s) && sc.s[sc.i] == ':' {
		sc.i++
		if sec, err = sc.num("second", 2); err != nil {
			return 0, err
		}
		if sc.i < len(sc.s) && sc.s[sc.i] == '.' {
			sc.i++
			start := sc.i
			if frac, err = sc.num("fraction", 9); err != nil {
				return 0, err
			}
			for k := sc.i - start; k < 9; k++ {
				frac *= 10
			}
		}
	}
	if h > 23 || m > 59 || sec > 59 {
		return 0, fmt.Errorf("time %02d:%02d:%02d out of range", h, m, sec)
	}
	return ((h*60+m)*60+sec)*nanosPerSecond + frac, nil
}

func (sc *dateScanner) timestamp() (int64, error) {
	days, err := sc.date()
	if err != nil {
		return 0, err
	}
	var nanos int64
	if sc.i < len(sc.s) {
		if c := sc.s[sc.i]; c != ' ' && c != 'T' {
			return 0, fmt.Errorf("expected ' ' or 'T' at position %d", sc.i)
		}
		sc.i++
		if nanos, err = sc.time(); err != nil {
			return 0, err
		}
	}
	if sc.i != len(sc.s) {
		return 0, fmt.Errorf("unexpected %q after the timestamp", sc.s[sc.i:])
	}
	n, ok := addNanos(days, nanos)
	if !ok {
		return 0, errors.New("timestamp out of range (years 1677 to 2262)")
	}
	return n, nil
}

// addNanos returns days*nanosPerDay + nanos, or false on overflow.
func addNanos(days, nanos int64) (int64, bool) {
	const maxDays = math.MaxInt64 / nanosPerDay
	if days > maxDays || days < -maxDays-1 {
		return 0, false
	}
	if days == -maxDays-1 { // days*nanosPerDay itself would overflow
		d := (days+1)*nanosPerDay + nanos
		if d < math.MinInt64+nanosPerDay {
			return 0, false
		}
		return d - nanosPerDay, true
	}
	d := days * nanosPerDay
	if d > math.MaxInt64-nanos {
		return 0, false
	}
	return d + nanos, true
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// DaysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (H. Hinnant's algorithm).
func DaysFromCivil(y, m, d int64) int64 { return daysFromCivil(y, m, d) }

// CivilFromDays is the inverse of DaysFromCivil: the year, month and day of
// a day number.
func CivilFromDays(z int64) (y, m, d int64) { return civilFromDays(z) }

// IsLeapYear reports whether y is a leap year of the proleptic Gregorian
// calendar.
func IsLeapYear(y int64) bool { return isLeap(y) }

// DaysInMonth returns the number of days of month m of year y.
func DaysInMonth(y, m int64) int64 { return daysIn(y, m) }

func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// ParseDecimal parses an exact numeric literal such as "1.085", "-42" or
// "1.5E3" into a decimal. NaN and infinities are rejected, and a negative
// zero becomes zero. Surrounding spaces are ignored.
func ParseDecimal(s string) (*apd.Decimal, error) {
	d, _, err := apd.NewFromString(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("invalid DECIMAL %q: %w", s, err)
	}
	if d.Form != apd.Finite {
		return nil, fmt.Errorf("invalid DECIMAL %q: not a finite number", s)
	}
	if d.Coeff.Sign() == 0 {
		d.Negative = false
	}
	return d, nil
}

// RoundDecimal returns d rounded to s fractional digits (HALF_UP: halves
// round away from zero) as a new decimal with exponent -s, or an error when
// the result needs more than p digits in all, i.e. does not fit DECIMAL(p,
// s). It requires 1 <= p <= MaxDecimalPrecision and 0 <= s <= p. A
// negative zero becomes zero.
func RoundDecimal(d *apd.Decimal, p, s int) (*apd.Decimal, error) {
	if p < 1 || p > MaxDecimalPrecision || s < 0 || s > p {
		return nil, fmt.Errorf("invalid type DECIMAL(%d, %d)", p, s)
	}
	if d == nil || d.Form != apd.Finite {
		return nil, fmt.Errorf("rounding %v to DECIMAL(%d, %d): not a finite number", d, p, s)
	}
	// Reject values whose integer part is too long before Quantize
	// multiplies the coefficient out to the target exponent.
	if d.Coeff.Sign() != 0 {
		if intDigits := apd.NumDigits(&d.Coeff) + int64(d.Exponent); intDigits > int64(p-s) {
			return nil, fmt.Errorf("%s does not fit DECIMAL(%d, %d)", d.Text('G'), p, s)
		}
	}
	ctx := apd.BaseContext.WithPrecision(uint32(p))
	ctx.Rounding = apd.RoundHalfUp
	r := new(apd.Decimal)
	if _, err := ctx.Quantize(r, d, int32(-s)); err != nil {
		return nil, fmt.Errorf("%s does not fit DECIMAL(%d, %d): %w", d.Text('G'), p, s, err)
	}
	if r.Coeff.Sign() == 0 {
		r.Negative = false
	}
	return r, nil
}
