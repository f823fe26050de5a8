package format

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/types"
)

// AvroNamespace and AvroRecordName name the top-level record, as Flink does.
const (
	AvroNamespace  = "org.apache.flink.avro.generated"
	AvroRecordName = "record"
)

// AvroSchema returns the Avro schema (JSON) that Flink derives from the
// columns of schema.
func AvroSchema(schema *types.Schema) (string, error) {
	if schema == nil {
		return "", optErr("format 'avro' needs a schema")
	}
	b, err := appendAvroRecord(nil, schema.Fields, AvroRecordName, true, 0)
	return string(b), err
}

func appendAvroRecord(dst []byte, fields []types.Field, name string, top bool, depth int) ([]byte, error) {
	dst = append(dst, `{"type":"record","name":`...)
	dst = appendJSONString(dst, name)
	if top {
		dst = append(dst, `,"namespace":`...)
		dst = appendJSONString(dst, AvroNamespace)
	}
	dst = append(dst, `,"fields":[`...)
	for i, f := range fields {
		if !validAvroName(f.Name) {
			return dst, optErr("format 'avro': column %q is not a valid Avro field name (letters, digits and '_', not starting with a digit); rename it, e.g. SELECT ... AS %s", f.Name, suggestAvroName(f.Name))
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"name":`...)
		dst = appendJSONString(dst, f.Name)
		dst = append(dst, `,"type":`...)
		var err error
		if dst, err = appendAvroType(dst, f.Type, name+"_"+f.Name, f.Name, depth+1); err != nil {
			return dst, err
		}
		if !f.Type.NotNull {
			dst = append(dst, `,"default":null`...)
		}
		dst = append(dst, '}')
	}
	return append(dst, "]}"...), nil
}

// validAvroName reports whether s is a valid Avro name:
// [A-Za-z_][A-Za-z0-9_]*.
func validAvroName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// suggestAvroName replaces what an Avro name cannot hold with '_'.
func suggestAvroName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' && i > 0) {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "col"
	}
	return string(b)
}

func appendAvroType(dst []byte, t types.Type, recName, path string, depth int) ([]byte, error) {
	if depth > 50 {
		return dst, optErr("format 'avro': column %q is nested too deeply", path)
	}
	if !t.NotNull {
		dst = append(dst, `["null",`...)
		t.NotNull = true
		var err error
		dst, err = appendAvroType(dst, t, recName, path, depth)
		return append(dst, ']'), err
	}
	switch t.ID {
	case types.TypeBoolean:
		return append(dst, `"boolean"`...), nil
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt:
		return append(dst, `"int"`...), nil
	case types.TypeBigInt:
		return append(dst, `"long"`...), nil
	case types.TypeFloat:
		return append(dst, `"float"`...), nil
	case types.TypeDouble:
		return append(dst, `"double"`...), nil
	case types.TypeChar, types.TypeVarChar:
		return append(dst, `"string"`...), nil
	case types.TypeBinary, types.TypeVarBinary:
		return append(dst, `"bytes"`...), nil
	case types.TypeDecimal:
		return fmt.Appendf(dst, `{"type":"bytes","logicalType":"decimal","precision":%d,"scale":%d}`, t.Precision, t.Scale), nil
	case types.TypeDate:
		return append(dst, `{"type":"int","logicalType":"date"}`...), nil
	case types.TypeTime:
		if t.Precision > 3 {
			return dst, optErr("format 'avro' supports TIME with precision up to 3; column %q is %s", path, t)
		}
		return append(dst, `{"type":"int","logicalType":"time-millis"}`...), nil
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		switch {
		case t.Precision <= 3:
			return append(dst, `{"type":"long","logicalType":"timestamp-millis"}`...), nil
		case t.Precision <= 6:
			return append(dst, `{"type":"long","logicalType":"timestamp-micros"}`...), nil
		}
		return dst, optErr("format 'avro' supports timestamps with precision up to 6; column %q is %s", path, t)
	case types.TypeArray:
		dst = append(dst, `{"type":"array","items":`...)
		dst, err := appendAvroType(dst, *t.Elem, recName, path+"[]", depth+1)
		return append(dst, '}'), err
	case types.TypeMap:
		if !t.Elem.IsString() {
			return dst, optErr("format 'avro' supports MAP keys of type STRING only; column %q is %s", path, t)
		}
		dst = append(dst, `{"type":"map","values":`...)
		dst, err := appendAvroType(dst, *t.Val, recName, path+"{}", depth+1)
		return append(dst, '}'), err
	case types.TypeRow:
		return appendAvroRecord(dst, t.Fields, recName, false, depth)
	}
	return dst, optErr("format 'avro' does not support column %q of type %s", path, t)
}

type avroCodec struct {
	schema *types.Schema
}

func newAvro(s *types.Schema, o map[string]string) (Codec, error) {
	if v, ok := o["encoding"]; ok && !strings.EqualFold(v, "binary") {
		return nil, optErr("option 'avro.encoding' = %q is not supported: only binary", v)
	}
	if v, ok := o["codec"]; ok && v != "" && !strings.EqualFold(v, "null") {
		return nil, optErr("option 'avro.codec' = %q is not supported (it applies to Avro files, not Kafka records)", v)
	}
	if legacy, err := boolOpt(o, "timestamp_mapping.legacy", true); err != nil {
		return nil, err
	} else if !legacy {
		return nil, optErr("option 'avro.timestamp_mapping.legacy' = false is not supported yet")
	}
	if _, err := AvroSchema(s); err != nil {
		return nil, err
	}
	return &avroCodec{schema: s}, nil
}

// ---- encoding ----

func (c *avroCodec) Encode(dst []byte, vals []types.Value) ([]byte, error) {
	if err := checkArity("avro", c.schema, vals); err != nil {
		return dst, err
	}
	for i, f := range c.schema.Fields {
		var err error
		if dst, err = avroAppend(dst, vals[i], f.Type, f.Name); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func avroErr(path string, off int, format string, args ...any) error {
	return &Error{Format: "avro", Column: path, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

func appendLong(dst []byte, n int64) []byte { return binary.AppendVarint(dst, n) }

func avroAppend(dst []byte, v types.Value, t types.Type, path string) ([]byte, error) {
	if !t.NotNull {
		if v.IsNull() {
			return append(dst, 0), nil // union branch 0: null
		}
		dst = append(dst, 2) // union branch 1 (zigzag)
	} else if v.IsNull() {
		return dst, avroErr(path, -1, "NULL for a NOT NULL column")
	}
	if v.Kind() != wantKind(t) {
		return dst, avroErr(path, -1, "cannot encode a %s value as %s", v.InferType(), t)
	}
	switch t.ID {
	case types.TypeBoolean:
		if v.Bool() {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt:
		return appendLong(dst, int64(int32(v.Int()))), nil
	case types.TypeBigInt:
		return appendLong(dst, v.Int()), nil
	case types.TypeFloat:
		return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(v.Float()))), nil
	case types.TypeDouble:
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.Float())), nil
	case types.TypeChar, types.TypeVarChar, types.TypeBinary, types.TypeVarBinary:
		s := v.Str()
		return append(appendLong(dst, int64(len(s))), s...), nil
	case types.TypeDecimal:
		r, err := types.RoundDecimal(v.Decimal(), t.Precision, t.Scale)
		if err != nil {
			return dst, avroErr(path, -1, "%v", err)
		}
		var tmp [24]byte
		b := twosComplement(tmp[:0], r)
		return append(appendLong(dst, int64(len(b))), b...), nil
	case types.TypeDate:
		return appendLong(dst, int64(int32(v.Int()))), nil
	case types.TypeTime:
		return appendLong(dst, floorDiv(v.Int(), nanosPerMilli)), nil
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		if t.Precision <= 3 {
			return appendLong(dst, floorDiv(v.Int(), nanosPerMilli)), nil
		}
		return appendLong(dst, floorDiv(v.Int(), 1000)), nil
	case types.TypeArray:
		a := v.Array()
		if len(a) > 0 {
			dst = appendLong(dst, int64(len(a)))
			for _, e := range a {
				var err error
				if dst, err = avroAppend(dst, e, *t.Elem, path+"[]"); err != nil {
					return dst, err
				}
			}
		}
		return append(dst, 0), nil
	case types.TypeMap:
		m := v.Map()
		if len(m) > 0 {
			dst = appendLong(dst, int64(len(m)))
			for _, e := range m {
				if e.Key.Kind() != types.KindString {
					return dst, avroErr(path, -1, "MAP key is %s, Avro maps need string keys", e.Key.InferType())
				}
				k := e.Key.Str()
				dst = append(appendLong(dst, int64(len(k))), k...)
				var err error
				if dst, err = avroAppend(dst, e.Val, *t.Val, path+"{}"); err != nil {
					return dst, err
				}
			}
		}
		return append(dst, 0), nil
	case types.TypeRow:
		fv := v.Fields()
		if len(fv) != len(t.Fields) {
			return dst, avroErr(path, -1, "ROW value has %d fields, the type %d", len(fv), len(t.Fields))
		}
		for i, f := range t.Fields {
			var err error
			if dst, err = avroAppend(dst, fv[i], f.Type, path+"."+f.Name); err != nil {
				return dst, err
			}
		}
		return dst, nil
	}
	return dst, avroErr(path, -1, "type %s is not supported", t)
}

// twosComplement appends the unscaled value of d (exponent already the
// scale) as Java's BigInteger.toByteArray.
func twosComplement(dst []byte, d *apd.Decimal) []byte {
	if d.Coeff.IsInt64() {
		n := d.Coeff.Int64()
		if d.Negative {
			n = -n
		}
		var buf [8]byte
		binary.BigEndian.PutUint64(buf[:], uint64(n))
		i := 0
		for i < 7 && ((buf[i] == 0 && buf[i+1]&0x80 == 0) || (buf[i] == 0xff && buf[i+1]&0x80 != 0)) {
			i++
		}
		return append(dst, buf[i:]...)
	}
	x := d.Coeff.MathBigInt()
	if d.Negative {
		x.Neg(x)
	}
	return appendBigTwos(dst, x)
}

func appendBigTwos(dst []byte, x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			dst = append(dst, 0)
		}
		return append(dst, b...)
	}
	// -x - 1 has the complement bits.
	y := new(big.Int).Neg(x)
	y.Sub(y, big.NewInt(1))
	b := y.Bytes()
	start := len(dst)
	if len(b) == 0 || b[0]&0x80 != 0 {
		dst = append(dst, 0)
	}
	dst = append(dst, b...)
	for i := start; i < len(dst); i++ {
		dst[i] = ^dst[i]
	}
	return dst
}

// ---- decoding ----

type avroReader struct {
	b      []byte
	off    int
	budget int // array and map items left, see spend
}

func (r *avroReader) long(path string) (int64, error) {
	n, k := binary.Varint(r.b[r.off:])
	if k <= 0 {
		if k == 0 {
			return 0, avroErr(path, r.off, "truncated varint: the payload ends after %d bytes", len(r.b))
		}
		return 0, avroErr(path, r.off, "varint overflows 64 bits")
	}
	r.off += k
	return n, nil
}

func (r *avroReader) int(path string) (int32, error) {
	off := r.off
	n, err := r.long(path)
	if err != nil {
		return 0, err
	}
	if n != int64(int32(n)) {
		return 0, avroErr(path, off, "int %d out of 32-bit range", n)
	}
	return int32(n), nil
}

func (r *avroReader) bytes(path string) ([]byte, error) {
	off := r.off
	n, err := r.long(path)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > int64(len(r.b)-r.off) {
		return nil, avroErr(path, off, "length %d exceeds the %d bytes left", n, len(r.b)-r.off)
	}
	b := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return b, nil
}

func (r *avroReader) fixed(path string, n int) ([]byte, error) {
	if len(r.b)-r.off < n {
		return nil, avroErr(path, r.off, "needs %d bytes, %d left", n, len(r.b)-r.off)
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b, nil
}

func (c *avroCodec) Decode(b []byte, dst []types.Value) ([]types.Value, error) {
	r := newAvroReader(b)
	for _, f := range c.schema.Fields {
		v, err := r.value(f.Type, f.Name)
		if err != nil {
			return nil, err
		}
		dst = append(dst, v)
	}
	if r.off != len(b) {
		return nil, avroErr("", r.off, "%d bytes left after the record", len(b)-r.off)
	}
	return dst, nil
}

// blockCount reads an array or map block count (a negative count is
// followed by the block size in bytes).
func (r *avroReader) blockCount(path string) (int, error) {
	off := r.off
	n, err := r.long(path)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		if n == math.MinInt64 {
			return 0, avroErr(path, off, "invalid block count")
		}
		n = -n
		if _, err := r.long(path); err != nil {
			return 0, err
		}
	}
	// Every item takes at least one byte in the schemas Flink derives,
	// except an empty ROW; bound the count by the input either way.
	if n > int64(len(r.b)-r.off) {
		return 0, avroErr(path, off, "block of %d items exceeds the %d bytes left", n, len(r.b)-r.off)
	}
	return int(n), nil
}

// block returns the item count of the next block of an array or map (0 at
// the end) and charges it to the reader's budget, which bounds the work of
// blocks of zero-byte items (empty records) that blockCount cannot bound
// by size. (Decoders loop over blocks themselves: passing an item decoder
// as a func value would make the reader escape on the hot path.)
func (r *avroReader) block(path string) (int, error) {
	n, err := r.blockCount(path)
	if err != nil || n == 0 {
		return 0, err
	}
	return n, r.spend(path, n)
}

// mapKey reads the key of a map item.
func (r *avroReader) mapKey(path string) (types.Value, error) {
	koff := r.off
	k, err := r.bytes(path + "{}")
	if err != nil {
		return types.Null, err
	}
	if !utf8.Valid(k) {
		return types.Null, avroErr(path, koff, "map key is not valid UTF-8")
	}
	return types.NewString(string(k)), nil
}

func (r *avroReader) value(t types.Type, path string) (types.Value, error) {
	if !t.NotNull {
		off := r.off
		br, err := r.long(path)
		if err != nil {
			return types.Null, err
		}
		switch br {
		case 0:
			return types.Null, nil
		case 1:
		default:
			return types.Null, avroErr(path, off, "union branch %d, expected 0 (null) or 1", br)
		}
	}
	off := r.off
	switch t.ID {
	case types.TypeBoolean:
		b, err := r.fixed(path, 1)
		if err != nil {
			return types.Null, err
		}
		if b[0] > 1 {
			return types.Null, avroErr(path, off, "boolean byte %d, not 0 or 1", b[0])
		}
		return types.NewBool(b[0] == 1), nil
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt:
		n, err := r.int(path)
		if err != nil {
			return types.Null, err
		}
		if (t.ID == types.TypeTinyInt && n != int32(int8(n))) || (t.ID == types.TypeSmallInt && n != int32(int16(n))) {
			return types.Null, avroErr(path, off, "%d is out of range for %s", n, t)
		}
		return types.NewInt(int64(n)), nil
	case types.TypeBigInt:
		n, err := r.long(path)
		if err != nil {
			return types.Null, err
		}
		return types.NewInt(n), nil
	case types.TypeFloat:
		b, err := r.fixed(path, 4)
		if err != nil {
			return types.Null, err
		}
		return types.NewFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))), nil
	case types.TypeDouble:
		b, err := r.fixed(path, 8)
		if err != nil {
			return types.Null, err
		}
		return types.NewFloat(math.Float64frombits(binary.LittleEndian.Uint64(b))), nil
	case types.TypeChar, types.TypeVarChar:
		b, err := r.bytes(path)
		if err != nil {
			return types.Null, err
		}
		if !utf8.Valid(b) {
			return types.Null, avroErr(path, off, "string is not valid UTF-8")
		}
		return types.NewString(string(b)), nil
	case types.TypeBinary, types.TypeVarBinary:
		b, err := r.bytes(path)
		if err != nil {
			return types.Null, err
		}
		return types.NewBytes(b), nil
	case types.TypeDecimal:
		b, err := r.bytes(path)
		if err != nil {
			return types.Null, err
		}
		if len(b) > 17 { // 38 digits need at most 16 bytes
			return types.Null, avroErr(path, off, "decimal of %d bytes is too long for %s", len(b), t)
		}
		x := new(big.Int).SetBytes(b)
		if len(b) > 0 && b[0]&0x80 != 0 {
			x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
		}
		d := apd.NewWithBigInt(new(apd.BigInt).SetMathBigInt(x), int32(-t.Scale))
		if d.Coeff.Sign() != 0 && apd.NumDigits(&d.Coeff) > int64(t.Precision) {
			return types.Null, avroErr(path, off, "%s does not fit %s", d.Text('f'), t)
		}
		return types.NewDecimal(d), nil
	case types.TypeDate:
		n, err := r.int(path)
		if err != nil {
			return types.Null, err
		}
		return types.NewDate(int64(n)), nil
	case types.TypeTime:
		n, err := r.int(path)
		if err != nil {
			return types.Null, err
		}
		if n < 0 || int64(n) >= nanosPerDay/nanosPerMilli {
			return types.Null, avroErr(path, off, "time-millis %d is not a time of day", n)
		}
		return types.NewTime(int64(n) * nanosPerMilli), nil
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		n, err := r.long(path)
		if err != nil {
			return types.Null, err
		}
		unit := nanosPerMilli
		if t.Precision > 3 {
			unit = 1000
		}
		if n > math.MaxInt64/unit || n < math.MinInt64/unit {
			return types.Null, avroErr(path, off, "timestamp %d is out of range", n)
		}
		return types.NewTimestamp(n * unit), nil
	case types.TypeArray:
		out := []types.Value{}
		for {
			n, err := r.block(path)
			if err != nil || n == 0 {
				return types.NewArray(out), err
			}
			for range n {
				v, err := r.value(*t.Elem, path+"[]")
				if err != nil {
					return types.Null, err
				}
				out = append(out, v)
			}
		}
	case types.TypeMap:
		out := []types.MapEntry{}
		for {
			n, err := r.block(path)
			if err != nil || n == 0 {
				return types.NewMap(out), err
			}
			for range n {
				k, err := r.mapKey(path)
				if err != nil {
					return types.Null, err
				}
				v, err := r.value(*t.Val, path+"{}")
				if err != nil {
					return types.Null, err
				}
				out = append(out, types.MapEntry{Key: k, Val: v})
			}
		}
	case types.TypeRow:
		out := make([]types.Value, len(t.Fields))
		for i, f := range t.Fields {
			v, err := r.value(f.Type, path+"."+f.Name)
			if err != nil {
				return types.Null, err
			}
			out[i] = v
		}
		return types.NewRow(out), nil
	}
	return types.Null, avroErr(path, off, "type %s is not supported", t)
}

// newAvroReader returns a reader of an Avro body with its item budget.
func newAvroReader(b []byte) avroReader { return avroReader{b: b, budget: 8*len(b) + 1024} }
