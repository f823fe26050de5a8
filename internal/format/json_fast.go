package format

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/eddy-sql/eddy/types"
)

// The single-pass JSON decoder.
//
// decodeFast scans a top-level object once and converts the values of the
// columns straight from the payload bytes, with the results of
// decodeGeneric (encoding/json into map[string]any, then convert):
//
//   - The scanner accepts exactly what encoding/json's scanner accepts,
//     nesting depth limit included. Anything else (another top-level
//     value, malformed or truncated JSON, trailing data) makes decodeFast
//     give up, and Decode hands the payload to decodeGeneric, which
//     reports the error (or the record to skip) as it always did.
//   - Strings decode as encoding/json's unquote does: escapes, surrogate
//     pairs, and U+FFFD for lone surrogates and invalid UTF-8.
//   - Keys match column names exactly; with duplicate keys the last one
//     wins, as with the map. A conversion error is therefore only
//     recorded, and reported (or, with json.ignore-parse-errors, turned
//     into NULL) after the scan, in column order together with missing
//     fields, as decodeRow does.
//   - Scalars of the common types convert directly; everything else
//     (nested values, unusual types, every conversion error) goes through
//     convert with the value encoding/json would have produced, so the
//     results and error texts are the same.
//
// FuzzJSONFastVsSlow checks the equivalence.

// jsonMaxDepth is encoding/json's nesting limit (maxNestingDepth).
const jsonMaxDepth = 10000

func (c *jsonCodec) buildIndex() {
	fields := c.schema.Fields
	c.index = make(map[string]int, len(fields))
	c.first = make([]int, len(fields))
	c.next = make([]int, len(fields))
	last := make(map[string]int, len(fields))
	for i, f := range fields {
		c.next[i] = -1
		if j, ok := last[f.Name]; ok {
			c.next[j] = i
			c.first[i] = c.index[f.Name]
		} else {
			c.index[f.Name] = i
			c.first[i] = i
		}
		last[f.Name] = i
	}
}

// lookup returns the first column named key, or -1. guess is the column
// the key is likely to name (the one after the previous key's).
func (c *jsonCodec) lookup(key []byte, guess int) int {
	if guess < len(c.first) && c.schema.Fields[guess].Name == string(key) {
		return c.first[guess]
	}
	if i, ok := c.index[string(key)]; ok {
		return i
	}
	return -1
}

type jsonScanner struct {
	b   []byte
	i   int
	buf []byte // scratch space for unquoted strings
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *jsonScanner) skipSpace() {
	for s.i < len(s.b) && isJSONSpace(s.b[s.i]) {
		s.i++
	}
}

// peek returns the byte at s.i, or 0 at the end.
func (s *jsonScanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanString scans the string starting at the quote at s.i. It returns the
// bytes between the quotes; simple means they are the decoded string (no
// escapes, valid UTF-8).
func (s *jsonScanner) scanString() (raw []byte, simple, ok bool) {
	b := s.b
	i := s.i + 1
	start := i
	simple = true
	high := false
	for {
		for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' && b[i] < utf8.RuneSelf {
			i++
		}
		if i >= len(b) {
			return nil, false, false
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			raw = b[start:i]
			if high && !utf8.Valid(raw) {
				simple = false
			}
			return raw, simple, true
		case c == '\\':
			simple = false
			if i+1 >= len(b) {
				return nil, false, false
			}
			switch b[i+1] {
			case 'b', 'f', 'n', 'r', 't', '\\', '/', '"':
				i += 2
			case 'u':
				if i+5 >= len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return nil, false, false
				}
				i += 6
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		default: // >= 0x80
			high = true
			i++
		}
	}
}

// str scans a string and returns its decoded bytes: a slice of the payload
// or of s.buf, valid until the next call.
func (s *jsonScanner) str() ([]byte, bool) {
	raw, simple, ok := s.scanString()
	if !ok || simple {
		return raw, ok
	}
	s.buf = unquoteJSON(s.buf[:0], raw)
	return s.buf, true
}

// getu4 decodes the \uXXXX escape at the start of b, or returns -1.
func getu4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// unquoteJSON appends the decoded string of the bytes between the quotes
// of a string scanString accepted, as encoding/json decodes it.
func unquoteJSON(dst, s []byte) []byte {
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			switch e := s[r+1]; e {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				rr := getu4(s[r:])
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						dst = utf8.AppendRune(dst, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				dst = utf8.AppendRune(dst, rr)
				continue
			default: // " \ /
				dst = append(dst, e)
			}
			r += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			dst = utf8.AppendRune(dst, rr)
		}
	}
	return dst
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number scans a number and returns its text.
func (s *jsonScanner) number() ([]byte, bool) {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return nil, false
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i++
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return nil, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return nil, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	num := b[s.i:i]
	s.i = i
	return num, true
}

