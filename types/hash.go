package types

import (
	"encoding/binary"
	"math"
	"math/big"

	"github.com/cockroachdb/apd/v3"
)

// KeyBytes appends to dst the bytes a key made of vals (of types ts) is
// hashed by, and returns the extended buffer. It does not allocate for
// scalar kinds when dst has enough capacity.
//
// A single-column key is written as Flink's 'raw' format (and hence a Kafka
// record key written with it) holds the value:
//
//   - TINYINT, SMALLINT, INT and BIGINT: 1, 2, 4 and 8 bytes big-endian;
//   - BOOLEAN: one byte, 0 or 1;
//   - FLOAT and DOUBLE: the IEEE 754 bits, 4 or 8 bytes big-endian (every
//     NaN as the canonical NaN, as Java's floatToIntBits);
//   - CHAR and VARCHAR: the UTF-8 bytes; BINARY and VARBINARY: the bytes;
//   - DECIMAL: the unscaled value at the type's scale, as Java's
//     BigInteger.toByteArray (big-endian two's complement, fewest bytes);
//   - DATE: days since the epoch as int32; TIME: milliseconds of the day as
//     int32; TIMESTAMP and TIMESTAMP_LTZ: epoch milliseconds as int64;
//     year-month intervals: months as int32; day-time intervals:
//     milliseconds as int64 (all big-endian);
//   - NULL: no bytes at all, as Kafka's null key (so NULL and the empty
//     string share their bytes: KeyBytes is for hashing and partitioning,
//     not for telling keys apart);
//   - ARRAY, MAP and ROW, which the raw format does not support: the 8
//     bytes big-endian of Hash64 of the value.
//
// A key of several columns is the concatenation, for each column, of the
// length of its single-column bytes as a big-endian int32 followed by those
// bytes; a NULL column is the length -1 (ff ff ff ff) and no bytes.
//
// A value whose kind does not match its type (or that has no type, when ts
// is shorter than vals) is written by its kind: integers in 8 bytes, floats
// as DOUBLE, decimals at their own scale. Equal values of the same type
// give the same bytes.
func KeyBytes(dst []byte, vals []Value, ts []Type) []byte {
	if len(vals) == 1 {
		return appendKeyColumn(dst, vals[0], typeAt(ts, 0))
	}
	for i, v := range vals {
		if v.k == KindNull {
			dst = binary.BigEndian.AppendUint32(dst, math.MaxUint32)
			continue
		}
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst = appendKeyColumn(dst, v, typeAt(ts, i))
		binary.BigEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	}
	return dst
}

func typeAt(ts []Type, i int) Type {
	if i < len(ts) {
		return ts[i]
	}
	return NullType
}

// appendKeyColumn appends the raw bytes of one key column.
func appendKeyColumn(dst []byte, v Value, t Type) []byte {
	be := binary.BigEndian
	switch v.k {
	case KindNull:
		return dst
	case KindBool:
		return append(dst, byte(v.n))
	case KindInt:
		switch t.ID {
		case TypeTinyInt:
			return append(dst, byte(v.n))
		case TypeSmallInt:
			return be.AppendUint16(dst, uint16(v.n))
		case TypeInt:
			return be.AppendUint32(dst, uint32(v.n))
		}
		return be.AppendUint64(dst, uint64(v.n))
	case KindFloat:
		f := v.Float()
		if t.ID == TypeFloat {
			if f != f {
				return be.AppendUint32(dst, 0x7fc00000)
			}
			return be.AppendUint32(dst, math.Float32bits(float32(f)))
		}
		return be.AppendUint64(dst, uint64(javaDoubleBits(f)))
	case KindDecimal:
		scale := -1
		if t.ID == TypeDecimal {
			scale = t.Scale
		}
		return appendUnscaled(dst, v.Decimal(), scale)
	case KindString, KindBytes:
		return append(dst, v.s...)
	case KindDate:
		return be.AppendUint32(dst, uint32(v.n))
	case KindTime:
		return be.AppendUint32(dst, uint32(floorDiv(v.n, nanosPerMilli)))
	case KindTimestamp, KindIntervalNanos:
		return be.AppendUint64(dst, uint64(floorDiv(v.n, nanosPerMilli)))
	case KindIntervalMonths:
		return be.AppendUint32(dst, uint32(v.n))
	}
	h := fnv64(fnvOffset64)
	h.value(v)
	return be.AppendUint64(dst, uint64(h))
}

