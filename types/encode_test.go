package types

import (
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/require"
)

// sampleValues has values of every kind, including edge cases.
func sampleValues(t testing.TB) []Value {
	big, _, err := apd.NewFromString("-123456789012345678901234567890.123456789")
	require.NoError(t, err)
	return []Value{
		Null,
		NewBool(true), NewBool(false),
		NewInt(0), NewInt(-1), NewInt(math.MaxInt64), NewInt(math.MinInt64),
		NewFloat(95.5), NewFloat(math.Copysign(0, -1)), NewFloat(math.Inf(-1)), NewFloat(math.NaN()),
		dec(t, "1.0850"), dec(t, "-0.001"), dec(t, "0"), dec(t, "1E+5"), NewDecimal(big),
		NewDecimal(&apd.Decimal{Form: apd.Infinite, Negative: true}), NewDecimal(&apd.Decimal{Form: apd.NaN}),
		NewString(""), NewString("héllo, 'world'"), NewString(strings.Repeat("x", 300)),
		NewBytes(nil), NewBytes([]byte{0, 1, 0xff}),
		NewDate(20666), NewDate(-719162),
		NewTime(9*3600e9 + 123), NewTime(0),
		NewTimestampMillis(1785574800123), NewTimestamp(-1), NewTimestamp(math.MinInt64), NewTimestamp(math.MaxInt64),
		NewIntervalMonths(14), NewIntervalMonths(-3),
		NewInterval(5 * time.Second), NewInterval(-time.Nanosecond),
		NewArray(nil), NewArray([]Value{NewInt(1), Null, NewString("a")}),
		NewMap(nil), NewMap([]MapEntry{{NewString("a"), NewInt(1)}, {NewString("b"), Null}}),
		NewRow([]Value{NewInt(1), NewRow([]Value{NewArray([]Value{dec(t, "2.5")})})}),
	}
}

// sameValue reports whether a and b are equal and of the same kinds all the
// way down (Equal alone would accept INT 1 for DOUBLE 1.0).
func sameValue(a, b Value) bool {
	if a.Kind() != b.Kind() || !Equal(a, b) {
		return false
	}
	switch a.Kind() {
	case KindDecimal:
		x, y := a.Decimal(), b.Decimal()
		return x.Form == y.Form && x.Negative == y.Negative && x.Exponent == y.Exponent && x.Coeff.Cmp(&y.Coeff) == 0
	case KindFloat:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case KindArray, KindRow:
		for i := range a.Fields() {
			if !sameValue(a.Fields()[i], b.Fields()[i]) {
				return false
			}
		}
	case KindMap:
		for i := range a.Map() {
			if !sameValue(a.Map()[i].Key, b.Map()[i].Key) || !sameValue(a.Map()[i].Val, b.Map()[i].Val) {
				return false
			}
		}
	}
	return true
}

func TestValueRoundTrip(t *testing.T) {
	for _, v := range sampleValues(t) {
		name := Format(v, NullType)
		if len(name) > 40 {
			name = name[:40]
		}
		t.Run(name, func(t *testing.T) {
			b := AppendValue([]byte("prefix"), v)
			require.Equal(t, "prefix", string(b[:6]))
			got, n, err := DecodeValue(append(b[6:], 0xee)) // trailing byte is not consumed
			require.NoError(t, err)
			require.Equal(t, len(b)-6, n)
			require.True(t, sameValue(v, got), "decoded %s as %s", Format(v, NullType), Format(got, NullType))
		})
	}
}

func TestRowRoundTrip(t *testing.T) {
	for _, kind := range []RowKind{Insert, UpdateBefore, UpdateAfter, Delete} {
		r := Row{Kind: kind, Values: sampleValues(t)}
		b := AppendRow(nil, r)
		got, err := DecodeRow(b)
		require.NoError(t, err)
		require.Equal(t, kind, got.Kind)
		require.Equal(t, 0, CompareRows(r, got))
		for i := range r.Values {
			require.True(t, sameValue(r.Values[i], got.Values[i]))
		}
		require.Equal(t, b, AppendRow(nil, got))
	}
	got, err := DecodeRow(AppendRow(nil, Row{}))
	require.NoError(t, err)
	require.Empty(t, got.Values)
}

func TestEncoding(t *testing.T) {
	for _, tt := range []struct {
		v    Value
		want string // hex
	}{
		{Null, "00"},
		{NewBool(false), "01"},
		{NewBool(true), "02"},
		{NewInt(1), "03" + "02"},
		{NewInt(-1), "03" + "01"},
		{NewFloat(1.5), "04" + "000000000000f83f"},
		{dec(t, "1.085"), "05" + "00" + "05" + "02" + "043d"}, // flags, exponent -3, length, 1085
		{dec(t, "-1E+2"), "05" + "01" + "04" + "01" + "01"},
		{NewString("ab"), "06" + "02" + "6162"},
		{NewBytes([]byte{0xff}), "07" + "01" + "ff"},
		{NewDate(20666), "08" + "f4c202"},
		{NewTimestampMillis(1785574800123), "0a" + "f6ebe9c8f767"}, // whole milliseconds: 7 bytes
		{NewTimestamp(1), "0b" + "02"},
		{NewArray([]Value{NewInt(1)}), "0e" + "01" + "0302"},
		{NewMap([]MapEntry{{NewInt(1), Null}}), "0f" + "01" + "0302" + "00"},
		{NewRow([]Value{}), "10" + "00"},
	} {
		require.Equal(t, tt.want, hex.EncodeToString(AppendValue(nil, tt.v)), Format(tt.v, NullType))
	}
}

