package expr

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Literal helpers type SQL literals the way Flink (Calcite) does. Errors
// have code sqlerr.Syntax: Calcite rejects malformed literals while
// parsing.

// NumericLiteral types an unquoted numeric literal (an optional sign is
// accepted):
//
//	42, 2147483647        INT NOT NULL
//	2147483648            BIGINT NOT NULL
//	99999999999999999999  DECIMAL(20, 0) NOT NULL (beyond BIGINT)
//	100.0                 DECIMAL(4, 1) NOT NULL: precision counts the digits
//	1.0850, .5            DECIMAL(5, 4), DECIMAL(1, 1) NOT NULL
//	1e3, 1.5E-2           DOUBLE NOT NULL
func NumericLiteral(text string) (types.Value, types.Type, error) {
	bad := func(what string) (types.Value, types.Type, error) {
		return types.Null, types.Type{}, sqlerr.Newf(sqlerr.Syntax, "%s numeric literal '%s'", what, text)
	}
	body := strings.TrimLeft(text, "+-")
	if len(text)-len(body) > 1 || !isNumericText(body) {
		return bad("invalid")
	}
	switch {
	case strings.ContainsAny(body, "eE"):
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return bad("out of range")
		}
		return types.NewFloat(f), types.Double.NonNull(), nil
	case !strings.Contains(body, "."):
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			if n == int64(int32(n)) {
				return types.NewInt(n), types.Int.NonNull(), nil
			}
			return types.NewInt(n), types.BigInt.NonNull(), nil
		}
	}
	d, _, err := apd.NewFromString(text)
	if err != nil {
		return bad("invalid")
	}
	scale := int(-d.Exponent)
	p := max(int(d.NumDigits()), scale, 1)
	if p > maxDecimalPrecision {
		return bad("out of range")
	}
	if d.IsZero() {
		d.Negative = false
	}
	return types.NewDecimal(d), types.Decimal(p, scale).NonNull(), nil
}

// isNumericText reports whether s is digits with at most one '.' and an
// optional exponent (e, sign, digits), with at least one mantissa digit.
func isNumericText(s string) bool {
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	digits, dots := 0, 0
	for _, c := range mant {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			dots++
		default:
			return false
		}
	}
	if digits == 0 || dots > 1 {
		return false
	}
	if hasExp {
		exp = strings.TrimLeft(exp, "+-")
		if exp == "" || strings.Trim(exp, "0123456789") != "" {
			return false
		}
	}
	return true
}

// StringLiteral types a character string literal: 'abc' is CHAR(3) NOT
// NULL (the length counts characters), as in Flink.
func StringLiteral(s string) (types.Value, types.Type) {
	return types.NewString(s), types.Char(utf8.RuneCountInString(s)).NonNull()
}

// TimestampLiteral parses the text of TIMESTAMP '...': 'yyyy-MM-dd
// HH:mm:ss[.f...]' (seconds and the time part may be omitted; 'T' may
// separate date and time). The type is TIMESTAMP(p) NOT NULL where p is the
// number of fractional digits written (0 if none), as Flink does.
func TimestampLiteral(text string) (types.Value, types.Type, error) {
	ns, p, err := parseTimestamp(text)
	if err != nil {
		return types.Null, types.Type{}, literalError("TIMESTAMP", text, err)
	}
	return types.NewTimestamp(ns), types.Timestamp(p).NonNull(), nil
}

// DateLiteral parses the text of DATE 'yyyy-MM-dd' (DATE NOT NULL).
func DateLiteral(text string) (types.Value, types.Type, error) {
	d, err := parseDate(text)
	if err != nil {
		return types.Null, types.Type{}, literalError("DATE", text, err)
	}
	return types.NewDate(d), types.Date.NonNull(), nil
}

// TimeLiteral parses the text of TIME 'HH:mm:ss[.f...]'; the type is
// TIME(p) NOT NULL with p the number of fractional digits written.
func TimeLiteral(text string) (types.Value, types.Type, error) {
	t, p, err := parseTime(text)
	if err != nil {
		return types.Null, types.Type{}, literalError("TIME", text, err)
	}
	return types.NewTime(t), types.Time(p).NonNull(), nil
}

