package format

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/eddy-sql/eddy/types"
)

// csvCodec is Flink's csv format: one record per payload (a line of a
// file), fields in column order, no header.
type csvCodec struct {
	schema       *types.Schema
	delim        byte
	quote        byte // 0: quoting disabled
	escape       byte // 0: none
	arrayDelim   string
	nullLiteral  string
	hasNull      bool
	comments     bool
	ignoreErrors bool
	// conv converts field text like the json format converts strings.
	conv *jsonCodec
}

// csvChar reads a one-character option ('\t' and the other backslash
// escapes Flink accepts stand for their character).
func csvChar(o map[string]string, key string, def byte) (byte, error) {
	v, ok := o[key]
	if !ok {
		return def, nil
	}
	switch v {
	case `\t`:
		return '\t', nil
	case `\n`:
		return '\n', nil
	case `\r`:
		return '\r', nil
	case `\\`:
		return '\\', nil
	case `\'`:
		return '\'', nil
	}
	if len(v) != 1 || v[0] >= utf8.RuneSelf {
		return 0, optErr("option 'csv.%s' must be a single ASCII character, not %q", key, v)
	}
	return v[0], nil
}

func newCSV(s *types.Schema, o map[string]string) (Codec, error) {
	c := &csvCodec{schema: s, arrayDelim: ";"}
	var err error
	if c.delim, err = csvChar(o, "field-delimiter", ','); err != nil {
		return nil, err
	}
	if c.quote, err = csvChar(o, "quote-character", '"'); err != nil {
		return nil, err
	}
	disable, err := boolOpt(o, "disable-quote-character", false)
	if err != nil {
		return nil, err
	}
	if disable {
		if _, set := o["quote-character"]; set {
			return nil, optErr("options 'csv.disable-quote-character' and 'csv.quote-character' cannot both be set")
		}
		c.quote = 0
	}
	if c.escape, err = csvChar(o, "escape-character", 0); err != nil {
		return nil, err
	}
	if v, ok := o["array-element-delimiter"]; ok {
		if v == "" {
			return nil, optErr("option 'csv.array-element-delimiter' must not be empty")
		}
		c.arrayDelim = v
	}
	c.nullLiteral, c.hasNull = o["null-literal"]
	if c.comments, err = boolOpt(o, "allow-comments", false); err != nil {
		return nil, err
	}
	if c.ignoreErrors, err = boolOpt(o, "ignore-parse-errors", false); err != nil {
		return nil, err
	}
	if c.delim == c.quote || c.delim == '\n' || c.delim == '\r' {
		return nil, optErr("option 'csv.field-delimiter' %q cannot be the quote character or a line break", string(c.delim))
	}
	for _, f := range s.Fields {
		if err := csvSupported(f.Name, f.Type, false); err != nil {
			return nil, err
		}
	}
	c.conv = &jsonCodec{schema: s, ignoreErrors: c.ignoreErrors}
	return c, nil
}

