package format

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/eddy-sql/eddy/types"
)

// rawCodec is Flink's raw format: one column, big-endian numbers.
type rawCodec struct {
	name string
	t    types.Type
}

func newRaw(s *types.Schema, o map[string]string) (Codec, error) {
	if s.Len() != 1 {
		return nil, optErr("format 'raw' takes exactly one column, not %d", s.Len())
	}
	if v, ok := o["charset"]; ok && !strings.EqualFold(strings.ReplaceAll(v, "-", ""), "utf8") {
		return nil, optErr("option 'raw.charset' = %q is not supported: only UTF-8", v)
	}
	if v, ok := o["endianness"]; ok && !strings.EqualFold(v, "big-endian") {
		return nil, optErr("option 'raw.endianness' = %q is not supported: only big-endian", v)
	}
	t := s.Fields[0].Type
	switch t.ID {
	case types.TypeBoolean, types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt,
		types.TypeFloat, types.TypeDouble, types.TypeChar, types.TypeVarChar, types.TypeBinary, types.TypeVarBinary:
	default:
		return nil, optErr("format 'raw' does not support column %q of type %s", s.Fields[0].Name, t)
	}
	return &rawCodec{name: s.Fields[0].Name, t: t}, nil
}

func rawSize(id types.TypeID) int {
	switch id {
	case types.TypeBoolean, types.TypeTinyInt:
		return 1
	case types.TypeSmallInt:
		return 2
	case types.TypeInt, types.TypeFloat:
		return 4
	case types.TypeBigInt, types.TypeDouble:
		return 8
	}
	return -1
}

func (c *rawCodec) err(off int, format string, args ...any) error {
	return &Error{Format: "raw", Column: c.name, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

func (c *rawCodec) Encode(dst []byte, vals []types.Value) ([]byte, error) {
	if len(vals) != 1 {
		return dst, &Error{Format: "raw", Offset: -1, Reason: fmt.Sprintf("%d values for 1 column", len(vals))}
	}
	v := vals[0]
	if v.IsNull() {
		return nil, nil
	}
	if dst == nil {
		dst = make([]byte, 0, 8)
	}
	be := binary.BigEndian
	want := types.KindInt
	switch c.t.ID {
	case types.TypeBoolean:
		want = types.KindBool
	case types.TypeFloat, types.TypeDouble:
		want = types.KindFloat
	case types.TypeChar, types.TypeVarChar:
		want = types.KindString
	case types.TypeBinary, types.TypeVarBinary:
		want = types.KindBytes
	}
	if v.Kind() != want {
		return dst, c.err(-1, "cannot encode a %s value as %s", v.InferType(), c.t)
	}
	switch c.t.ID {
	case types.TypeBoolean:
		if v.Bool() {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case types.TypeTinyInt:
		return append(dst, byte(v.Int())), nil
	case types.TypeSmallInt:
		return be.AppendUint16(dst, uint16(v.Int())), nil
	case types.TypeInt:
		return be.AppendUint32(dst, uint32(v.Int())), nil
	case types.TypeBigInt:
		return be.AppendUint64(dst, uint64(v.Int())), nil
	case types.TypeFloat:
		return be.AppendUint32(dst, math.Float32bits(float32(v.Float()))), nil
	case types.TypeDouble:
		return be.AppendUint64(dst, math.Float64bits(v.Float())), nil
	}
	return append(dst, v.Str()...), nil
}

func (c *rawCodec) Decode(b []byte, dst []types.Value) ([]types.Value, error) {
	if b == nil {
		return append(dst, types.Null), nil
	}
	if n := rawSize(c.t.ID); n > 0 && len(b) != n {
		return nil, c.err(0, "%s needs %d bytes, the payload has %d", c.t, n, len(b))
	}
	be := binary.BigEndian
	var v types.Value
	switch c.t.ID {
	case types.TypeBoolean:
		if b[0] > 1 {
			return nil, c.err(0, "BOOLEAN byte is %d, not 0 or 1", b[0])
		}
		v = types.NewBool(b[0] == 1)
	case types.TypeTinyInt:
		v = types.NewInt(int64(int8(b[0])))
	case types.TypeSmallInt:
		v = types.NewInt(int64(int16(be.Uint16(b))))
	case types.TypeInt:
		v = types.NewInt(int64(int32(be.Uint32(b))))
	case types.TypeBigInt:
		v = types.NewInt(int64(be.Uint64(b)))
	case types.TypeFloat:
		v = types.NewFloat(float64(math.Float32frombits(be.Uint32(b))))
	case types.TypeDouble:
		v = types.NewFloat(math.Float64frombits(be.Uint64(b)))
	case types.TypeChar, types.TypeVarChar:
		if !utf8.Valid(b) {
			return nil, c.err(0, "payload is not valid UTF-8")
		}
		v = types.NewString(string(b))
	default:
		v = types.NewBytes(b)
	}
	return append(dst, v), nil
}
