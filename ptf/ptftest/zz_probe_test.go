package ptftest_test

import (
	"fmt"
	"testing"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
)

func TestProbeTyped(t *testing.T) {
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.TypedTable("input", "ROW<name STRING, score DECIMAL(10, 2), d DOUBLE>", ptf.SetSemantic)},
		Output: "ROW<x DECIMAL(10, 2), y DOUBLE>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			fmt.Println(in.Row.Get("score").Kind(), in.Row.Get("score").Decimal(), in.Row.Get("d").Kind())
			ctx.Collect(in.Row.Get("score"), in.Row.Get("d"))
			return nil
		},
	}
	h, err := ptftest.New(def, ptftest.Table("input", "ROW<n STRING, s INT, i INT>", ptftest.PartitionBy("n")))
	fmt.Println(err)
	if err != nil {
		return
	}
	fmt.Println(h.Insert("input", types.NewString("a"), types.NewInt(5), types.NewInt(7)))
	fmt.Print(h.Format(h.Output()))
}
