package expr

import (
	"crypto/rand"
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/types"
)

// Math functions follow Java's Math on DOUBLE (NaN and infinities instead
// of errors, as Flink does) and BigDecimal HALF_UP rounding for ROUND.

func init() {
	d1 := func(name, desc string, f func(float64) float64) funcDef {
		return fdef(name, 1, 1, name+"(numeric) -> DOUBLE", desc, doubleFunc(f))
	}
	register("arithmetic", []funcDef{
		fdef("POWER", 2, 2, "POWER(numeric1, numeric2) -> DOUBLE", "numeric1 raised to the power numeric2.",
			double2(math.Pow)),
		fdef("POW", 2, 2, "POW(numeric1, numeric2) -> DOUBLE", "Same as POWER.", double2(math.Pow)),
		d1("SQRT", "The square root.", math.Sqrt),
		d1("LN", "The natural logarithm; NaN for a negative argument, -Infinity for 0.", math.Log),
		d1("LOG10", "The base-10 logarithm.", math.Log10),
		d1("LOG2", "The base-2 logarithm.", func(x float64) float64 { return math.Log(x) / math.Ln2 }),
		fdef("LOG", 1, 2, "LOG(numeric) -> DOUBLE; LOG(numeric1, numeric2) -> DOUBLE",
			"The natural logarithm of numeric, or the logarithm of numeric2 to the base numeric1.", newLog),
		d1("EXP", "e raised to the power of the argument.", math.Exp),
		d1("SIN", "The sine (radians).", math.Sin),
		d1("SINH", "The hyperbolic sine.", math.Sinh),
		d1("COS", "The cosine (radians).", math.Cos),
		d1("COSH", "The hyperbolic cosine.", math.Cosh),
		d1("TAN", "The tangent (radians).", math.Tan),
		d1("TANH", "The hyperbolic tangent.", math.Tanh),
		d1("COT", "The cotangent (radians).", func(x float64) float64 { return 1 / math.Tan(x) }),
		d1("ASIN", "The arc sine.", math.Asin),
		d1("ACOS", "The arc cosine.", math.Acos),
		d1("ATAN", "The arc tangent.", math.Atan),
		fdef("ATAN2", 2, 2, "ATAN2(numeric1, numeric2) -> DOUBLE", "The arc tangent of the point (numeric1, numeric2).",
			double2(math.Atan2)),
		d1("DEGREES", "Radians to degrees.", func(x float64) float64 { return x * 180 / math.Pi }),
		d1("RADIANS", "Degrees to radians.", func(x float64) float64 { return x / 180 * math.Pi }),
		fdef("PI", 0, 0, "PI() -> DOUBLE", "The constant pi.", constDouble(math.Pi)),
		fdef("E", 0, 0, "E() -> DOUBLE", "The constant e.", constDouble(math.E)),
		fdef("SIGN", 1, 1, "SIGN(numeric)", "-1, 0 or 1 (of the argument's type) by the sign of the argument.", newSign),
		fdef("CEIL", 1, 2, "CEIL(numeric); CEIL(timepoint TO timeintervalunit)",
			"The smallest integral value not less than the argument; with a unit, the timepoint rounded up to it.", newCeilFloor(true)),
		fdef("CEILING", 1, 2, "CEILING(numeric); CEILING(timepoint TO timeintervalunit)", "Same as CEIL.", newCeilFloor(true)),
		fdef("FLOOR", 1, 2, "FLOOR(numeric); FLOOR(timepoint TO timeintervalunit)",
			"The largest integral value not greater than the argument; with a unit, the timepoint rounded down to it.", newCeilFloor(false)),
		fdef("ROUND", 1, 2, "ROUND(numeric [, integer])",
			"The argument rounded HALF_UP to integer (default 0) decimal places; negative integer rounds left of the point.",
			newRound(false)),
		fdef("TRUNCATE", 1, 2, "TRUNCATE(numeric [, integer])",
			"The argument truncated toward zero to integer (default 0) decimal places.", newRound(true)),
		nondet(fdef("RAND", 0, 1, "RAND() -> DOUBLE; RAND(integer) -> DOUBLE",
			"A pseudorandom DOUBLE in [0, 1); with a seed, the sequence of java.util.Random(seed) per call site.", newRand(false))),
		nondet(fdef("RAND_INTEGER", 1, 2, "RAND_INTEGER(integer) -> INT; RAND_INTEGER(integer1, integer2) -> INT",
			"A pseudorandom INT in [0, bound); with a seed (first argument), the sequence of java.util.Random(seed).", newRand(true))),
		fdef("BIN", 1, 1, "BIN(integer) -> STRING", "The binary representation of a BIGINT (two's complement for negatives).",
			func(c *call) (Expr, error) {
				if err := c.want(aInt); err != nil {
					return nil, err
				}
				return c.strictFn(types.String, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
					return types.NewString(strconv.FormatUint(uint64(a[0].Int()), 2)), nil
				}), nil
			}),
		fdef("HEX", 1, 1, "HEX(numeric) -> STRING; HEX(string) -> STRING",
			"Upper-case hexadecimal of an integer (two's complement) or of the UTF-8 bytes of a string.", newHex),
		fdef("UNHEX", 1, 1, "UNHEX(string) -> BYTES", "The bytes of a hexadecimal string; NULL when it is not hexadecimal.", newUnhex),
	})
}

