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
	"unsafe"

	"github.com/cockroachdb/apd/v3"
)

// binaryCodec is the default codec of value state whose Go type is made of
// strings, booleans, numbers, time.Time, *apd.Decimal, pointers, slices,
// string-keyed maps and structs of those (exported fields only). It writes
// a compact binary form, several times faster than JSON; types it cannot
// handle use encoding/json instead (see defaultCodec).
//
// The encoder and decoder are compiled once per type into functions that
// read and write the value through its address and the field offsets:
// reflect.Value is used only to make pointers, slices and maps, which keeps
// a call cheap natively and inside WebAssembly modules, where reflection is
// particularly slow.
type binaryCodec[T any] struct {
	enc  encFunc
	dec  decFunc
	zero zeroFunc
}

type (
	// encFunc appends the encoding of the value at p to b.
	encFunc func(b []byte, p unsafe.Pointer) []byte
	// decFunc decodes a value from the start of b into p and returns the
	// rest of b; strings come from in when it is not nil.
	decFunc func(b []byte, p unsafe.Pointer, in *interner) ([]byte, error)
	// zeroFunc reports whether the value at p is the zero value of its
	// type, as reflect.Value.IsZero does.
	zeroFunc func(p unsafe.Pointer) bool
)

var errShort = errors.New("ptf: state value is truncated")

func uvarintOf(b []byte) (uint64, []byte, error) {
	x, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, nil, errShort
	}
	return x, b[n:], nil
}

func varintOf(b []byte) (int64, []byte, error) {
	x, n := binary.Varint(b)
	if n <= 0 {
		return 0, nil, errShort
	}
	return x, b[n:], nil
}

// lengthOf reads the element count of a slice or map (0 encodes nil, n+1
// a collection of n). When every element takes at least one byte the
// count is checked against the bytes left, so a corrupt count cannot
// allocate much.
func lengthOf(b []byte, elemsTakeBytes bool) (n int, isNil bool, rest []byte, err error) {
	c, rest, err := uvarintOf(b)
	if err != nil || c == 0 {
		return 0, err == nil, rest, err
	}
	c--
	if (elemsTakeBytes && c > uint64(len(rest))) || c > 1<<24 {
		return 0, false, nil, errShort
	}
	return int(c), false, rest, nil
}

// presentOf reads the presence byte of a nullable value.
func presentOf(b []byte) (bool, []byte, error) {
	if len(b) == 0 {
		return false, nil, errShort
	}
	return b[0] != 0, b[1:], nil
}

// bytesOf reads a length-prefixed byte string without copying it.
func bytesOf(b []byte) ([]byte, []byte, error) {
	n, rest, err := uvarintOf(b)
	if err != nil {
		return nil, nil, err
	}
	if n > uint64(len(rest)) {
		return nil, nil, errShort
	}
	return rest[:n], rest[n:], nil
}

// defaultCodec returns the binary codec for T, or the JSON codec when T
// holds a type the binary codec does not handle.
func defaultCodec[T any]() Codec[T] {
	c, ok := compile(reflect.TypeFor[T](), 0)
	if !ok {
		return jsonCodec[T]{}
	}
	return binaryCodec[T]{enc: c.enc, dec: c.dec, zero: c.zero}
}

func (c binaryCodec[T]) Encode(v *T) ([]byte, error) {
	return c.enc(nil, unsafe.Pointer(v)), nil
}

func (c binaryCodec[T]) Decode(b []byte, v *T) error {
	return c.decode(b, v, nil)
}

// decode is Decode with the strings taken from in (when not nil).
func (c binaryCodec[T]) decode(b []byte, v *T, in *interner) error {
	rest, err := c.dec(b, unsafe.Pointer(v), in)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return fmt.Errorf("ptf: %d unexpected bytes after a state value", len(rest))
	}
	return nil
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	decimalType = reflect.TypeFor[*apd.Decimal]()
)

// sliceHeader is the layout of a slice.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// plan is the compiled encoder, decoder and emptiness test of one type.
type plan struct {
	enc  encFunc
	dec  decFunc
	zero zeroFunc
}

