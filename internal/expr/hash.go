package expr

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"math"

	"github.com/eddy-sql/eddy/types"
)

// Hashing and miscellaneous functions.

func init() {
	h := func(name string, newHash func() hash.Hash) funcDef {
		return fdef(name, 1, 1, name+"(string) -> STRING", "The "+name+" digest of the UTF-8 bytes of string (or of BYTES) as lower-case hex.",
			func(c *call) (Expr, error) {
				if err := c.want(aStrBin); err != nil {
					return nil, err
				}
				return c.strictFn(types.String, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					return types.NewString(digest(newHash(), a[0].Str())), nil
				}), nil
			})
	}
	register("hashing", []funcDef{
		h("MD5", md5.New),
		h("SHA1", sha1.New),
		h("SHA224", sha256.New224),
		h("SHA256", sha256.New),
		h("SHA384", sha512.New384),
		h("SHA512", sha512.New),
		fdef("SHA2", 2, 2, "SHA2(string, hashLength) -> STRING",
			"The SHA-2 digest with hashLength bits (224, 256, 384 or 512) as lower-case hex; NULL for another length.",
			func(c *call) (Expr, error) {
				if err := c.want(aStrBin, aInt); err != nil {
					return nil, err
				}
				return c.strictFn(types.String, false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					var hh hash.Hash
					switch a[1].Int() {
					case 224:
						hh = sha256.New224()
					case 256:
						hh = sha256.New()
					case 384:
						hh = sha512.New384()
					case 512:
						hh = sha512.New()
					default:
						return types.Null, nil
					}
					return types.NewString(digest(hh, a[0].Str())), nil
				}), nil
			}),
	})
	register("misc", []funcDef{
		nondet(fdef("UUID", 0, 0, "UUID() -> STRING", "A random (version 4) UUID, per row.",
			func(c *call) (Expr, error) {
				return c.strictFn(types.Char(36), true, func([maxFixedArgs]types.Value) (types.Value, error) {
					return types.NewString(uuid4()), nil
				}), nil
			})),
		fdef("HASH_CODE", 1, 1, "HASH_CODE(value) -> INT",
			"Java's hashCode of the value (String.hashCode, Long.hashCode, ...), as Flink's internal HASH_CODE.", newHashCode),
		fdef("GREATEST", 1, -1, "GREATEST(value1 [, value2]*)", "The greatest argument; NULL if any is NULL.",
			func(c *call) (Expr, error) { return newExtreme(c, 1) }),
		fdef("LEAST", 1, -1, "LEAST(value1 [, value2]*)", "The least argument; NULL if any is NULL.",
			func(c *call) (Expr, error) { return newExtreme(c, -1) }),
		fdef("TYPEOF", 1, 2, "TYPEOF(input) -> STRING; TYPEOF(input, force_serializable) -> STRING",
			"The SQL type of the argument, e.g. 'INT NOT NULL'.",
			func(c *call) (Expr, error) {
				s := types.NewString(typeStringFull(c.args[0].Type()))
				return c.lenientFn(types.String.NonNull(), func([maxFixedArgs]types.Value) (types.Value, error) { return s, nil }), nil
			}),
	})
}

func digest(h hash.Hash, s string) string {
	h.Write([]byte(s))
	return hex.EncodeToString(h.Sum(nil))
}

func uuid4() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	s := hex.EncodeToString(b[:])
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:]
}

// javaStringHash is String.hashCode over UTF-16 code units.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

func newHashCode(c *call) (Expr, error) {
	t := c.args[0].Type()
	switch {
	case t.IsInteger(), t.IsString(), t.ID == types.TypeBoolean, isApprox(t), t.ID == types.TypeDate,
		t.ID == types.TypeTime, t.IsTimestamp(), isBinary(t), t.ID == types.TypeNull:
	default:
		return nil, argTypeError(c.name, c.args)
	}
	return c.strictFn(types.Int, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		v := a[0]
		var h int32
		switch {
		case t.ID == types.TypeBigInt || t.IsTimestamp():
			n := v.Int()
			if t.IsTimestamp() {
				n = floorDiv(n, 1e6) // Flink hashes the millisecond
			}
			h = int32(n ^ int64(uint64(n)>>32))
		case t.IsInteger(), t.ID == types.TypeDate:
			h = int32(v.Int())
		case t.ID == types.TypeTime:
			h = int32(v.Int() / 1e6)
		case t.ID == types.TypeBoolean:
			h = 1237
			if v.Bool() {
				h = 1231
			}
		case t.ID == types.TypeFloat:
			h = int32(math.Float32bits(float32(v.Float())))
		case t.ID == types.TypeDouble:
			bits := int64(math.Float64bits(v.Float()))
			h = int32(bits ^ int64(uint64(bits)>>32))
		case isBinary(t):
			h = 1
			for i := 0; i < len(v.Str()); i++ {
				h = 31*h + int32(int8(v.Str()[i]))
			}
		default:
			h = javaStringHash(v.Str())
		}
		return types.NewInt(int64(h)), nil
	}), nil
}

// newExtreme builds GREATEST (sign 1) and LEAST (sign -1).
func newExtreme(c *call, sign int) (Expr, error) {
	ts := make([]types.Type, len(c.args))
	for i, a := range c.args {
		ts[i] = a.Type()
	}
	t, ok := CommonType(ts...)
	if !ok {
		return nil, incompatible(c.name, ts)
	}
	cmp, ok := comparator(t, t)
	if !ok || t.ID == types.TypeMap {
		return nil, argTypeError(c.name, c.args)
	}
	args := make([]Expr, len(c.args))
	for i, a := range c.args {
		args[i] = coerce(a, withNull(t, a.Type().NotNull))
	}
	c.args = args
	if n := len(args); n <= maxFixedArgs {
		// Up to four arguments evaluate without allocating.
		return c.strictFn(t, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			best := a[0]
			for _, v := range a[1:n] {
				if cmp(v, best)*sign > 0 {
					best = v
				}
			}
			return best, nil
		}), nil
	}
	return c.varFn(withNull(t, c.allNotNull()), false, func(a []types.Value) (types.Value, error) {
		best := a[0]
		for _, v := range a[1:] {
			if cmp(v, best)*sign > 0 {
				best = v
			}
		}
		return best, nil
	}), nil
}
