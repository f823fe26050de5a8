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

type C struct{ N int64 }

var cv = ptf.NewValue[C]("c").WithInit(func(c *C) { c.N = 3 })

func TestProbeInitZero(t *testing.T) {
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<n BIGINT>",
		State:  []ptf.StateEntry{cv},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			s := cv.Get(ctx)
			s.N--
			ctx.Collect(types.NewInt(s.N))
			return nil
		},
	}
	h, err := ptftest.New(def, ptftest.Table("input", "ROW<k INT>", ptftest.PartitionBy("k")))
	must(t, err)
	for i := 0; i < 5; i++ {
		must(t, h.Insert("input", types.NewInt(1)))
	}
	fmt.Print(h.Format(h.TakeOutput()))
}

func TestProbeErrors(t *testing.T) {
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic, ptf.PassColumnsThrough)},
		Output: "ROW<n BIGINT>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			switch in.Row.Get("op").Str() {
			case "timer":
				ctx.RegisterOnTime("t", time.Unix(0, 0))
			case "delete":
				ctx.CollectKind(types.Delete, types.NewInt(1))
			case "panic":
				var m map[string]int
				m["x"] = 1
			}
			return nil
		},
	}
	h, err := ptftest.New(def, ptftest.Table("input", "ROW<k INT, op STRING>", ptftest.PartitionBy("k")))
	must(t, err)
	for _, op := range []string{"timer", "delete", "panic"} {
		err := h.Insert("input", types.NewInt(1), types.NewString(op))
		fmt.Printf("%s: %.300v\n", op, err)
	}
	fmt.Println(h.Schema().Names())
	_ = examples.All
}

func TestProbeHarnessStateCached(t *testing.T) {
	h, err := ptftest.New(examples.TtlCountdown, ptftest.Table("input", "ROW<user_id INT>", ptftest.PartitionBy("user_id")))
	must(t, err)
	e := examples.TtlCountdown.State[0]
	must(t, h.SetState(e, &examples.CountState{Counter: 41}, types.NewInt(1)))
	must(t, h.Insert("input", types.NewInt(1)))
	v, ok, err := h.State(e, types.NewInt(1))
	fmt.Println(v, ok, err, h.Format(h.TakeOutput()))
	must(t, h.ClearState(e, types.NewInt(1)))
	v, ok, err = h.State(e, types.NewInt(1))
	fmt.Println(v, ok, err)
	must(t, h.Insert("input", types.NewInt(1)))
	fmt.Print(h.Format(h.TakeOutput()))
	// state for never-seen key
	v, ok, err = h.State(e, types.NewInt(9))
	fmt.Println(v, ok, err)
	// SetState type mismatch
	err = h.SetState(e, &examples.OrderState{}, types.NewInt(2))
	fmt.Println("mismatch set:", err)
	err = h.Insert("input", types.NewInt(2))
	fmt.Printf("mismatch insert: %.200v\n", err)
}
