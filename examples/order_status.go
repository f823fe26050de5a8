package examples

import (
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// OrderState is the per-order state of OrderStatusTracker.
type OrderState struct {
	Status string `json:"status,omitempty"`
}

var orderState = ptf.NewValue[OrderState]("state")

// OrderStatusTracker keeps each order's current status (PENDING, SHIPPED,
// DELIVERED) and emits an upsert changelog: +I for a new order, +U when the
// status changes, and a full -D when the order is canceled. PLACED and
// FULFILLED both map to PENDING, so FULFILLED after PLACED emits nothing.
//
//	SELECT order_id, status
//	FROM OrderStatusTracker(input => TABLE order_events PARTITION BY order_id)
var OrderStatusTracker = &ptf.Definition{
	Doc:    "Tracks each order's status from lifecycle events and emits an upsert changelog.",
	Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
	Output: "ROW<status STRING>",
	State:  []ptf.StateEntry{orderState},
	Changelog: func(ptf.ChangelogContext) ptf.ChangelogMode {
		return ptf.UpsertFullDeletes()
	},
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		state := orderState.Get(ctx)
		eventType := in.Row.Get("event_type").Str()
		if eventType == "CANCELED" {
			if state.Status != "" {
				ctx.CollectKind(types.Delete, types.NewString(state.Status))
			}
			ctx.ClearAll()
			return nil
		}
		newStatus := toStatus(eventType)
		if newStatus == "" || newStatus == state.Status {
			return nil
		}
		if state.Status == "" {
			ctx.CollectKind(types.Insert, types.NewString(newStatus))
		} else {
			ctx.CollectKind(types.UpdateAfter, types.NewString(newStatus))
		}
		state.Status = newStatus
		return nil
	},
}

func toStatus(eventType string) string {
	switch eventType {
	case "PLACED", "FULFILLED":
		return "PENDING"
	case "SHIPPED":
		return "SHIPPED"
	case "DELIVERED":
		return "DELIVERED"
	}
	return ""
}
