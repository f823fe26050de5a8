package ptftest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// timerDef registers and clears timers. Steps (times come from the row's at
// column): named:N registers the named timer N, unnamed an unnamed timer,
// clear:N clears N, clear-at the unnamed timer at at, clear-all every timer
// of the key, current emits ctx.CurrentTimer, wm emits the table's and the
// function's watermark, empty-name registers a timer named "".
//
// OnTimer emits (timer name, its time, the watermark); a timer named again
// registers "again-past" an hour before its own time.
func timerDef() *ptf.Definition {
	return timerDefOver("input")
}

func timerDefOver(tables ...string) *ptf.Definition {
	def := &ptf.Definition{
		Output: "ROW<timer STRING, fired_at TIMESTAMP(3), wm TIMESTAMP(3)>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			when := in.Row.Get("at").Time()
			for _, op := range ops(in) {
				verb, name, _ := strings.Cut(op, ":")
				switch verb {
				case "named":
					if err := ctx.RegisterOnTime(name, when); err != nil {
						return err
					}
				case "unnamed":
					if err := ctx.RegisterOnTimeUnnamed(when); err != nil {
						return err
					}
				case "clear":
					ctx.ClearTimer(name)
				case "clear-at":
					ctx.ClearTimerAt(when)
				case "clear-all":
					ctx.ClearAllTimers()
				case "empty-name":
					if err := ctx.RegisterOnTime("", when); err != nil {
						return err
					}
				case "current":
					n, ok := ctx.CurrentTimer()
					ctx.Collect(types.NewString(fmt.Sprintf("current %q %v", n, ok)), types.Null, types.Null)
				case "wm":
					tw, _ := ctx.TableWatermark()
					cw, _ := ctx.CurrentWatermark()
					ctx.Collect(types.NewString("wm "+in.Arg), tsOrNull(tw), tsOrNull(cw))
				}
			}
			return nil
		},
		OnTimer: func(ctx *ptf.Context) error {
			name, ok := ctx.CurrentTimer()
			if !ok {
				return fmt.Errorf("CurrentTimer is not ok in OnTimer")
			}
			when, _ := ctx.Time()
			wm, _ := ctx.CurrentWatermark()
			if name == "" {
				name = "<unnamed>"
			}
			ctx.Collect(types.NewString(name), types.NewTimestampTime(when), tsOrNull(wm))
			if name == "again" {
				return ctx.RegisterOnTime("again-past", when.Add(-time.Hour))
			}
			return nil
		},
	}
	for _, t := range tables {
		def.Args = append(def.Args, ptf.Table(t, ptf.SetSemantic))
	}
	return def
}

func tsOrNull(t time.Time) types.Value {
	if t.IsZero() {
		return types.Null
	}
	return types.NewTimestampTime(t)
}

// pending formats the pending timers of a key as "name@offset" from t0.
func pending(h *ptftest.Harness, k string) []string {
	var out []string
	for _, tm := range h.Timers(key(k)...) {
		out = append(out, timerString(tm))
	}
	return out
}

// fired formats the fired timers as "key/name@offset".
func fired(h *ptftest.Harness) []string {
	var out []string
	for _, tm := range h.Fired() {
		out = append(out, fmt.Sprintf("%s/%s", tm.Key[0].Str(), timerString(tm)))
	}
	return out
}

func timerString(tm ptftest.Timer) string {
	name := tm.Name
	if name == "" {
		name = "<unnamed>"
	}
	return fmt.Sprintf("%s@%s", name, tm.Time.Sub(t0))
}

// TestNamedTimerIsReplaced: registering a name again replaces its timer;
// only the last registration fires.
func TestNamedTimerIsReplaced(t *testing.T) {
	for _, tc := range []struct {
		name  string
		times []time.Duration // registrations of "a", in order
	}{
		{"later", []time.Duration{time.Minute, 5 * time.Minute}},
		{"earlier", []time.Duration{5 * time.Minute, time.Minute}},
		{"back to the first time", []time.Duration{time.Minute, 5 * time.Minute, time.Minute}},
		{"same time", []time.Duration{time.Minute, time.Minute}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newOps(t, timerDef())
			for _, d := range tc.times {
				mustSend(t, h, "k", "named:a", at(d))
			}
			last := tc.times[len(tc.times)-1]
			require.Equal(t, []string{"a@" + last.String()}, pending(h, "k"))
			require.NoError(t, h.Watermark(at(10*time.Minute)))
			require.Equal(t, []string{"k/a@" + last.String()}, fired(h))
			require.Equal(t, rows(fmt.Sprintf("+I[k, a, %s, 2026-08-01 09:10:00.000]", fmtTS(at(last)))), take(h))
			require.Empty(t, pending(h, "k"))
		})
	}
}

func fmtTS(t time.Time) string { return t.Format("2006-01-02 15:04:05.000") }

