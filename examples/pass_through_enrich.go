package examples

import (
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// RunningCount is a per-key count.
type RunningCount struct {
	Count int64 `json:"count"`
}

var runningCount = ptf.NewValue[RunningCount]("state")

// PassThroughEnrich passes every input column through and appends a running
// count per key (one BIGINT column, EXPR$0).
//
//	SELECT * FROM PassThroughEnrich(input => TABLE clicks PARTITION BY user_id)
var PassThroughEnrich = &ptf.Definition{
	Doc:    "Appends a per-key running count to every input row.",
	Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic, ptf.PassColumnsThrough)},
	Output: "BIGINT",
	State:  []ptf.StateEntry{runningCount},
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		st := runningCount.Get(ctx)
		st.Count++
		ctx.Collect(types.NewInt(st.Count))
		return nil
	},
}