func literalError(kind, text string, err error) error {
	if err == errParseRange {
		return sqlerr.Newf(sqlerr.Syntax, "%s literal '%s' is out of range", kind, text)
	}
	return sqlerr.Newf(sqlerr.Syntax, "invalid %s literal '%s'", kind, text)
}

// intervalUnits maps a normalized interval qualifier to the fields its text
// has, leading field first.
var intervalUnits = map[string][]string{
	"YEAR":             {"YEAR"},
	"MONTH":            {"MONTH"},
	"YEAR TO MONTH":    {"YEAR", "MONTH"},
	"DAY":              {"DAY"},
	"HOUR":             {"HOUR"},
	"MINUTE":           {"MINUTE"},
	"SECOND":           {"SECOND"},
	"DAY TO HOUR":      {"DAY", "HOUR"},
	"DAY TO MINUTE":    {"DAY", "HOUR", "MINUTE"},
	"DAY TO SECOND":    {"DAY", "HOUR", "MINUTE", "SECOND"},
	"HOUR TO MINUTE":   {"HOUR", "MINUTE"},
	"HOUR TO SECOND":   {"HOUR", "MINUTE", "SECOND"},
	"MINUTE TO SECOND": {"MINUTE", "SECOND"},
}

// Field separators: the leading field is followed by these.
var intervalSep = map[string]byte{"YEAR": '-', "DAY": ' ', "HOUR": ':', "MINUTE": ':'}

// Field sizes in the unit of the literal (months or nanoseconds) and the
// upper bound of a non-leading field.
var intervalField = map[string]struct{ unit, limit int64 }{
	"YEAR":   {12, 0},
	"MONTH":  {1, 12},
	"DAY":    {nanosPerDay, 0},
	"HOUR":   {int64(time.Hour), 24},
	"MINUTE": {int64(time.Minute), 60},
	"SECOND": {int64(time.Second), 60},
}

// IntervalLiteral parses INTERVAL 'text' unit, where unit is a qualifier
// such as "SECOND", "DAY", "DAY TO SECOND", "YEAR TO MONTH" (precisions
// like "DAY(3)" are accepted and ignored). Texts look like '10', '-1-6'
// (YEAR TO MONTH), '1 02:03:04.5' (DAY TO SECOND), '90.25' (SECOND). YEAR
// and MONTH qualifiers give INTERVAL YEAR TO MONTH NOT NULL (a number of
// months); the others INTERVAL DAY TO SECOND(3) NOT NULL (nanoseconds).
func IntervalLiteral(text, unit string) (types.Value, types.Type, error) {
	q := normUnit(unit)
	fields, ok := intervalUnits[q]
	if !ok {
		return types.Null, types.Type{}, sqlerr.Newf(sqlerr.Syntax, "invalid interval qualifier '%s'", unit)
	}
	bad := func() (types.Value, types.Type, error) {
		return types.Null, types.Type{}, sqlerr.Newf(sqlerr.Syntax,
			"invalid interval literal '%s' for INTERVAL %s", text, q)
	}
	s := strings.TrimSpace(text)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	sc := scanner{s}
	var total int64
	for i, f := range fields {
		spec := intervalField[f]
		hi := 2
		if i == 0 {
			hi = 18 // the leading field is not limited to two digits
		}
		v, _, ok := sc.digits(1, hi)
		if !ok || (i > 0 && v >= spec.limit) || v > math.MaxInt64/spec.unit {
			return bad()
		}
		total += v * spec.unit
		if f == "SECOND" && sc.skip('.') {
			frac, n, ok := sc.digits(1, 9)
			if !ok {
				return bad()
			}
			total += frac * int64(math.Pow10(9-n))
		}
		if i+1 < len(fields) && !sc.skip(intervalSep[f]) {
			return bad()
		}
		if total < 0 {
			return bad()
		}
	}
	if sc.s != "" {
		return bad()
	}
	if neg {
		total = -total
	}
	if fields[0] == "YEAR" || fields[0] == "MONTH" {
		return types.NewIntervalMonths(total), types.IntervalM.NonNull(), nil
	}
	return types.NewInterval(time.Duration(total)), types.Interval.NonNull(), nil
}

// normUnit upper-cases a qualifier, drops precisions and collapses spaces.
func normUnit(u string) string {
	var b strings.Builder
	depth := 0
	for _, c := range strings.ToUpper(u) {
		switch {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
