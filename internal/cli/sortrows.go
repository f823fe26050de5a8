package cli

import (
	"slices"

	"github.com/eddy-sql/eddy/types"
)

// sortRows returns the rows of a materialized table sorted by order
// (stable: equal rows keep their table order); rows as they are without
// an order.
func sortRows(rows [][]types.Value, _ *types.Schema, order []SortKey) [][]types.Value {
	if len(order) == 0 {
		return rows
	}
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b []types.Value) int {
		for _, k := range order {
			x, y := a[k.Col], b[k.Col]
			switch {
			case x.IsNull() && y.IsNull():
				continue
			case x.IsNull() || y.IsNull():
				if x.IsNull() == k.NullsFirst {
					return -1
				}
				return 1
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
	})
	return out
}
