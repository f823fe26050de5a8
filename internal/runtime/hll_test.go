package runtime

import (
	"fmt"
	"math"
	"testing"

	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// TestHLLAccuracy: the sketch is exact up to hllSparseMax distinct values
// and within 4 standard errors (4 x 0.81%) beyond, for integers and
// strings; duplicates do not count; encoding round-trips.
func TestHLLAccuracy(t *testing.T) {
	for _, n := range []int{0, 1, 100, hllSparseMax, hllSparseMax + 1, 5_000, 30_000, 60_000, 200_000, 1_000_000} {
		for _, kind := range []string{"int", "string"} {
			h := &hll{}
			for i := range n {
				var v types.Value
				if kind == "int" {
					v = types.NewInt(int64(i) * 7919)
				} else {
					v = types.NewString(fmt.Sprintf("user-%d", i))
				}
				h.add(hashValue(v))
				if i%3 == 0 { // a duplicate
					h.add(hashValue(v))
				}
			}
			got := h.count()
			if n <= hllSparseMax {
				require.EqualValues(t, n, got, "%s n=%d exact", kind, n)
			} else {
				rel := math.Abs(float64(got)-float64(n)) / float64(n)
				require.Less(t, rel, 4*1.04/math.Sqrt(hllM), "%s n=%d got %d", kind, n, got)
			}
			b := h.append(nil)
			d, rest, err := decodeHLL(append(b, 42))
			require.NoError(t, err)
			require.Equal(t, []byte{42}, rest)
			require.Equal(t, got, d.count())
		}
	}
}

func TestHLLDecodeErrors(t *testing.T) {
	for _, b := range [][]byte{nil, {2}, {1, 0, 0}, {0}, {0, 3, 1, 2}, {0, 0xff, 0xff, 0xff, 0xff, 0x0f}} {
		_, _, err := decodeHLL(b)
		require.Error(t, err, "%v", b)
	}
}

// BenchmarkHLLAdd: adding a value to a dense sketch.
func BenchmarkHLLAdd(b *testing.B) {
	h := &hll{}
	for i := range hllSparseMax + 1 {
		h.add(hashValue(types.NewInt(int64(i))))
	}
	b.ReportAllocs()
	i := int64(0)
	for b.Loop() {
		h.add(hashValue(types.NewInt(i)))
		i++
	}
}

// TestHLLMerge: merging the sketches of two parts of a set gives the
// sketch of the whole, in every combination of exact and dense phases.
func TestHLLMerge(t *testing.T) {
	for _, sizes := range [][2]int{{10, 20}, {100, hllSparseMax}, {hllSparseMax + 5, 50}, {30_000, 20_000}, {0, 5}} {
		whole, a, b := &hll{}, &hll{}, &hll{}
		for i := range sizes[0] + sizes[1] {
			h := hashValue(types.NewInt(int64(i % ((sizes[0]+sizes[1])*3/4 + 1)))) // the parts overlap
			whole.add(h)
			if i < sizes[0] {
				a.add(h)
			} else {
				b.add(h)
			}
		}
		a.merge(b)
		require.Equal(t, whole.count(), a.count(), "%v", sizes)
	}
}
