package ptf

import (
	"encoding/binary"
	"math"
	"reflect"
	"unsafe"
)

// A flat plan encodes a struct whose fields are all strings, booleans and
// numbers in one loop over its fields, with a switch instead of a
// function call per field: calls are what costs most in a WebAssembly
// module (each one saves and restores its frame in linear memory), and
// such structs are most state types. The encoding is the one of the
// general plan, byte for byte.

// leafKind is how one field of a flat struct is stored.
type leafKind uint8

const (
	leafString leafKind = iota
	leafBool
	leafInt8
	leafInt16
	leafInt32
	leafInt64
	leafUint8
	leafUint16
	leafUint32
	leafUint64
	leafFloat32
	leafFloat64
)

// leaf is one field of a flat struct.
type leaf struct {
	kind leafKind
	off  uintptr
}

// leafOf returns the leaf kind of t, if it is one (types with their own
// encoding are not: the caller checked hasCustomEncoding first).
func leafOf(t reflect.Type) (leafKind, bool) {
	if t == timeType || t == decimalType || hasCustomEncoding(t) {
		return 0, false
	}
	sized := func(base leafKind) (leafKind, bool) {
		switch t.Size() {
		case 1:
			return base, true
		case 2:
			return base + 1, true
		case 4:
			return base + 2, true
		}
		return base + 3, true
	}
	switch t.Kind() {
	case reflect.String:
		return leafString, true
	case reflect.Bool:
		return leafBool, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return sized(leafInt8)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return sized(leafUint8)
	case reflect.Float32:
		return leafFloat32, true
	case reflect.Float64:
		return leafFloat64, true
	}
	return 0, false
}

// flatPlan returns the plan of a struct of leaves, or false.
func flatPlan(t reflect.Type) (plan, bool) {
	leaves := make([]leaf, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		k, ok := leafOf(f.Type)
		if !ok || !f.IsExported() {
			return plan{}, false
		}
		leaves = append(leaves, leaf{kind: k, off: f.Offset})
	}
	return plan{
		enc:  func(b []byte, p unsafe.Pointer) []byte { return encodeLeaves(b, p, leaves) },
		dec:  func(b []byte, p unsafe.Pointer, in *interner) ([]byte, error) { return decodeLeaves(b, p, leaves, in) },
		zero: func(p unsafe.Pointer) bool { return zeroLeaves(p, leaves) },
	}, true
}

func encodeLeaves(b []byte, p unsafe.Pointer, leaves []leaf) []byte {
	for _, l := range leaves {
		q := unsafe.Add(p, l.off)
		switch l.kind {
		case leafString:
			s := *(*string)(q)
			if len(s) < 0x80 {
				b = append(b, byte(len(s)))
			} else {
				b = binary.AppendUvarint(b, uint64(len(s)))
			}
			b = append(b, s...)
		case leafBool:
			if *(*bool)(q) {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		case leafInt8:
			b = binary.AppendVarint(b, int64(*(*int8)(q)))
		case leafInt16:
			b = binary.AppendVarint(b, int64(*(*int16)(q)))
		case leafInt32:
			b = binary.AppendVarint(b, int64(*(*int32)(q)))
		case leafInt64:
			b = binary.AppendVarint(b, *(*int64)(q))
		case leafUint8:
			b = binary.AppendUvarint(b, uint64(*(*uint8)(q)))
		case leafUint16:
			b = binary.AppendUvarint(b, uint64(*(*uint16)(q)))
		case leafUint32:
			b = binary.AppendUvarint(b, uint64(*(*uint32)(q)))
		case leafUint64:
			b = binary.AppendUvarint(b, *(*uint64)(q))
		case leafFloat32:
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(float64(*(*float32)(q))))
		case leafFloat64:
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(*(*float64)(q)))
		}
	}
	return b
}

func decodeLeaves(b []byte, p unsafe.Pointer, leaves []leaf, in *interner) ([]byte, error) {
	for _, l := range leaves {
		q := unsafe.Add(p, l.off)
		switch l.kind {
		case leafString:
			var n uint64
			if len(b) > 0 && b[0] < 0x80 {
				n, b = uint64(b[0]), b[1:]
			} else {
				var err error
				if n, b, err = uvarintOf(b); err != nil {
					return nil, err
				}
			}
			if n > uint64(len(b)) {
				return nil, errShort
			}
			if in != nil {
				*(*string)(q) = in.String(b[:n])
			} else {
				*(*string)(q) = string(b[:n])
			}
			b = b[n:]
		case leafBool:
			if len(b) == 0 {
				return nil, errShort
			}
			*(*bool)(q) = b[0] != 0
			b = b[1:]
		case leafInt8, leafInt16, leafInt32, leafInt64:
			x, n := binary.Varint(b)
			if n <= 0 {
				return nil, errShort
			}
			b = b[n:]
			switch l.kind {
			case leafInt8:
				*(*int8)(q) = int8(x)
			case leafInt16:
				*(*int16)(q) = int16(x)
			case leafInt32:
				*(*int32)(q) = int32(x)
			default:
				*(*int64)(q) = x
			}
		case leafUint8, leafUint16, leafUint32, leafUint64:
			x, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, errShort
			}
			b = b[n:]
			switch l.kind {
			case leafUint8:
				*(*uint8)(q) = uint8(x)
			case leafUint16:
				*(*uint16)(q) = uint16(x)
			case leafUint32:
				*(*uint32)(q) = uint32(x)
			default:
				*(*uint64)(q) = x
			}
		case leafFloat32, leafFloat64:
			if len(b) < 8 {
				return nil, errShort
			}
			f := math.Float64frombits(binary.BigEndian.Uint64(b))
			b = b[8:]
			if l.kind == leafFloat32 {
				*(*float32)(q) = float32(f)
			} else {
				*(*float64)(q) = f
			}
		}
	}
	return b, nil
}

func zeroLeaves(p unsafe.Pointer, leaves []leaf) bool {
	for _, l := range leaves {
		q := unsafe.Add(p, l.off)
		var zero bool
		switch l.kind {
		case leafString:
			zero = len(*(*string)(q)) == 0
		case leafBool, leafInt8, leafUint8:
			zero = *(*uint8)(q) == 0
		case leafInt16, leafUint16:
			zero = *(*uint16)(q) == 0
		case leafInt32, leafUint32:
			zero = *(*uint32)(q) == 0
		case leafInt64, leafUint64:
			zero = *(*uint64)(q) == 0
		case leafFloat32:
			zero = *(*float32)(q) == 0
		case leafFloat64:
			zero = *(*float64)(q) == 0
		}
		if !zero {
			return false
		}
	}
	return true
}
