package format

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/eddy-sql/eddy/types"
)

const (
	nanosPerMilli = int64(1e6)
	nanosPerDay   = 86400 * int64(1e9)
)

type jsonCodec struct {
	schema         *types.Schema
	failOnMissing  bool
	ignoreErrors   bool
	iso            bool
	nullKeyMode    string // FAIL, DROP, LITERAL
	nullKeyLiteral string
	ignoreNulls    bool

	// Column index of the single-pass decoder (json_fast.go): index maps a
	// column name to its first column, first[i] is the first column with
	// the name of column i and next[i] the next one after i (-1: none).
	index map[string]int
	first []int
	next  []int
}

func newJSON(s *types.Schema, o map[string]string) (Codec, error) {
	c := &jsonCodec{schema: s, nullKeyMode: "FAIL", nullKeyLiteral: "null"}
	var err error
	if c.failOnMissing, err = boolOpt(o, "fail-on-missing-field", false); err != nil {
		return nil, err
	}
	if c.ignoreErrors, err = boolOpt(o, "ignore-parse-errors", false); err != nil {
		return nil, err
	}
	if c.ignoreNulls, err = boolOpt(o, "encode.ignore-null-fields", false); err != nil {
		return nil, err
	}
	if _, err = boolOpt(o, "encode.decimal-as-plain-number", false); err != nil {
		return nil, err
	}
	if c.failOnMissing && c.ignoreErrors {
		return nil, optErr("options 'json.fail-on-missing-field' and 'json.ignore-parse-errors' cannot both be true")
	}
	if v, ok := o["timestamp-format.standard"]; ok {
		switch strings.ToUpper(v) {
		case "SQL":
		case "ISO-8601":
			c.iso = true
		default:
			return nil, optErr("option 'json.timestamp-format.standard' must be 'SQL' or 'ISO-8601', not %q", v)
		}
	}
	if v, ok := o["map-null-key.mode"]; ok {
		switch m := strings.ToUpper(v); m {
		case "FAIL", "DROP", "LITERAL":
			c.nullKeyMode = m
		default:
			return nil, optErr("option 'json.map-null-key.mode' must be 'FAIL', 'DROP' or 'LITERAL', not %q", v)
		}
	}
	if v, ok := o["map-null-key.literal"]; ok {
		c.nullKeyLiteral = v
	}
	for _, f := range s.Fields {
		if err := jsonSupported(f.Name, f.Type, 0); err != nil {
			return nil, err
		}
	}
	c.buildIndex()
	return c, nil
}

func jsonSupported(path string, t types.Type, depth int) error {
	if depth > 50 {
		return optErr("format 'json': column %q is nested too deeply", path)
	}
	switch t.ID {
	case types.TypeArray:
		return jsonSupported(path+"[]", *t.Elem, depth+1)
	case types.TypeMap:
		if !t.Elem.IsString() {
			return optErr("format 'json' supports MAP keys of type STRING only; column %q has %s", path, t)
		}
		return jsonSupported(path+"{}", *t.Val, depth+1)
	case types.TypeRow:
		for _, f := range t.Fields {
			if err := jsonSupported(path+"."+f.Name, f.Type, depth+1); err != nil {
				return err
			}
		}
		return nil
	case types.TypeNull, types.TypeDescriptor, types.TypeMultiset:
		return optErr("format 'json' does not support column %q of type %s", path, t)
	}
	return nil
}

// ---- encoding ----

func (c *jsonCodec) Encode(dst []byte, vals []types.Value) ([]byte, error) {
	if err := checkArity("json", c.schema, vals); err != nil {
		return dst, err
	}
	return c.appendRow(dst, c.schema.Fields, vals, "")
}