// csvSupported checks a column type: as in Flink, no MAP, and ARRAY and
// ROW only of simple types (their elements are joined by the array
// element delimiter).
func csvSupported(name string, t types.Type, nested bool) error {
	switch t.ID {
	case types.TypeMap, types.TypeNull, types.TypeDescriptor:
		return optErr("format 'csv' does not support column %q of type %s", name, t)
	case types.TypeArray, types.TypeRow:
		if nested {
			return optErr("format 'csv' supports only simple types inside ARRAY and ROW; column %q has %s", name, t)
		}
		if t.ID == types.TypeArray {
			return csvSupported(name, *t.Elem, true)
		}
		for _, f := range t.Fields {
			if err := csvSupported(name, f.Type, true); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *csvCodec) err(col string, format string, args ...any) error {
	return &Error{Format: "csv", Column: col, Offset: -1, Reason: fmt.Sprintf(format, args...)}
}

// ---- encoding ----

// Encode writes the fields in column order, separated by the delimiter;
// a NULL is an empty field (or the null literal), a string is quoted when
// it holds the delimiter, the quote, a line break, or would otherwise read
// back as NULL.
func (c *csvCodec) Encode(dst []byte, vals []types.Value) ([]byte, error) {
	if err := checkArity("csv", c.schema, vals); err != nil {
		return dst, err
	}
	var scratch [64]byte
	field := scratch[:0]
	for i, v := range vals {
		if i > 0 {
			dst = append(dst, c.delim)
		}
		f := c.schema.Fields[i]
		if v.IsNull() {
			if c.hasNull {
				dst = c.appendQuoted(dst, []byte(c.nullLiteral), false)
			}
			continue
		}
		var err error
		field, err = c.appendField(field[:0], v, f.Type, f.Name)
		if err != nil {
			return dst, err
		}
		// An empty or null-literal text of a value is quoted: unquoted, it
		// would read back as NULL.
		dst = c.appendQuoted(dst, field, len(field) == 0 || c.hasNull && string(field) == c.nullLiteral)
	}
	return dst, nil
}

// appendQuoted appends a field, quoted when needed (or forced).
func (c *csvCodec) appendQuoted(dst []byte, s []byte, force bool) []byte {
	need := force
	for i := 0; i < len(s) && !need; i++ {
		b := s[i]
		need = b == c.delim || b == '\n' || b == '\r' || (c.quote != 0 && b == c.quote) || (c.escape != 0 && b == c.escape) ||
			(c.comments && i == 0 && b == '#')
	}
	if !need || c.quote == 0 {
		if c.escape == 0 || !need {
			return append(dst, s...)
		}
		// Without quoting, special characters are escaped.
		for i := 0; i < len(s); i++ {
			if b := s[i]; b == c.delim || b == c.escape || b == '\n' || b == '\r' {
				dst = append(dst, c.escape)
			}
			dst = append(dst, s[i])
		}
		return dst
	}
	dst = append(dst, c.quote)
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b == c.quote:
			if c.escape != 0 {
				dst = append(dst, c.escape, b)
			} else {
				dst = append(dst, b, b)
			}
		case c.escape != 0 && b == c.escape:
			dst = append(dst, b, b)
		default:
			dst = append(dst, b)
		}
	}
	return append(dst, c.quote)
}

// appendField appends the text of a non-NULL value.
func (c *csvCodec) appendField(dst []byte, v types.Value, t types.Type, col string) ([]byte, error) {
	if v.Kind() != wantKind(t) {
		return dst, c.err(col, "cannot encode a %s value as %s", v.InferType(), t)
	}
	switch t.ID {
	case types.TypeBoolean:
		return strconv.AppendBool(dst, v.Bool()), nil
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt, types.TypeIntervalYearMonth:
		return strconv.AppendInt(dst, v.Int(), 10), nil
	case types.TypeIntervalDayTime:
		return strconv.AppendInt(dst, floorDiv(v.Int(), nanosPerMilli), 10), nil
	case types.TypeFloat, types.TypeDouble:
		// Java's Float/Double.toString, as Jackson writes them (NaN and
		// Infinity included).
		return types.AppendFormat(dst, v, t), nil
	case types.TypeDecimal:
		d := v.Decimal()
		if d == nil {
			return dst, c.err(col, "cannot encode a non-finite DECIMAL")
		}
		r, err := types.RoundDecimal(d, t.Precision, t.Scale)
		if err != nil {
			return dst, c.err(col, "%v", err)
		}
		return append(dst, r.Text('f')...), nil
	case types.TypeChar, types.TypeVarChar:
		return append(dst, v.Str()...), nil
	case types.TypeBinary, types.TypeVarBinary:
		return base64.StdEncoding.AppendEncode(dst, []byte(v.Str())), nil
	case types.TypeDate:
		return appendDate(dst, v.Int()), nil
	case types.TypeTime:
		return appendTimeOfDay(dst, v.Int(), t.Precision), nil
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		n := v.Int()
		dst = appendDate(dst, floorDiv(n, nanosPerDay))
		dst = append(dst, ' ')
		dst = appendTimeOfDay(dst, n-floorDiv(n, nanosPerDay)*nanosPerDay, t.Precision)
		if t.ID == types.TypeTimestampLTZ {
			dst = append(dst, 'Z')
		}
		return dst, nil
	case types.TypeArray, types.TypeRow:
		elems, ets := v.Array(), []types.Type(nil)
		if t.ID == types.TypeRow {
			elems = v.Fields()
			for _, f := range t.Fields {
				ets = append(ets, f.Type)
			}
		}
		for i, e := range elems {
			if i > 0 {
				dst = append(dst, c.arrayDelim...)
			}
			et := types.Type{}
			if t.ID == types.TypeArray {
				et = *t.Elem
			} else if i < len(ets) {
				et = ets[i]
			}
			if e.IsNull() {
				continue
			}
			var err error
			if dst, err = c.appendField(dst, e, et, col); err != nil {
				return dst, err
			}
		}
		return dst, nil
	}
	return dst, c.err(col, "type %s is not supported", t)
}

