package examples

import (
	"fmt"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// MaxState holds the running maximum of a currency.
type MaxState struct {
	Max *apd.Decimal `json:"max,omitempty"`
}

var maxState = ptf.NewValue[MaxState]("state")

// RunningMax emits an upsert changelog of the running maximum rate per key:
// +I for the first rate, +U when a higher rate arrives, nothing otherwise.
//
//	INSERT INTO max_rate SELECT * FROM RunningMax(
//	    input => TABLE rate_observations PARTITION BY currency)
var RunningMax = &ptf.Definition{
	Doc:    "Emits an upsert changelog of the running maximum rate per key.",
	Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
	Output: "ROW<max_rate DECIMAL(10, 4)>",
	State:  []ptf.StateEntry{maxState},
	Changelog: func(ptf.ChangelogContext) ptf.ChangelogMode {
		return ptf.Upsert()
	},
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		rate, err := decimalColumn(in, "rate")
		if rate == nil || err != nil {
			return err
		}
		st := maxState.Get(ctx)
		switch {
		case st.Max == nil:
			st.Max = rate
			ctx.CollectKind(types.Insert, types.NewDecimal(rate))
		case rate.Cmp(st.Max) > 0:
			st.Max = rate
			ctx.CollectKind(types.UpdateAfter, types.NewDecimal(rate))
		}
		return nil
	},
}

// decimalColumn returns the named DECIMAL column of the row, nil for NULL.
// Like getFieldAs(name) into a BigDecimal in Java, it fails for a column of
// another type instead of treating it as NULL.
func decimalColumn(in ptf.Input, name string) (*apd.Decimal, error) {
	v := in.Row.Get(name)
	if v.IsNull() {
		return nil, nil
	}
	if d := v.Decimal(); d != nil {
		return d, nil
	}
	return nil, fmt.Errorf("column %s must be a DECIMAL, got %s", name, v)
}
