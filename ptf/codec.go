package ptf

import (
	"encoding"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"
)

// binaryCodec is the default codec of value state whose Go type is made of
// strings, booleans, numbers, time.Time, *apd.Decimal, pointers, slices,
// string-keyed maps and structs of those (exported fields only). It writes
// a compact binary form, several times faster than JSON; types it cannot
// handle use encoding/json instead (see defaultCodec).
type binaryCodec[T any] struct {
	enc encFunc
	dec decFunc
}

type (
	encFunc func(b []byte, v reflect.Value) []byte
	decFunc func(d *decoder, v reflect.Value) error
)

// decoder reads a binaryCodec encoding.
type decoder struct{ b []byte }

var errShort = errors.New("ptf: state value is truncated")

func (d *decoder) uvarint() (uint64, error) {
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		return 0, errShort
	}
	d.b = d.b[n:]
	return x, nil
}

// length reads the element count of a slice or map (0 encodes nil, n+1 a
// collection of n). When every element takes at least one byte the count is
// checked against the bytes left, so a corrupt count cannot allocate much.
func (d *decoder) length(elemsTakeBytes bool) (n int, isNil bool, err error) {
	c, err := d.uvarint()
	if err != nil || c == 0 {
		return 0, err == nil, err
	}
	c--
	if (elemsTakeBytes && c > uint64(len(d.b))) || c > 1<<24 {
		return 0, false, errShort
	}
	return int(c), false, nil
}

// present reads the presence byte of a nullable value.
func (d *decoder) present() (bool, error) {
	if len(d.b) == 0 {
		return false, errShort
	}
	set := d.b[0] != 0
	d.b = d.b[1:]
	return set, nil
}

func (d *decoder) varint() (int64, error) {
	x, n := binary.Varint(d.b)
	if n <= 0 {
		return 0, errShort
	}
	d.b = d.b[n:]
	return x, nil
}

func (d *decoder) bytes() ([]byte, error) {
	n, err := d.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(d.b)) {
		return nil, errShort
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out, nil
}

// defaultCodec returns the binary codec for T, or the JSON codec when T
// holds a type the binary codec does not handle.
func defaultCodec[T any]() Codec[T] {
	enc, dec, ok := compile(reflect.TypeFor[T](), 0)
	if !ok {
		return jsonCodec[T]{}
	}
	return binaryCodec[T]{enc: enc, dec: dec}
}

func (c binaryCodec[T]) Encode(v *T) ([]byte, error) {
	return c.enc(nil, reflect.ValueOf(v).Elem()), nil
}

func (c binaryCodec[T]) Decode(b []byte, v *T) error {
	d := &decoder{b: b}
	if err := c.dec(d, reflect.ValueOf(v).Elem()); err != nil {
		return err
	}
	if len(d.b) != 0 {
		return fmt.Errorf("ptf: %d unexpected bytes after a state value", len(d.b))
	}
	return nil
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	decimalType = reflect.TypeFor[*apd.Decimal]()
)

