package ptftest_test

import (
	"testing"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// A function without table arguments runs once, with its scalar arguments.
func TestRunWithoutTables(t *testing.T) {
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Scalar("n", "INT")},
		Output: "ROW<msg STRING, n INT>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			ctx.Collect(types.NewString("once"), ctx.Arg("n"))
			return nil
		},
	}
	h, err := ptftest.New(def, ptftest.Arg("n", types.NewInt(7)))
	require.NoError(t, err)
	require.Equal(t, []string{"msg", "n"}, h.Schema().Names())
	require.NoError(t, h.Run())
	require.Equal(t, "+I[once, 7]\n", h.Format(h.Output()))
	require.Error(t, h.Insert("input", types.NewInt(1)))
}

// VARCHAR without a length in a PTF type string is STRING, as in SQL, so
// neither a scalar argument nor an output column cuts a value.
func TestVarcharWithoutLength(t *testing.T) {
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Scalar("s", "VARCHAR")},
		Output: "ROW<status VARCHAR, code CHAR>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			ctx.Collect(ctx.Arg("s"), types.NewString("x"))
			return nil
		},
	}
	h, err := ptftest.New(def, ptftest.Arg("s", types.NewString("hello world")))
	require.NoError(t, err)
	require.Equal(t, "ROW<`status` STRING, `code` CHAR(1)>", h.Schema().RowType().String())
	require.NoError(t, h.Run())
	require.Equal(t, "+I[hello world, x]\n", h.Format(h.Output()))
}
