package runtime

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

var procT0 = time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)

// idleSpec is a call over ROW<k BIGINT, ts TIMESTAMP(3)> partitioned by
// k, on_time ts. Each row (re)registers the key's processing-time timer
// "idle" 5 minutes after the current processing time, an unnamed one at
// the same time and an event-time timer "idle" (same name, other domain)
// at the row's time + 1 hour. OnTimer emits the domain, the timer's name
// and its time, and the processing time it fires at.
func idleSpec() *jobgraph.PTF {
	schema := types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "ts", Type: types.Timestamp(3)})
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<what STRING>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			at := ctx.CurrentProcessingTime().Add(5 * time.Minute)
			if err := ctx.RegisterOnProcessingTime("idle", at); err != nil {
				return err
			}
			if err := ctx.RegisterOnProcessingTimeUnnamed(at); err != nil {
				return err
			}
			ts, _ := ctx.Time()
			return ctx.RegisterOnTime("idle", ts.Add(time.Hour))
		},
		OnTimer: func(ctx *ptf.Context) error {
			d, ok := ctx.TimerDomain()
			if !ok {
				return fmt.Errorf("TimerDomain not ok in OnTimer")
			}
			name, _ := ctx.CurrentTimer()
			tt, _ := ctx.Time()
			ctx.Collect(types.NewString(fmt.Sprintf("%s %q at %s, now %s", d, name,
				tt.Format("15:04:05"), ctx.CurrentProcessingTime().Format("15:04:05"))))
			return nil
		},
	}
	return &jobgraph.PTF{
		Name: "idle", UID: "idle", Def: def, Produced: ptf.InsertOnly(),
		Tables:      []jobgraph.PTFTable{{Arg: "input", SetSemantic: true, Keys: []int{0}, TimeColumn: 1, Schema: schema, Delivered: ptf.InsertOnly()}},
		FuncOut:     types.NewSchema(types.Field{Name: "what", Type: types.String}),
		Out:         types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "what", Type: types.String}, types.Field{Name: "rowtime", Type: types.Timestamp(3)}),
		EmitRowtime: true,
	}
}

type procRig struct {
	t     *testing.T
	be    *state.Memory
	clock *ManualClock
	op    *ptfOp
	out   []string
	n     atomic.Int64
}

func newProcRig(t *testing.T) *procRig {
	r := &procRig{t: t, be: state.NewMemory(), clock: &ManualClock{T: procT0}}
	r.open()
	return r
}

func (r *procRig) open() {
	op, err := newPTFOp(idleSpec(), "ns", r.be, r.clock, func(row types.Row) error {
		r.out = append(r.out, fmt.Sprintf("%d %s rowtime %s", row.Values[0].Int(), row.Values[1].Str(),
			time.Unix(0, row.Values[2].Int()).UTC().Format("15:04:05")))
		return nil
	}, withProcPending(&r.n))
	require.NoError(r.t, err)
	r.op = op
}

func (r *procRig) row(k int64, at time.Duration) {
	row := types.Row{Values: []types.Value{types.NewInt(k), types.NewTimestamp(procT0.Add(at).UnixNano())}}
	require.NoError(r.t, r.op.processRow(0, &row))
}

// tick moves the clock and calls OnProcessingTime as a subtask does.
func (r *procRig) tick(d time.Duration) string {
	r.clock.Advance(d)
	r.out = nil
	require.NoError(r.t, r.op.OnProcessingTime(r.clock.Now().UnixNano()))
	return strings.Join(r.out, "\n")
}

