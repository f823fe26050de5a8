package types

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the type parameters accepted by ParseType, as in Flink.
const (
	// MaxDecimalPrecision is the largest precision of DECIMAL.
	MaxDecimalPrecision = 38
	// MaxTimePrecision is the largest fractional-second precision of TIME,
	// TIMESTAMP, TIMESTAMP_LTZ and INTERVAL DAY TO SECOND.
	MaxTimePrecision = 9
	// maxTypeDepth bounds the nesting of ARRAY, MAP and ROW so that hostile
	// input cannot exhaust the stack.
	maxTypeDepth = 100
)

// Default parameters of types declared without them, as in Flink.
const (
	defaultDecimalPrecision   = 10
	defaultTimestampPrecision = 6
	// defaultIntervalPrecision is the fractional-second precision of a
	// day-time interval declared without one. Flink's planner represents
	// every day-time interval with millisecond precision, so this is 3 (and
	// INTERVAL DAY TO SECOND equals the Interval variable).
	defaultIntervalPrecision = 3
)

// ParseError is the error ParseType returns for a malformed type string.
type ParseError struct {
	// Input is the whole type string.
	Input string
	// Pos is the byte offset in Input at which the problem was found.
	Pos int
	// Msg says what was expected, e.g. `expected ">", found ","`.
	Msg string
}

// Error implements error.
func (e *ParseError) Error() string {
	return fmt.Sprintf("invalid type %q at position %d: %s", e.Input, e.Pos, e.Msg)
}

// ParseType parses a Flink SQL type string such as "INT NOT NULL",
// "DECIMAL(10, 4)", "TIMESTAMP(3) WITH LOCAL TIME ZONE" or
// "ROW<`status` STRING, ts TIMESTAMP_LTZ(3)>". Keywords are
// case-insensitive; ROW field names keep their case and may be quoted with
// backticks (a backtick inside is written twice). ROW<...> and ROW(...) are
// both accepted, and so is Flink's postfix "INT ARRAY" for ARRAY<INT>.
//
// Parameters default as in Flink SQL: DECIMAL is DECIMAL(10, 0), VARCHAR is
// STRING and VARBINARY is BYTES (VARCHAR(2147483647), VARBINARY(2147483647)),
// CHAR and BINARY have length 1, TIME has precision 0, TIMESTAMP and
// TIMESTAMP_LTZ precision 6, and day-time intervals fractional precision 3.
// The same rules hold for DDL and for PTF type strings (Flink's Java
// DataTypes parser would make a bare VARCHAR VARCHAR(1); Eddy has one parser
// and follows the SQL rule).
// Every day-time interval (INTERVAL DAY, INTERVAL HOUR TO MINUTE, ...) is
// TypeIntervalDayTime and every year-month interval TypeIntervalYearMonth;
// leading-field precisions such as the 4 of INTERVAL YEAR(4) are checked
// and then dropped, and so are ROW field descriptions ('...').
//
// The error is a *ParseError giving the byte offset of the problem.
func ParseType(s string) (Type, error) {
	p := typeParser{input: s}
	p.advance()
	t, err := p.parseType(0)
	if err != nil {
		return Type{}, err
	}
	if p.tok.kind != tokEOF {
		return Type{}, p.unexpected("end of type")
	}
	return t, nil
}

// MustParseType is like ParseType but panics on error. It is meant for
// constant type strings in tests and package initialization.
func MustParseType(s string) Type {
	t, err := ParseType(s)
	if err != nil {
		panic(err)
	}
	return t
}

type tokKind uint8

const (
	tokEOF    tokKind = iota
	tokIdent          // keyword or unquoted identifier
	tokQuoted         // `quoted identifier`
	tokNumber         // unsigned decimal integer
	tokString         // 'string literal' (ROW field description)
	tokPunct          // one of < > ( ) ,
	tokBad            // a character that starts no token
)

type token struct {
	kind tokKind
	pos  int
	text string // identifier or literal text, unescaped
	num  int    // value of tokNumber; -1 if it overflows MaxLength
}

