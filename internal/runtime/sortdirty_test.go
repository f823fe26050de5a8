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

// TestKeyFilter: the filter of written keys never forgets a key, across
// its growing parts, and answers yes for few keys it never saw.
func TestKeyFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var f keyFilter
	const n = 3 << 20 // three parts
	added := make([]uint64, n)
	for i := range added {
		added[i] = r.Uint64()
		f.add(added[i])
		f.add(added[i]) // again: counted once
	}
	require.Len(t, f.parts, 2) // 1M + 2M keys
	for _, h := range added {
		require.True(t, f.mayContain(h))
	}
	fp := 0
	const probes = 200_000
	for range probes {
		if f.mayContain(r.Uint64()) {
			fp++
		}
	}
	require.Less(t, float64(fp)/probes, 0.05, "false positives")
	t.Logf("false positive rate %.4f", float64(fp)/probes)
}
