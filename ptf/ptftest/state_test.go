package ptftest_test

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

type counter struct {
	N int64 `json:"n"`
}

// counterDef keeps a value-state counter per key. Steps: inc, dec, emit (the
// counter), clear (ctx.ClearState), clear-value (Value.Clear), clear-all
// (ctx.ClearAllState).
func counterDef(v *ptf.Value[counter]) *ptf.Definition {
	return &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<n BIGINT>",
		State:  []ptf.StateEntry{v},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			st := v.Get(ctx)
			for _, op := range ops(in) {
				switch op {
				case "inc":
					st.N++
				case "dec":
					st.N--
				case "emit":
					ctx.Collect(types.NewInt(st.N))
				case "clear":
					ctx.ClearState(v.StateName())
				case "clear-value":
					v.Clear(ctx)
				case "clear-all":
					ctx.ClearAllState()
				}
			}
			return nil
		},
	}
}

// stateOf returns the counter of key k, or nil when the key has none.
func stateOf(t *testing.T, h *ptftest.Harness, v *ptf.Value[counter], k string) *int64 {
	t.Helper()
	got, ok, err := h.State(v, key(k)...)
	require.NoError(t, err)
	if !ok {
		return nil
	}
	return &got.(*counter).N
}

func ptr(n int64) *int64 { return &n }

// TestValueStateRules: state is written back after each call, except that
// a cleared entry discards the call's changes and a value equal to its zero
// value is removed (State reports it absent).
func TestValueStateRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls []string // one call per element, key "a"
		out   string
		state *int64 // nil: absent
	}{
		{name: "changes are written back", calls: []string{"inc", "inc emit"},
			out: rows("+I[a, 2]"), state: ptr(2)},
		{name: "ClearState discards the call's changes", calls: []string{"inc", "inc inc clear"},
			state: nil},
		{name: "changes after ClearState are discarded too", calls: []string{"inc", "clear inc inc"},
			state: nil},
		{name: "the call still sees its own changes", calls: []string{"inc", "clear inc emit"},
			out: rows("+I[a, 2]"), state: nil},
		{name: "Value.Clear is ClearState", calls: []string{"inc", "inc clear-value"},
			state: nil},
		{name: "ClearAllState clears the entry", calls: []string{"inc", "inc clear-all"},
			state: nil},
		{name: "a cleared key starts again from zero", calls: []string{"inc inc", "clear", "inc emit"},
			out: rows("+I[a, 1]"), state: ptr(1)},
		{name: "a zero value is removed", calls: []string{"inc", "dec"},
			state: nil},
		{name: "reading absent state does not create it", calls: []string{"emit"},
			out: rows("+I[a, 0]"), state: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := ptf.NewValue[counter]("n")
			h := newOps(t, counterDef(v))
			for _, c := range tc.calls {
				mustSend(t, h, "a", c, t0)
			}
			require.Equal(t, tc.out, take(h))
			require.Equal(t, tc.state, stateOf(t, h, v, "a"))
		})
	}
}

// TestStateIsPerKey: each partition key has its own state.
func TestStateIsPerKey(t *testing.T) {
	v := ptf.NewValue[counter]("n")
	h := newOps(t, counterDef(v))
	mustSend(t, h, "a", "inc emit", t0)
	mustSend(t, h, "b", "inc inc emit", t0)
	mustSend(t, h, "a", "clear", t0)
	mustSend(t, h, "b", "inc emit", t0)
	require.Equal(t, rows("+I[a, 1]", "+I[b, 2]",
		"+I[b, 3]"), take(h))
	require.Nil(t, stateOf(t, h, v, "a"))
	require.Equal(t, ptr(3), stateOf(t, h, v, "b"))
}

type mode struct {
	Mode  string `json:"mode"`
	Limit int64  `json:"limit"`
}

// TestWithInit: absent state reads as what the Init function sets, like the
// field initialisers of a Java state class; cleared state reads as it again.
func TestWithInit(t *testing.T) {
	v := ptf.NewValue[mode]("m").WithInit(func(m *mode) { m.Mode, m.Limit = "default", 10 })
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<mode STRING, lim BIGINT>",
		State:  []ptf.StateEntry{v},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			st := v.Get(ctx)
			for _, op := range ops(in) {
				switch op {
				case "turbo":
					st.Mode = "turbo"
				case "clear":
					v.Clear(ctx)
				case "emit":
					ctx.Collect(types.NewString(st.Mode), types.NewInt(st.Limit))
				}
			}
			return nil
		},
	}
	h := newOps(t, def)
	mustSend(t, h, "a", "emit", t0)
	mustSend(t, h, "a", "turbo emit", t0)
	mustSend(t, h, "b", "emit", t0)
	mustSend(t, h, "a", "clear", t0)
	mustSend(t, h, "a", "emit", t0)
	require.Equal(t, rows(
		"+I[a, default, 10]",
		"+I[a, turbo, 10]",
		"+I[b, default, 10]",
		"+I[a, default, 10]"), take(h))

	// SetState bypasses Init.
	require.NoError(t, h.SetState(v, &mode{Mode: "eco"}, key("c")...))
	mustSend(t, h, "c", "emit", t0)
	require.Equal(t, rows("+I[c, eco, 0]"), take(h))
}

