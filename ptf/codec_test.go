package ptf

import (
	"math/big"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/require"
)

type inner struct {
	Name  string
	Score float64
}

type everything struct {
	S       string
	B       bool
	I       int
	I8      int8
	U       uint32
	F       float32
	D       float64
	T       time.Time
	Dec     *apd.Decimal
	NilDec  *apd.Decimal
	P       *inner
	NilP    *inner
	List    []float64
	Empty   []string
	NilList []string
	Nested  []inner
	M       map[string]int64
	NilM    map[string]int64
	Units   []struct{}
}

func roundTrip[T any](t *testing.T, v T) T {
	t.Helper()
	c := defaultCodec[T]()
	_, isBinary := c.(binaryCodec[T])
	require.True(t, isBinary, "%T should use the binary codec", v)
	b, err := c.Encode(&v)
	require.NoError(t, err)
	var out T
	require.NoError(t, c.Decode(b, &out))
	return out
}

func TestBinaryCodecRoundTrip(t *testing.T) {
	dec, _, _ := apd.NewFromString("1.0850")
	v := everything{
		S: "héllo", B: true, I: -42, I8: -8, U: 7, F: 1.5, D: -0.25,
		T: time.Date(2026, 8, 1, 9, 0, 0, 123, time.UTC), Dec: dec,
		P: &inner{Name: "x", Score: 2}, List: []float64{1, 2.5}, Empty: []string{},
		Nested: []inner{{"a", 1}, {"b", 2}}, M: map[string]int64{"a": 1, "b": -2}, Units: make([]struct{}, 3),
	}
	got := roundTrip(t, v)
	require.Equal(t, "1.0850", got.Dec.String(), "the decimal keeps its scale")
	got.Dec, v.Dec = nil, nil
	require.Equal(t, v, got)
	require.NotNil(t, got.Empty, "an empty slice stays empty, not nil")
	require.Nil(t, got.NilList)
}

func TestBinaryCodecExampleStates(t *testing.T) {
	type order struct{ Status string }
	type temps struct{ Temps []float64 }
	type rate struct{ PreviousRate *apd.Decimal }
	require.Equal(t, order{Status: "SHIPPED"}, roundTrip(t, order{Status: "SHIPPED"}))
	require.Equal(t, temps{Temps: []float64{20, 22, 21}}, roundTrip(t, temps{Temps: []float64{20, 22, 21}}))
	require.Nil(t, roundTrip(t, rate{}).PreviousRate)
}

func TestCodecFallsBackToJSON(t *testing.T) {
	type withInterface struct{ X any }
	type intKeys struct{ M map[int]string }
	type unexported struct{ n int }
	type bigField struct{ N *big.Int }
	_, isJSON := defaultCodec[unexported]().(jsonCodec[unexported])
	require.True(t, isJSON, "unexported fields would be lost by the binary codec")
	c := defaultCodec[bigField]()
	_, isJSON = c.(jsonCodec[bigField])
	require.True(t, isJSON, "types with their own marshalers keep them")
	b, err := c.Encode(&bigField{N: big.NewInt(12345)})
	require.NoError(t, err)
	var out bigField
	require.NoError(t, c.Decode(b, &out))
	require.Equal(t, "12345", out.N.String())
	_, isJSON = defaultCodec[withInterface]().(jsonCodec[withInterface])
	require.True(t, isJSON)
	_, isJSON = defaultCodec[intKeys]().(jsonCodec[intKeys])
	require.True(t, isJSON)
}

func TestBinaryCodecRejectsCorruptInput(t *testing.T) {
	c := defaultCodec[everything]()
	v := everything{S: "abc", List: []float64{1, 2, 3}, M: map[string]int64{"k": 1}}
	b, err := c.Encode(&v)
	require.NoError(t, err)
	for i := 0; i < len(b); i++ {
		var out everything
		require.Error(t, c.Decode(b[:i], &out), "a value cut at %d bytes", i)
	}
	var out everything
	require.Error(t, c.Decode(append(b, 0), &out), "trailing bytes")
}

func FuzzBinaryCodecDecode(f *testing.F) {
	c := defaultCodec[everything]()
	v := everything{S: "abc", List: []float64{1}, Nested: []inner{{"n", 1}}, M: map[string]int64{"k": 1}}
	b, _ := c.Encode(&v)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		var out everything
		if c.Decode(b, &out) == nil {
			again, err := c.Encode(&out)
			require.NoError(t, err)
			var back everything
			require.NoError(t, c.Decode(again, &back))
		}
	})
}

// Equal maps encode to equal bytes (TTL change detection compares them).
func TestBinaryCodecMapsAreDeterministic(t *testing.T) {
	type m struct{ M map[string]int }
	c := defaultCodec[m]()
	v := m{M: map[string]int{}}
	for i := 0; i < 50; i++ {
		v.M[string(rune('a'+i%26))+string(rune('A'+i/26))] = i
	}
	first, err := c.Encode(&v)
	require.NoError(t, err)
	for i := 0; i < 20; i++ {
		b, err := c.Encode(&v)
		require.NoError(t, err)
		require.Equal(t, first, b)
	}
}