// TestUnnamedTimersDedupePerTime: one unnamed timer per key and time; named
// and unnamed timers at the same time are distinct.
func TestUnnamedTimersDedupePerTime(t *testing.T) {
	h := newOps(t, timerDef())
	mustSend(t, h, "k", "unnamed unnamed", at(time.Minute))
	mustSend(t, h, "k", "unnamed named:x", at(time.Minute))
	mustSend(t, h, "k", "unnamed", at(2*time.Minute))
	mustSend(t, h, "j", "unnamed", at(time.Minute))
	require.Equal(t, []string{"<unnamed>@1m0s", "x@1m0s", "<unnamed>@2m0s"}, pending(h, "k"))
	require.NoError(t, h.End())
	require.Equal(t, []string{"j/<unnamed>@1m0s", "k/<unnamed>@1m0s", "k/x@1m0s", "k/<unnamed>@2m0s"}, fired(h))
}

// TestClearTimers: ClearTimer deletes a named timer, ClearTimerAt the
// unnamed timer at a time (never a named one), ClearAllTimers every timer of
// the current key; other keys keep theirs.
func TestClearTimers(t *testing.T) {
	for _, tc := range []struct {
		op        string
		remaining []string // of key k
	}{
		{"clear:x", []string{"<unnamed>@1m0s", "y@1m0s", "<unnamed>@2m0s"}},
		{"clear:nope", []string{"<unnamed>@1m0s", "x@1m0s", "y@1m0s", "<unnamed>@2m0s"}},
		{"clear-at", []string{"x@1m0s", "y@1m0s", "<unnamed>@2m0s"}},
		{"clear-all", nil},
		{"clear-all named:z", []string{"z@1m0s"}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			h := newOps(t, timerDef())
			mustSend(t, h, "k", "named:x named:y unnamed", at(time.Minute))
			mustSend(t, h, "k", "unnamed", at(2*time.Minute))
			mustSend(t, h, "j", "named:x unnamed", at(time.Minute))
			mustSend(t, h, "k", tc.op, at(time.Minute))
			require.Equal(t, tc.remaining, pending(h, "k"))
			require.Equal(t, []string{"<unnamed>@1m0s", "x@1m0s"}, pending(h, "j"))
			require.NoError(t, h.End())
			var want []string
			for _, p := range tc.remaining {
				want = append(want, "k/"+p)
			}
			var got []string
			for _, f := range fired(h) {
				if strings.HasPrefix(f, "k/") {
					got = append(got, f)
				}
			}
			require.Equal(t, want, got)
		})
	}
}

// TestTimerFiringOrder: due timers fire in (time, key, name) order across
// keys, an unnamed timer before the named ones of its key and time,
// whatever the order they were registered in.
func TestTimerFiringOrder(t *testing.T) {
	h := newOps(t, timerDef())
	mustSend(t, h, "c", "named:z", at(2*time.Minute))
	mustSend(t, h, "c", "unnamed", at(time.Minute))
	mustSend(t, h, "b", "named:y named:x", at(time.Minute))
	mustSend(t, h, "a", "named:w", at(2*time.Minute))
	mustSend(t, h, "a", "unnamed named:v", at(time.Minute))
	mustSend(t, h, "b", "named:late", at(3*time.Minute))
	require.NoError(t, h.Watermark(at(2*time.Minute)))
	require.Equal(t, []string{
		"a/<unnamed>@1m0s", "a/v@1m0s", "b/x@1m0s", "b/y@1m0s", "c/<unnamed>@1m0s",
		"a/w@2m0s", "c/z@2m0s",
	}, fired(h))
	require.Equal(t, rows(
		"+I[a, <unnamed>, 2026-08-01 09:01:00.000, 2026-08-01 09:02:00.000]",
		"+I[a, v, 2026-08-01 09:01:00.000, 2026-08-01 09:02:00.000]",
		"+I[b, x, 2026-08-01 09:01:00.000, 2026-08-01 09:02:00.000]",
		"+I[b, y, 2026-08-01 09:01:00.000, 2026-08-01 09:02:00.000]",
		"+I[c, <unnamed>, 2026-08-01 09:01:00.000, 2026-08-01 09:02:00.000]",
		"+I[a, w, 2026-08-01 09:02:00.000, 2026-08-01 09:02:00.000]",
		"+I[c, z, 2026-08-01 09:02:00.000, 2026-08-01 09:02:00.000]",
	), take(h))
	require.Equal(t, []string{"late@3m0s"}, pending(h, "b"))
}

