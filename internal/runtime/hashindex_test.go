package runtime

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHashIndex runs random sets, deletes and retains against a Go map.
// Hashes come from a small range with forced collisions of their low
// bits, so that runs wrap around the table and deletions shift entries.
func TestHashIndex(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 1))
		var x hashIndex[int]
		want := map[uint64]*int{}
		for step := range 5000 {
			h := uint64(r.IntN(300)) << (r.IntN(2) * 20) // low bits often equal
			switch op := r.IntN(10); {
			case op < 6:
				v := step
				x.set(h, &v)
				want[h] = &v
			case op < 9:
				x.del(h)
				delete(want, h)
			default:
				if r.IntN(50) == 0 {
					keep := func(h uint64, _ *int) bool { return h%3 != 0 }
					x.retain(keep)
					for k, p := range want {
						if !keep(k, p) {
							delete(want, k)
						}
					}
				}
			}
			require.Equal(t, len(want), x.len())
			if step%97 == 0 {
				for k, p := range want {
					require.Same(t, p, x.get(k), "seed %d step %d hash %d", seed, step, k)
				}
			}
			require.Same(t, want[h], x.get(h))
			require.Nil(t, x.get(h^(1<<40)), "an absent hash")
		}
	}
}
