package ptftest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
)

func TestProbeTimerRefire(t *testing.T) {
	h, err := ptftest.New(examples.InactivityAlert,
		ptftest.Table("input", "ROW<user_id INT, event_time TIMESTAMP(3)>",
			ptftest.PartitionBy("user_id"), ptftest.TimeAttribute("event_time")),
		ptftest.OnTime("event_time"))
	if err != nil {
		t.Fatal(err)
	}
	ts := types.NewTimestampTime(time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC))
	must(t, h.Insert("input", types.NewInt(1), ts))
	_, err = h.Snapshot()
	must(t, err)
	must(t, h.Watermark(time.Date(2026, 8, 1, 9, 5, 0, 0, time.UTC)))
	fmt.Print(h.Format(h.TakeOutput()))
	snap, err := h.Snapshot()
	must(t, err)
	must(t, h.Restore(snap))
	fmt.Println(h.Timers(types.NewInt(1)))
	must(t, h.End())
	fmt.Print(h.Format(h.TakeOutput()))
}

type S struct{ N int64 }

var sv = ptf.NewValue[S]("s", ptf.WithTTL(30*time.Second))

func TestProbeTTLRead(t *testing.T) {
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<n BIGINT>",
		State:  []ptf.StateEntry{sv},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			s := sv.Get(ctx)
			if in.Row.Get("op").Str() == "inc" {
				s.N++
			}
			ctx.Collect(types.NewInt(s.N))
			return nil
		},
	}
	h, err := ptftest.New(def, ptftest.Table("input", "ROW<k INT, op STRING>", ptftest.PartitionBy("k")))
	must(t, err)
	must(t, h.Insert("input", types.NewInt(1), types.NewString("inc")))
	h.AdvanceTime(20 * time.Second)
	must(t, h.Insert("input", types.NewInt(1), types.NewString("read")))
	h.AdvanceTime(15 * time.Second)
	must(t, h.Insert("input", types.NewInt(1), types.NewString("read")))
	fmt.Print(h.Format(h.TakeOutput()))
	// state after restore expired
	must(t, h.Insert("input", types.NewInt(2), types.NewString("inc")))
	snap, _ := h.Snapshot()
	must(t, h.Restore(snap))
	h.AdvanceTime(31 * time.Second)
	v, ok, err := h.State(sv, types.NewInt(2))
	fmt.Println("after restore+expiry:", v, ok, err)
}

var lv = ptf.NewList[string]("l", ptf.WithTTL(30*time.Second))

func TestProbeListTTL(t *testing.T) {
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<n BIGINT>",
		State:  []ptf.StateEntry{lv},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			l := lv.Get(ctx)
			l.Add("x")
			ctx.Collect(types.NewInt(int64(l.Len())))
			return nil
		},
	}
	h, err := ptftest.New(def, ptftest.Table("input", "ROW<k INT>", ptftest.PartitionBy("k")))
	must(t, err)
	must(t, h.Insert("input", types.NewInt(1)))
	h.AdvanceTime(31 * time.Second)
	must(t, h.Insert("input", types.NewInt(1)))
	fmt.Print(h.Format(h.TakeOutput()))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