// appendUnscaled appends the unscaled value of d at the given scale (or,
// when scale is negative or d has more fractional digits, at the least
// non-negative scale that holds d exactly) as
// Java's BigInteger.toByteArray. Non-finite decimals, which Flink cannot
// hold, are written as one byte 0x80|form.
func appendUnscaled(dst []byte, d *apd.Decimal, scale int) []byte {
	if d == nil || d.Form != apd.Finite {
		form := byte(apd.NaN)
		if d != nil {
			form = byte(d.Form)
		}
		return append(dst, 0x80|form)
	}
	coeff, exp, ok := reducedSmall(d)
	if !ok {
		return appendUnscaledBig(dst, d, scale)
	}
	if scale < 0 || exp+scale < 0 {
		scale = max(-exp, 0)
	}
	for ; exp+scale > 0; exp-- {
		if coeff > math.MaxInt64/10 {
			return appendUnscaledBig(dst, d, scale)
		}
		coeff *= 10
	}
	x := int64(coeff)
	if d.Negative {
		x = -x
	}
	// Fewest bytes whose top bit is the sign bit.
	n := 1
	for m := x >> 7; m != 0 && m != -1; m >>= 8 {
		n++
	}
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(x>>(8*i)))
	}
	return dst
}

// reducedSmall returns the coefficient without trailing zeros and the
// matching exponent when the coefficient fits an int64 (zero has exponent
// 0).
func reducedSmall(d *apd.Decimal) (uint64, int, bool) {
	if !d.Coeff.IsUint64() {
		return 0, 0, false
	}
	c, e := d.Coeff.Uint64(), int(d.Exponent)
	if c == 0 {
		return 0, 0, true
	}
	if c > math.MaxInt64 {
		return 0, 0, false
	}
	for c%10 == 0 {
		c /= 10
		e++
	}
	return c, e, true
}

// appendUnscaledBig is appendUnscaled for large coefficients.
func appendUnscaledBig(dst []byte, d *apd.Decimal, scale int) []byte {
	var r apd.Decimal
	r.Reduce(d)
	x := new(big.Int).Set(r.Coeff.MathBigInt())
	e := int(r.Exponent)
	if scale < 0 || e+scale < 0 {
		scale = max(-e, 0)
	}
	if k := e + scale; k > 0 {
		x.Mul(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil))
	}
	if d.Negative && x.Sign() != 0 {
		x.Neg(x)
	}
	return appendTwosComplement(dst, x)
}

// appendTwosComplement appends x as Java's BigInteger.toByteArray.
func appendTwosComplement(dst []byte, x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := make([]byte, x.BitLen()/8+1)
		return append(dst, x.FillBytes(b)...)
	}
	// -x - 1 has the complemented bits of x.
	t := new(big.Int).Neg(x)
	t.Sub(t, big.NewInt(1))
	b := make([]byte, t.BitLen()/8+1)
	t.FillBytes(b)
	for i := range b {
		b[i] = ^b[i]
	}
	return append(dst, b...)
}

// FNV-1a, 64 bits.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

type fnv64 uint64

func (h *fnv64) byte(b byte) { *h = (*h ^ fnv64(b)) * fnvPrime64 }

func (h *fnv64) uint64(x uint64) {
	for i := 56; i >= 0; i -= 8 {
		h.byte(byte(x >> i))
	}
}

func (h *fnv64) string(s string) {
	h.uint64(uint64(len(s)))
	for i := 0; i < len(s); i++ {
		h.byte(s[i])
	}
}

// Tags of the canonical encoding hashed by Hash64. Hash64 values decide
// where state lives: never renumber them or change what follows them.
const (
	hashNull byte = iota
	hashBool
	hashInt
	hashFloat
	hashDecimal
	hashString
	hashBytes
	hashDate
	hashTime
	hashTimestamp
	hashMonths
	hashNanos
	hashArray
	hashMap
	hashRow
)

