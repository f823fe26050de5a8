package runtime

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSortDirty: the prefix sort orders keys as bytes.Compare does, with
// keys that differ only past 16 bytes, by zero padding, or not at all.
func TestSortDirty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var keys [][]byte
	for range 2000 {
		k := make([]byte, r.IntN(24))
		for i := range k {
			k[i] = byte(r.IntN(3)) // many zeros and ties
		}
		keys = append(keys, k)
	}
	var scratch []dirtyKey[[]byte]
	got := slices.Clone(keys)
	sortDirty(got, &scratch, func(k []byte) []byte { return k })
	want := slices.Clone(keys)
	slices.SortFunc(want, bytes.Compare)
	require.Equal(t, want, got)
}
