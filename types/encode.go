package types

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/cockroachdb/apd/v3"
)

// ErrMalformed is wrapped by the errors of DecodeValue, DecodeRow and
// DecodeRowInto for input that is not a valid encoding.
var ErrMalformed = errors.New("types: malformed encoding")

// The tags of the binary encoding. They are stored on disk: never renumber
// them, only add new ones.
const (
	tagNull            byte = iota // nothing follows
	tagFalse                       // nothing follows
	tagTrue                        // nothing follows
	tagInt                         // zig-zag varint
	tagFloat                       // IEEE 754 bits, 8 bytes little-endian
	tagDecimal                     // flags, zig-zag varint exponent, uvarint n, n bytes of coefficient (big-endian)
	tagString                      // uvarint n, n bytes
	tagBytes                       // uvarint n, n bytes
	tagDate                        // zig-zag varint days
	tagTime                        // zig-zag varint nanoseconds
	tagTimestampMillis             // zig-zag varint milliseconds (a timestamp of whole milliseconds)
	tagTimestamp                   // zig-zag varint nanoseconds
	tagIntervalMonths              // zig-zag varint months
	tagIntervalNanos               // zig-zag varint nanoseconds
	tagArray                       // uvarint n, n values
	tagMap                         // uvarint n, n pairs of key and value
	tagRow                         // uvarint n, n values
	numTags
)

// Flags of tagDecimal: bit 0 is the sign, bits 1 and 2 the apd.Form.
const (
	decimalNegative = 1
	decimalFormMask = 3 << 1
)

// maxValueDepth bounds the nesting of decoded ARRAY, MAP and ROW values so
// that hostile input cannot exhaust the stack.
const maxValueDepth = 100

// AppendValue appends the binary encoding of v to dst and returns the
// extended buffer. The encoding is self-describing (a tag byte, then
// zig-zag varints for numbers, length-prefixed strings) and compact: an INT
// takes 1 to 10 bytes, a millisecond timestamp about 7. It does not
// allocate when dst has room, except for large DECIMAL coefficients.
func AppendValue(dst []byte, v Value) []byte {
	switch v.k {
	case KindNull:
		return append(dst, tagNull)
	case KindBool:
		if v.n != 0 {
			return append(dst, tagTrue)
		}
		return append(dst, tagFalse)
	case KindInt:
		return binary.AppendVarint(append(dst, tagInt), v.n)
	case KindFloat:
		return binary.LittleEndian.AppendUint64(append(dst, tagFloat), uint64(v.n))
	case KindDecimal:
		return appendDecimalValue(dst, v.Decimal())
	case KindString, KindBytes:
		tag := tagString
		if v.k == KindBytes {
			tag = tagBytes
		}
		dst = binary.AppendUvarint(append(dst, tag), uint64(len(v.s)))
		return append(dst, v.s...)
	case KindDate:
		return binary.AppendVarint(append(dst, tagDate), v.n)
	case KindTime:
		return binary.AppendVarint(append(dst, tagTime), v.n)
	case KindTimestamp:
		if v.n%nanosPerMilli == 0 {
			return binary.AppendVarint(append(dst, tagTimestampMillis), v.n/nanosPerMilli)
		}
		return binary.AppendVarint(append(dst, tagTimestamp), v.n)
	case KindIntervalMonths:
		return binary.AppendVarint(append(dst, tagIntervalMonths), v.n)
	case KindIntervalNanos:
		return binary.AppendVarint(append(dst, tagIntervalNanos), v.n)
	case KindArray, KindRow:
		tag := tagArray
		if v.k == KindRow {
			tag = tagRow
		}
		elems := v.Fields()
		dst = binary.AppendUvarint(append(dst, tag), uint64(len(elems)))
		for _, e := range elems {
			dst = AppendValue(dst, e)
		}
		return dst
	case KindMap:
		entries := v.Map()
		dst = binary.AppendUvarint(append(dst, tagMap), uint64(len(entries)))
		for _, e := range entries {
			dst = AppendValue(dst, e.Key)
			dst = AppendValue(dst, e.Val)
		}
		return dst
	}
	return append(dst, tagNull)
}

