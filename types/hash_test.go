package types

import (
	"encoding/hex"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKeyBytesSingle(t *testing.T) {
	tests := []struct {
		v    Value
		t    Type
		want string // hex
	}{
		{NewInt(1), Int, "00000001"},
		{NewInt(-1), Int, "ffffffff"},
		{NewInt(258), BigInt, "0000000000000102"},
		{NewInt(-2), SmallInt, "fffe"},
		{NewInt(7), TinyInt, "07"},
		{NewBool(true), Boolean, "01"},
		{NewBool(false), Boolean, "00"},
		{NewFloat(1.5), Double, "3ff8000000000000"},
		{NewFloat(1.5), Float, "3fc00000"},
		{NewFloat(math.NaN()), Double, "7ff8000000000000"},
		{NewFloat(-math.NaN()), Float, "7fc00000"},
		{NewString("héllo"), String, "68c3a96c6c6f"},
		{NewString("abc"), Char(3), "616263"},
		{NewBytes([]byte{0, 0xff}), Bytes, "00ff"},
		// DECIMAL: unscaled value at the type's scale, BigInteger.toByteArray.
		{dec(t, "1.085"), Decimal(10, 4), "2a62"},  // 10850
		{dec(t, "1.0850"), Decimal(10, 4), "2a62"}, // same value, same bytes
		{dec(t, "-1.085"), Decimal(10, 4), "d59e"}, // -10850
		{dec(t, "1.27"), Decimal(10, 2), "7f"},     // 127
		{dec(t, "1.28"), Decimal(10, 2), "0080"},   // 128 needs a sign byte
		{dec(t, "-1.28"), Decimal(10, 2), "80"},    // -128
		{dec(t, "-1.29"), Decimal(10, 2), "ff7f"},  // -129
		{dec(t, "0"), Decimal(10, 2), "00"},        // zero is one byte
		{dec(t, "-0.00"), Decimal(10, 2), "00"},    // as is negative zero
		{dec(t, "1E+2"), Decimal(5, 0), "64"},      // 100
		{dec(t, "1.5"), NullType, "0f"},            // own scale: 15
		{dec(t, "1.50"), NullType, "0f"},           // reduced
		{dec(t, "1.005"), Decimal(10, 2), "03ed"},  // finer than the scale: own scale, 1005
		{dec(t, "123456789012345678901234567890.12"), Decimal(38, 2), "009bd30a3c645943dd1690a03a14"},
		{dec(t, "-123456789012345678901234567890.12"), Decimal(38, 2), "ff642cf5c39ba6bc22e96f5fc5ec"},
		{dec(t, "9223372036854775807"), Decimal(38, 2), "31ffffffffffffff9c"},
		{NewDate(20666), Date, "000050ba"},
		{NewTime(9 * 3600 * 1e9), Time(0), "01ee6280"},
		{NewTimestampMillis(1785574800123), Timestamp(3), "0000019fbc8d3afb"},
		{NewTimestamp(-1), TimestampLTZ(9), "ffffffffffffffff"}, // floor to milliseconds
		{NewIntervalMonths(14), IntervalM, "0000000e"},
		{NewInterval(5e9), Interval, "0000000000001388"},
		{Null, Int, ""},
		{NewString(""), String, ""},
		// Kind-based fallback when the type does not match.
		{NewInt(1), NullType, "0000000000000001"},
		{NewInt(1), String, "0000000000000001"},
		{NewFloat(1.5), NullType, "3ff8000000000000"},
	}
	for _, tt := range tests {
		got := KeyBytes(nil, []Value{tt.v}, []Type{tt.t})
		require.Equal(t, tt.want, hex.EncodeToString(got), "%s of type %s", Format(tt.v, tt.t), tt.t)
	}
}

func TestKeyBytesMulti(t *testing.T) {
	got := KeyBytes([]byte("prefix"), []Value{NewInt(1), Null, NewString("ab")}, []Type{Int, String, String})
	require.Equal(t, "prefix", string(got[:6]))
	require.Equal(t, "00000004"+"00000001"+"ffffffff"+"00000002"+"6162", hex.EncodeToString(got[6:]))

	// Composite values hash to 8 bytes; equal values give equal bytes.
	a := KeyBytes(nil, []Value{NewArray([]Value{dec(t, "1.0")})}, []Type{ArrayOf(Decimal(10, 1))})
	b := KeyBytes(nil, []Value{NewArray([]Value{dec(t, "1.00")})}, []Type{ArrayOf(Decimal(10, 1))})
	require.Len(t, a, 8)
	require.Equal(t, a, b)

	// Missing types fall back on the kinds.
	require.Equal(t, "00000008"+"0000000000000001", hex.EncodeToString(KeyBytes(nil, []Value{NewInt(1), Null}, nil))[:24])
}

func TestKeyBytesAllocs(t *testing.T) {
	buf := make([]byte, 0, 128)
	vals := []Value{NewInt(1), NewString("abc"), NewTimestampMillis(1785574800123), NewFloat(1.5), dec(t, "1.085")}
	ts := []Type{Int, String, Timestamp(3), Double, Decimal(10, 4)}
	allocs := testing.AllocsPerRun(100, func() {
		buf = KeyBytes(buf[:0], vals, ts)
		for i := range vals {
			buf = KeyBytes(buf, vals[i:i+1], ts[i:i+1])
		}
	})
	require.Zero(t, allocs)
	allocs = testing.AllocsPerRun(100, func() { _ = Hash64(vals) })
	require.Zero(t, allocs)
}

// TestHash64Stable pins Hash64 values: they decide key groups of stored
// state, so they must never change.
func TestHash64Stable(t *testing.T) {
	tests := []struct {
		vals []Value
		want uint64
	}{
		{nil, 0xcbf29ce484222325}, // the FNV-1a offset basis
		{[]Value{Null}, 0xaf63bd4c8601b7df},
		{[]Value{NewInt(1)}, 0x0cd92bf54dc61432},
		{[]Value{NewFloat(1)}, 0x0cd92bf54dc61432},
		{[]Value{dec(t, "1.00")}, 0x0cd92bf54dc61432},
		{[]Value{NewString("abc")}, 0x216872cf7d6c2927}, // FNV-1a of 05 0000000000000003 616263
		{[]Value{NewInt(1), NewString("abc")}, 0xcec2b562df86e3f4},
		{[]Value{dec(t, "1.5")}, 0x6b0f81ab95a5ccac},
		{[]Value{NewTimestampMillis(1785574800123)}, 0xdd7fe7da04986104},
		{[]Value{NewArray([]Value{NewInt(1), Null})}, 0x54482603f383f0a2},
		{[]Value{NewMap([]MapEntry{{NewString("a"), NewInt(1)}})}, 0x56118209c7e585b5},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, Hash64(tt.vals), "%v", tt.vals)
	}
}
