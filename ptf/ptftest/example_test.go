package ptftest_test

import (
	"fmt"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
)

// A session counter: counts a user's events and reports the count when the
// user has been quiet for five minutes of event time.
func Example() {
	count := ptf.NewValue[struct{ N int64 }]("count")
	sessions := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("events", ptf.SetSemantic, ptf.RequireOnTime)},
		Output: "ROW<events BIGINT>",
		State:  []ptf.StateEntry{count},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			count.Get(ctx).N++
			now, _ := ctx.Time()
			return ctx.RegisterOnTime("end", now.Add(5*time.Minute))
		},
		OnTimer: func(ctx *ptf.Context) error {
			ctx.Collect(types.NewInt(count.Get(ctx).N))
			ctx.ClearAll()
			return nil
		},
	}

	h, err := ptftest.New(sessions,
		ptftest.Table("events", "ROW<user_id STRING, ts TIMESTAMP(3)>",
			ptftest.PartitionBy("user_id"), ptftest.TimeAttribute("ts")),
		ptftest.OnTime("ts"))
	if err != nil {
		panic(err)
	}
	t0 := time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)
	event := func(user string, after time.Duration) {
		if err := h.Insert("events", types.NewString(user), types.NewTimestampTime(t0.Add(after))); err != nil {
			panic(err)
		}
	}
	event("ada", 0)
	event("ada", 2*time.Minute)
	event("bob", 3*time.Minute)
	fmt.Println(h.Schema().Names())
	fmt.Println(h.Timers(types.NewString("ada")))

	// A checkpoint and a restart in the middle: state and timers survive.
	snap, err := h.Snapshot()
	if err != nil {
		panic(err)
	}
	if err := h.Restore(snap); err != nil {
		panic(err)
	}
	event("bob", 4*time.Minute)
	if err := h.Watermark(t0.Add(8 * time.Minute)); err != nil {
		panic(err)
	}
	if err := h.End(); err != nil {
		panic(err)
	}
	fmt.Print(h.Format(h.Output()))
	// Output:
	// [user_id events rowtime]
	// [{[ada] end 2026-08-01 09:07:00 +0000 UTC EVENT_TIME}]
	// +I[ada, 2, 2026-08-01 09:07:00.000]
	// +I[bob, 2, 2026-08-01 09:09:00.000]
}