func (c *jsonCodec) appendRow(dst []byte, fields []types.Field, vals []types.Value, prefix string) ([]byte, error) {
	dst = append(dst, '{')
	first := true
	for i, f := range fields {
		var v types.Value
		if i < len(vals) {
			v = vals[i]
		}
		if v.IsNull() && c.ignoreNulls {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendJSONString(dst, f.Name)
		dst = append(dst, ':')
		var err error
		if dst, err = c.appendValue(dst, v, f.Type, prefix+f.Name); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func (c *jsonCodec) encErr(path string, format string, args ...any) error {
	return &Error{Format: "json", Column: path, Offset: -1, Reason: fmt.Sprintf(format, args...)}
}

func wantKind(t types.Type) types.Kind {
	switch t.ID {
	case types.TypeBoolean:
		return types.KindBool
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt:
		return types.KindInt
	case types.TypeFloat, types.TypeDouble:
		return types.KindFloat
	case types.TypeDecimal:
		return types.KindDecimal
	case types.TypeChar, types.TypeVarChar:
		return types.KindString
	case types.TypeBinary, types.TypeVarBinary:
		return types.KindBytes
	case types.TypeDate:
		return types.KindDate
	case types.TypeTime:
		return types.KindTime
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		return types.KindTimestamp
	case types.TypeIntervalYearMonth:
		return types.KindIntervalMonths
	case types.TypeIntervalDayTime:
		return types.KindIntervalNanos
	case types.TypeArray:
		return types.KindArray
	case types.TypeMap:
		return types.KindMap
	case types.TypeRow:
		return types.KindRow
	}
	return types.KindNull
}

func (c *jsonCodec) appendValue(dst []byte, v types.Value, t types.Type, path string) ([]byte, error) {
	if v.IsNull() {
		return append(dst, "null"...), nil
	}
	if v.Kind() != wantKind(t) {
		return dst, c.encErr(path, "cannot encode a %s value as %s", v.InferType(), t)
	}
	switch t.ID {
	case types.TypeBoolean:
		return strconv.AppendBool(dst, v.Bool()), nil
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt, types.TypeIntervalYearMonth:
		return strconv.AppendInt(dst, v.Int(), 10), nil
	case types.TypeIntervalDayTime:
		return strconv.AppendInt(dst, floorDiv(v.Int(), nanosPerMilli), 10), nil
	case types.TypeFloat, types.TypeDouble:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return append(dst, `"NaN"`...), nil
		case math.IsInf(f, 1):
			return append(dst, `"Infinity"`...), nil
		case math.IsInf(f, -1):
			return append(dst, `"-Infinity"`...), nil
		}
		if t.ID == types.TypeFloat {
			return strconv.AppendFloat(dst, f, 'g', -1, 32), nil
		}
		return strconv.AppendFloat(dst, f, 'g', -1, 64), nil
	case types.TypeDecimal:
		d := v.Decimal()
		if d == nil {
			return dst, c.encErr(path, "cannot encode a non-finite DECIMAL")
		}
		r, err := types.RoundDecimal(d, t.Precision, t.Scale)
		if err != nil {
			return dst, c.encErr(path, "%v", err)
		}
		return append(dst, r.Text('f')...), nil
	case types.TypeChar, types.TypeVarChar:
		return appendJSONString(dst, v.Str()), nil
	case types.TypeBinary, types.TypeVarBinary:
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, []byte(v.Str()))
		return append(dst, '"'), nil
	case types.TypeDate:
		dst = append(dst, '"')
		dst = appendDate(dst, v.Int())
		return append(dst, '"'), nil
	case types.TypeTime:
		dst = append(dst, '"')
		dst = appendTimeOfDay(dst, v.Int(), t.Precision)
		return append(dst, '"'), nil
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		n := v.Int()
		dst = append(dst, '"')
		dst = appendDate(dst, floorDiv(n, nanosPerDay))
		if c.iso {
			dst = append(dst, 'T')
		} else {
			dst = append(dst, ' ')
		}
		dst = appendTimeOfDay(dst, n-floorDiv(n, nanosPerDay)*nanosPerDay, t.Precision)
		if t.ID == types.TypeTimestampLTZ {
			dst = append(dst, 'Z')
		}
		return append(dst, '"'), nil
	case types.TypeArray:
		dst = append(dst, '[')
		for i, e := range v.Array() {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = c.appendValue(dst, e, *t.Elem, path+"[]"); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case types.TypeMap:
		dst = append(dst, '{')
		first := true
		for _, e := range v.Map() {
			key := e.Key.Str()
			if e.Key.IsNull() {
				switch c.nullKeyMode {
				case "DROP":
					continue
				case "LITERAL":
					key = c.nullKeyLiteral
				default:
					return dst, c.encErr(path, "MAP has a NULL key (set 'json.map-null-key.mode' to DROP or LITERAL)")
				}
			} else if e.Key.Kind() != types.KindString {
				return dst, c.encErr(path, "MAP key is a %s value, not a string", e.Key.InferType())
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendJSONString(dst, key)
			dst = append(dst, ':')
			var err error
			if dst, err = c.appendValue(dst, e.Val, *t.Val, path+"{}"); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	case types.TypeRow:
		fv := v.Fields()
		if len(fv) != len(t.Fields) {
			return dst, c.encErr(path, "ROW value has %d fields, the type %d", len(fv), len(t.Fields))
		}
		return c.appendRow(dst, t.Fields, fv, path+".")
	}
	return dst, c.encErr(path, "type %s is not supported", t)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func appendPadded(dst []byte, n int64, width int) []byte {
	if n < 0 {
		dst = append(dst, '-')
		n = -n
	}
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], n, 10)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

func appendDate(dst []byte, days int64) []byte {
	y, m, d := types.CivilFromDays(days)
	dst = appendPadded(dst, y, 4)
	dst = append(dst, '-')
	dst = appendPadded(dst, m, 2)
	dst = append(dst, '-')
	return appendPadded(dst, d, 2)
}

// appendTimeOfDay writes HH:MM:SS and the fraction truncated to p digits
// without trailing zeros (Flink's SQL_TIME_FORMAT).
func appendTimeOfDay(dst []byte, nanos int64, p int) []byte {
	sec := nanos / 1e9
	dst = appendPadded(dst, sec/3600, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, sec/60%60, 2)
	dst = append(dst, ':')
	dst = appendPadded(dst, sec%60, 2)
	frac := nanos % 1e9
	if p < 9 {
		pow := int64(math.Pow10(9 - p))
		frac -= frac % pow
	}
	if frac == 0 {
		return dst
	}
	dst = append(dst, '.')
	digits := 9
	for frac%10 == 0 {
		frac /= 10
		digits--
	}
	return appendPadded(dst, frac, digits)
}

const hexDigits = "0123456789abcdef"

func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// ---- decoding ----

// Decode decodes one record. Objects go through the single-pass decoder
// (json_fast.go); whatever it does not accept (other top-level values,
// malformed or truncated JSON, trailing data) goes through the generic
// decoder, which reports the error or the record to skip.
func (c *jsonCodec) Decode(b []byte, dst []types.Value) ([]types.Value, error) {
	if b == nil {
		return nil, nil // a null message: skip, as Flink does
	}
	if vals, ok, err := c.decodeFast(b, dst); ok {
		return vals, err
	}
	return c.decodeGeneric(b, dst)
}

// decodeGeneric decodes a record with encoding/json into map[string]any
// and converts each column with convert. It defines the results the
// single-pass decoder must reproduce (FuzzJSONFastVsSlow).
func (c *jsonCodec) decodeGeneric(b []byte, dst []types.Value) ([]types.Value, error) {
	if b == nil {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	err := dec.Decode(&doc)
	if err == nil {
		if _, e2 := dec.Token(); e2 != io.EOF {
			err = fmt.Errorf("unexpected data after the JSON object at byte %d", dec.InputOffset())
		}
	}
	if err != nil {
		if c.ignoreErrors {
			return nil, nil
		}
		off := -1
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = int(se.Offset)
		}
		if err == io.EOF {
			err = errors.New("empty payload")
		}
		return nil, &Error{Format: "json", Offset: off, Reason: err.Error()}
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		if c.ignoreErrors {
			return nil, nil
		}
		return nil, &Error{Format: "json", Offset: -1, Reason: fmt.Sprintf("payload is %s, not a JSON object", jsonKind(doc))}
	}
	dst, err = c.decodeRow(obj, c.schema.Fields, dst, "")
	if err != nil {
		return nil, err
	}
	return dst, nil
}

func (c *jsonCodec) decodeRow(obj map[string]any, fields []types.Field, dst []types.Value, prefix string) ([]types.Value, error) {
	for _, f := range fields {
		raw, ok := obj[f.Name]
		if !ok {
			if c.failOnMissing {
				return nil, missingFieldErr(prefix + f.Name)
			}
			dst = append(dst, types.Null)
			continue
		}
		v, err := c.convert(raw, f.Type, prefix+f.Name)
		if err != nil {
			if !c.ignoreErrors {
				return nil, err
			}
			v = types.Null
		}
		dst = append(dst, v)
	}
	return dst, nil
}

func missingFieldErr(path string) error {
	return &Error{Format: "json", Column: path, Offset: -1, Reason: "field is missing ('json.fail-on-missing-field' is true)"}
}

func jsonKind(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}

func (c *jsonCodec) decErr(path string, format string, args ...any) error {
	return &Error{Format: "json", Column: path, Offset: -1, Reason: fmt.Sprintf(format, args...)}
}

// text returns the text of a string or number node.
func text(x any) (string, bool) {
	switch v := x.(type) {
	case string:
		return v, true
	case json.Number:
		return string(v), true
	}
	return "", false
}

var intBits = map[types.TypeID]int{types.TypeTinyInt: 8, types.TypeSmallInt: 16, types.TypeInt: 32, types.TypeBigInt: 64, types.TypeIntervalYearMonth: 32}

func (c *jsonCodec) convert(x any, t types.Type, path string) (types.Value, error) {
	if x == nil {
		return types.Null, nil
	}
	bad := func() (types.Value, error) {
		return types.Null, c.decErr(path, "%s cannot be read as %s", jsonKind(x), t)
	}
	switch t.ID {
	case types.TypeBoolean:
		switch v := x.(type) {
		case bool:
			return types.NewBool(v), nil
		case string:
			switch strings.ToLower(v) {
			case "true":
				return types.NewBool(true), nil
			case "false":
				return types.NewBool(false), nil
			}
			return types.Null, c.decErr(path, "%q is not a BOOLEAN", v)
		}
		return bad()
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt, types.TypeIntervalYearMonth, types.TypeIntervalDayTime:
		s, ok := text(x)
		if !ok {
			return bad()
		}
		bits := 64
		if b, ok := intBits[t.ID]; ok {
			bits = b
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
		if err != nil {
			return types.Null, c.decErr(path, "%q is not a %s: %v", s, t, errors.Unwrap(err))
		}
		if t.ID == types.TypeIntervalDayTime {
			if n > math.MaxInt64/nanosPerMilli || n < math.MinInt64/nanosPerMilli {
				return types.Null, c.decErr(path, "interval of %d ms is out of range", n)
			}
			return types.NewInterval(time.Duration(n * nanosPerMilli)), nil
		}
		if t.ID == types.TypeIntervalYearMonth {
			return types.NewIntervalMonths(n), nil
		}
		return types.NewInt(n), nil
	case types.TypeFloat, types.TypeDouble:
		s, ok := text(x)
		if !ok {
			return bad()
		}
		bits := 64
		if t.ID == types.TypeFloat {
			bits = 32
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), bits)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return types.Null, c.decErr(path, "%q is not a %s", s, t)
		}
		return types.NewFloat(f), nil
	case types.TypeDecimal:
		s, ok := text(x)
		if !ok {
			return bad()
		}
		if len(s) > 400 {
			return types.Null, c.decErr(path, "number of %d characters is too long for %s", len(s), t)
		}
		d, err := types.ParseDecimal(s)
		if err != nil {
			return types.Null, c.decErr(path, "%v", err)
		}
		r, err := types.RoundDecimal(d, t.Precision, t.Scale)
		if err != nil {
			return types.Null, c.decErr(path, "%v", err)
		}
		return types.NewDecimal(r), nil
	case types.TypeChar, types.TypeVarChar:
		if s, ok := x.(string); ok {
			return types.NewString(s), nil
		}
		b, err := json.Marshal(x)
		if err != nil {
			return bad()
		}
		return types.NewString(string(b)), nil
	case types.TypeBinary, types.TypeVarBinary:
		s, ok := x.(string)
		if !ok {
			return bad()
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return types.Null, c.decErr(path, "string is not base64: %v", err)
		}
		return types.NewBytes(b), nil
	case types.TypeDate:
		s, ok := x.(string)
		if !ok {
			return bad()
		}
		v, err := types.ParseDate(s)
		if err != nil {
			return types.Null, c.decErr(path, "%v", err)
		}
		return v, nil
	case types.TypeTime:
		s, ok := x.(string)
		if !ok {
			return bad()
		}
		v, err := types.ParseTime(s)
		if err != nil {
			return types.Null, c.decErr(path, "%v", err)
		}
		return types.NewTime(truncNanos(v.Int(), t.Precision)), nil
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		s, ok := x.(string)
		if !ok {
			return bad()
		}
		if t.ID == types.TypeTimestampLTZ {
			s = strings.TrimSuffix(s, "Z")
		}
		v, err := types.ParseTimestamp(s)
		if err != nil {
			return types.Null, c.decErr(path, "%v", err)
		}
		return types.NewTimestamp(truncNanos(v.Int(), t.Precision)), nil
	case types.TypeArray:
		a, ok := x.([]any)
		if !ok {
			return bad()
		}
		out := make([]types.Value, len(a))
		for i, e := range a {
			v, err := c.convert(e, *t.Elem, path+"[]")
			if err != nil {
				return types.Null, err
			}
			out[i] = v
		}
		return types.NewArray(out), nil
	case types.TypeMap:
		m, ok := x.(map[string]any)
		if !ok {
			return bad()
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]types.MapEntry, 0, len(m))
		for _, k := range keys {
			v, err := c.convert(m[k], *t.Val, path+"{}")
			if err != nil {
				return types.Null, err
			}
			out = append(out, types.MapEntry{Key: types.NewString(k), Val: v})
		}
		return types.NewMap(out), nil
	case types.TypeRow:
		m, ok := x.(map[string]any)
		if !ok {
			return bad()
		}
		vals, err := c.decodeRow(m, t.Fields, make([]types.Value, 0, len(t.Fields)), path+".")
		if err != nil {
			return types.Null, err
		}
		return types.NewRow(vals), nil
	}
	return bad()
}

func truncNanos(n int64, p int) int64 {
	if p >= 9 || p < 0 {
		return n
	}
	pow := int64(math.Pow10(9 - p))
	return floorDiv(n, pow) * pow
}
