package examples

import (
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// ActivityState remembers when a user was last seen, in event time.
type ActivityState struct {
	LastSeenMs int64 `json:"lastSeenMs"`
}

var activity = ptf.NewValue[ActivityState]("state")

// inactivityTimeout is how long a user may stay quiet before an alert.
const inactivityTimeout = 60 * time.Second

// InactivityAlert emits an alert when a user produces no event for 60
// seconds of event time. Each event replaces the user's named timer
// "inactivity"; when the watermark passes it, OnTimer emits
// ('inactive', idle_ms). Unlike the seed's Java class it measures idleness
// in event time (the row's time()), so results are deterministic.
//
//	SELECT * FROM InactivityAlert(
//	    input => TABLE user_events PARTITION BY user_id,
//	    on_time => DESCRIPTOR(event_time))
var InactivityAlert = &ptf.Definition{
	Doc:    "Alerts when a partition sees no event for 60 seconds of event time.",
	Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic, ptf.RequireOnTime)},
	Output: "ROW<alert_type STRING, idle_ms BIGINT>",
	State:  []ptf.StateEntry{activity},
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		now, _ := ctx.Time()
		activity.Get(ctx).LastSeenMs = now.UnixMilli()
		ctx.ClearTimer("inactivity")
		return ctx.RegisterOnTime("inactivity", now.Add(inactivityTimeout))
	},
	OnTimer: func(ctx *ptf.Context) error {
		now, _ := ctx.Time()
		idle := now.UnixMilli() - activity.Get(ctx).LastSeenMs
		ctx.Collect(types.NewString("inactive"), types.NewInt(idle))
		return nil
	},
}