func appendDecimalValue(dst []byte, d *apd.Decimal) []byte {
	if d == nil {
		return append(dst, tagNull)
	}
	flags := byte(d.Form) << 1 & decimalFormMask
	if d.Negative {
		flags |= decimalNegative
	}
	dst = append(dst, tagDecimal, flags)
	dst = binary.AppendVarint(dst, int64(d.Exponent))
	if d.Coeff.IsUint64() {
		c := d.Coeff.Uint64()
		n := (bits.Len64(c) + 7) / 8
		dst = binary.AppendUvarint(dst, uint64(n))
		for i := n - 1; i >= 0; i-- {
			dst = append(dst, byte(c>>(8*i)))
		}
		return dst
	}
	mag := d.Coeff.Bytes()
	dst = binary.AppendUvarint(dst, uint64(len(mag)))
	return append(dst, mag...)
}

// AppendRow appends the binary encoding of r to dst and returns the
// extended buffer: the RowKind as one byte, the number of values as a
// uvarint, then each value as AppendValue writes it.
func AppendRow(dst []byte, r Row) []byte {
	dst = append(dst, byte(r.Kind))
	dst = binary.AppendUvarint(dst, uint64(len(r.Values)))
	for _, v := range r.Values {
		dst = AppendValue(dst, v)
	}
	return dst
}

// DecodeValue decodes one value written by AppendValue from the start of b
// and returns it with the number of bytes it took. Strings and byte strings
// are copied, so b may be reused afterwards. Malformed input gives an error
// wrapping ErrMalformed; allocations are bounded by len(b).
func DecodeValue(b []byte) (Value, int, error) {
	d := decoder{b: b}
	v, err := d.value(0)
	if err != nil {
		return Null, 0, err
	}
	return v, d.off, nil
}

// DecodeValues decodes n values written one after the other by
// AppendValue from the start of b, appends them to dst, and returns the
// extended slice with the number of bytes they took. Strings are copied,
// as by DecodeValue.
func DecodeValues(dst []Value, b []byte, n int) ([]Value, int, error) {
	d := decoder{b: b}
	for range n {
		v, err := d.value(0)
		if err != nil {
			return dst, 0, err
		}
		dst = append(dst, v)
	}
	return dst, d.off, nil
}

// DecodeRow decodes a row written by AppendRow, which must take all of b.
func DecodeRow(b []byte) (Row, error) {
	var r Row
	if err := DecodeRowInto(b, &r); err != nil {
		return Row{}, err
	}
	return r, nil
}

// DecodeRowInto is DecodeRow decoding into r and reusing the capacity of
// r.Values: decoding a row of scalar values other than strings, byte
// strings and decimals into a row of sufficient capacity does not
// allocate. On error r is left in an unspecified state.
func DecodeRowInto(b []byte, r *Row) error {
	d := decoder{b: b}
	if len(b) == 0 {
		return d.errorf("empty row")
	}
	if b[0] > byte(Delete) {
		return d.errorf("invalid row kind %d", b[0])
	}
	r.Kind = RowKind(b[0])
	d.off = 1
	n, err := d.count("count")
	if err != nil {
		return err
	}
	if cap(r.Values) < n {
		r.Values = make([]Value, 0, n)
	}
	r.Values = r.Values[:0]
	for range n {
		v, err := d.value(0)
		if err != nil {
			return err
		}
		r.Values = append(r.Values, v)
	}
	if d.off != len(b) {
		return d.errorf("%d bytes after the row", len(b)-d.off)
	}
	return nil
}

type decoder struct {
	b   []byte
	off int
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", ErrMalformed, d.off, fmt.Sprintf(format, args...))
}

func (d *decoder) varint() (int64, error) {
	x, n := binary.Varint(d.b[d.off:])
	if n <= 0 {
		return 0, d.errorf("invalid varint")
	}
	d.off += n
	return x, nil
}

func (d *decoder) uvarint() (uint64, error) {
	x, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		return 0, d.errorf("invalid uvarint")
	}
	d.off += n
	return x, nil
}

// count reads a length or element count (what says which), which cannot
// exceed the bytes left since every byte or element takes at least one
// byte.
func (d *decoder) count(what string) (int, error) {
	n, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	if n > uint64(len(d.b)-d.off) {
		return 0, d.errorf("%s %d exceeds the %d bytes left", what, n, len(d.b)-d.off)
	}
	return int(n), nil
}

// bytes reads a length-prefixed byte string without copying it.
func (d *decoder) bytes() ([]byte, error) {
	n, err := d.count("length")
	if err != nil {
		return nil, err
	}
	s := d.b[d.off : d.off+n]
	d.off += n
	return s, nil
}

