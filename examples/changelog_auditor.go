package examples

import (
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// RateState holds the previous rate of a currency.
type RateState struct {
	PreviousRate *apd.Decimal `json:"previousRate,omitempty"`
}

var rateState = ptf.NewValue[RateState]("state", ptf.WithTTL(7*24*time.Hour))

// ChangelogAuditor consumes an updating table (retract encoding: -U before
// +U) and emits an append-only audit trail of INSERT, UPDATE and DELETE
// changes with the old and new rate.
//
//	SELECT * FROM ChangelogAuditor(input => TABLE currency_rates PARTITION BY currency)
var ChangelogAuditor = &ptf.Definition{
	Doc: "Turns an updating rates table into an append-only audit trail.",
	Args: []ptf.Arg{ptf.Table("input",
		ptf.SetSemantic, ptf.SupportUpdates, ptf.RequireUpdateBefore)},
	Output: "ROW<change_type STRING, old_rate DECIMAL(10, 4), new_rate DECIMAL(10, 4)>",
	State:  []ptf.StateEntry{rateState},
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		st := rateState.Get(ctx)
		d, err := decimalColumn(in, "rate")
		if err != nil {
			return err
		}
		rate, prev := types.NewDecimal(d), types.NewDecimal(st.PreviousRate)
		switch in.Row.Kind {
		case types.Insert:
			ctx.Collect(types.NewString("INSERT"), types.Null, rate)
			st.PreviousRate = d
		case types.UpdateAfter:
			ctx.Collect(types.NewString("UPDATE"), prev, rate)
			st.PreviousRate = d
		case types.Delete:
			ctx.Collect(types.NewString("DELETE"), prev, types.Null)
			st.PreviousRate = nil
		case types.UpdateBefore:
			// Ignored: UPDATE_AFTER carries the new value and the prior
			// value is already in state.
		}
		return nil
	},
}