// TestWithInitZeroValueIsKept: a value written back equal to the zero T
// must not read back as the Init value. A Java state class with
// `long counter = 3` that counts down to 0 keeps 0 (a POJO with primitive
// fields is never empty, reference §7); Eddy removes the zero value and the
// next call reads 3 again.
func TestWithInitZeroValueIsKept(t *testing.T) {
	v := ptf.NewValue[counter]("n").WithInit(func(c *counter) { c.N = 3 })
	h := newOps(t, counterDef(v))
	for range 5 {
		mustSend(t, h, "a", "dec emit", t0)
	}
	require.Equal(t, rows(
		"+I[a, 2]",
		"+I[a, 1]",
		"+I[a, 0]",
		"+I[a, -1]",
		"+I[a, -2]"), take(h))
}

// TestStateTTL: an entry with WithTTL expires when it was not written for
// the TTL, in processing time (AdvanceTime); exactly at the TTL it is gone.
// DefaultTTL entries use the harness's DefaultTTL ('table.exec.state.ttl'),
// NoTTL entries never expire.
func TestStateTTL(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ttl      time.Duration // of the entry
		fallback time.Duration // ptftest.DefaultTTL
		idle     time.Duration
		expired  bool
	}{
		{name: "before the ttl", ttl: time.Minute, idle: time.Minute - time.Millisecond},
		{name: "at the ttl", ttl: time.Minute, idle: time.Minute, expired: true},
		{name: "default ttl unset", ttl: ptf.DefaultTTL, idle: 1000 * time.Hour},
		{name: "default ttl applies", ttl: ptf.DefaultTTL, fallback: time.Hour, idle: time.Hour, expired: true},
		{name: "default ttl not yet", ttl: ptf.DefaultTTL, fallback: time.Hour, idle: time.Hour - time.Second},
		{name: "NoTTL overrides the default", ttl: ptf.NoTTL, fallback: time.Hour, idle: 1000 * time.Hour},
		{name: "declared ttl overrides the default", ttl: time.Minute, fallback: time.Hour, idle: time.Minute, expired: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := ptf.NewValue[counter]("n", ptf.WithTTL(tc.ttl))
			h := newOps(t, counterDef(v), ptftest.DefaultTTL(tc.fallback))
			mustSend(t, h, "a", "inc", t0)
			h.AdvanceTime(tc.idle)
			want := ptr(1)
			if tc.expired {
				want = nil
			}
			require.Equal(t, want, stateOf(t, h, v, "a"), "State")
			mustSend(t, h, "a", "inc emit", t0)
			require.Equal(t, map[bool]string{true: "+I[a, 1]\n",
				false: "+I[a, 2]\n"}[tc.expired], take(h))
		})
	}
}

// TestStateTTLRefreshedByWritesOnly: Flink's state TTL is reset on create
// and write (reference §7: a value is written back only if the call changed
// it), and WithTTL says "expires when it was not written for d". A call
// that only reads the state must not extend its life.
func TestStateTTLRefreshedByWritesOnly(t *testing.T) {
	v := ptf.NewValue[counter]("n", ptf.WithTTL(30*time.Second))
	h := newOps(t, counterDef(v))
	mustSend(t, h, "a", "inc", t0) // written at 0 s
	h.AdvanceTime(20 * time.Second)
	mustSend(t, h, "a", "emit", t0) // read only at 20 s
	h.AdvanceTime(15 * time.Second)
	mustSend(t, h, "a", "emit", t0) // 35 s after the write: expired
	require.Equal(t, rows("+I[a, 1]", "+I[a, 0]"), take(h))
}

// TestSnapshotRestoreState: value state survives a snapshot and restore,
// and changes made after the snapshot are rolled back by it.
func TestSnapshotRestoreState(t *testing.T) {
	v := ptf.NewValue[counter]("n", ptf.WithTTL(time.Minute))
	h := newOps(t, counterDef(v))
	mustSend(t, h, "a", "inc inc", t0)
	mustSend(t, h, "b", "inc", t0)
	snap, err := h.Snapshot()
	require.NoError(t, err)
	mustSend(t, h, "a", "inc", t0)
	mustSend(t, h, "b", "clear", t0)
	mustSend(t, h, "c", "inc", t0)
	require.NoError(t, h.Restore(snap))
	require.Equal(t, ptr(2), stateOf(t, h, v, "a"))
	require.Equal(t, ptr(1), stateOf(t, h, v, "b"))
	require.Nil(t, stateOf(t, h, v, "c"))
	mustSend(t, h, "a", "inc emit", t0)
	require.Equal(t, rows("+I[a, 3]"), take(h))
	// The time of the last write survives too: 59 s later b is still there.
	h.AdvanceTime(59 * time.Second)
	mustSend(t, h, "b", "emit", t0)
	require.Equal(t, rows("+I[b, 1]"), take(h))
}

