package ptftest_test

import (
	"errors"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// TestTimerAtMaxTime: a timer at Java's Long.MAX_VALUE milliseconds does
// not overflow; it fires when the input ends, and the function sees
// ptf.MaxTime as its time and as the watermark.
func TestTimerAtMaxTime(t *testing.T) {
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<msg STRING>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			return ctx.RegisterOnTime("end", ptf.MaxTime)
		},
		OnTimer: func(ctx *ptf.Context) error {
			at, _ := ctx.Time()
			wm, _ := ctx.CurrentWatermark()
			ctx.Collect(types.NewString(at.Format(time.RFC3339Nano) + " wm=" + wm.Format(time.RFC3339Nano)))
			return nil
		},
	}
	h, err := ptftest.New(def, ptftest.Table("input", "ROW<k STRING>", ptftest.PartitionBy("k")))
	require.NoError(t, err)
	require.NoError(t, h.Insert("input", types.NewString("a")))
	require.Equal(t, []ptftest.Timer{{Key: key("a"), Name: "end", Time: ptf.MaxTime}}, h.Timers(key("a")...))
	require.NoError(t, h.Watermark(t0.AddDate(200, 0, 0)))
	require.Empty(t, h.TakeOutput(), "the timer must not fire before the input ends")
	require.NoError(t, h.End())
	require.Equal(t, "+I[a, 292278994-08-17T07:12:55.807Z wm=292278994-08-17T07:12:55.807Z]\n", h.Format(h.TakeOutput()))
}

// TestSDKErrorsAreValues: errors of SDK calls are values a function can
// test with errors.Is and handle; the call goes on.
func TestSDKErrorsAreValues(t *testing.T) {
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic, ptf.PassColumnsThrough)},
		Output: "ROW<msg STRING>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			report := func(what string, err error, target error) {
				ctx.Collect(types.NewString(what + ": " + boolString(errors.Is(err, target))))
			}
			report("not supported", ctx.RegisterOnTime("t", t0), ptf.ErrTimersNotSupported)
			report("empty name", ctx.RegisterOnTime("", t0), ptf.ErrEmptyTimerName)
			_, _, err := ctx.StateTTL("nope")
			report("unknown state", err, ptf.ErrUnknownState)
			return nil
		},
	}
	h, err := ptftest.New(def, ptftest.Table("input", "ROW<k STRING>", ptftest.PartitionBy("k")))
	require.NoError(t, err)
	require.NoError(t, h.Insert("input", types.NewString("a")))
	require.Equal(t, "+I[a, not supported: true]\n+I[a, empty name: true]\n+I[a, unknown state: true]\n", h.Format(h.TakeOutput()))
}

// TestTimerOutOfRange: a time the engine cannot represent is a clear
// error, ErrTimerOutOfRange; returned, it fails the call.
func TestTimerOutOfRange(t *testing.T) {
	for _, at := range []time.Time{ptf.MaxTime.Add(-time.Millisecond), ptf.MaxNanoTime.Add(time.Nanosecond), ptf.MinTime.Add(-time.Nanosecond)} {
		var got error
		def := &ptf.Definition{
			Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
			Output: "ROW<msg STRING>",
			Eval: func(ctx *ptf.Context, in ptf.Input) error {
				got = ctx.RegisterOnTimeUnnamed(at)
				return got
			},
		}
		h, err := ptftest.New(def, ptftest.Table("input", "ROW<k STRING>", ptftest.PartitionBy("k")))
		require.NoError(t, err)
		err = h.Insert("input", types.NewString("a"))
		require.ErrorIs(t, got, ptf.ErrTimerOutOfRange)
		require.ErrorIs(t, err, ptf.ErrTimerOutOfRange)
		require.ErrorContains(t, err, "use ptf.MaxTime for a timer that fires when the input ends")
		require.Empty(t, h.Timers(key("a")...))
	}
}

// TestStateTTLVisible: a function reads the TTL the engine applies to an
// entry and the time left for the current key's value.
func TestStateTTLVisible(t *testing.T) {
	short := ptf.NewValue[counter]("short", ptf.WithTTL(time.Hour))
	deflt := ptf.NewValue[counter]("default")
	never := ptf.NewValue[counter]("never", ptf.WithTTL(ptf.NoTTL))
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<entry STRING, ttl STRING, remaining STRING>",
		State:  []ptf.StateEntry{short, deflt, never},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			for _, e := range []ptf.StateEntry{short, deflt, never} {
				ttl, left, err := ctx.StateTTL(e.StateName())
				if err != nil {
					return err
				}
				ctx.Collect(types.NewString(e.StateName()), types.NewString(ttl.String()), types.NewString(left.String()))
			}
			short.Get(ctx).N++
			return nil
		},
	}
	h, err := ptftest.New(def, ptftest.Table("input", "ROW<k STRING>", ptftest.PartitionBy("k")), ptftest.DefaultTTL(24*time.Hour))
	require.NoError(t, err)
	require.NoError(t, h.Insert("input", types.NewString("a")))
	require.Equal(t, "+I[a, short, 1h0m0s, 0s]\n+I[a, default, 24h0m0s, 0s]\n+I[a, never, 0s, 0s]\n", h.Format(h.TakeOutput()))
	h.AdvanceTime(20 * time.Minute)
	require.NoError(t, h.Insert("input", types.NewString("a")))
	require.Equal(t, "+I[a, short, 1h0m0s, 40m0s]\n+I[a, default, 24h0m0s, 0s]\n+I[a, never, 0s, 0s]\n", h.Format(h.TakeOutput()))
}
