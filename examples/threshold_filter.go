package examples

import (
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// ThresholdFilter is stateless: it passes every input column through and
// adds one BOOLEAN column (EXPR$0) that says whether the row's `value`
// column exceeds the threshold argument.
//
//	SELECT * FROM ThresholdFilter(
//	    input => TABLE sensor_readings PARTITION BY sensor_id, threshold => 100.0)
var ThresholdFilter = &ptf.Definition{
	Doc: "Flags rows whose `value` exceeds a threshold, passing all input columns through.",
	Args: []ptf.Arg{
		ptf.Table("input", ptf.SetSemantic, ptf.PassColumnsThrough),
		ptf.Scalar("threshold", "DOUBLE"),
	},
	Output: "BOOLEAN",
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		v := in.Row.Get("value")
		threshold := ctx.Arg("threshold")
		ctx.Collect(types.NewBool(!v.IsNull() && !threshold.IsNull() && v.Float() > threshold.Float()))
		return nil
	},
}
