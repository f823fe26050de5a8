package runtime

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// TestExtremeFunc: MIN and MAX of an insert-only input keep one value and
// give what the retracting multiset gives, also across merges (sessions).
func TestExtremeFunc(t *testing.T) {
	schema := types.NewSchema(types.Field{Name: "v", Type: types.BigInt})
	rng := rand.New(rand.NewPCG(1, 2))
	for _, fn := range []jobgraph.AggFunc{jobgraph.AggMin, jobgraph.AggMax} {
		multi, err := newAggFunc(&jobgraph.AggCall{Func: fn, Args: []int{0}, Filter: -1, Type: types.BigInt}, schema)
		require.NoError(t, err)
		one, err := newAggFunc(&jobgraph.AggCall{Func: fn, Args: []int{0}, Filter: -1, Type: types.BigInt, InsertOnly: true}, schema)
		require.NoError(t, err)
		require.IsType(t, extremeFunc{}, one)
		var m [2]accState
		var o [2]accState
		require.True(t, one.value(&o[0]).IsNull())
		for i := range 500 {
			v := []types.Value{types.NewInt(rng.Int64N(1000) - 500)}
			require.NoError(t, multi.add(&m[i%2], v))
			require.NoError(t, one.add(&o[i%2], v))
			require.Equal(t, multi.value(&m[i%2]), one.value(&o[i%2]))
		}
		require.Len(t, o[0].ext.vals, 1)
		require.NoError(t, multi.merge(&m[0], &m[1]))
		require.NoError(t, one.merge(&o[0], &o[1]))
		require.Equal(t, multi.value(&m[0]), one.value(&o[0]))
	}
}