// TestStateAfterRestoreHonoursTTL: Harness.State must report an expired
// entry as absent also when it was read back from a snapshot. Before the
// restore the harness reports it absent; after it, FunctionHost.ValueState
// (internal/runtime/host.go) decodes the stored value without checking its
// write time.
func TestStateAfterRestoreHonoursTTL(t *testing.T) {
	h, err := ptftest.New(examples.TtlCountdown,
		ptftest.Table("input", "ROW<user_id INT>", ptftest.PartitionBy("user_id")))
	require.NoError(t, err)
	entry := examples.TtlCountdown.State[0]
	require.NoError(t, h.Insert("input", types.NewInt(1)))
	snap, err := h.Snapshot()
	require.NoError(t, err)
	h.AdvanceTime(30 * time.Second)
	_, ok, err := h.State(entry, types.NewInt(1))
	require.NoError(t, err)
	require.False(t, ok, "expired state before the restore")

	require.NoError(t, h.Restore(snap))
	_, ok, err = h.State(entry, types.NewInt(1))
	require.NoError(t, err)
	require.False(t, ok, "expired state after the restore")
}

// TestHarnessStateAccess: SetState, State and ClearState work on value
// entries between rows and refuse what they cannot hold.
func TestHarnessStateAccess(t *testing.T) {
	v := ptf.NewValue[counter]("n")
	h := newOps(t, counterDef(v))
	require.NoError(t, h.SetState(v, &counter{N: 41}, key("a")...))
	require.Equal(t, ptr(41), stateOf(t, h, v, "a"))
	mustSend(t, h, "a", "inc emit", t0)
	require.Equal(t, rows("+I[a, 42]"), take(h))
	require.NoError(t, h.ClearState(v, key("a")...))
	require.Nil(t, stateOf(t, h, v, "a"))
	mustSend(t, h, "a", "inc emit", t0)
	require.Equal(t, rows("+I[a, 1]"), take(h))

	// Set state survives a snapshot.
	require.NoError(t, h.SetState(v, &counter{N: 7}, key("b")...))
	snap, err := h.Snapshot()
	require.NoError(t, err)
	require.NoError(t, h.Restore(snap))
	require.Equal(t, ptr(7), stateOf(t, h, v, "b"))

	for _, tc := range []struct {
		name string
		err  func() error
		want string
	}{
		{"wrong type", func() error { return h.SetState(v, &mode{}, key("c")...) }, "state entry 'n' holds a *ptftest_test.counter"},
		{"not a pointer", func() error { return h.SetState(v, counter{N: 1}, key("c")...) }, "holds a *ptftest_test.counter"},
		{"nil", func() error { return h.SetState(v, nil, key("c")...) }, "use ClearState"},
		{"undeclared entry", func() error { return h.SetState(ptf.NewValue[counter]("other"), &counter{}, key("c")...) }, "unknown state entry other"},
		{"list view", func() error { _, _, err := h.State(ptf.NewList[int]("l"), key("c")...); return err }, "value-state entries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorContains(t, tc.err(), tc.want)
		})
	}
	// The refused SetState calls changed nothing.
	mustSend(t, h, "c", "emit", t0)
	require.Equal(t, rows("+I[c, 0]"), take(h))
}

// TestUndeclaredStateEntry: using a state entry that is not in the
// definition's State list fails the call.
func TestUndeclaredStateEntry(t *testing.T) {
	declared := ptf.NewValue[counter]("n")
	other := ptf.NewValue[counter]("other")
	def := counterDef(declared)
	def.Eval = func(ctx *ptf.Context, in ptf.Input) error {
		if in.Row.Get("op").Str() == "clear" {
			ctx.ClearState("nope")
			return nil
		}
		other.Get(ctx).N++
		return nil
	}
	h := newOps(t, def)
	require.ErrorContains(t, send(h, "a", "get", t0), "Unknown state entry: other")
	require.ErrorContains(t, send(h, "a", "clear", t0), "Unknown state entry: nope")
}

// TestStateNeedsSetSemantics: only functions over set-semantic tables have
// keyed state (reference §7, §18): Flink fails to open a row-semantic
// function that declares state. Eddy accepts the declaration and keeps one
// state for all rows under the empty key, so unrelated rows share it.
func TestStateNeedsSetSemantics(t *testing.T) {
	def := counterDef(ptf.NewValue[counter]("n"))
	def.Args = []ptf.Arg{ptf.Table("input")}
	_, err := ptftest.New(def, ptftest.Table("input", opsTable))
	require.ErrorContains(t, err, "state")
}
