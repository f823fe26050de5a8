package ptftest_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

var pt0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // the harness's default start

// timerScript is a function whose rows are commands on the current key's
// timers: "proc <name> <minutes>" registers a processing-time timer that
// many minutes after the current processing time ("-" is unnamed),
// "event <name> <minutes>" an event-time timer at that many minutes after
// pt0, "clearproc <name>", "clearprocat <minutes>" and "clearevent <name>"
// delete one, "clearall" all. OnTimer collects the domain, name and time
// of the timer, and re-registers a timer named "every" one minute later.
var timerScript = &ptf.Definition{
	Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
	Output: "ROW<fired STRING>",
	Eval: func(ctx *ptf.Context, in ptf.Input) error {
		if _, ok := ctx.TimerDomain(); ok {
			return errors.New("TimerDomain is ok in Eval")
		}
		f := strings.Fields(in.Row.Get("cmd").Str())
		name := ""
		if len(f) > 1 && f[1] != "-" {
			name = f[1]
		}
		var min time.Duration
		if len(f) > 2 {
			fmt.Sscan(f[2], &min)
		}
		min *= time.Minute
		switch f[0] {
		case "proc":
			at := ctx.CurrentProcessingTime().Add(min)
			if name == "" {
				return ctx.RegisterOnProcessingTimeUnnamed(at)
			}
			return ctx.RegisterOnProcessingTime(name, at)
		case "event":
			if name == "" {
				return ctx.RegisterOnTimeUnnamed(pt0.Add(min))
			}
			return ctx.RegisterOnTime(name, pt0.Add(min))
		case "clearproc":
			ctx.ClearProcessingTimer(name)
		case "clearprocat":
			fmt.Sscan(f[1], &min)
			ctx.ClearProcessingTimerAt(ctx.CurrentProcessingTime().Add(min * time.Minute))
		case "clearevent":
			ctx.ClearTimer(name)
		case "clearall":
			ctx.ClearAllTimers()
		default:
			return fmt.Errorf("unknown command %q", f[0])
		}
		return nil
	},
	OnTimer: func(ctx *ptf.Context) error {
		d, ok := ctx.TimerDomain()
		if !ok {
			return errors.New("TimerDomain is not ok in OnTimer")
		}
		name, _ := ctx.CurrentTimer()
		at, _ := ctx.Time()
		ctx.Collect(types.NewString(fmt.Sprintf("%s %q %s", d, name, at.Format("15:04"))))
		if name == "every" {
			if d == ptf.ProcessingTime {
				return ctx.RegisterOnProcessingTime("every", at.Add(time.Minute))
			}
			return ctx.RegisterOnTime("every", at.Add(time.Minute))
		}
		return nil
	},
}

func newScript(t *testing.T) *ptftest.Harness {
	t.Helper()
	h, err := ptftest.New(timerScript, ptftest.Table("input", "ROW<k STRING, cmd STRING>", ptftest.PartitionBy("k")))
	require.NoError(t, err)
	return h
}

func run(t *testing.T, h *ptftest.Harness, k string, cmds ...string) {
	t.Helper()
	for _, c := range cmds {
		require.NoError(t, h.Insert("input", types.NewString(k), types.NewString(c)), c)
	}
}

func firedSince(h *ptftest.Harness, n int) []string {
	var out []string
	for _, tm := range h.Fired()[n:] {
		out = append(out, fmt.Sprintf("%v %s %q %s", tm.Key, tm.Domain, tm.Name, tm.Time.Format("15:04")))
	}
	return out
}