func TestDecodeMalformed(t *testing.T) {
	tests := []struct {
		in   string // hex
		want string
	}{
		{"", "empty row"},
		{"04", "invalid row kind 4"},
		{"00", "invalid uvarint"},
		{"0001", "count 1 exceeds the 0 bytes left"},
		{"000100ff", "bytes after the row"},
		{"0001ff", "unknown tag 255"},
		{"000103", "invalid varint"},
		{"000103ffffffffffffffffffff01", "invalid varint"},
		{"00010401020304", "truncated float"},
		{"000106ff0f", "exceeds the"},
		{"0001060561", "length 5 exceeds the 1 bytes left"},
		{"00ffffffffffffffffff01", "exceeds the"},
		{"00010e80808080808080808001", "count 9223372036854775808 exceeds"},
		{"00010f0100", "unexpected end of input"},
		{"000105", "truncated decimal"},
		{"00010508", "invalid decimal flags"},
		{"0001050080b5180100", "exponent 200000 out of range"},
		{"00010a80808080808080808001", "out of range"},
	}
	for _, tt := range tests {
		b, err := hex.DecodeString(tt.in)
		require.NoError(t, err)
		_, err = DecodeRow(b)
		require.ErrorIs(t, err, ErrMalformed, tt.in)
		require.ErrorContains(t, err, tt.want, tt.in)
	}
	// Deep nesting is refused rather than overflowing the stack.
	deep := []byte{0, 1}
	for range 1000 {
		deep = append(deep, tagArray, 1)
	}
	deep = append(deep, tagNull)
	_, err := DecodeRow(deep)
	require.ErrorContains(t, err, "nested more than")
}

func TestDecodeRowIntoAllocs(t *testing.T) {
	src := Row{Kind: UpdateAfter, Values: []Value{NewInt(42), NewTimestampMillis(1785574800123), NewDate(3), NewFloat(1.5), NewBool(true), Null, NewInterval(time.Second)}}
	b := AppendRow(nil, src)
	var r Row
	require.NoError(t, DecodeRowInto(b, &r))
	allocs := testing.AllocsPerRun(100, func() {
		if err := DecodeRowInto(b, &r); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs)
	require.Equal(t, 0, CompareRows(src, r))

	buf := make([]byte, 0, 256)
	allocs = testing.AllocsPerRun(100, func() { buf = AppendRow(buf[:0], src) })
	require.Zero(t, allocs)
}

func TestDecodeCopiesStrings(t *testing.T) {
	b := AppendRow(nil, Row{Values: []Value{NewString("abc"), NewBytes([]byte("xyz"))}})
	r, err := DecodeRow(b)
	require.NoError(t, err)
	for i := range b {
		b[i] = 0
	}
	require.Equal(t, "abc", r.Values[0].Str())
	require.Equal(t, []byte("xyz"), r.Values[1].Bytes())
}

// FuzzDecodeRow checks that decoding never panics, that errors wrap
// ErrMalformed, and that whatever decodes re-encodes to a canonical form
// that decodes to the same values.
func FuzzDecodeRow(f *testing.F) {
	f.Add(AppendRow(nil, Row{Kind: UpdateAfter, Values: sampleValues(f)}))
	f.Add(AppendRow(nil, Row{}))
	f.Add(AppendRow(nil, Row{Kind: Delete, Values: []Value{NewInt(1), NewString("abc"), NewTimestampMillis(1)}}))
	for _, v := range sampleValues(f) {
		f.Add(AppendRow(nil, Row{Values: []Value{v}}))
	}
	f.Add([]byte{0, 1, tagArray, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte{0, 1, tagDecimal, 0, 0x80, 0xb5, 0x18, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRow(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		enc := AppendRow(nil, r)
		r2, err := DecodeRow(enc)
		if err != nil {
			t.Fatalf("re-encoded row does not decode: %v", err)
		}
		if r.Kind != r2.Kind || len(r.Values) != len(r2.Values) {
			t.Fatalf("round trip changed the row")
		}
		for i := range r.Values {
			if !sameValue(r.Values[i], r2.Values[i]) {
				t.Fatalf("value %d changed: %s vs %s", i, Format(r.Values[i], NullType), Format(r2.Values[i], NullType))
			}
		}
		if enc2 := AppendRow(nil, r2); string(enc) != string(enc2) {
			t.Fatalf("encoding not canonical: %x vs %x", enc, enc2)
		}
		// Everything else must cope with decoded values too.
		for _, v := range r.Values {
			_ = Format(v, NullType)
			_ = FormatSQL(v, NullType)
			_ = KeyBytes(nil, []Value{v}, nil)
		}
		_ = Hash64(r.Values)
	})
}
