package table_test

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/table"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// overdue registers, per key, a processing-time timer an hour ago (due at
// once) and one an hour ahead, and collects the name of each timer that
// fires with its domain.
var overdue = &ptf.Definition{
	Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
	Output: "ROW<fired STRING>",
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		now := ctx.CurrentProcessingTime()
		if err := ctx.RegisterOnProcessingTime("past", now.Add(-time.Hour)); err != nil {
			return err
		}
		return ctx.RegisterOnProcessingTime("future", now.Add(time.Hour))
	},
	OnTimer: func(ctx *ptf.Context) error {
		name, _ := ctx.CurrentTimer()
		d, _ := ctx.TimerDomain()
		ctx.Collect(types.NewString(name + " " + d.String()))
		return nil
	},
}

// TestProcessingTimersThroughTheTableAPI: a function with processing-time
// timers runs through the Table API as through SQL. On a bounded input the
// timers already due fire (the clock is read when the input ends), the
// ones ahead of the clock do not.
func TestProcessingTimersThroughTheTableAPI(t *testing.T) {
	env := newEnv(t, table.WithFunctions(map[string]*ptf.Definition{"test.Overdue": overdue}))
	run(t, env,
		"CREATE TABLE ev (k INT, x STRING)",
		"INSERT INTO ev VALUES (1, 'a'), (2, 'b')")
	cols, rows := collect(t, env.From("ev").PartitionBy("k").Process(overdue))
	require.Equal(t, []string{"k", "fired"}, cols)
	require.ElementsMatch(t, []string{"+I [1 past PROCESSING_TIME]", "+I [2 past PROCESSING_TIME]"}, rows)
}