// floatOf converts a numeric argument of type t to float64.
func floatOf(v types.Value) float64 { return v.Float() }

func doubleFunc(f func(float64) float64) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.want(aNum); err != nil {
			return nil, err
		}
		return c.strictFn(types.Double, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			return types.NewFloat(f(floatOf(a[0]))), nil
		}), nil
	}
}

func double2(f func(x, y float64) float64) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.want(aNum); err != nil {
			return nil, err
		}
		return c.strictFn(types.Double, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			return types.NewFloat(f(floatOf(a[0]), floatOf(a[1]))), nil
		}), nil
	}
}

func constDouble(x float64) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		return c.strictFn(types.Double, true, func([maxFixedArgs]types.Value) (types.Value, error) {
			return types.NewFloat(x), nil
		}), nil
	}
}

func newLog(c *call) (Expr, error) {
	if len(c.args) == 1 {
		return doubleFunc(math.Log)(c)
	}
	return double2(func(b, x float64) float64 { return math.Log(x) / math.Log(b) })(c)
}

func newSign(c *call) (Expr, error) {
	if err := c.want(aNum); err != nil {
		return nil, err
	}
	t := c.args[0].Type()
	if t.ID == types.TypeNull {
		t = types.Int
	}
	return c.strictFn(t, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		switch a[0].Kind() {
		case types.KindInt:
			return types.NewInt(int64(cmpInt64(a[0].Int(), 0))), nil
		case types.KindFloat:
			f := a[0].Float()
			if f > 0 {
				f = 1
			} else if f < 0 {
				f = -1
			}
			return types.NewFloat(f), nil
		}
		d := a[0].Decimal()
		r := new(apd.Decimal)
		r.SetFinite(int64(d.Sign()), d.Exponent)
		r.Coeff.Mul(&r.Coeff, apd.NewBigInt(1).Exp(apd.NewBigInt(10), apd.NewBigInt(int64(-d.Exponent)), nil))
		return types.NewDecimal(r), nil
	}), nil
}

// newCeilFloor builds CEIL/FLOOR of a number, or of a timepoint to a unit
// (FLOOR(ts TO DAY), which the planner passes as a unit string literal).
func newCeilFloor(ceil bool) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if len(c.args) == 2 {
			return newTimeCeilFloor(c, ceil)
		}
		if err := c.want(aNum); err != nil {
			return nil, err
		}
		t := c.args[0].Type()
		if t.ID == types.TypeNull {
			t = types.Int
		}
		if t.ID == types.TypeDecimal {
			t = types.Decimal(min(types.MaxDecimalPrecision, t.Precision-t.Scale+b2i(t.Scale > 0)), 0)
		}
		mode := apd.RoundFloor
		if ceil {
			mode = apd.RoundCeiling
		}
		return c.strictFn(t, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			switch a[0].Kind() {
			case types.KindInt:
				return a[0], nil
			case types.KindFloat:
				if ceil {
					return types.NewFloat(math.Ceil(a[0].Float())), nil
				}
				return types.NewFloat(math.Floor(a[0].Float())), nil
			}
			return quantize(a[0].Decimal(), 0, mode)
		}), nil
	}
}