// compile builds the encoder and decoder of t; ok is false for types the
// binary codec does not handle.
func compile(t reflect.Type, depth int) (encFunc, decFunc, bool) {
	if depth > 16 {
		return nil, nil, false // recursive types use JSON
	}
	switch {
	case t == timeType:
		return func(b []byte, v reflect.Value) []byte {
				tm := v.Interface().(time.Time)
				if tm.IsZero() {
					return append(b, 0)
				}
				return binary.AppendVarint(append(b, 1), tm.UnixNano())
			}, func(d *decoder, v reflect.Value) error {
				set, err := d.present()
				if err != nil || !set {
					v.Set(reflect.Zero(timeType))
					return err
				}
				n, err := d.varint()
				if err != nil {
					return err
				}
				v.Set(reflect.ValueOf(time.Unix(0, n).UTC()))
				return nil
			}, true
	case t == decimalType:
		return func(b []byte, v reflect.Value) []byte {
				if v.IsNil() {
					return append(b, 0)
				}
				s := v.Interface().(*apd.Decimal).String()
				return append(binary.AppendUvarint(append(b, 1), uint64(len(s))), s...)
			}, func(d *decoder, v reflect.Value) error {
				set, err := d.present()
				if err != nil || !set {
					v.Set(reflect.Zero(decimalType))
					return err
				}
				s, err := d.bytes()
				if err != nil {
					return err
				}
				x, _, err := apd.NewFromString(string(s))
				if err != nil {
					return fmt.Errorf("ptf: decoding a DECIMAL in state: %w", err)
				}
				v.Set(reflect.ValueOf(x))
				return nil
			}, true
	}
	if hasCustomEncoding(t) {
		return nil, nil, false // respect MarshalJSON and friends: use JSON
	}
	switch t.Kind() {
	case reflect.String:
		return func(b []byte, v reflect.Value) []byte {
				s := v.String()
				return append(binary.AppendUvarint(b, uint64(len(s))), s...)
			}, func(d *decoder, v reflect.Value) error {
				s, err := d.bytes()
				v.SetString(string(s))
				return err
			}, true
	case reflect.Bool:
		return func(b []byte, v reflect.Value) []byte {
				if v.Bool() {
					return append(b, 1)
				}
				return append(b, 0)
			}, func(d *decoder, v reflect.Value) error {
				if len(d.b) == 0 {
					return errShort
				}
				v.SetBool(d.b[0] != 0)
				d.b = d.b[1:]
				return nil
			}, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(b []byte, v reflect.Value) []byte { return binary.AppendVarint(b, v.Int()) },
			func(d *decoder, v reflect.Value) error {
				x, err := d.varint()
				v.SetInt(x)
				return err
			}, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(b []byte, v reflect.Value) []byte { return binary.AppendUvarint(b, v.Uint()) },
			func(d *decoder, v reflect.Value) error {
				x, err := d.uvarint()
				v.SetUint(x)
				return err
			}, true
	case reflect.Float32, reflect.Float64:
		return func(b []byte, v reflect.Value) []byte {
				return binary.BigEndian.AppendUint64(b, math.Float64bits(v.Float()))
			}, func(d *decoder, v reflect.Value) error {
				if len(d.b) < 8 {
					return errShort
				}
				v.SetFloat(math.Float64frombits(binary.BigEndian.Uint64(d.b)))
				d.b = d.b[8:]
				return nil
			}, true
	case reflect.Pointer:
		ee, ed, ok := compile(t.Elem(), depth+1)
		if !ok {
			return nil, nil, false
		}
		return func(b []byte, v reflect.Value) []byte {
				if v.IsNil() {
					return append(b, 0)
				}
				return ee(append(b, 1), v.Elem())
			}, func(d *decoder, v reflect.Value) error {
				set, err := d.present()
				if err != nil || !set {
					v.Set(reflect.Zero(t))
					return err
				}
				p := reflect.New(t.Elem())
				if err := ed(d, p.Elem()); err != nil {
					return err
				}
				v.Set(p)
				return nil
			}, true
	case reflect.Slice:
		ee, ed, ok := compile(t.Elem(), depth+1)
		if !ok {
			return nil, nil, false
		}
		return func(b []byte, v reflect.Value) []byte {
				if v.IsNil() {
					return append(b, 0)
				}
				b = binary.AppendUvarint(b, uint64(v.Len())+1)
				for i := 0; i < v.Len(); i++ {
					b = ee(b, v.Index(i))
				}
				return b
			}, func(d *decoder, v reflect.Value) error {
				n, isNil, err := d.length(t.Elem().Size() > 0)
				if err != nil || isNil {
					v.Set(reflect.Zero(t))
					return err
				}
				s := reflect.MakeSlice(t, n, n)
				for i := 0; i < n; i++ {
					if err := ed(d, s.Index(i)); err != nil {
						return err
					}
				}
				v.Set(s)
				return nil
			}, true
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, nil, false
		}
		ke, kd, _ := compile(t.Key(), depth+1)
		ve, vd, ok := compile(t.Elem(), depth+1)
		if !ok {
			return nil, nil, false
		}
		return func(b []byte, v reflect.Value) []byte {
				if v.IsNil() {
					return append(b, 0)
				}
				b = binary.AppendUvarint(b, uint64(v.Len())+1)
				// Keys in order, so that equal maps encode to equal bytes
				// (TTL change detection compares encodings).
				keys := v.MapKeys()
				slices.SortFunc(keys, func(x, y reflect.Value) int { return strings.Compare(x.String(), y.String()) })
				for _, k := range keys {
					b = ke(b, k)
					b = ve(b, v.MapIndex(k))
				}
				return b
			}, func(d *decoder, v reflect.Value) error {
				n, isNil, err := d.length(true)
				if err != nil || isNil {
					v.Set(reflect.Zero(t))
					return err
				}
				m := reflect.MakeMapWithSize(t, n)
				for i := 0; i < n; i++ {
					k := reflect.New(t.Key()).Elem()
					x := reflect.New(t.Elem()).Elem()
					if err := kd(d, k); err != nil {
						return err
					}
					if err := vd(d, x); err != nil {
						return err
					}
					m.SetMapIndex(k, x)
				}
				v.Set(m)
				return nil
			}, true
	case reflect.Struct:
		var idx []int
		var encs []encFunc
		var decs []decFunc
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				// Unexported fields would be lost silently; JSON at least
				// uses a type's own marshalers (big.Int, netip.Addr, ...).
				return nil, nil, false
			}
			e, dfn, ok := compile(f.Type, depth+1)
			if !ok {
				return nil, nil, false
			}
			idx, encs, decs = append(idx, i), append(encs, e), append(decs, dfn)
		}
		return func(b []byte, v reflect.Value) []byte {
				for k, i := range idx {
					b = encs[k](b, v.Field(i))
				}
				return b
			}, func(d *decoder, v reflect.Value) error {
				for k, i := range idx {
					if err := decs[k](d, v.Field(i)); err != nil {
						return err
					}
				}
				return nil
			}, true
	}
	return nil, nil, false
}

var (
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	binaryMarshalerType = reflect.TypeFor[encoding.BinaryMarshaler]()
)

// hasCustomEncoding reports whether t (or *t) defines its own encoding.
func hasCustomEncoding(t reflect.Type) bool {
	for _, m := range []reflect.Type{jsonMarshalerType, textMarshalerType, binaryMarshalerType} {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return true
		}
	}
	return false
}
