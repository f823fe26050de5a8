// Command guestv2 is a later version of examples.OrderStatusTracker whose
// state type changed (it also remembers how many events an order had), so
// that state written by the example cannot be read by it.
package main

import (
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/wasmguest"
	"github.com/eddy-sql/eddy/types"
)

// OrderState is the example's state with a counter added.
type OrderState struct {
	Status string
	Events int64
}

var state = ptf.NewValue[OrderState]("state")

func init() {
	wasmguest.Register("examples.OrderStatusTracker", &ptf.Definition{
		Doc:       "OrderStatusTracker with an event counter in its state.",
		Args:      []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output:    "ROW<status STRING>",
		State:     []ptf.StateEntry{state},
		Changelog: func(ptf.ChangelogContext) ptf.ChangelogMode { return ptf.UpsertFullDeletes() },
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			st := state.Get(ctx)
			st.Events++
			if st.Status == "" {
				st.Status = "PENDING"
				ctx.CollectKind(types.Insert, types.NewString(st.Status))
			}
			return nil
		},
	})
}

func main() {}