// TestProcessingTimersFireWithTheClock: SetProcessingTime and AdvanceTime
// fire the processing-time timers they pass, in (time, key, name) order;
// watermarks fire only event-time timers, End also the processing-time
// timers already due.
func TestProcessingTimersFireWithTheClock(t *testing.T) {
	h := newScript(t)
	run(t, h, "b", "proc x 5", "proc - 5", "event x 5")
	run(t, h, "a", "proc y 5", "proc x 7")
	require.Equal(t, []ptftest.Timer{
		{Key: []types.Value{types.NewString("b")}, Name: "x", Time: pt0.Add(5 * time.Minute)},
		{Key: []types.Value{types.NewString("b")}, Name: "", Time: pt0.Add(5 * time.Minute), Domain: ptf.ProcessingTime},
		{Key: []types.Value{types.NewString("b")}, Name: "x", Time: pt0.Add(5 * time.Minute), Domain: ptf.ProcessingTime},
	}, h.Timers(types.NewString("b")), "event-time timers first, then processing-time ones")

	require.NoError(t, h.Watermark(pt0.Add(time.Hour)))
	require.Equal(t, []string{`[b] EVENT_TIME "x" 00:05`}, firedSince(h, 0), "a watermark fires event-time timers only")
	require.NoError(t, h.SetProcessingTime(pt0.Add(4*time.Minute)))
	require.Len(t, h.Fired(), 1)
	require.NoError(t, h.SetProcessingTime(pt0.Add(5*time.Minute)))
	require.Equal(t, []string{`[a] PROCESSING_TIME "y" 00:05`, `[b] PROCESSING_TIME "" 00:05`, `[b] PROCESSING_TIME "x" 00:05`}, firedSince(h, 1))
	require.NoError(t, h.AdvanceTime(2*time.Minute))
	require.Equal(t, []string{`[a] PROCESSING_TIME "x" 00:07`}, firedSince(h, 4))
	require.Equal(t, "+I[b, EVENT_TIME \"x\" 00:05]\n+I[a, PROCESSING_TIME \"y\" 00:05]\n+I[b, PROCESSING_TIME \"\" 00:05]\n"+
		"+I[b, PROCESSING_TIME \"x\" 00:05]\n+I[a, PROCESSING_TIME \"x\" 00:07]\n", h.Format(h.Output()))

	// A timer at or before the current processing time fires at the next
	// move of the clock, even a move by nothing.
	run(t, h, "a", "proc late -3")
	require.Len(t, h.Fired(), 5)
	require.NoError(t, h.AdvanceTime(0))
	require.Equal(t, []string{`[a] PROCESSING_TIME "late" 00:04`}, firedSince(h, 5))

	// A timer registered in OnTimer fires in the same move when it is due.
	run(t, h, "c", "proc every 1")
	require.NoError(t, h.AdvanceTime(3*time.Minute))
	require.Equal(t, []string{`[c] PROCESSING_TIME "every" 00:08`, `[c] PROCESSING_TIME "every" 00:09`, `[c] PROCESSING_TIME "every" 00:10`}, firedSince(h, 6))

	// End sends the maximum watermark and fires the processing-time
	// timers already due, none ahead of the clock.
	run(t, h, "d", "proc due 0")
	require.NoError(t, h.End())
	require.Equal(t, []string{`[d] PROCESSING_TIME "due" 00:10`}, firedSince(h, 9))
	require.Equal(t, []ptftest.Timer{{Key: []types.Value{types.NewString("c")}, Name: "every", Time: pt0.Add(11 * time.Minute), Domain: ptf.ProcessingTime}},
		h.Timers(types.NewString("c")))
	require.ErrorContains(t, h.AdvanceTime(-time.Second), "cannot go back")
	require.ErrorContains(t, h.SetProcessingTime(pt0), "cannot go back")
}

// TestProcessingTimerNamespaces: a processing-time and an event-time timer
// may share a name; ClearTimer and ClearTimerAt delete event-time timers,
// ClearProcessingTimer and ClearProcessingTimerAt processing-time ones,
// ClearAllTimers both.
func TestProcessingTimerNamespaces(t *testing.T) {
	h := newScript(t)
	k := types.NewString("k")
	names := func() []string {
		var out []string
		for _, tm := range h.Timers(k) {
			out = append(out, fmt.Sprintf("%s %q", tm.Domain, tm.Name))
		}
		return out
	}
	run(t, h, "k", "proc x 5", "event x 5", "proc - 5", "proc - 6")
	require.Equal(t, []string{`EVENT_TIME "x"`, `PROCESSING_TIME ""`, `PROCESSING_TIME "x"`, `PROCESSING_TIME ""`}, names(), "by time: 00:05, 00:05, 00:06")
	run(t, h, "k", "clearproc x")
	require.Equal(t, []string{`EVENT_TIME "x"`, `PROCESSING_TIME ""`, `PROCESSING_TIME ""`}, names())
	run(t, h, "k", "clearprocat 6")
	require.Equal(t, []ptftest.Timer{
		{Key: []types.Value{k}, Name: "x", Time: pt0.Add(5 * time.Minute)},
		{Key: []types.Value{k}, Time: pt0.Add(5 * time.Minute), Domain: ptf.ProcessingTime},
	}, h.Timers(k))
	run(t, h, "k", "proc x 5", "clearevent x")
	require.Equal(t, []string{`PROCESSING_TIME ""`, `PROCESSING_TIME "x"`}, names())
	run(t, h, "k", "event x 5", "clearall")
	require.Empty(t, names())
	require.NoError(t, h.SetProcessingTime(pt0.Add(time.Hour)))
	require.NoError(t, h.End())
	require.Empty(t, h.Fired())
}