// TestCurrentTimer: CurrentTimer names the firing timer in OnTimer ("" for
// an unnamed one, see timerDef) and is not ok in Eval.
func TestCurrentTimer(t *testing.T) {
	h := newOps(t, timerDef())
	mustSend(t, h, "k", "current named:t1", at(time.Minute))
	require.NoError(t, h.End())
	out := take(h)
	require.Contains(t, out, `+I[k, current "" false, <NULL>, <NULL>]`)
	require.Contains(t, out, "+I[k, t1, 2026-08-01 09:01:00.000, ")
}

// TestTimerInThePast: a timer at or before the watermark is allowed; from
// Eval it fires at the next watermark advance, from OnTimer right after the
// current timer in the same advance.
func TestTimerInThePast(t *testing.T) {
	h := newOps(t, timerDef())
	require.NoError(t, h.Watermark(at(10*time.Minute)))
	mustSend(t, h, "k", "named:past unnamed", at(time.Minute))
	mustSend(t, h, "k", "named:now", at(10*time.Minute))
	require.Empty(t, take(h), "nothing fires during Eval")
	require.Equal(t, []string{"<unnamed>@1m0s", "past@1m0s", "now@10m0s"}, pending(h, "k"))
	require.NoError(t, h.Watermark(at(10*time.Minute)))
	require.Empty(t, take(h), "the same watermark is no advance")
	require.NoError(t, h.Watermark(at(10*time.Minute+time.Millisecond)))
	require.Equal(t, rows(
		"+I[k, <unnamed>, 2026-08-01 09:01:00.000, 2026-08-01 09:10:00.001]",
		"+I[k, past, 2026-08-01 09:01:00.000, 2026-08-01 09:10:00.001]",
		"+I[k, now, 2026-08-01 09:10:00.000, 2026-08-01 09:10:00.001]",
	), take(h))

	mustSend(t, h, "k", "named:again", at(20*time.Minute))
	require.NoError(t, h.Watermark(at(20*time.Minute)))
	require.Equal(t, rows(
		"+I[k, again, 2026-08-01 09:20:00.000, 2026-08-01 09:20:00.000]",
		"+I[k, again-past, 2026-08-01 08:20:00.000, 2026-08-01 09:20:00.000]",
	), take(h))
	require.Empty(t, pending(h, "k"))
}

// TestTimerRowtime: with on_time, rows emitted in Eval carry the row's time
// as rowtime and rows emitted in OnTimer the timer's time.
func TestTimerRowtime(t *testing.T) {
	h := newOps(t, timerDef(), ptftest.OnTime("at"))
	require.Equal(t, []string{"k", "timer", "fired_at", "wm", "rowtime"}, h.Schema().Names())
	mustSend(t, h, "k", "current named:t", at(time.Minute))
	require.NoError(t, h.Watermark(at(5*time.Minute)))
	require.Equal(t, rows(
		`+I[k, current "" false, <NULL>, <NULL>, 2026-08-01 09:01:00.000]`,
		"+I[k, t, 2026-08-01 09:01:00.000, 2026-08-01 09:05:00.000, 2026-08-01 09:01:00.000]",
	), take(h))
}

// TestTimerNameMustNotBeEmpty: named timers need a name.
func TestTimerNameMustNotBeEmpty(t *testing.T) {
	h := newOps(t, timerDef())
	require.ErrorContains(t, send(h, "k", "empty-name", t0), "timer names must not be empty")
}

// TestWatermarkIsTheMinimumOverTables: with two tables the function's
// watermark is the minimum of the tables' watermarks; timers fire only when
// it passes them. TableWatermark is the watermark of the row's table.
func TestWatermarkIsTheMinimumOverTables(t *testing.T) {
	h, err := ptftest.New(timerDefOver("left", "right"),
		ptftest.Table("left", opsTable, ptftest.PartitionBy("k")),
		ptftest.Table("right", opsTable, ptftest.PartitionBy("k")))
	require.NoError(t, err)
	require.Equal(t, []string{"k", "k0", "timer", "fired_at", "wm"}, h.Schema().Names())
	in := func(table, k, op string, when time.Time) {
		t.Helper()
		require.NoError(t, h.Insert(table, types.NewString(k), types.NewString(op), types.NewTimestampTime(when)))
	}
	in("left", "a", "named:t wm", at(time.Minute))
	require.NoError(t, h.TableWatermark("left", at(10*time.Minute)))
	require.Empty(t, fired(h), "right has no watermark yet")
	in("right", "a", "wm", t0)
	in("left", "a", "wm", t0)
	require.NoError(t, h.TableWatermark("right", at(2*time.Minute)))
	require.Equal(t, []string{"a/t@1m0s"}, fired(h))
	require.Equal(t, rows(
		"+I[a, a, wm left, <NULL>, <NULL>]",
		"+I[a, a, wm right, <NULL>, <NULL>]",
		"+I[a, a, wm left, 2026-08-01 09:10:00.000, <NULL>]",
		"+I[a, a, t, 2026-08-01 09:01:00.000, 2026-08-01 09:02:00.000]",
	), take(h))
}