// literal scans the literal word (true, false, null).
func (s *jsonScanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// skip scans and validates a value inside a container at depth.
func (s *jsonScanner) skip(depth int) bool {
	switch s.peek() {
	case '{':
		if depth >= jsonMaxDepth {
			return false
		}
		s.i++
		s.skipSpace()
		if s.peek() == '}' {
			s.i++
			return true
		}
		for {
			if s.peek() != '"' {
				return false
			}
			if _, _, ok := s.scanString(); !ok {
				return false
			}
			s.skipSpace()
			if s.peek() != ':' {
				return false
			}
			s.i++
			s.skipSpace()
			if !s.skip(depth + 1) {
				return false
			}
			s.skipSpace()
			switch s.peek() {
			case ',':
				s.i++
				s.skipSpace()
			case '}':
				s.i++
				return true
			default:
				return false
			}
		}
	case '[':
		if depth >= jsonMaxDepth {
			return false
		}
		s.i++
		s.skipSpace()
		if s.peek() == ']' {
			s.i++
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			s.skipSpace()
			switch s.peek() {
			case ',':
				s.i++
				s.skipSpace()
			case ']':
				s.i++
				return true
			default:
				return false
			}
		}
	case '"':
		_, _, ok := s.scanString()
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	_, ok := s.number()
	return ok
}

// value scans a value inside a container at depth and returns it as
// encoding/json decodes it into an interface with UseNumber.
func (s *jsonScanner) value(depth int) (any, bool) {
	switch s.peek() {
	case '{':
		if depth >= jsonMaxDepth {
			return nil, false
		}
		s.i++
		m := make(map[string]any)
		s.skipSpace()
		if s.peek() == '}' {
			s.i++
			return m, true
		}
		for {
			if s.peek() != '"' {
				return nil, false
			}
			k, ok := s.str()
			if !ok {
				return nil, false
			}
			key := string(k)
			s.skipSpace()
			if s.peek() != ':' {
				return nil, false
			}
			s.i++
			s.skipSpace()
			v, ok := s.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[key] = v
			s.skipSpace()
			switch s.peek() {
			case ',':
				s.i++
				s.skipSpace()
			case '}':
				s.i++
				return m, true
			default:
				return nil, false
			}
		}
	case '[':
		if depth >= jsonMaxDepth {
			return nil, false
		}
		s.i++
		a := make([]any, 0)
		s.skipSpace()
		if s.peek() == ']' {
			s.i++
			return a, true
		}
		for {
			v, ok := s.value(depth + 1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
			s.skipSpace()
			switch s.peek() {
			case ',':
				s.i++
				s.skipSpace()
			case ']':
				s.i++
				return a, true
			default:
				return nil, false
			}
		}
	case '"':
		b, ok := s.str()
		return string(b), ok
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	case 'n':
		return nil, s.literal("null")
	}
	n, ok := s.number()
	return json.Number(n), ok
}

// decodeFast decodes a payload that is a JSON object. ok is false when it
// is not one, or is not valid JSON, or has data after the object; the
// generic decoder then tells what is wrong.
func (c *jsonCodec) decodeFast(b []byte, dst []types.Value) (vals []types.Value, ok bool, err error) {
	s := jsonScanner{b: b}
	s.skipSpace()
	if s.peek() != '{' {
		return nil, false, nil
	}
	s.i++
	fields := c.schema.Fields
	n := len(fields)
	base := len(dst)
	if cap(dst)-base < n {
		grown := make([]types.Value, base, base+n)
		copy(grown, dst)
		dst = grown
	}
	dst = dst[:base+n]
	row := dst[base:]
	clear(row)
	var seenBuf [64]bool
	var seen []bool
	if n <= len(seenBuf) {
		seen = seenBuf[:n]
	} else {
		seen = make([]bool, n)
	}
	var errs []error // conversion errors by column, allocated on the first one

	s.skipSpace()
	if s.peek() == '}' {
		s.i++
	} else {
		guess := 0
		for {
			if s.peek() != '"' {
				return nil, false, nil
			}
			key, ok := s.str()
			if !ok {
				return nil, false, nil
			}
			col := c.lookup(key, guess)
			s.skipSpace()
			if s.peek() != ':' {
				return nil, false, nil
			}
			s.i++
			s.skipSpace()
			if col < 0 {
				if !s.skip(1) {
					return nil, false, nil
				}
			} else {
				guess = col + 1
				// Columns with the same name each convert the value.
				start := s.i
				for i := col; i >= 0; i = c.next[i] {
					s.i = start
					v, ok, cerr := c.readValue(&s, &fields[i].Type, fields[i].Name)
					if !ok {
						return nil, false, nil
					}
					row[i] = v
					seen[i] = true
					if cerr != nil {
						if errs == nil {
							errs = make([]error, n)
						}
						errs[i] = cerr
					} else if errs != nil {
						errs[i] = nil
					}
				}
			}
			s.skipSpace()
			switch s.peek() {
			case ',':
				s.i++
				s.skipSpace()
				continue
			case '}':
				s.i++
			default:
				return nil, false, nil
			}
			break
		}
	}
	s.skipSpace()
	if s.i != len(b) {
		return nil, false, nil
	}
	for i := range row {
		if !seen[i] {
			if c.failOnMissing {
				return nil, true, missingFieldErr(fields[i].Name)
			}
			continue
		}
		if errs != nil && errs[i] != nil {
			if !c.ignoreErrors {
				return nil, true, errs[i]
			}
			row[i] = types.Null
		}
	}
	return dst, true, nil
}

// readValue scans the value of a column and converts it. ok is false for
// malformed JSON; err is a conversion error.
func (c *jsonCodec) readValue(s *jsonScanner, t *types.Type, path string) (v types.Value, ok bool, err error) {
	switch s.peek() {
	case '"':
		raw, ok := s.str()
		if !ok {
			return types.Null, false, nil
		}
		v, err = c.fromString(raw, t, path)
		return v, true, err
	case 't', 'f':
		word := "true"
		if s.peek() == 'f' {
			word = "false"
		}
		if !s.literal(word) {
			return types.Null, false, nil
		}
		v, err = c.fromBool(word == "true", t, path)
		return v, true, err
	case 'n':
		return types.Null, s.literal("null"), nil
	case '{', '[':
		x, ok := s.value(1)
		if !ok {
			return types.Null, false, nil
		}
		v, err = c.convert(x, *t, path)
		return v, true, err
	}
	num, ok := s.number()
	if !ok {
		return types.Null, false, nil
	}
	v, err = c.fromNumber(num, t, path)
	return v, true, err
}

// transient returns b as a string without copying. It is only passed to
// parsers whose successful results do not keep their input (strconv,
// types.Parse*); on failure, convert gets a copy to report the error.
func transient(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func intBitsOf(id types.TypeID) int {
	switch id {
	case types.TypeTinyInt:
		return 8
	case types.TypeSmallInt:
		return 16
	case types.TypeInt, types.TypeIntervalYearMonth:
		return 32
	}
	return 64
}

func intValue(id types.TypeID, n int64) types.Value {
	if id == types.TypeIntervalYearMonth {
		return types.NewIntervalMonths(n)
	}
	return types.NewInt(n)
}

func floatBitsOf(id types.TypeID) int {
	if id == types.TypeFloat {
		return 32
	}
	return 64
}

// fromNumber converts a number, as convert converts a json.Number.
func (c *jsonCodec) fromNumber(num []byte, t *types.Type, path string) (types.Value, error) {
	switch t.ID {
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt, types.TypeIntervalYearMonth:
		if n, err := strconv.ParseInt(transient(num), 10, intBitsOf(t.ID)); err == nil {
			return intValue(t.ID, n), nil
		}
	case types.TypeFloat, types.TypeDouble:
		if f, err := strconv.ParseFloat(transient(num), floatBitsOf(t.ID)); err == nil || errors.Is(err, strconv.ErrRange) {
			return types.NewFloat(f), nil
		}
	case types.TypeChar, types.TypeVarChar:
		return types.NewString(string(num)), nil
	}
	return c.convert(json.Number(num), *t, path)
}

// fromString converts a decoded string, as convert converts a string.
func (c *jsonCodec) fromString(b []byte, t *types.Type, path string) (types.Value, error) {
	switch t.ID {
	case types.TypeChar, types.TypeVarChar:
		return types.NewString(string(b)), nil
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt, types.TypeIntervalYearMonth:
		if n, err := strconv.ParseInt(strings.TrimSpace(transient(b)), 10, intBitsOf(t.ID)); err == nil {
			return intValue(t.ID, n), nil
		}
	case types.TypeFloat, types.TypeDouble:
		if f, err := strconv.ParseFloat(strings.TrimSpace(transient(b)), floatBitsOf(t.ID)); err == nil || errors.Is(err, strconv.ErrRange) {
			return types.NewFloat(f), nil
		}
	case types.TypeDate:
		if v, err := types.ParseDate(transient(b)); err == nil {
			return v, nil
		}
	case types.TypeTime:
		if v, err := types.ParseTime(transient(b)); err == nil {
			return types.NewTime(truncNanos(v.Int(), t.Precision)), nil
		}
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		s := transient(b)
		if t.ID == types.TypeTimestampLTZ {
			s = strings.TrimSuffix(s, "Z")
		}
		if v, err := types.ParseTimestamp(s); err == nil {
			return types.NewTimestamp(truncNanos(v.Int(), t.Precision)), nil
		}
	}
	return c.convert(string(b), *t, path)
}

// fromBool converts true or false, as convert converts a bool.
func (c *jsonCodec) fromBool(b bool, t *types.Type, path string) (types.Value, error) {
	switch t.ID {
	case types.TypeBoolean:
		return types.NewBool(b), nil
	case types.TypeChar, types.TypeVarChar:
		if b {
			return types.NewString("true"), nil
		}
		return types.NewString("false"), nil
	}
	return c.convert(b, *t, path)
}
