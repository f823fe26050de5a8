package runtime

import (
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// compareSortKeys orders two rows by ORDER BY keys: each key's direction
// and NULL order, most significant first; 0 when they tie on every key.
func compareSortKeys(keys []jobgraph.SortKey, a, b []types.Value) int {
	for _, k := range keys {
		x, y := a[k.Col], b[k.Col]
		switch xn, yn := x.IsNull(), y.IsNull(); {
		case xn && yn:
			continue
		case xn:
			if k.NullsFirst {
				return -1
			}
			return 1
		case yn:
			if k.NullsFirst {
				return 1
			}
			return -1
		}
		c := types.Compare(x, y)
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}
