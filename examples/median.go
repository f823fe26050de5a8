package examples

import (
	"errors"
	"fmt"
	"slices"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// TempsState holds the trailing readings of one sensor.
type TempsState struct {
	Temps []float64 `json:"temps"`
}

var trailingTemps = ptf.NewValue[TempsState]("trailingTemps")

// Median emits each reading with the median of the last numTrailing
// readings of its partition. A NULL temperature or a numTrailing below 1
// fails the call, as the Java original fails on them.
//
//	SELECT * FROM Median(
//	    input => TABLE temperature_readings PARTITION BY sensor_id, numTrailing => 3)
var Median = &ptf.Definition{
	Doc: "Emits each temperature with the median of the trailing numTrailing readings.",
	Args: []ptf.Arg{
		ptf.Table("input", ptf.SetSemantic),
		ptf.Scalar("numTrailing", "INT"),
	},
	Output: "ROW<temperature DOUBLE, median DOUBLE>",
	State:  []ptf.StateEntry{trailingTemps},
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		st := trailingTemps.Get(ctx)
		t := in.Row.Get("temperature")
		if t.IsNull() {
			return errors.New("the temperature is NULL")
		}
		numTrailing := ctx.Arg("numTrailing")
		n := int(numTrailing.Int())
		if numTrailing.IsNull() || n < 1 {
			return fmt.Errorf("numTrailing must be at least 1, got %s", numTrailing)
		}
		st.Temps = append(st.Temps, t.Float())
		if over := len(st.Temps) - n; over > 0 {
			st.Temps = append(st.Temps[:0], st.Temps[over:]...)
		}
		sorted := slices.Clone(st.Temps)
		slices.Sort(sorted)
		k := len(sorted)
		median := sorted[k/2]
		if k%2 == 0 {
			median = (sorted[k/2-1] + sorted[k/2]) / 2
		}
		ctx.Collect(t, types.NewFloat(median))
		return nil
	},
}
