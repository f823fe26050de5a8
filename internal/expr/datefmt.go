package expr

import (
	"strings"
)

// Date-time patterns in the letters of Java's SimpleDateFormat and
// DateTimeFormatter, which Flink's DATE_FORMAT, TO_TIMESTAMP, TO_DATE,
// UNIX_TIMESTAMP and FROM_UNIXTIME take: y M d H h k K m s S a E D u X Z and
// text in single quotes. S is the fraction of the second (SSS = millis).
// Values are wall-clock nanoseconds since the epoch (UTC; the session time
// zone is not modelled).

type dtField struct {
	letter byte   // 0 for literal text
	n      int    // repeat count
	text   string // literal text
}

type dtPattern []dtField

var monthNames = [...]string{"January", "February", "March", "April", "May", "June", "July",
	"August", "September", "October", "November", "December"}

var dayNames = [...]string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}

// compileDatePattern splits a pattern into fields; unknown letters are an
// error (like Java's IllegalArgumentException).
func compileDatePattern(p string) (dtPattern, error) {
	var out dtPattern
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			j := i + 1
			var b strings.Builder
			for j < len(p) {
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						b.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(p[j])
				j++
			}
			if i+1 == j && j < len(p) { // '' is a quote
				b.WriteByte('\'')
			}
			out = append(out, dtField{text: b.String()})
			i = j + 1
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			if !strings.ContainsRune("yMdHhkKmsSaEDuXZ", rune(c)) {
				return nil, typeErrorf("unknown date-time pattern letter '%c' in '%s'", c, p)
			}
			j := i
			for j < len(p) && p[j] == c {
				j++
			}
			out = append(out, dtField{letter: c, n: j - i})
			i = j
		default:
			out = append(out, dtField{text: string(c)})
			i++
		}
	}
	return out, nil
}

// format renders wall-clock nanoseconds ns.
func (p dtPattern) format(ns int64) string {
	days, tod := floorDiv(ns, nanosPerDay), floorMod(ns, nanosPerDay)
	y, m, d := civilFromDays(days)
	h := tod / (3600 * 1e9)
	b := make([]byte, 0, 32)
	for _, f := range p {
		switch f.letter {
		case 0:
			b = append(b, f.text...)
		case 'y':
			if f.n == 2 {
				b = appendPad(b, floorMod(y, 100), 2)
			} else {
				b = appendPad(b, y, f.n)
			}
		case 'M':
			switch {
			case f.n >= 4:
				b = append(b, monthNames[m-1]...)
			case f.n == 3:
				b = append(b, monthNames[m-1][:3]...)
			default:
				b = appendPad(b, m, f.n)
			}
		case 'd':
			b = appendPad(b, d, f.n)
		case 'D':
			b = appendPad(b, days-daysFromCivil(y, 1, 1)+1, f.n)
		case 'H':
			b = appendPad(b, h, f.n)
		case 'k':
			b = appendPad(b, (h+23)%24+1, f.n)
		case 'K':
			b = appendPad(b, h%12, f.n)
		case 'h':
			b = appendPad(b, (h+11)%12+1, f.n)
		case 'm':
			b = appendPad(b, tod/(60*1e9)%60, f.n)
		case 's':
			b = appendPad(b, tod/1e9%60, f.n)
		case 'S':
			var tmp [9]byte
			frac := appendPad(tmp[:0], tod%1e9, 9)
			b = append(b, frac[:min(f.n, 9)]...)
			for i := 9; i < f.n; i++ {
				b = append(b, '0')
			}
		case 'a':
			if h < 12 {
				b = append(b, "AM"...)
			} else {
				b = append(b, "PM"...)
			}
		case 'E':
			name := dayNames[isoDayOfWeek(days)-1]
			if f.n < 4 {
				name = name[:3]
			}
			b = append(b, name...)
		case 'u':
			b = appendPad(b, isoDayOfWeek(days), f.n)
		case 'X':
			b = append(b, 'Z')
		case 'Z':
			b = append(b, "+0000"...)
		}
	}
	return string(b)
}

