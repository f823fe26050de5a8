package ptf

import (
	"encoding/hex"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/stretchr/testify/require"
)

// The binary encoding is stored in data directories: it must not change.
// These bytes were written by the first (reflect.Value based) codec.
func TestBinaryCodecEncodingIsStable(t *testing.T) {
	dec, _, _ := apd.NewFromString("-1.0850")
	v := everything{
		S: "héllo", B: true, I: -42, I8: -8, U: 7, F: 1.5, D: -0.25,
		T: time.Date(2026, 8, 1, 9, 0, 0, 123, time.UTC), Dec: dec,
		P: &inner{Name: "x", Score: 2}, List: []float64{1, 2.5}, Empty: []string{},
		Nested: []inner{{"a", 1}, {"b", 2}}, M: map[string]int64{"b": -2, "a": 1}, Units: make([]struct{}, 3),
	}
	c := defaultCodec[everything]()
	b, err := c.Encode(&v)
	require.NoError(t, err)
	require.Equal(t, "0668c3a96c6c6f01530f073ff8000000000000bfd000000000000001f6819d9ebfb4d1c73101072d312e3038353000010178400000000000000000033ff0000000000000400400000000000001000301613ff000000000000001624000000000000000030161020162030004", hex.EncodeToString(b))
	var zero everything
	b, err = c.Encode(&zero)
	require.NoError(t, err)
	require.Equal(t, "000000000000000000000000000000000000000000000000000000000000000000", hex.EncodeToString(b))
	var back everything
	require.NoError(t, c.Decode(b, &back))
	require.Equal(t, zero, back)
}
