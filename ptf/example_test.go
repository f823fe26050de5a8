package ptf_test

import (
	"fmt"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
)

// Definitions are validated when they are registered.
func ExampleRegistry_Register() {
	r := ptf.NewRegistry()
	bad := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic, ptf.SupportUpdates, ptf.PassColumnsThrough)},
		Output: "BIGINT",
		Eval:   func(*ptf.Context, ptf.Input) error { return nil },
	}
	fmt.Println(r.Register("acme.Bad", bad))
	// Output:
	// registering function "acme.Bad": signatures with updating inputs must not pass columns through (argument 'input')
}

// A function that chooses its changelog mode from what the consumer needs.
func ExampleChangelogContext() {
	def := &ptf.Definition{
		Changelog: func(c ptf.ChangelogContext) ptf.ChangelogMode {
			if c.Required.Contains(types.UpdateBefore) {
				return ptf.Retract()
			}
			return ptf.Upsert()
		},
	}
	fmt.Println(def.ProducedMode(ptf.ChangelogContext{Required: ptf.Retract()}))
	fmt.Println(def.ProducedMode(ptf.ChangelogContext{Required: ptf.Upsert()}))
	// Output:
	// [INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE]
	// [INSERT, UPDATE_AFTER, ~DELETE]
}

// A function that alerts when a key sees no event for five minutes of
// processing time, driven by the test harness's clock.
func ExampleContext_RegisterOnProcessingTime() {
	lastSeen := ptf.NewValue[time.Time]("last_seen")
	idle := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("events", ptf.SetSemantic)},
		Output: "ROW<alert STRING>",
		State:  []ptf.StateEntry{lastSeen},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			now := ctx.CurrentProcessingTime()
			*lastSeen.Get(ctx) = now
			return ctx.RegisterOnProcessingTime("idle", now.Add(5*time.Minute)) // replaces the last one
		},
		OnTimer: func(ctx *ptf.Context) error {
			if d, _ := ctx.TimerDomain(); d == ptf.ProcessingTime {
				quiet := ctx.CurrentProcessingTime().Sub(*lastSeen.Get(ctx))
				ctx.Collect(types.NewString(fmt.Sprintf("quiet for %s", quiet)))
			}
			return nil
		},
	}

	h, err := ptftest.New(idle,
		ptftest.Table("events", "ROW<user_id STRING>", ptftest.PartitionBy("user_id")),
		ptftest.StartTime(time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)))
	if err != nil {
		panic(err)
	}
	at := func(hhmm string) time.Time {
		t, _ := time.Parse("2006-01-02 15:04", "2026-08-01 "+hhmm)
		return t
	}
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(h.Insert("events", types.NewString("ada")))
	must(h.Insert("events", types.NewString("bob")))
	must(h.SetProcessingTime(at("09:03")))
	must(h.Insert("events", types.NewString("ada"))) // ada's timer moves to 09:08
	fmt.Println(h.Timers(types.NewString("ada")))

	// A checkpoint and a restart: processing-time timers are state too.
	snap, err := h.Snapshot()
	must(err)
	must(h.Restore(snap))

	must(h.SetProcessingTime(at("09:06"))) // bob's timer fires
	must(h.End())                          // ada's timer is not due: the end of input leaves it
	must(h.SetProcessingTime(at("09:10"))) // ada's fires
	fmt.Print(h.Format(h.Output()))
	// Output:
	// [{[ada] idle 2026-08-01 09:08:00 +0000 UTC PROCESSING_TIME}]
	// +I[bob, quiet for 6m0s]
	// +I[ada, quiet for 7m0s]
}