// isoDayOfWeek is 1 for Monday .. 7 for Sunday.
func isoDayOfWeek(days int64) int64 { return floorMod(days+3, 7) + 1 }

// hasOffset reports whether the pattern reads a zone offset (X or Z), so
// that a parsed string is an instant rather than a wall-clock time.
func (p dtPattern) hasOffset() bool {
	for _, f := range p {
		if f.letter == 'X' || f.letter == 'Z' {
			return true
		}
	}
	return false
}

// parse reads s in the pattern and returns wall-clock nanoseconds; the
// whole string must match. Missing fields default to 1970-01-01 00:00:00.
func (p dtPattern) parse(s string) (int64, bool) {
	y, m, d := int64(1970), int64(1), int64(1)
	var h, mi, sec, frac, doy int64
	pm, hasAmPm, h12 := false, false, false
	for i, f := range p {
		if f.letter == 0 {
			if !strings.HasPrefix(s, f.text) {
				return 0, false
			}
			s = s[len(f.text):]
			continue
		}
		switch f.letter {
		case 'M':
			if f.n >= 3 {
				found := false
				for k, name := range monthNames {
					if f.n == 3 {
						name = name[:3]
					}
					if len(s) >= len(name) && strings.EqualFold(s[:len(name)], name) {
						m, s, found = int64(k+1), s[len(name):], true
						break
					}
				}
				if !found {
					return 0, false
				}
				continue
			}
		case 'a':
			switch {
			case len(s) >= 2 && strings.EqualFold(s[:2], "AM"):
			case len(s) >= 2 && strings.EqualFold(s[:2], "PM"):
				pm = true
			default:
				return 0, false
			}
			hasAmPm, s = true, s[2:]
			continue
		case 'E':
			found := false
			for _, name := range dayNames {
				if f.n < 4 {
					name = name[:3]
				}
				if len(s) >= len(name) && strings.EqualFold(s[:len(name)], name) {
					s, found = s[len(name):], true
					break
				}
			}
			if !found {
				return 0, false
			}
			continue
		case 'X', 'Z':
			switch {
			case strings.HasPrefix(s, "Z"):
				s = s[1:]
			case strings.HasPrefix(s, "+0000"), strings.HasPrefix(s, "+00:00"):
				s = strings.TrimPrefix(strings.TrimPrefix(s, "+0000"), "+00:00")
			default:
				return 0, false // only UTC offsets: no session time zone yet
			}
			continue
		}
		// Numeric field: exactly n digits when the next field is numeric
		// too (yyyyMMdd), else up to 9.
		hi := 9
		if i+1 < len(p) && p[i+1].letter != 0 && f.n > 1 || f.letter == 'S' {
			hi = f.n
		}
		lo := 1
		if f.letter == 'S' {
			lo = f.n
		}
		sc := scanner{s}
		v, nd, ok := sc.digits(lo, hi)
		if !ok {
			return 0, false
		}
		s = sc.s
		switch f.letter {
		case 'y':
			if f.n == 2 && nd == 2 {
				v += 2000
			}
			y = v
		case 'M':
			m = v
		case 'd':
			d = v
		case 'D':
			doy = v
		case 'H', 'k':
			h = v % 24
		case 'h', 'K':
			h, h12 = v%12, true
		case 'm':
			mi = v
		case 's':
			sec = v
		case 'S':
			for k := nd; k < 9; k++ {
				v *= 10
			}
			frac = v
		}
	}
	if s != "" || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	if hasAmPm && pm && (h12 || h < 12) {
		h += 12
	}
	days := daysFromCivil(y, m, d)
	if doy > 0 {
		days = daysFromCivil(y, 1, 1) + doy - 1
	}
	return tsFromParts(days, ((h*60+mi)*60+sec)*1e9+frac)
}