// TestProcessingTimersSurviveRestore: a snapshot in the middle of a test
// keeps the pending processing-time timers; after the restore they fire
// on the clock, which goes on.
func TestProcessingTimersSurviveRestore(t *testing.T) {
	h := newScript(t)
	run(t, h, "a", "proc x 5", "proc - 6")
	run(t, h, "b", "proc x 1")
	snap, err := h.Snapshot()
	require.NoError(t, err)
	require.NoError(t, h.SetProcessingTime(pt0.Add(2*time.Minute)))
	require.Equal(t, []string{`[b] PROCESSING_TIME "x" 00:01`}, firedSince(h, 0))
	require.NoError(t, h.Restore(snap)) // b's timer is pending again
	require.Len(t, h.Timers(types.NewString("a")), 2)
	require.NoError(t, h.AdvanceTime(4*time.Minute))
	require.Equal(t, []string{`[b] PROCESSING_TIME "x" 00:01`, `[a] PROCESSING_TIME "x" 00:05`, `[a] PROCESSING_TIME "" 00:06`}, firedSince(h, 1))
}

// TestProcessingTimerErrors: the errors are values, as the event-time
// ones: ErrEmptyTimerName, ErrTimerOutOfRange, and ErrTimersNotSupported
// where a call cannot have timers; an OnTimer error fails the clock move.
func TestProcessingTimerErrors(t *testing.T) {
	var errs []error
	probe := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<x INT>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			errs = append(errs,
				ctx.RegisterOnProcessingTime("", ctx.CurrentProcessingTime()),
				ctx.RegisterOnProcessingTime("far", time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)),
				ctx.RegisterOnProcessingTimeUnnamed(ptf.MaxTime), // never fires
				ctx.RegisterOnProcessingTime("boom", ctx.CurrentProcessingTime().Add(time.Second)))
			return nil
		},
		OnTimer: func(ctx *ptf.Context) error { return errors.New("boom") },
	}
	h, err := ptftest.New(probe, ptftest.Table("input", "ROW<k INT>", ptftest.PartitionBy("k")))
	require.NoError(t, err)
	require.NoError(t, h.Insert("input", types.NewInt(1)))
	require.ErrorIs(t, errs[0], ptf.ErrEmptyTimerName)
	require.ErrorIs(t, errs[1], ptf.ErrTimerOutOfRange)
	require.NoError(t, errs[2])
	require.NoError(t, errs[3])
	require.ErrorContains(t, h.AdvanceTime(time.Second), "boom")

	errs = nil
	rowSem := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.RowSemantic)},
		Output: "ROW<x INT>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			errs = append(errs, ctx.RegisterOnProcessingTime("t", ctx.CurrentProcessingTime()), ctx.RegisterOnProcessingTimeUnnamed(ctx.CurrentProcessingTime()))
			return nil
		},
	}
	h, err = ptftest.New(rowSem, ptftest.Table("input", "ROW<k INT>"))
	require.NoError(t, err)
	require.NoError(t, h.Insert("input", types.NewInt(1)))
	require.ErrorIs(t, errs[0], ptf.ErrTimersNotSupported)
	require.ErrorIs(t, errs[1], ptf.ErrTimersNotSupported)
}

// TestCurrentProcessingTimeIsTheHarnessClock: CurrentProcessingTime reads
// the harness's clock in Eval and OnTimer.
func TestCurrentProcessingTimeIsTheHarnessClock(t *testing.T) {
	var seen []time.Time
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<x INT>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			seen = append(seen, ctx.CurrentProcessingTime())
			return ctx.RegisterOnProcessingTime("t", ctx.CurrentProcessingTime().Add(time.Minute))
		},
		OnTimer: func(ctx *ptf.Context) error {
			seen = append(seen, ctx.CurrentProcessingTime())
			return nil
		},
	}
	start := time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)
	h, err := ptftest.New(def, ptftest.Table("input", "ROW<k INT>", ptftest.PartitionBy("k")), ptftest.StartTime(start))
	require.NoError(t, err)
	require.NoError(t, h.Insert("input", types.NewInt(1)))
	require.NoError(t, h.AdvanceTime(90*time.Second))
	require.Equal(t, []time.Time{start, start.Add(90 * time.Second)}, seen)
}
