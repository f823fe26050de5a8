package runtime

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/types"
)

// TestAggMergeEqualsSequential: accumulating two runs of rows apart and
// merging the second into the first gives what accumulating all rows in
// order gives, for every function (DISTINCT and FILTER included), as
// session windows merging need.
func TestAggMergeEqualsSequential(t *testing.T) {
	calls := allAggCalls()
	a, err := newAggCalls(calls, allAggSchema)
	require.NoError(t, err)
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 11))
		var rows []types.Row
		for _, row := range aggRandomChangelog(r, 60) {
			if !row.Kind.IsRetraction() {
				rows = append(rows, row)
			}
		}
		cut := r.IntN(len(rows) + 1)
		all, first, second := make([]accState, len(calls)), make([]accState, len(calls)), make([]accState, len(calls))
		for i, row := range rows {
			require.NoError(t, a.step(all, row.Values, false))
			part := first
			if i >= cut {
				part = second
			}
			require.NoError(t, a.step(part, row.Values, false))
		}
		require.NoError(t, a.merge(first, second))
		want := a.appendValues(nil, all)
		got := a.appendValues(nil, first)
		for i := range want {
			require.True(t, types.Equal(want[i], got[i]), "seed %d call %d %s: want %v, got %v", seed, i, calls[i].Func, want[i], got[i])
		}
		// Merging into an empty state copies.
		empty := make([]accState, len(calls))
		require.NoError(t, a.merge(empty, all))
		got = a.appendValues(nil, empty)
		for i := range want {
			require.True(t, types.Equal(want[i], got[i]), "seed %d call %d %s into empty: want %v, got %v", seed, i, calls[i].Func, want[i], got[i])
		}
	}
}