// TestTimersSurviveSnapshot: pending timers are part of a snapshot; timers
// registered or cleared after it are rolled back by a restore.
func TestTimersSurviveSnapshot(t *testing.T) {
	h := newOps(t, timerDef())
	mustSend(t, h, "k", "named:a unnamed", at(time.Minute))
	mustSend(t, h, "j", "named:b", at(2*time.Minute))
	snap, err := h.Snapshot()
	require.NoError(t, err)
	mustSend(t, h, "k", "clear-all", t0)
	mustSend(t, h, "j", "named:c", at(3*time.Minute))
	require.NoError(t, h.Restore(snap))
	require.Equal(t, []string{"<unnamed>@1m0s", "a@1m0s"}, pending(h, "k"))
	require.Equal(t, []string{"b@2m0s"}, pending(h, "j"))
	require.NoError(t, h.End())
	require.Equal(t, []string{"k/<unnamed>@1m0s", "k/a@1m0s", "j/b@2m0s"}, fired(h))
}

// TestFiredTimerStaysFiredAfterRestore: a timer that was in a snapshot and
// then fired must not come back with the next snapshot. The runtime removes
// a fired timer from its queue but does not mark its key for the next
// flush (internal/runtime ptfop.go: popDue/fire never set timerDirty), so
// the checkpoint keeps the old timer and a restore fires it a second time
// — duplicate output after every restart of a job.
func TestFiredTimerStaysFiredAfterRestore(t *testing.T) {
	h := newOps(t, timerDef())
	mustSend(t, h, "k", "named:a unnamed", at(time.Minute))
	_, err := h.Snapshot()
	require.NoError(t, err)
	require.NoError(t, h.Watermark(at(5*time.Minute)))
	require.Equal(t, []string{"k/<unnamed>@1m0s", "k/a@1m0s"}, fired(h))
	take(h)
	snap, err := h.Snapshot()
	require.NoError(t, err)
	require.NoError(t, h.Restore(snap))
	require.NoError(t, h.End())
	require.Empty(t, take(h), "timers fired a second time after the restore")
	require.Empty(t, pending(h, "k"))
}

// TestOnTimerState: OnTimer runs in the timer's key with its state; its
// changes persist. The table watermark is not defined there.
func TestOnTimerState(t *testing.T) {
	v := ptf.NewValue[counter]("n")
	def := counterDef(v)
	eval := def.Eval
	def.Eval = func(ctx *ptf.Context, in ptf.Input) error {
		if err := ctx.RegisterOnTimeUnnamed(in.Row.Get("at").Time()); err != nil {
			return err
		}
		return eval(ctx, in)
	}
	def.OnTimer = func(ctx *ptf.Context) error {
		if _, ok := ctx.TableWatermark(); ok {
			return fmt.Errorf("TableWatermark is ok in OnTimer")
		}
		st := v.Get(ctx)
		st.N += 100
		ctx.Collect(types.NewInt(st.N))
		return nil
	}
	h := newOps(t, def)
	mustSend(t, h, "a", "inc", at(time.Minute))
	mustSend(t, h, "b", "inc inc", at(time.Minute))
	require.NoError(t, h.Watermark(at(time.Minute)))
	require.Equal(t, rows("+I[a, 101]", "+I[b, 102]"), take(h))
	mustSend(t, h, "a", "emit", at(time.Minute))
	require.Equal(t, rows("+I[a, 101]"), take(h))
}

// TestCompositeKey: with PARTITION BY (a, b) the key has two columns; with
// two tables the key prefix follows the declared schema, table by table.
func TestCompositeKey(t *testing.T) {
	const row = "ROW<a STRING, b INT, op STRING, at TIMESTAMP(3)>"
	h, err := ptftest.New(timerDefOver("left", "right"),
		ptftest.Table("left", row, ptftest.PartitionBy("a", "b")),
		ptftest.Table("right", row, ptftest.PartitionBy("a", "b")))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "a0", "b0", "timer", "fired_at", "wm"}, h.Schema().Names())
	in := func(table string, b int64, op string) {
		t.Helper()
		require.NoError(t, h.Insert(table, types.NewString("x"), types.NewInt(b), types.NewString(op), types.NewTimestampTime(at(time.Minute))))
	}
	in("left", 1, "named:t")
	in("right", 1, "named:t") // the same key: replaces the timer
	in("right", 2, "named:t")
	require.Len(t, h.Timers(types.NewString("x"), types.NewInt(1)), 1)
	require.NoError(t, h.End())
	out := take(h)
	require.Contains(t, out, "+I[x, 1, x, 1, t, 2026-08-01 09:01:00.000, ")
	require.Contains(t, out, "+I[x, 2, x, 2, t, 2026-08-01 09:01:00.000, ")
	require.Len(t, h.Fired(), 2)
}
