package examples

import (
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// CountState is a per-key counter.
type CountState struct {
	Counter int64 `json:"counter"`
}

var countdown = ptf.NewValue[CountState]("state", ptf.WithTTL(30*time.Second))

// TtlCountdown counts events per key; the counter expires after 30 seconds
// of processing time without a write, so the next event starts again at 1.
//
//	SELECT * FROM TtlCountdown(input => TABLE clicks PARTITION BY user_id)
var TtlCountdown = &ptf.Definition{
	Doc:    "Counts events per key with state that expires after 30 idle seconds.",
	Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
	Output: "ROW<counter BIGINT>",
	State:  []ptf.StateEntry{countdown},
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		st := countdown.Get(ctx)
		st.Counter++
		ctx.Collect(types.NewInt(st.Counter))
		return nil
	},
}
