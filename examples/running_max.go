package examples

import (
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
		rate := in.Row.Get("rate")
		if rate.IsNull() {
			return nil
		}
		st := maxState.Get(ctx)
		switch {
		case st.Max == nil:
			st.Max = rate.Decimal()
			ctx.CollectKind(types.Insert, rate)
		case rate.Decimal().Cmp(st.Max) > 0:
			st.Max = rate.Decimal()
			ctx.CollectKind(types.UpdateAfter, rate)
		}
		return nil
	},
}