// quantize rounds d to scale digits with mode.
func quantize(d *apd.Decimal, scale int32, mode apd.Rounder) (types.Value, error) {
	ctx := decCtx
	ctx.Rounding = mode
	r := new(apd.Decimal)
	if _, err := ctx.Quantize(r, d, -scale); err != nil {
		return types.Null, runtimeErrorf("numeric overflow rounding %s", d.Text('f'))
	}
	if r.IsZero() {
		r.Negative = false
	}
	return types.NewDecimal(r), nil
}

// roundDecimalType is Flink's LogicalTypeMerging.findRoundDecimalType.
func roundDecimalType(p, s, r int) types.Type {
	switch {
	case r >= s:
		return types.Decimal(p, s)
	case r < 0:
		return types.Decimal(min(types.MaxDecimalPrecision, 1+p-s), 0)
	}
	return types.Decimal(min(types.MaxDecimalPrecision, 1+p-s+r), r)
}

func newRound(truncate bool) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.want(aNum, aInt); err != nil {
			return nil, err
		}
		t := c.args[0].Type()
		if t.ID == types.TypeNull {
			t = types.Int
		}
		places := int64(0)
		if len(c.args) == 2 {
			v, ok := c.literal(1)
			if t.ID == types.TypeDecimal && (!ok || v.IsNull()) {
				return nil, typeErrorf("%s of a DECIMAL needs a literal number of places", c.name)
			}
			if ok && !v.IsNull() {
				places = v.Int()
			}
		}
		if t.ID == types.TypeDecimal {
			t = roundDecimalType(t.Precision, t.Scale, int(places))
		}
		mode := apd.RoundHalfUp
		if truncate {
			mode = apd.RoundDown
		}
		rt := t
		return c.strictFn(rt, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			d := places
			if len(c.args) == 2 {
				d = a[1].Int()
			}
			return roundValue(a[0], rt, d, mode)
		}), nil
	}
}

// roundValue rounds v of type t to d decimal places with mode.
func roundValue(v types.Value, t types.Type, d int64, mode apd.Rounder) (types.Value, error) {
	switch v.Kind() {
	case types.KindInt:
		if d >= 0 {
			return v, nil
		}
		if d < -18 {
			return types.NewInt(0), nil
		}
		p := int64(math.Pow10(int(-d)))
		x := v.Int()
		q, r := x/p, x%p
		if !(mode == apd.RoundDown) && (r >= (p+1)/2 || -r >= (p+1)/2) {
			if x < 0 {
				q--
			} else {
				q++
			}
		}
		return types.NewInt(wrapInt(q*p, t.ID)), nil
	case types.KindFloat:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return v, nil
		}
		var buf apd.Decimal
		x, err := floatToDecimal(f, t, &buf)
		if err != nil {
			return v, nil
		}
		r, err := quantize(x, int32(max(min(d, 400), -400)), mode)
		if err != nil {
			return types.Null, err
		}
		out, _ := r.Decimal().Float64()
		return types.NewFloat(out), nil
	}
	r, err := quantize(v.Decimal(), int32(max(min(d, 400), -400)), mode)
	if err != nil {
		return r, err
	}
	if t.Scale != int(-r.Decimal().Exponent) {
		return quantize(r.Decimal(), int32(t.Scale), apd.RoundHalfUp)
	}
	return r, nil
}

// javaRandom is java.util.Random: a 48-bit linear congruential generator
// whose seed is updated with compare-and-swap, so that RAND(seed) yields
// Flink's sequence and the expression stays safe for concurrent use.
type javaRandom struct{ seed atomic.Int64 }

const (
	javaRandMul  = 0x5DEECE66D
	javaRandMask = (1 << 48) - 1
)