func (d *decoder) value(depth int) (Value, error) {
	if d.off >= len(d.b) {
		return Null, d.errorf("unexpected end of input")
	}
	tag := d.b[d.off]
	d.off++
	switch tag {
	case tagNull:
		return Null, nil
	case tagFalse, tagTrue:
		return NewBool(tag == tagTrue), nil
	case tagInt, tagDate, tagTime, tagTimestamp, tagIntervalMonths, tagIntervalNanos:
		n, err := d.varint()
		return Value{k: scalarKinds[tag], n: n}, err
	case tagTimestampMillis:
		ms, err := d.varint()
		if err == nil && (ms > math.MaxInt64/nanosPerMilli || ms < math.MinInt64/nanosPerMilli) {
			err = d.errorf("timestamp %d ms out of range", ms)
		}
		return NewTimestampMillis(ms), err
	case tagFloat:
		if len(d.b)-d.off < 8 {
			return Null, d.errorf("truncated float")
		}
		bits := binary.LittleEndian.Uint64(d.b[d.off:])
		d.off += 8
		return Value{k: KindFloat, n: int64(bits)}, nil
	case tagDecimal:
		return d.decimal()
	case tagString, tagBytes:
		s, err := d.bytes()
		if err != nil {
			return Null, err
		}
		if tag == tagBytes {
			return Value{k: KindBytes, s: string(s)}, nil
		}
		return NewString(string(s)), nil
	case tagArray, tagRow, tagMap:
		if depth >= maxValueDepth {
			return Null, d.errorf("value nested more than %d levels deep", maxValueDepth)
		}
		return d.composite(tag, depth)
	}
	d.off--
	return Null, d.errorf("unknown tag %d", tag)
}

// scalarKinds maps the tags of integer-like values to their kinds.
var scalarKinds = [numTags]Kind{
	tagInt:            KindInt,
	tagDate:           KindDate,
	tagTime:           KindTime,
	tagTimestamp:      KindTimestamp,
	tagIntervalMonths: KindIntervalMonths,
	tagIntervalNanos:  KindIntervalNanos,
}

func (d *decoder) decimal() (Value, error) {
	if d.off >= len(d.b) {
		return Null, d.errorf("truncated decimal")
	}
	flags := d.b[d.off]
	if flags&^(decimalNegative|decimalFormMask) != 0 {
		return Null, d.errorf("invalid decimal flags %#x", flags)
	}
	d.off++
	exp, err := d.varint()
	if err != nil {
		return Null, err
	}
	if exp < apd.MinExponent || exp > apd.MaxExponent {
		return Null, d.errorf("decimal exponent %d out of range", exp)
	}
	mag, err := d.bytes()
	if err != nil {
		return Null, err
	}
	dec := &apd.Decimal{
		Form:     apd.Form(flags & decimalFormMask >> 1),
		Negative: flags&decimalNegative != 0,
		Exponent: int32(exp),
	}
	for len(mag) > 0 && mag[0] == 0 {
		mag = mag[1:]
	}
	if len(mag) <= 8 {
		var c uint64
		for _, x := range mag {
			c = c<<8 | uint64(x)
		}
		dec.Coeff.SetUint64(c)
	} else {
		dec.Coeff.SetBytes(mag)
	}
	return NewDecimal(dec), nil
}

// composite decodes the elements of an ARRAY, MAP or ROW. The count was
// checked against the bytes left, but nested values could each claim the
// same bytes, so the slices grow by append past a small initial capacity:
// allocations stay proportional to what is actually decoded.
func (d *decoder) composite(tag byte, depth int) (Value, error) {
	n, err := d.count("count")
	if err != nil {
		return Null, err
	}
	const prealloc = 64
	if tag == tagMap {
		entries := make([]MapEntry, 0, min(n, prealloc))
		for range n {
			var e MapEntry
			if e.Key, err = d.value(depth + 1); err != nil {
				return Null, err
			}
			if e.Val, err = d.value(depth + 1); err != nil {
				return Null, err
			}
			entries = append(entries, e)
		}
		return NewMap(entries), nil
	}
	elems := make([]Value, 0, min(n, prealloc))
	for range n {
		v, err := d.value(depth + 1)
		if err != nil {
			return Null, err
		}
		elems = append(elems, v)
	}
	if tag == tagRow {
		return NewRow(elems), nil
	}
	return NewArray(elems), nil
}