func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokQuoted:
		return "`" + strings.ReplaceAll(t.text, "`", "``") + "`"
	case tokString:
		return "string literal"
	}
	return fmt.Sprintf("%q", t.text)
}

// is reports whether the token is the keyword kw (upper case).
func (t token) is(kw string) bool { return t.kind == tokIdent && strings.EqualFold(t.text, kw) }

func (t token) isPunct(c byte) bool { return t.kind == tokPunct && t.text[0] == c }

// typeParser is a recursive-descent parser with one token of lookahead.
type typeParser struct {
	input string
	off   int   // scanning offset
	tok   token // current token
	err   *ParseError
}

func (p *typeParser) errorf(pos int, format string, args ...any) error {
	return &ParseError{Input: p.input, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// advance scans the next token into p.tok. A lexical error becomes a tokBad
// token (reported by whoever looks at it) or is recorded in p.err.
func (p *typeParser) advance() {
	s := p.input
	for p.off < len(s) {
		r, n := utf8.DecodeRuneInString(s[p.off:])
		if !unicode.IsSpace(r) {
			break
		}
		p.off += n
	}
	start := p.off
	if start >= len(s) {
		p.tok = token{kind: tokEOF, pos: start}
		return
	}
	c := s[start]
	switch {
	case c == '<' || c == '>' || c == '(' || c == ')' || c == ',':
		p.off++
		p.tok = token{kind: tokPunct, pos: start, text: s[start:p.off]}
	case c >= '0' && c <= '9':
		n := 0
		for p.off < len(s) && s[p.off] >= '0' && s[p.off] <= '9' {
			if n >= 0 {
				n = n*10 + int(s[p.off]-'0')
				if n > MaxLength {
					n = -1
				}
			}
			p.off++
		}
		p.tok = token{kind: tokNumber, pos: start, text: s[start:p.off], num: n}
	case c == '`' || c == '\'':
		p.scanQuoted(c)
	default:
		for p.off < len(s) {
			r, n := utf8.DecodeRuneInString(s[p.off:])
			if r != '_' && r != '$' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			p.off += n
		}
		if p.off == start {
			_, n := utf8.DecodeRuneInString(s[start:])
			p.off += n
			p.tok = token{kind: tokBad, pos: start, text: s[start:p.off]}
			return
		}
		p.tok = token{kind: tokIdent, pos: start, text: s[start:p.off]}
	}
}

// scanQuoted scans a `quoted identifier` or 'string literal'; the quote is
// escaped by doubling it.
func (p *typeParser) scanQuoted(q byte) {
	s, start := p.input, p.off
	var b strings.Builder
	i := start + 1
	for {
		j := strings.IndexByte(s[i:], q)
		if j < 0 {
			p.off = len(s)
			p.tok = token{kind: tokBad, pos: start, text: s[start:]}
			if p.err == nil {
				p.err = &ParseError{Input: s, Pos: start, Msg: "unterminated " + quoteName(q)}
			}
			return
		}
		b.WriteString(s[i : i+j])
		i += j + 1
		if i < len(s) && s[i] == q {
			b.WriteByte(q)
			i++
			continue
		}
		break
	}
	p.off = i
	kind := tokQuoted
	if q == '\'' {
		kind = tokString
	}
	p.tok = token{kind: kind, pos: start, text: b.String()}
}

func quoteName(q byte) string {
	if q == '`' {
		return "quoted identifier"
	}
	return "string literal"
}

// unexpected returns the error for the current token given what was expected.
func (p *typeParser) unexpected(expected string) error {
	if p.err != nil {
		return p.err
	}
	return p.errorf(p.tok.pos, "expected %s, found %s", expected, p.tok.describe())
}

func (p *typeParser) expectPunct(c byte) error {
	if !p.tok.isPunct(c) {
		return p.unexpected(fmt.Sprintf("%q", string(c)))
	}
	p.advance()
	return nil
}

func (p *typeParser) expectKeyword(kw string) error {
	if !p.tok.is(kw) {
		return p.unexpected(kw)
	}
	p.advance()
	return nil
}

// parseType parses a type with its nullability and postfix ARRAY.
func (p *typeParser) parseType(depth int) (Type, error) {
	if depth > maxTypeDepth {
		return Type{}, p.errorf(p.tok.pos, "type is nested more than %d levels deep", maxTypeDepth)
	}
	t, err := p.parseBase(depth)
	if err != nil {
		return Type{}, err
	}
	for {
		if t, err = p.parseNullability(t); err != nil {
			return Type{}, err
		}
		switch {
		case p.tok.is("ARRAY"): // Flink's postfix form: INT ARRAY
			if depth++; depth > maxTypeDepth {
				return Type{}, p.errorf(p.tok.pos, "type is nested more than %d levels deep", maxTypeDepth)
			}
			p.advance()
			t = ArrayOf(t)
			continue
		case p.tok.is("MULTISET"): // INT MULTISET
			if depth++; depth > maxTypeDepth {
				return Type{}, p.errorf(p.tok.pos, "type is nested more than %d levels deep", maxTypeDepth)
			}
			p.advance()
			t = MultisetOf(t)
			continue
		}
		return t, nil
	}
}

// parseNullability parses an optional NOT NULL or NULL after a type.
func (p *typeParser) parseNullability(t Type) (Type, error) {
	switch {
	case p.tok.is("NOT"):
		pos := p.tok.pos
		p.advance()
		if err := p.expectKeyword("NULL"); err != nil {
			return Type{}, err
		}
		if t.ID == TypeNull {
			return Type{}, p.errorf(pos, "type NULL cannot be NOT NULL")
		}
		t.NotNull = true
	case p.tok.is("NULL"):
		p.advance()
		t.NotNull = false
	}
	return t, nil
}

// simpleTypes are the types without parameters.
var simpleTypes = map[string]Type{
	"BOOLEAN":    Boolean,
	"TINYINT":    TinyInt,
	"SMALLINT":   SmallInt,
	"INT":        Int,
	"INTEGER":    Int,
	"BIGINT":     BigInt,
	"FLOAT":      Float,
	"STRING":     String,
	"BYTES":      Bytes,
	"DATE":       Date,
	"DESCRIPTOR": {ID: TypeDescriptor},
	"NULL":       NullType,
}

// lengthTypes are the types with a length parameter.
var lengthTypes = map[string]TypeID{"CHAR": TypeChar, "VARCHAR": TypeVarChar, "BINARY": TypeBinary, "VARBINARY": TypeVarBinary}

// defaultLength is the length of a length type declared without one, as in
// Flink SQL (FlinkTypeSystem): VARCHAR is STRING and VARBINARY is BYTES, so
// that a value is never cut silently; CHAR and BINARY are CHAR(1) and
// BINARY(1).
var defaultLength = map[string]int{"CHAR": 1, "VARCHAR": MaxLength, "BINARY": 1, "VARBINARY": MaxLength}

// intervalEnds lists the fields a day-time interval may end with, by its
// first field.
var intervalEnds = map[string][]string{"DAY": {"HOUR", "MINUTE", "SECOND"}, "HOUR": {"MINUTE", "SECOND"}, "MINUTE": {"SECOND"}}

// parseBase parses a type without nullability.
func (p *typeParser) parseBase(depth int) (Type, error) {
	if p.tok.kind != tokIdent {
		return Type{}, p.unexpected("a type")
	}
	kw := strings.ToUpper(p.tok.text)
	pos := p.tok.pos
	if t, ok := simpleTypes[kw]; ok {
		p.advance()
		return t, nil
	}
	switch kw {
	case "DOUBLE":
		p.advance()
		if p.tok.is("PRECISION") {
			p.advance()
		}
		return Double, nil
	case "DECIMAL", "DEC", "NUMERIC":
		p.advance()
		return p.parseDecimal()
	case "CHAR", "VARCHAR", "BINARY", "VARBINARY":
		p.advance()
		n, err := p.parseOptionalParam(defaultLength[kw], 1, MaxLength, "length")
		if err != nil {
			return Type{}, err
		}
		return Type{ID: lengthTypes[kw], Length: n}, nil
	case "TIME":
		p.advance()
		return p.parseTime()
	case "TIMESTAMP":
		p.advance()
		return p.parseTimestamp()
	case "TIMESTAMP_LTZ":
		p.advance()
		prec, err := p.parseOptionalParam(defaultTimestampPrecision, 0, MaxTimePrecision, "precision")
		return TimestampLTZ(prec), err
	case "INTERVAL":
		p.advance()
		return p.parseInterval()
	case "ARRAY":
		p.advance()
		return p.parseArray(depth)
	case "MULTISET":
		p.advance()
		elem, err := p.parseArray(depth)
		if err != nil {
			return Type{}, err
		}
		return MultisetOf(*elem.Elem), nil
	case "MAP":
		p.advance()
		return p.parseMap(depth)
	case "ROW":
		p.advance()
		return p.parseRow(depth)
	}
	return Type{}, p.errorf(pos, "expected a type, found %s", p.tok.describe())
}

// parseOptionalParam parses an optional "(n)" with lo <= n <= hi.
func (p *typeParser) parseOptionalParam(def, lo, hi int, what string) (int, error) {
	if !p.tok.isPunct('(') {
		return def, nil
	}
	p.advance()
	n, err := p.parseNumber(lo, hi, what)
	if err != nil {
		return 0, err
	}
	return n, p.expectPunct(')')
}

// parseNumber parses an integer in [lo, hi].
func (p *typeParser) parseNumber(lo, hi int, what string) (int, error) {
	if p.tok.kind != tokNumber {
		return 0, p.unexpected(what)
	}
	n := p.tok.num
	if n < lo || n > hi {
		return 0, p.errorf(p.tok.pos, "%s must be between %d and %d, found %s", what, lo, hi, p.tok.text)
	}
	p.advance()
	return n, nil
}

func (p *typeParser) parseDecimal() (Type, error) {
	prec, scale := defaultDecimalPrecision, 0
	if p.tok.isPunct('(') {
		p.advance()
		var err error
		if prec, err = p.parseNumber(1, MaxDecimalPrecision, "precision"); err != nil {
			return Type{}, err
		}
		if p.tok.isPunct(',') {
			p.advance()
			if scale, err = p.parseNumber(0, prec, "scale"); err != nil {
				return Type{}, err
			}
		}
		if err := p.expectPunct(')'); err != nil {
			return Type{}, err
		}
	}
	return Decimal(prec, scale), nil
}

func (p *typeParser) parseTime() (Type, error) {
	prec, err := p.parseOptionalParam(0, 0, MaxTimePrecision, "precision")
	if err != nil {
		return Type{}, err
	}
	switch {
	case p.tok.is("WITHOUT"):
		p.advance()
		if err := p.expectTimeZone(); err != nil {
			return Type{}, err
		}
	case p.tok.is("WITH"):
		return Type{}, p.errorf(p.tok.pos, "TIME WITH TIME ZONE is not supported")
	}
	return Time(prec), nil
}

func (p *typeParser) parseTimestamp() (Type, error) {
	prec, err := p.parseOptionalParam(defaultTimestampPrecision, 0, MaxTimePrecision, "precision")
	if err != nil {
		return Type{}, err
	}
	switch {
	case p.tok.is("WITHOUT"):
		p.advance()
		if err := p.expectTimeZone(); err != nil {
			return Type{}, err
		}
	case p.tok.is("WITH"):
		p.advance()
		if !p.tok.is("LOCAL") {
			if p.tok.is("TIME") {
				return Type{}, p.errorf(p.tok.pos, "TIMESTAMP WITH TIME ZONE is not supported; use TIMESTAMP_LTZ")
			}
			return Type{}, p.unexpected("LOCAL")
		}
		p.advance()
		if err := p.expectTimeZone(); err != nil {
			return Type{}, err
		}
		return TimestampLTZ(prec), nil
	}
	return Timestamp(prec), nil
}

func (p *typeParser) expectTimeZone() error {
	if err := p.expectKeyword("TIME"); err != nil {
		return err
	}
	return p.expectKeyword("ZONE")
}

// parseInterval parses the qualifier after INTERVAL, in the forms Flink
// documents: YEAR[(p)] [TO MONTH], MONTH, DAY[(p)] [TO HOUR | TO MINUTE |
// TO SECOND[(f)]], HOUR [TO MINUTE | TO SECOND[(f)]], MINUTE [TO
// SECOND[(f)]] and SECOND[(f)].
func (p *typeParser) parseInterval() (Type, error) {
	unit := strings.ToUpper(p.tok.text)
	if p.tok.kind != tokIdent {
		unit = ""
	}
	switch unit {
	case "YEAR":
		p.advance()
		if _, err := p.parseOptionalParam(2, 1, 4, "year precision"); err != nil {
			return Type{}, err
		}
		if p.tok.is("TO") {
			p.advance()
			if err := p.expectKeyword("MONTH"); err != nil {
				return Type{}, err
			}
		}
		return IntervalM, nil
	case "MONTH":
		p.advance()
		return IntervalM, nil
	case "DAY", "HOUR", "MINUTE":
		p.advance()
		if unit == "DAY" {
			if _, err := p.parseOptionalParam(2, 1, 6, "day precision"); err != nil {
				return Type{}, err
			}
		}
		if !p.tok.is("TO") {
			return Interval, nil
		}
		p.advance()
		ends := intervalEnds[unit]
		for _, end := range ends {
			if p.tok.is(end) {
				p.advance()
				if end == "SECOND" {
					return p.parseIntervalSecond()
				}
				return Interval, nil
			}
		}
		return Type{}, p.unexpected(strings.Join(ends, " or "))
	case "SECOND":
		p.advance()
		return p.parseIntervalSecond()
	}
	return Type{}, p.unexpected("YEAR, MONTH, DAY, HOUR, MINUTE or SECOND")
}

func (p *typeParser) parseIntervalSecond() (Type, error) {
	prec, err := p.parseOptionalParam(defaultIntervalPrecision, 0, MaxTimePrecision, "fractional precision")
	return Type{ID: TypeIntervalDayTime, Precision: prec}, err
}

func (p *typeParser) parseArray(depth int) (Type, error) {
	if err := p.expectPunct('<'); err != nil {
		return Type{}, err
	}
	elem, err := p.parseType(depth + 1)
	if err != nil {
		return Type{}, err
	}
	return ArrayOf(elem), p.expectPunct('>')
}

func (p *typeParser) parseMap(depth int) (Type, error) {
	if err := p.expectPunct('<'); err != nil {
		return Type{}, err
	}
	k, err := p.parseType(depth + 1)
	if err != nil {
		return Type{}, err
	}
	if err := p.expectPunct(','); err != nil {
		return Type{}, err
	}
	v, err := p.parseType(depth + 1)
	if err != nil {
		return Type{}, err
	}
	return MapOf(k, v), p.expectPunct('>')
}

// parseRow parses ROW<name type, ...> or ROW(name type, ...).
func (p *typeParser) parseRow(depth int) (Type, error) {
	var closing byte
	switch {
	case p.tok.isPunct('<'):
		closing = '>'
	case p.tok.isPunct('('):
		closing = ')'
	default:
		return Type{}, p.unexpected(`"<" or "("`)
	}
	p.advance()
	fields := []Field{}
	seen := map[string]bool{}
	for !p.tok.isPunct(closing) {
		if len(fields) > 0 {
			if err := p.expectPunct(','); err != nil {
				return Type{}, err
			}
		}
		if p.tok.kind != tokIdent && p.tok.kind != tokQuoted {
			return Type{}, p.unexpected("a field name")
		}
		name, pos := p.tok.text, p.tok.pos
		if seen[name] {
			return Type{}, p.errorf(pos, "duplicate field name %q", name)
		}
		seen[name] = true
		p.advance()
		t, err := p.parseType(depth + 1)
		if err != nil {
			return Type{}, err
		}
		if p.tok.kind == tokString { // field description, dropped
			p.advance()
		}
		fields = append(fields, Field{Name: name, Type: t})
	}
	p.advance()
	return RowOf(fields...), nil
}