// ---- decoding ----

// Decode reads one record. A blank record (or a comment with
// 'csv.allow-comments') decodes to nil: skip it.
func (c *csvCodec) Decode(b []byte, dst []types.Value) ([]types.Value, error) {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	if len(bytes.TrimSpace(b)) == 0 || c.comments && b[0] == '#' {
		return nil, nil
	}
	n := c.schema.Len()
	base := len(dst)
	var buf []byte
	i, col := 0, 0
	for {
		var field []byte
		var quoted bool
		var err error
		field, quoted, i, err = c.nextField(b, i, buf[:0])
		if err != nil {
			if c.ignoreErrors {
				return nil, nil
			}
			return nil, err
		}
		if quoted && len(field) > 0 && cap(buf) < cap(field) {
			buf = field // reuse the unquoting buffer
		}
		if col < n {
			f := c.schema.Fields[col]
			// The field's text is only read: strings are copied by convert.
			v, err := c.convert(transient(field), quoted, f.Type, f.Name)
			if err != nil {
				if !c.ignoreErrors {
					return nil, err
				}
				v = types.Null
			}
			dst = append(dst, v)
		}
		col++
		if i > len(b) {
			break
		}
	}
	if col != n && !c.ignoreErrors {
		return nil, &Error{Format: "csv", Offset: -1, Reason: fmt.Sprintf("Row length mismatch. %d fields expected but was %d.", n, col)}
	}
	for len(dst)-base < n {
		dst = append(dst, types.Null)
	}
	return dst, nil
}

// nextField reads the field starting at b[i]: its text (a part of b, or
// unquoted into buf), whether it was quoted (a quoted empty string is not
// NULL), and where the next field starts (past len(b) after the last).
func (c *csvCodec) nextField(b []byte, i int, buf []byte) ([]byte, bool, int, error) {
	if c.quote != 0 && i < len(b) && b[i] == c.quote {
		open := i
		i++
		start, plain := i, true
		for {
			if i >= len(b) {
				return nil, true, 0, &Error{Format: "csv", Offset: open, Reason: "a quoted field is not closed"}
			}
			ch := b[i]
			switch {
			case c.escape != 0 && ch == c.escape && i+1 < len(b):
				if plain {
					buf, plain = append(buf, b[start:i]...), false
				}
				buf = append(buf, b[i+1])
				i += 2
				continue
			case ch == c.quote && i+1 < len(b) && b[i+1] == c.quote:
				if plain {
					buf, plain = append(buf, b[start:i]...), false
				}
				buf = append(buf, ch)
				i += 2
				continue
			case ch == c.quote:
				field := b[start:i]
				if !plain {
					field = buf
				}
				i++
				if i < len(b) && b[i] != c.delim {
					return nil, true, 0, &Error{Format: "csv", Offset: i, Reason: fmt.Sprintf("unexpected %q after a quoted field", b[i])}
				}
				return field, true, i + 1, nil
			}
			if !plain {
				buf = append(buf, ch)
			}
			i++
		}
	}
	start, plain := i, true
	for i < len(b) && b[i] != c.delim {
		if c.escape != 0 && b[i] == c.escape && i+1 < len(b) {
			if plain {
				buf, plain = append(buf, b[start:i]...), false
			}
			i++
		}
		if !plain {
			buf = append(buf, b[i])
		}
		i++
	}
	if plain {
		return b[start:i], false, i + 1, nil
	}
	return buf, false, i + 1, nil
}