// compile builds the plan of t; ok is false for types the binary codec
// does not handle.
func compile(t reflect.Type, depth int) (plan, bool) {
	if depth > 16 {
		return plan{}, false // recursive types use JSON
	}
	switch {
	case t == timeType:
		return plan{func(b []byte, p unsafe.Pointer) []byte {
			tm := (*time.Time)(p)
			if tm.IsZero() {
				return append(b, 0)
			}
			return binary.AppendVarint(append(b, 1), tm.UnixNano())
		}, func(b []byte, p unsafe.Pointer, _ *interner) ([]byte, error) {
			set, b, err := presentOf(b)
			if err != nil || !set {
				*(*time.Time)(p) = time.Time{}
				return b, err
			}
			n, b, err := varintOf(b)
			if err != nil {
				return nil, err
			}
			*(*time.Time)(p) = time.Unix(0, n).UTC()
			return b, nil
		}, func(p unsafe.Pointer) bool {
			// All fields zero (wall, ext, loc), as reflect compares them.
			return *(*time.Time)(p) == time.Time{}
		}}, true
	case t == decimalType:
		return plan{func(b []byte, p unsafe.Pointer) []byte {
			d := *(**apd.Decimal)(p)
			if d == nil {
				return append(b, 0)
			}
			s := d.String()
			return append(binary.AppendUvarint(append(b, 1), uint64(len(s))), s...)
		}, func(b []byte, p unsafe.Pointer, _ *interner) ([]byte, error) {
			set, b, err := presentOf(b)
			if err != nil || !set {
				*(**apd.Decimal)(p) = nil
				return b, err
			}
			s, b, err := bytesOf(b)
			if err != nil {
				return nil, err
			}
			x, _, err := apd.NewFromString(string(s))
			if err != nil {
				return nil, fmt.Errorf("ptf: decoding a DECIMAL in state: %w", err)
			}
			*(**apd.Decimal)(p) = x
			return b, nil
		}, isNilPointer}, true
	}
	if hasCustomEncoding(t) {
		return plan{}, false // respect MarshalJSON and friends: use JSON
	}
	switch t.Kind() {
	case reflect.String:
		return plan{func(b []byte, p unsafe.Pointer) []byte {
			s := *(*string)(p)
			return append(binary.AppendUvarint(b, uint64(len(s))), s...)
		}, func(b []byte, p unsafe.Pointer, in *interner) ([]byte, error) {
			s, b, err := bytesOf(b)
			if in != nil {
				*(*string)(p) = in.String(s)
			} else {
				*(*string)(p) = string(s)
			}
			return b, err
		}, func(p unsafe.Pointer) bool { return len(*(*string)(p)) == 0 }}, true
	case reflect.Bool:
		return plan{func(b []byte, p unsafe.Pointer) []byte {
			if *(*bool)(p) {
				return append(b, 1)
			}
			return append(b, 0)
		}, func(b []byte, p unsafe.Pointer, _ *interner) ([]byte, error) {
			if len(b) == 0 {
				return nil, errShort
			}
			*(*bool)(p) = b[0] != 0
			return b[1:], nil
		}, func(p unsafe.Pointer) bool { return !*(*bool)(p) }}, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		get, set := intAccess(t)
		return plan{func(b []byte, p unsafe.Pointer) []byte { return binary.AppendVarint(b, get(p)) },
			func(b []byte, p unsafe.Pointer, _ *interner) ([]byte, error) {
				x, b, err := varintOf(b)
				set(p, x)
				return b, err
			}, func(p unsafe.Pointer) bool { return get(p) == 0 }}, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		get, set := uintAccess(t)
		return plan{func(b []byte, p unsafe.Pointer) []byte { return binary.AppendUvarint(b, get(p)) },
			func(b []byte, p unsafe.Pointer, _ *interner) ([]byte, error) {
				x, b, err := uvarintOf(b)
				set(p, x)
				return b, err
			}, func(p unsafe.Pointer) bool { return get(p) == 0 }}, true
	case reflect.Float32:
		return plan{func(b []byte, p unsafe.Pointer) []byte {
			return binary.BigEndian.AppendUint64(b, math.Float64bits(float64(*(*float32)(p))))
		}, func(b []byte, p unsafe.Pointer, _ *interner) ([]byte, error) {
			if len(b) < 8 {
				return nil, errShort
			}
			*(*float32)(p) = float32(math.Float64frombits(binary.BigEndian.Uint64(b)))
			return b[8:], nil
		}, func(p unsafe.Pointer) bool { return *(*float32)(p) == 0 }}, true // -0 too, as in reflect
	case reflect.Float64:
		return plan{func(b []byte, p unsafe.Pointer) []byte {
			return binary.BigEndian.AppendUint64(b, math.Float64bits(*(*float64)(p)))
		}, func(b []byte, p unsafe.Pointer, _ *interner) ([]byte, error) {
			if len(b) < 8 {
				return nil, errShort
			}
			*(*float64)(p) = math.Float64frombits(binary.BigEndian.Uint64(b))
			return b[8:], nil
		}, func(p unsafe.Pointer) bool { return *(*float64)(p) == 0 }}, true
	case reflect.Pointer:
		elem := t.Elem()
		ep, ok := compile(elem, depth+1)
		if !ok {
			return plan{}, false
		}
		ee, ed := ep.enc, ep.dec
		return plan{func(b []byte, p unsafe.Pointer) []byte {
			q := *(*unsafe.Pointer)(p)
			if q == nil {
				return append(b, 0)
			}
			return ee(append(b, 1), q)
		}, func(b []byte, p unsafe.Pointer, in *interner) ([]byte, error) {
			set, b, err := presentOf(b)
			if err != nil || !set {
				*(*unsafe.Pointer)(p) = nil
				return b, err
			}
			q := reflect.New(elem).UnsafePointer()
			if b, err = ed(b, q, in); err != nil {
				return nil, err
			}
			*(*unsafe.Pointer)(p) = q
			return b, nil
		}, isNilPointer}, true
	case reflect.Slice:
		elem := t.Elem()
		size := elem.Size()
		ep, ok := compile(elem, depth+1)
		if !ok {
			return plan{}, false
		}
		ee, ed := ep.enc, ep.dec
		return plan{func(b []byte, p unsafe.Pointer) []byte {
			h := (*sliceHeader)(p)
			if h.data == nil {
				return append(b, 0)
			}
			b = binary.AppendUvarint(b, uint64(h.len)+1)
			for i := 0; i < h.len; i++ {
				b = ee(b, unsafe.Add(h.data, uintptr(i)*size))
			}
			return b
		}, func(b []byte, p unsafe.Pointer, in *interner) ([]byte, error) {
			n, isNil, b, err := lengthOf(b, size > 0)
			if err != nil || isNil {
				*(*sliceHeader)(p) = sliceHeader{}
				return b, err
			}
			s := reflect.MakeSlice(t, n, n)
			data := s.UnsafePointer()
			for i := 0; i < n; i++ {
				if b, err = ed(b, unsafe.Add(data, uintptr(i)*size), in); err != nil {
					return nil, err
				}
			}
			// Set through reflect: the slice header is then written as
			// a typed value (its data pointer is known to the GC).
			reflect.NewAt(t, p).Elem().Set(s)
			return b, nil
		}, func(p unsafe.Pointer) bool { return (*sliceHeader)(p).data == nil }}, true
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return plan{}, false
		}
		kp, _ := compile(t.Key(), depth+1)
		vp, ok := compile(t.Elem(), depth+1)
		if !ok {
			return plan{}, false
		}
		ke, kd, ve, vd := kp.enc, kp.dec, vp.enc, vp.dec
		return plan{func(b []byte, p unsafe.Pointer) []byte {
			v := reflect.NewAt(t, p).Elem()
			if v.IsNil() {
				return append(b, 0)
			}
			b = binary.AppendUvarint(b, uint64(v.Len())+1)
			// Keys in order, so that equal maps encode to equal bytes
			// (TTL change detection compares encodings).
			keys := v.MapKeys()
			slices.SortFunc(keys, func(x, y reflect.Value) int { return strings.Compare(x.String(), y.String()) })
			k := reflect.New(t.Key()).Elem()
			x := reflect.New(t.Elem()).Elem()
			for _, key := range keys {
				k.Set(key)
				x.Set(v.MapIndex(key))
				b = ke(b, k.Addr().UnsafePointer())
				b = ve(b, x.Addr().UnsafePointer())
			}
			return b
		}, func(b []byte, p unsafe.Pointer, in *interner) ([]byte, error) {
			n, isNil, b, err := lengthOf(b, true)
			if err != nil || isNil {
				reflect.NewAt(t, p).Elem().SetZero()
				return b, err
			}
			m := reflect.MakeMapWithSize(t, n)
			for i := 0; i < n; i++ {
				k := reflect.New(t.Key())
				x := reflect.New(t.Elem())
				if b, err = kd(b, k.UnsafePointer(), in); err != nil {
					return nil, err
				}
				if b, err = vd(b, x.UnsafePointer(), in); err != nil {
					return nil, err
				}
				m.SetMapIndex(k.Elem(), x.Elem())
			}
			reflect.NewAt(t, p).Elem().Set(m)
			return b, nil
		}, isNilPointer}, true // a map is one pointer
	case reflect.Struct:
		if fp, ok := flatPlan(t); ok {
			return fp, true
		}
		var offs []uintptr
		var encs []encFunc
		var decs []decFunc
		var zeros []zeroFunc
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				// Unexported fields would be lost silently; JSON at least
				// uses a type's own marshalers (big.Int, netip.Addr, ...).
				return plan{}, false
			}
			fp, ok := compile(f.Type, depth+1)
			if !ok {
				return plan{}, false
			}
			offs, encs, decs, zeros = append(offs, f.Offset), append(encs, fp.enc), append(decs, fp.dec), append(zeros, fp.zero)
		}
		return plan{func(b []byte, p unsafe.Pointer) []byte {
			for k, off := range offs {
				b = encs[k](b, unsafe.Add(p, off))
			}
			return b
		}, func(b []byte, p unsafe.Pointer, in *interner) ([]byte, error) {
			var err error
			for k, off := range offs {
				if b, err = decs[k](b, unsafe.Add(p, off), in); err != nil {
					return nil, err
				}
			}
			return b, nil
		}, func(p unsafe.Pointer) bool {
			for k, off := range offs {
				if !zeros[k](unsafe.Add(p, off)) {
					return false
				}
			}
			return true
		}}, true
	}
	return plan{}, false
}

