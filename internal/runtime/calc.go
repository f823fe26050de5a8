package runtime

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// applyCalc filters and projects a row. ok is false when the filter drops
// it. The result shares nothing with the input when a projection exists.
func applyCalc(c *jobgraph.Calc, row types.Row) (types.Row, bool, error) {
	if c.Filter != nil {
		v, err := c.Filter.Eval(row.Values)
		if err != nil {
			return row, false, fmt.Errorf("evaluating filter %s: %w", c.Filter, err)
		}
		if v.IsNull() || !v.Bool() {
			return row, false, nil
		}
	}
	if c.Project == nil {
		return row, true, nil
	}
	out := make([]types.Value, len(c.Project))
	for i, e := range c.Project {
		v, err := e.Eval(row.Values)
		if err != nil {
			return row, false, fmt.Errorf("evaluating %s: %w", e, err)
		}
		out[i] = v
	}
	return types.Row{Kind: row.Kind, Values: out}, true, nil
}

// applyCalcs applies calcs in order.
func applyCalcs(cs []jobgraph.Calc, row types.Row) (types.Row, bool, error) {
	for i := range cs {
		var ok bool
		var err error
		if row, ok, err = applyCalc(&cs[i], row); err != nil || !ok {
			return row, false, err
		}
	}
	return row, true, nil
}