// isNull reports whether a field stands for NULL: the null literal, or an
// empty unquoted field of a column that is not a string (a string column
// reads it as the empty string, as Flink does).
func (c *csvCodec) isNull(s string, quoted bool, t types.Type) bool {
	if c.hasNull && s == c.nullLiteral && !quoted {
		return true
	}
	if t.ID == types.TypeChar || t.ID == types.TypeVarChar {
		return false
	}
	return !quoted && strings.TrimSpace(s) == ""
}

func (c *csvCodec) convert(s string, quoted bool, t types.Type, col string) (types.Value, error) {
	if c.isNull(s, quoted, t) {
		return types.Null, nil
	}
	switch t.ID {
	case types.TypeArray, types.TypeRow:
		parts := strings.Split(strings.Clone(s), c.arrayDelim)
		if t.ID == types.TypeRow {
			if len(parts) != len(t.Fields) {
				return types.Null, c.err(col, "ROW of %d fields has %d values", len(t.Fields), len(parts))
			}
		}
		out := make([]types.Value, len(parts))
		for i, p := range parts {
			et := types.Type{}
			if t.ID == types.TypeArray {
				et = *t.Elem
			} else {
				et = t.Fields[i].Type
			}
			v, err := c.convert(p, false, et, col)
			if err != nil {
				return types.Null, err
			}
			out[i] = v
		}
		if t.ID == types.TypeRow {
			return types.NewRow(out), nil
		}
		return types.NewArray(out), nil
	case types.TypeChar, types.TypeVarChar:
		return types.NewString(strings.Clone(s)), nil
	case types.TypeBoolean:
		switch strings.TrimSpace(s) {
		case "true", "TRUE", "True":
			return types.NewBool(true), nil
		case "false", "FALSE", "False":
			return types.NewBool(false), nil
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			return types.NewBool(true), nil
		case "false":
			return types.NewBool(false), nil
		}
		return types.Null, c.err(col, "%q is not a BOOLEAN", s)
	}
	// The common scalars without the json converter's boxing of s.
	s = strings.TrimSpace(s)
	switch t.ID {
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt:
		n, err := strconv.ParseInt(s, 10, intBits[t.ID])
		if err != nil {
			return types.Null, c.err(col, "%q is not a %s: %v", s, t, errors.Unwrap(err))
		}
		return types.NewInt(n), nil
	case types.TypeDouble:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return types.Null, c.err(col, "%q is not a %s", s, t)
		}
		return types.NewFloat(f), nil
	case types.TypeDate:
		v, err := types.ParseDate(s)
		if err != nil {
			return types.Null, c.err(col, "%v", err)
		}
		return v, nil
	case types.TypeTimestamp:
		v, err := types.ParseTimestamp(s)
		if err != nil {
			return types.Null, c.err(col, "%v", err)
		}
		return types.NewTimestamp(truncNanos(v.Int(), t.Precision)), nil
	}
	v, err := c.conv.convert(strings.Clone(s), t, col)
	if e, ok := err.(*Error); ok {
		e2 := *e
		e2.Format = "csv"
		err = &e2
	}
	return v, err
}

// RecordComplete reports whether b, what was read of a record up to a
// line break, is a whole record of codec c: a csv record is not while a
// quoted field is open (its field holds the line break); the records of
// the other formats are single lines.
func RecordComplete(c Codec, b []byte) bool {
	cc, ok := c.(*csvCodec)
	if !ok || cc.quote == 0 {
		return true
	}
	// As split reads fields: a quote opens a field only at its start, a
	// doubled quote inside it is a quote, a quote then anything else
	// closes it.
	in, start := false, true
	for i := 0; i < len(b); i++ {
		ch := b[i]
		switch {
		case in && cc.escape != 0 && ch == cc.escape:
			i++
		case in && ch == cc.quote:
			if i+1 < len(b) && b[i+1] == cc.quote {
				i++
			} else {
				in = false
			}
		case !in && start && ch == cc.quote:
			in = true
		}
		start = !in && (ch == cc.delim || ch == '\n')
	}
	return !in
}