// Hash64 returns a hash of vals that is the same in every process and
// release (FNV-1a over a canonical encoding; the encoding is fixed: key
// groups of stored state depend on it). Values that are Equal and of the
// same kind hash alike (DECIMAL 1.0 and 1.00, the entries of a MAP in any
// order). Integral numbers of every kind hash alike too (INT 1, DOUBLE 1.0
// and DECIMAL 1), but a fractional DOUBLE and an equal DECIMAL need not.
// It does not allocate for scalar kinds.
func Hash64(vals []Value) uint64 {
	h := fnv64(fnvOffset64)
	for _, v := range vals {
		h.value(v)
	}
	return uint64(h)
}

func (h *fnv64) value(v Value) {
	switch v.k {
	case KindNull:
		h.byte(hashNull)
	case KindBool:
		h.byte(hashBool)
		h.byte(byte(v.n))
	case KindInt:
		h.int(v.n)
	case KindFloat:
		f := v.Float()
		if f == math.Trunc(f) && f >= -0x1p63 && f < 0x1p63 && !(f == 0 && math.Signbit(f)) {
			h.int(int64(f))
			return
		}
		h.byte(hashFloat)
		h.uint64(uint64(javaDoubleBits(f)))
	case KindDecimal:
		h.decimal(v.Decimal())
	case KindString:
		h.byte(hashString)
		h.string(v.s)
	case KindBytes:
		h.byte(hashBytes)
		h.string(v.s)
	case KindDate, KindTime, KindTimestamp, KindIntervalMonths, KindIntervalNanos:
		h.byte(hashDate + byte(v.k-KindDate))
		h.uint64(uint64(v.n))
	case KindArray, KindRow:
		if v.k == KindArray {
			h.byte(hashArray)
		} else {
			h.byte(hashRow)
		}
		elems := v.Fields()
		h.uint64(uint64(len(elems)))
		for _, e := range elems {
			h.value(e)
		}
	case KindMap:
		// Order-independent: the sum of the entries' hashes.
		var sum uint64
		for _, e := range v.Map() {
			eh := fnv64(fnvOffset64)
			eh.value(e.Key)
			eh.value(e.Val)
			sum += uint64(eh)
		}
		h.byte(hashMap)
		h.uint64(uint64(len(v.Map())))
		h.uint64(sum)
	}
}

func (h *fnv64) int(n int64) {
	h.byte(hashInt)
	h.uint64(uint64(n))
}

// decimal hashes d by value: integral decimals that fit an int64 as that
// integer, others as sign, reduced coefficient and exponent.
func (h *fnv64) decimal(d *apd.Decimal) {
	if d == nil || d.Form != apd.Finite {
		h.byte(hashDecimal)
		if d == nil {
			h.byte(byte(apd.NaN))
			return
		}
		h.byte(byte(d.Form))
		if d.Form == apd.Infinite && d.Negative {
			h.byte(1)
		}
		return
	}
	src := d
	var r apd.Decimal
	if !d.Coeff.IsUint64() {
		r.Reduce(d)
		src = &r
	}
	if !src.Coeff.IsUint64() {
		h.byte(hashDecimal)
		h.sign(d.Negative)
		h.string(string(src.Coeff.Bytes()))
		h.uint64(uint64(int64(src.Exponent)))
		return
	}
	c, e := src.Coeff.Uint64(), int(src.Exponent)
	if c == 0 {
		h.int(0)
		return
	}
	for c%10 == 0 {
		c /= 10
		e++
	}
	limit := uint64(math.MaxInt64)
	if d.Negative {
		limit++ // -2^63 fits
	}
	for ; e > 0 && c <= limit/10; e-- {
		c *= 10
	}
	if e == 0 && c <= limit {
		x := int64(c)
		if d.Negative {
			x = -x
		}
		h.int(x)
		return
	}
	h.byte(hashDecimal)
	h.sign(d.Negative)
	h.uint64(c)
	h.uint64(uint64(int64(e)))
}

func (h *fnv64) sign(neg bool) {
	if neg {
		h.byte(1)
	} else {
		h.byte(0)
	}
}
