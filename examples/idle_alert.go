package examples

import (
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// IdleState counts a partition's events since its last alert and
// remembers when the last one arrived, in processing time.
type IdleState struct {
	Events     int64 `json:"events"`
	LastSeenMs int64 `json:"lastSeenMs"`
}

var idle = ptf.NewValue[IdleState]("state")

// idleTimeout is how long a partition may stay quiet, in processing time,
// before an alert.
const idleTimeout = 5 * time.Minute

// IdleAlert emits an alert when a partition sees no event for 5 minutes
// of processing time (wall-clock time: the engine's clock). Each event
// replaces the partition's processing-time timer "idle"; when the clock
// passes it, OnTimer emits ('idle', events since the last alert, idle_ms)
// and clears the state. Processing-time timers are an Eddy extension
// (Flink's PTFs have event-time timers only); tests drive the clock, so
// the results are deterministic there (ptftest's SetProcessingTime).
//
//	SELECT * FROM IdleAlert(input => TABLE user_events PARTITION BY user_id)
var IdleAlert = &ptf.Definition{
	Doc:    "Alerts when a partition sees no event for 5 minutes of processing time.",
	Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
	Output: "ROW<alert_type STRING, events BIGINT, idle_ms BIGINT>",
	State:  []ptf.StateEntry{idle},
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		now := ctx.CurrentProcessingTime()
		s := idle.Get(ctx)
		s.Events++
		s.LastSeenMs = now.UnixMilli()
		return ctx.RegisterOnProcessingTime("idle", now.Add(idleTimeout)) // replaces the previous one
	},
	OnTimer: func(ctx *ptf.Context) error {
		s := idle.Get(ctx)
		quiet := ctx.CurrentProcessingTime().UnixMilli() - s.LastSeenMs
		ctx.Collect(types.NewString("idle"), types.NewInt(s.Events), types.NewInt(quiet))
		ctx.ClearState("state")
		return nil
	},
}