// isNilPointer is the emptiness test of pointers and maps.
func isNilPointer(p unsafe.Pointer) bool { return *(*unsafe.Pointer)(p) == nil }

// maxInterned is the longest string an interner keeps.
const maxInterned = 64

// interner remembers recently decoded short strings, so that decoding a
// string equal to one decoded before returns that string instead of
// allocating (state repeats a few strings: statuses, currencies). Go
// strings are immutable, so sharing one is invisible. The zero value is
// ready; it holds at most 64 strings of at most 64 bytes.
type interner struct{ slots [64]string }

// String returns b as a string, a remembered one when it is equal.
func (in *interner) String(b []byte) string {
	n := len(b)
	if n == 0 {
		return ""
	}
	if n > maxInterned {
		return string(b)
	}
	h := (uint(n)*131 ^ uint(b[0])*31 ^ uint(b[n/2])*7 ^ uint(b[n-1])) & 63
	if s := in.slots[h]; s == string(b) {
		return s
	}
	s := string(b)
	in.slots[h] = s
	return s
}

// intAccess reads and writes a signed integer of t's size (as
// reflect.Value.Int and SetInt: the value is truncated to the size).
func intAccess(t reflect.Type) (func(unsafe.Pointer) int64, func(unsafe.Pointer, int64)) {
	switch t.Size() {
	case 1:
		return func(p unsafe.Pointer) int64 { return int64(*(*int8)(p)) }, func(p unsafe.Pointer, x int64) { *(*int8)(p) = int8(x) }
	case 2:
		return func(p unsafe.Pointer) int64 { return int64(*(*int16)(p)) }, func(p unsafe.Pointer, x int64) { *(*int16)(p) = int16(x) }
	case 4:
		return func(p unsafe.Pointer) int64 { return int64(*(*int32)(p)) }, func(p unsafe.Pointer, x int64) { *(*int32)(p) = int32(x) }
	}
	return func(p unsafe.Pointer) int64 { return *(*int64)(p) }, func(p unsafe.Pointer, x int64) { *(*int64)(p) = x }
}

// uintAccess is intAccess for unsigned integers.
func uintAccess(t reflect.Type) (func(unsafe.Pointer) uint64, func(unsafe.Pointer, uint64)) {
	switch t.Size() {
	case 1:
		return func(p unsafe.Pointer) uint64 { return uint64(*(*uint8)(p)) }, func(p unsafe.Pointer, x uint64) { *(*uint8)(p) = uint8(x) }
	case 2:
		return func(p unsafe.Pointer) uint64 { return uint64(*(*uint16)(p)) }, func(p unsafe.Pointer, x uint64) { *(*uint16)(p) = uint16(x) }
	case 4:
		return func(p unsafe.Pointer) uint64 { return uint64(*(*uint32)(p)) }, func(p unsafe.Pointer, x uint64) { *(*uint32)(p) = uint32(x) }
	}
	return func(p unsafe.Pointer) uint64 { return *(*uint64)(p) }, func(p unsafe.Pointer, x uint64) { *(*uint64)(p) = x }
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