// TestPTFProcessingTimers: processing-time timers fire when the clock
// passes them, in (time, key, name) order with the unnamed timer first,
// with time() and rowtime the timer's processing time; they are a
// namespace of their own beside event-time timers, survive a restore, do
// not fire ahead of the clock at the end of input, and the job's count of
// operators with processing-time timers follows them.
func TestPTFProcessingTimers(t *testing.T) {
	r := newProcRig(t)
	require.Empty(t, r.tick(0))
	r.row(2, 0) // processing time 09:00: timers at 09:05
	r.clock.Advance(time.Minute)
	r.row(1, 0) // 09:01: timers at 09:06
	require.Equal(t, int64(1), r.n.Load(), "the operator has processing-time timers")
	require.Empty(t, r.tick(3*time.Minute), "09:04")
	require.Equal(t, `2 PROCESSING_TIME "" at 09:05:00, now 09:05:00 rowtime 09:05:00
2 PROCESSING_TIME "idle" at 09:05:00, now 09:05:00 rowtime 09:05:00`, r.tick(time.Minute))

	// A checkpoint and a restart: the pending timers come back from the
	// state, in both domains.
	require.NoError(t, r.op.flush())
	snap := r.be.Snapshot()
	r.be = state.NewMemory()
	require.NoError(t, r.be.Restore(snap))
	r.n.Store(0)
	r.open()
	require.Equal(t, int64(1), r.n.Load(), "restored timers count")
	k1 := string(types.AppendRow(nil, types.Row{Values: []types.Value{types.NewInt(1)}}))
	require.Len(t, r.op.ptimers.pending(k1), 2)
	require.Len(t, r.op.timers.pending(k1), 1)

	// Two keys due at the same time fire in key order, not arrival order.
	r.clock.Advance(9 * time.Minute) // 09:14
	r.row(3, 0)
	r.row(1, 0) // replaces key 1's named timer, adds an unnamed one
	require.Equal(t, `1 PROCESSING_TIME "" at 09:06:00, now 09:30:00 rowtime 09:06:00
1 PROCESSING_TIME "" at 09:19:00, now 09:30:00 rowtime 09:19:00
1 PROCESSING_TIME "idle" at 09:19:00, now 09:30:00 rowtime 09:19:00
3 PROCESSING_TIME "" at 09:19:00, now 09:30:00 rowtime 09:19:00
3 PROCESSING_TIME "idle" at 09:19:00, now 09:30:00 rowtime 09:19:00`, r.tick(16*time.Minute))
	require.Equal(t, int64(0), r.n.Load(), "no processing-time timers left")

	// The end of input fires the event-time timers, and no
	// processing-time timer ahead of the clock.
	r.row(4, 0)
	r.out = nil
	require.NoError(t, r.op.OnProcessingTime(MaxWatermark))
	require.Empty(t, r.out, "processing-time timers do not fire at the end of input")
	require.NoError(t, r.op.advance(0, MaxWatermark))
	require.Equal(t, []string{
		`1 EVENT_TIME "idle" at 10:00:00, now 09:30:00 rowtime 10:00:00`,
		`2 EVENT_TIME "idle" at 10:00:00, now 09:30:00 rowtime 10:00:00`,
		`3 EVENT_TIME "idle" at 10:00:00, now 09:30:00 rowtime 10:00:00`,
		`4 EVENT_TIME "idle" at 10:00:00, now 09:30:00 rowtime 10:00:00`,
	}, r.out)
	k4 := string(types.AppendRow(nil, types.Row{Values: []types.Value{types.NewInt(4)}}))
	require.Len(t, r.op.ptimers.pending(k4), 2, "key 4's processing-time timers stay")

	// The end of input reads the clock once more: timers it has passed
	// fire (the batch that ended the input had no reading after it).
	r.clock.Advance(5 * time.Minute)
	r.out = nil
	require.NoError(t, r.op.OnProcessingTime(MaxWatermark))
	require.Equal(t, []string{
		`4 PROCESSING_TIME "" at 09:35:00, now 09:35:00 rowtime 09:35:00`,
		`4 PROCESSING_TIME "idle" at 09:35:00, now 09:35:00 rowtime 09:35:00`,
	}, r.out)
}

// TestTimerRecordsBeforeProcessingTime: timer records written before
// processing-time timers existed (flags 0 and 1) read as event-time
// timers; a record with unknown flags is refused.
func TestTimerRecordsBeforeProcessingTime(t *testing.T) {
	old := []byte{0, 20, 1, 'a', 1, 40, 0} // named "a" at 10, unnamed at 20
	var got []string
	require.NoError(t, decodeTimers(old, func(name string, unnamed, proc bool, at int64) {
		got = append(got, fmt.Sprintf("%q %v %v %d", name, unnamed, proc, at))
	}))
	require.Equal(t, []string{`"a" false false 10`, `"" true false 20`}, got)
	round := encodeTimers([]timerEntry{{t: 10, name: "a"}, {t: 20, unnamed: true}, {t: 30, name: "p", proc: true}, {t: 40, unnamed: true, proc: true}})
	require.Equal(t, old, round[:len(old)], "event-time records keep their encoding")
	got = nil
	require.NoError(t, decodeTimers(round, func(name string, unnamed, proc bool, at int64) {
		got = append(got, fmt.Sprintf("%q %v %v %d", name, unnamed, proc, at))
	}))
	require.Equal(t, []string{`"a" false false 10`, `"" true false 20`, `"p" false true 30`, `"" true true 40`}, got)
	require.ErrorContains(t, decodeTimers([]byte{4, 2, 0}, func(string, bool, bool, int64) {}), "corrupt timer record")
}
