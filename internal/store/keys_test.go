package store

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAppendBytesRoundTrip(t *testing.T) {
	for _, tc := range [][]byte{
		nil, {}, {0}, {0, 0}, {1}, {0xFF}, {0, 1}, {0, 0xFF}, []byte("abc"),
		[]byte("a\x00b\x00\x00c\xff"),
	} {
		enc := AppendBytes([]byte("pre"), tc)
		got, rest, err := DecodeBytes(nil, enc[3:])
		require.NoError(t, err)
		require.Empty(t, rest)
		require.Equal(t, string(tc), string(got))

		skipped, err := SkipBytes(append(enc[3:], 'x'))
		require.NoError(t, err)
		require.Equal(t, []byte("x"), skipped)

		require.Equal(t, enc, AppendString([]byte("pre"), string(tc)))
		s, _, err := DecodeString(enc[3:])
		require.NoError(t, err)
		require.Equal(t, string(tc), s)
	}
}

func TestAppendBytesOrderAndPrefixFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := [][]byte{nil, {0}, {0, 0}, {0, 1}, {1}, {0xFF}, {0xFF, 0}, []byte("a"), []byte("ab")}
	for range 300 {
		b := make([]byte, rng.IntN(5))
		for i := range b {
			b[i] = []byte{0, 1, 2, 0xFE, 0xFF}[rng.IntN(5)]
		}
		vals = append(vals, b)
	}
	for _, a := range vals {
		for _, b := range vals {
			ea, eb := AppendBytes(nil, a), AppendBytes(nil, b)
			require.Equal(t, bytes.Compare(a, b), bytes.Compare(ea, eb), "order of %x and %x", a, b)
			if !bytes.Equal(a, b) {
				require.False(t, bytes.HasPrefix(ea, eb), "%x encodes to a prefix of %x", b, a)
			}
		}
	}
}

func TestIntegerEncodingOrder(t *testing.T) {
	ints := []int64{math.MinInt64, -1 << 40, -2, -1, 0, 1, 2, 1 << 40, math.MaxInt64}
	var encs [][]byte
	for _, v := range ints {
		e := AppendInt64(nil, v)
		got, rest, err := DecodeInt64(e)
		require.NoError(t, err)
		require.Empty(t, rest)
		require.Equal(t, v, got)
		encs = append(encs, e)
	}
	require.True(t, slices.IsSortedFunc(encs, bytes.Compare))

	u, _, err := DecodeUint64BE(AppendUint64BE(nil, 1<<63+5))
	require.NoError(t, err)
	require.Equal(t, uint64(1<<63+5), u)
	u32, _, err := DecodeUint32BE(AppendUint32BE(nil, 7))
	require.NoError(t, err)
	require.Equal(t, uint32(7), u32)
}

func TestDecodeCorrupt(t *testing.T) {
	for _, b := range [][]byte{{}, {'a'}, {0}, {0, 2}, {'a', 0, 0x7}} {
		_, _, err := DecodeBytes(nil, b)
		require.ErrorIs(t, err, ErrCorruptKey, "%x", b)
		_, err = SkipBytes(b)
		require.ErrorIs(t, err, ErrCorruptKey, "%x", b)
	}
	_, _, err := DecodeUint64BE([]byte{1, 2})
	require.ErrorIs(t, err, ErrCorruptKey)
	_, _, err = DecodeInt64(nil)
	require.ErrorIs(t, err, ErrCorruptKey)
}

func TestPrefixEnd(t *testing.T) {
	require.Equal(t, []byte{1, 3}, PrefixEnd([]byte{1, 2}))
	require.Equal(t, []byte{2}, PrefixEnd([]byte{1, 0xFF}))
	require.Nil(t, PrefixEnd([]byte{0xFF, 0xFF}))
	require.Nil(t, PrefixEnd(nil))
	p := []byte{5, 0xFF}
	_ = PrefixEnd(p)
	require.Equal(t, []byte{5, 0xFF}, p, "PrefixEnd must not modify its argument")
}