func newJavaRandom(seed int64) *javaRandom {
	r := &javaRandom{}
	r.seed.Store((seed ^ javaRandMul) & javaRandMask)
	return r
}

func (r *javaRandom) next(bits uint) int32 {
	for {
		old := r.seed.Load()
		nxt := (old*javaRandMul + 0xB) & javaRandMask
		if r.seed.CompareAndSwap(old, nxt) {
			return int32(nxt >> (48 - bits))
		}
	}
}

func (r *javaRandom) nextDouble() float64 {
	return float64(int64(r.next(26))<<27+int64(r.next(27))) * (1.0 / (1 << 53))
}

// nextInt is Random.nextInt(bound) for bound > 0.
func (r *javaRandom) nextInt(bound int32) int32 {
	x := r.next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32((int64(bound) * int64(x)) >> 31)
	}
	for u := x; ; u = r.next(31) {
		x = u % bound
		if u-x+m >= 0 {
			return x
		}
	}
}

func randomSeed() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]))
}

// newRand builds RAND([seed]) and RAND_INTEGER([seed,] bound). A seed must
// be a literal: the generator is created once per call site.
func newRand(integer bool) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.want(aInt); err != nil {
			return nil, err
		}
		seeded := len(c.args) == 2 || !integer && len(c.args) == 1
		seed := randomSeed()
		if seeded {
			v, ok := c.literal(0)
			if !ok {
				return nil, typeErrorf("the seed of %s must be a literal", c.name)
			}
			seed = v.Int()
			if v.IsNull() {
				seed = 0
			}
		}
		r := newJavaRandom(seed)
		if !integer {
			return c.lenientFn(types.Double.NonNull(), func([maxFixedArgs]types.Value) (types.Value, error) {
				return types.NewFloat(r.nextDouble()), nil
			}), nil
		}
		bi := len(c.args) - 1
		return c.lenientFn(withNull(types.Int, c.args[bi].Type().NotNull), func(a [maxFixedArgs]types.Value) (types.Value, error) {
			b := a[bi]
			if b.IsNull() {
				return types.Null, nil
			}
			if b.Int() <= 0 || b.Int() > math.MaxInt32 {
				return types.Null, runtimeErrorf("%s: bound must be positive, got %d", c.name, b.Int())
			}
			return types.NewInt(int64(r.nextInt(int32(b.Int())))), nil
		}), nil
	}
}

func newHex(c *call) (Expr, error) {
	if err := c.want(aNumStr); err != nil {
		return nil, err
	}
	if t := c.args[0].Type(); t.IsNumeric() && !t.IsInteger() {
		// Flink's HEX(numeric) takes the BIGINT value.
		e, err := Cast(c.args[0], types.BigInt, false)
		if err != nil {
			return nil, err
		}
		c = &call{name: c.name, args: []Expr{e}, env: c.env}
	}
	str := c.args[0].Type().IsString()
	return c.strictFn(types.String, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		if str {
			return types.NewString(strings.ToUpper(hexString(a[0].Str()))), nil
		}
		return types.NewString(strings.ToUpper(strconv.FormatUint(uint64(a[0].Int()), 16))), nil
	}), nil
}

func hexString(s string) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 2*len(s))
	for i := 0; i < len(s); i++ {
		b[2*i], b[2*i+1] = digits[s[i]>>4], digits[s[i]&15]
	}
	return string(b)
}

func newUnhex(c *call) (Expr, error) {
	if err := c.want(aStr); err != nil {
		return nil, err
	}
	return c.strictFn(types.Bytes, false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		s := a[0].Str()
		if len(s)%2 == 1 {
			s = "0" + s
		}
		b := make([]byte, len(s)/2)
		for i := range b {
			hi, ok1 := unhexDigit(s[2*i])
			lo, ok2 := unhexDigit(s[2*i+1])
			if !ok1 || !ok2 {
				return types.Null, nil
			}
			b[i] = hi<<4 | lo
		}
		return types.NewBytes(b), nil
	}), nil
}

func unhexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
