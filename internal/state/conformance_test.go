package state

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/eddy-sql/eddy/internal/store"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// harness is one backend under test. checkpoint is called by the suite at
// points where a job would checkpoint: it commits the Pebble batch (so later
// reads merge batch and DB) or round-trips the memory snapshot.
type harness struct {
	b          Backend
	checkpoint func()
}

type config struct {
	name string
	new  func(t *testing.T) harness
}

func newPebbleHarness(t *testing.T, commit bool) harness {
	db, err := store.Open("", store.Options{CacheSize: 2 << 20, MemTableSize: 1 << 20})
	require.NoError(t, err)
	batch := db.NewBatch()
	t.Cleanup(func() {
		_ = batch.Close()
		_ = db.Close()
	})
	h := harness{b: NewPebble(batch), checkpoint: func() {}}
	if commit {
		h.checkpoint = func() { require.NoError(t, batch.Commit(false)) }
	}
	return h
}

var configs = []config{
	{"memory", func(t *testing.T) harness {
		m := NewMemory()
		return harness{b: m, checkpoint: func() { require.NoError(t, m.Restore(m.Snapshot())) }}
	}},
	{"pebble", func(t *testing.T) harness { return newPebbleHarness(t, false) }},
	{"pebble-committing", func(t *testing.T) harness { return newPebbleHarness(t, true) }},
}

// TestConformance runs the shared suite against every backend.
func TestConformance(t *testing.T) {
	suite := []struct {
		name string
		fn   func(t *testing.T, h harness)
	}{
		{"value", testValue},
		{"list", testList},
		{"map", testMap},
		{"clear-key", testClearKey},
		{"timers", testTimers},
		{"timer-order", testTimerOrder},
		{"clear-namespace", testClearNamespace},
		{"scan-namespace", testScanNamespace},
	}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			for _, s := range suite {
				t.Run(s.name, func(t *testing.T) { s.fn(t, c.new(t)) })
			}
		})
	}
}

func get(t *testing.T, b Backend, ns, name, key string) (string, bool) {
	t.Helper()
	v, ok, err := b.Get(ns, name, []byte(key))
	require.NoError(t, err)
	return string(v), ok
}

func testValue(t *testing.T, h harness) {
	b := h.b
	_, ok := get(t, b, "op", "v", "k")
	require.False(t, ok)

	require.NoError(t, b.Put("op", "v", []byte("k"), []byte("1")))
	require.NoError(t, b.Put("op", "v", []byte("k\x00"), []byte("2")))
	require.NoError(t, b.Put("op", "w", []byte("k"), []byte("3")))
	require.NoError(t, b.Put("op2", "v", []byte("k"), []byte("4")))
	require.NoError(t, b.Put("o", "pv", []byte("k"), []byte("5")))
	require.NoError(t, b.Put("op", "v", nil, []byte{}))
	h.checkpoint()

	for _, tc := range []struct{ ns, name, key, want string }{
		{"op", "v", "k", "1"}, {"op", "v", "k\x00", "2"}, {"op", "w", "k", "3"},
		{"op2", "v", "k", "4"}, {"o", "pv", "k", "5"}, {"op", "v", "", ""},
	} {
		got, ok := get(t, b, tc.ns, tc.name, tc.key)
		require.True(t, ok, "%+v", tc)
		require.Equal(t, tc.want, got, "%+v", tc)
	}

	// A present empty value is non-nil; an absent one is nil.
	v, ok, err := b.Get("op", "v", nil)
	require.NoError(t, err)
	require.True(t, ok)
	require.NotNil(t, v)
	v, ok, err = b.Get("op", "v", []byte("absent"))
	require.NoError(t, err)
	require.False(t, ok)
	require.Nil(t, v)

	// A value, a list and a map of the same name are distinct.
	require.NoError(t, b.ListAppend("op", "v", []byte("k"), []byte("l")))
	require.NoError(t, b.MapPut("op", "v", []byte("k"), []byte("m"), []byte("x")))
	got, _ := get(t, b, "op", "v", "k")
	require.Equal(t, "1", got)

	// Returned values are the caller's.
	v, _, err = b.Get("op", "v", []byte("k"))
	require.NoError(t, err)
	v[0] = 'X'
	got, _ = get(t, b, "op", "v", "k")
	require.Equal(t, "1", got)

	require.NoError(t, b.Put("op", "v", []byte("k"), []byte("1b")))
	got, _ = get(t, b, "op", "v", "k")
	require.Equal(t, "1b", got)
	require.NoError(t, b.Delete("op", "v", []byte("k")))
	require.NoError(t, b.Delete("op", "v", []byte("absent")))
	h.checkpoint()
	_, ok = get(t, b, "op", "v", "k")
	require.False(t, ok)
	n, err := b.ListLen("op", "v", []byte("k"))
	require.NoError(t, err)
	require.Equal(t, 1, n)
}

func listContents(t *testing.T, b Backend, key string) []string {
	t.Helper()
	n, err := b.ListLen("op", "l", []byte(key))
	require.NoError(t, err)
	out := []string{}
	for i := range n {
		v, err := b.ListGet("op", "l", []byte(key), i)
		require.NoError(t, err)
		out = append(out, string(v))
	}
	var ranged []string
	require.NoError(t, b.ListRange("op", "l", []byte(key), func(i int, v []byte) error {
		require.Equal(t, len(ranged), i)
		ranged = append(ranged, string(v))
		return nil
	}))
	require.Equal(t, out, append([]string{}, ranged...))
	return out
}

func testList(t *testing.T, h harness) {
	b := h.b
	k := []byte("k")
	require.Equal(t, []string{}, listContents(t, b, "k"))
	for i := range 5 {
		require.NoError(t, b.ListAppend("op", "l", k, []byte(fmt.Sprint(i))))
	}
	require.NoError(t, b.ListAppend("op", "l", []byte("other"), []byte("o")))
	h.checkpoint()
	require.Equal(t, []string{"0", "1", "2", "3", "4"}, listContents(t, b, "k"))

	require.NoError(t, b.ListSet("op", "l", k, 1, []byte("one")))
	require.ErrorIs(t, b.ListSet("op", "l", k, 5, nil), ErrOutOfRange)
	require.ErrorIs(t, b.ListSet("op", "l", k, -1, nil), ErrOutOfRange)
	_, err := b.ListGet("op", "l", k, 5)
	require.ErrorIs(t, err, ErrOutOfRange)
	_, err = b.ListGet("op", "l", k, -1)
	require.ErrorIs(t, err, ErrOutOfRange)

	require.NoError(t, b.ListRemoveFirst("op", "l", k, 0))
	require.NoError(t, b.ListRemoveFirst("op", "l", k, 2))
	require.Error(t, b.ListRemoveFirst("op", "l", k, -1))
	require.Equal(t, []string{"2", "3", "4"}, listContents(t, b, "k"))
	require.NoError(t, b.ListSet("op", "l", k, 0, []byte("two")))
	require.NoError(t, b.ListAppend("op", "l", k, []byte("5")))
	h.checkpoint()
	require.Equal(t, []string{"two", "3", "4", "5"}, listContents(t, b, "k"))

	var stopped []string
	require.NoError(t, b.ListRange("op", "l", k, func(i int, v []byte) error {
		stopped = append(stopped, string(v))
		return ErrStop
	}))
	require.Equal(t, []string{"two"}, stopped)

	require.NoError(t, b.ListRemoveFirst("op", "l", k, 10))
	require.Equal(t, []string{}, listContents(t, b, "k"))
	require.NoError(t, b.ListAppend("op", "l", k, []byte("again")))
	require.Equal(t, []string{"again"}, listContents(t, b, "k"))
	require.NoError(t, b.ListClear("op", "l", k))
	require.NoError(t, b.ListClear("op", "l", k))
	h.checkpoint()
	require.Equal(t, []string{}, listContents(t, b, "k"))
	require.Equal(t, []string{"o"}, listContents(t, b, "other"))
	// An empty value is an element.
	require.NoError(t, b.ListAppend("op", "l", k, nil))
	require.Equal(t, []string{""}, listContents(t, b, "k"))
}

func mapContents(t *testing.T, b Backend, key string) []string {
	t.Helper()
	out := []string{}
	require.NoError(t, b.MapRange("op", "m", []byte(key), func(mk, v []byte) error {
		out = append(out, string(mk)+"="+string(v))
		return nil
	}))
	return out
}

func testMap(t *testing.T, h harness) {
	b := h.b
	k := []byte("k")
	for _, mk := range []string{"b", "a", "\xff", "", "a\x00", "\x00"} {
		require.NoError(t, b.MapPut("op", "m", k, []byte(mk), []byte("v"+mk)))
	}
	require.NoError(t, b.MapPut("op", "m", []byte("k\x00"), []byte("a"), []byte("other")))
	require.NoError(t, b.MapPut("op", "m", []byte("kk"), []byte("a"), []byte("other")))
	h.checkpoint()
	require.Equal(t, []string{"=v", "\x00=v\x00", "a=va", "a\x00=va\x00", "b=vb", "\xff=v\xff"},
		mapContents(t, b, "k"))

	v, ok, err := b.MapGet("op", "m", k, []byte("a\x00"))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "va\x00", string(v))
	_, ok, err = b.MapGet("op", "m", k, []byte("zz"))
	require.NoError(t, err)
	require.False(t, ok)

	require.NoError(t, b.MapPut("op", "m", k, []byte("a"), []byte("new")))
	require.NoError(t, b.MapDelete("op", "m", k, []byte("b")))
	require.NoError(t, b.MapDelete("op", "m", k, []byte("absent")))
	require.Equal(t, []string{"=v", "\x00=v\x00", "a=new", "a\x00=va\x00", "\xff=v\xff"},
		mapContents(t, b, "k"))

	// Stop early, and modify the map while ranging over it.
	var n int
	require.NoError(t, b.MapRange("op", "m", k, func(mk, v []byte) error {
		n++
		return ErrStop
	}))
	require.Equal(t, 1, n)
	boom := errors.New("boom")
	require.ErrorIs(t, b.MapRange("op", "m", k, func(mk, v []byte) error { return boom }), boom)
	n = 0
	require.NoError(t, b.MapRange("op", "m", k, func(mk, v []byte) error {
		n++
		if err := b.MapPut("op", "m", k, append([]byte("new-"), mk...), v); err != nil {
			return err
		}
		return b.MapDelete("op", "m", k, mk)
	}))
	require.Equal(t, 5, n, "the range sees the map as it was when it started")
	require.Len(t, mapContents(t, b, "k"), 5)

	require.NoError(t, b.MapClear("op", "m", k))
	h.checkpoint()
	require.Equal(t, []string{}, mapContents(t, b, "k"))
	require.Equal(t, []string{"a=other"}, mapContents(t, b, "k\x00"))
	require.Equal(t, []string{"a=other"}, mapContents(t, b, "kk"))
}

func testClearKey(t *testing.T, h harness) {
	b := h.b
	for _, key := range []string{"k", "k\x00", "kk", ""} {
		kb := []byte(key)
		require.NoError(t, b.Put("op", "v", kb, []byte("v")))
		require.NoError(t, b.Put("op", "w", kb, []byte("w")))
		require.NoError(t, b.ListAppend("op", "l", kb, []byte("l")))
		require.NoError(t, b.MapPut("op", "m", kb, []byte("mk"), []byte("m")))
		require.NoError(t, b.RegisterTimer("op", kb, "t", 5))
		require.NoError(t, b.Put("op2", "v", kb, []byte("v")))
	}
	h.checkpoint()
	require.NoError(t, b.ClearKey("op", []byte("k")))
	require.NoError(t, b.ClearKey("op", []byte("")))
	h.checkpoint()
	for _, key := range []string{"k", ""} {
		_, ok := get(t, b, "op", "v", key)
		require.False(t, ok)
		_, ok = get(t, b, "op", "w", key)
		require.False(t, ok)
		require.Equal(t, []string{}, listContents(t, b, key))
		require.Equal(t, []string{}, mapContents(t, b, key))
		timers, err := b.Timers("op", []byte(key))
		require.NoError(t, err)
		require.Len(t, timers, 1, "ClearKey keeps timers")
		_, ok = get(t, b, "op2", "v", key)
		require.True(t, ok)
	}
	for _, key := range []string{"k\x00", "kk"} {
		_, ok := get(t, b, "op", "v", key)
		require.True(t, ok)
		require.Equal(t, []string{"l"}, listContents(t, b, key))
		require.Equal(t, []string{"mk=m"}, mapContents(t, b, key))
	}
	// A cleared list starts again from index 0.
	require.NoError(t, b.ListAppend("op", "l", []byte("k"), []byte("x")))
	require.Equal(t, []string{"x"}, listContents(t, b, "k"))
}

func tm(key, name string, t int64) Timer { return Timer{Key: []byte(key), Name: name, Time: t} }

func timersOf(t *testing.T, b Backend, ns, key string) []Timer {
	t.Helper()
	timers, err := b.Timers(ns, []byte(key))
	require.NoError(t, err)
	if timers == nil {
		timers = []Timer{}
	}
	return timers
}

func testTimers(t *testing.T, h harness) {
	b := h.b
	k := []byte("k")
	require.NoError(t, b.RegisterTimer("op", k, "a", 10))
	require.NoError(t, b.RegisterTimer("op", k, "a", 20)) // replaces
	require.NoError(t, b.RegisterTimer("op", k, "a", 20)) // no-op
	require.NoError(t, b.RegisterTimer("op", k, "b", 20))
	require.NoError(t, b.RegisterTimer("op", k, "", 15))
	require.NoError(t, b.RegisterTimer("op", k, "", 15)) // deduplicated
	require.NoError(t, b.RegisterTimer("op", k, "", 5))
	require.NoError(t, b.RegisterTimer("op", []byte("k2"), "a", 1))
	require.NoError(t, b.RegisterTimer("op2", k, "a", 1))
	h.checkpoint()
	require.Equal(t, []Timer{tm("k", "", 5), tm("k", "", 15), tm("k", "a", 20), tm("k", "b", 20)},
		timersOf(t, b, "op", "k"))

	next, ok, err := b.NextTimer("op")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, tm("k2", "a", 1), next)

	due, err := b.PopDue("op", 14, 0)
	require.NoError(t, err)
	require.Equal(t, []Timer{tm("k2", "a", 1), tm("k", "", 5)}, due)
	due, err = b.PopDue("op", 14, 0)
	require.NoError(t, err)
	require.Empty(t, due)
	require.Equal(t, []Timer{}, timersOf(t, b, "op", "k2"))

	require.NoError(t, b.DeleteTimer("op", k, "b"))
	require.NoError(t, b.DeleteTimer("op", k, "absent"))
	require.Error(t, b.DeleteTimer("op", k, ""))
	require.NoError(t, b.DeleteUnnamedTimer("op", k, 15))
	require.NoError(t, b.DeleteUnnamedTimer("op", k, 99))
	h.checkpoint()
	require.Equal(t, []Timer{tm("k", "a", 20)}, timersOf(t, b, "op", "k"))

	// A popped named timer can be registered again.
	due, err = b.PopDue("op", math.MaxInt64, 0)
	require.NoError(t, err)
	require.Equal(t, []Timer{tm("k", "a", 20)}, due)
	require.NoError(t, b.RegisterTimer("op", k, "a", 20))
	require.Equal(t, []Timer{tm("k", "a", 20)}, timersOf(t, b, "op", "k"))

	require.NoError(t, b.RegisterTimer("op", k, "", 3))
	require.NoError(t, b.RegisterTimer("op", k, "c", 3))
	require.NoError(t, b.RegisterTimer("op", []byte("k\x00"), "", 3))
	require.NoError(t, b.DeleteAllTimers("op", k))
	require.Equal(t, []Timer{}, timersOf(t, b, "op", "k"))
	require.Equal(t, []Timer{tm("k\x00", "", 3)}, timersOf(t, b, "op", "k\x00"))
	require.Equal(t, []Timer{tm("k", "a", 1)}, timersOf(t, b, "op2", "k"))

	// Nothing of op's k is left in the firing order.
	due, err = b.PopDue("op", math.MaxInt64, 0)
	require.NoError(t, err)
	require.Equal(t, []Timer{tm("k\x00", "", 3)}, due)
	_, ok, err = b.NextTimer("op")
	require.NoError(t, err)
	require.False(t, ok)
}

func testTimerOrder(t *testing.T, h harness) {
	b := h.b
	for _, x := range []Timer{
		tm("b", "", 10), tm("a", "z", 10), tm("a", "", 10), tm("a", "y", 10),
		tm("a\x00", "", 10), tm("", "n", 10), tm("c", "", -5), tm("c", "", math.MinInt64),
		tm("c", "max", math.MaxInt64), tm("b", "", 11),
	} {
		require.NoError(t, b.RegisterTimer("op", x.Key, x.Name, x.Time))
	}
	h.checkpoint()
	want := []Timer{
		tm("c", "", math.MinInt64), tm("c", "", -5),
		tm("", "n", 10), tm("a", "", 10), tm("a", "y", 10), tm("a", "z", 10), tm("a\x00", "", 10), tm("b", "", 10),
		tm("b", "", 11), tm("c", "max", math.MaxInt64),
	}
	// Pop one at a time, as the runtime does to fire timers registered while
	// firing in order.
	var got []Timer
	for {
		due, err := b.PopDue("op", math.MaxInt64, 1)
		require.NoError(t, err)
		if len(due) == 0 {
			break
		}
		require.Len(t, due, 1)
		got = append(got, due[0])
	}
	require.Equal(t, want, got)

	// With a limit, the rest stays.
	for _, x := range want {
		require.NoError(t, b.RegisterTimer("op", x.Key, x.Name, x.Time))
	}
	due, err := b.PopDue("op", 10, 3)
	require.NoError(t, err)
	require.Equal(t, want[:3], due)
	due, err = b.PopDue("op", 10, 0)
	require.NoError(t, err)
	require.Equal(t, want[3:8], due)
}

func testClearNamespace(t *testing.T, h harness) {
	b := h.b
	for _, ns := range []string{"op", "op2", "o"} {
		require.NoError(t, b.Put(ns, "v", []byte("k"), []byte("v")))
		require.NoError(t, b.ListAppend(ns, "l", []byte("k"), []byte("v")))
		require.NoError(t, b.MapPut(ns, "m", []byte("k"), []byte("mk"), []byte("v")))
		require.NoError(t, b.RegisterTimer(ns, []byte("k"), "t", 1))
		require.NoError(t, b.RegisterTimer(ns, []byte("k"), "", 2))
	}
	h.checkpoint()
	require.NoError(t, b.ClearNamespace("op"))
	h.checkpoint()
	count := func(ns string) int {
		n := 0
		require.NoError(t, b.ScanNamespace(ns, func(Entry) error { n++; return nil }))
		return n
	}
	require.Zero(t, count("op"))
	require.Equal(t, 5, count("op2"))
	require.Equal(t, 5, count("o"))
	_, ok, err := b.NextTimer("op")
	require.NoError(t, err)
	require.False(t, ok)
}

func testScanNamespace(t *testing.T, h harness) {
	b := h.b
	require.NoError(t, b.Put("op", "v", []byte("k"), []byte("1")))
	for _, v := range []string{"a", "b", "c"} {
		require.NoError(t, b.ListAppend("op", "l", []byte("k"), []byte(v)))
	}
	require.NoError(t, b.ListRemoveFirst("op", "l", []byte("k"), 1))
	require.NoError(t, b.MapPut("op", "m", []byte("j"), []byte("mk"), []byte("mv")))
	require.NoError(t, b.RegisterTimer("op", []byte("k"), "t", 7))
	require.NoError(t, b.Put("other", "v", []byte("k"), []byte("x")))
	h.checkpoint()

	var got []string
	require.NoError(t, b.ScanNamespace("op", func(e Entry) error {
		got = append(got, fmt.Sprintf("%s key=%s name=%s idx=%d mk=%s v=%s t=%d",
			e.Kind, e.Key, e.Name, e.Index, e.MapKey, e.Value, e.Time))
		return nil
	}))
	require.Equal(t, []string{
		"map key=j name=m idx=0 mk=mk v=mv t=0",
		"list key=k name=l idx=0 mk= v=b t=0",
		"list key=k name=l idx=1 mk= v=c t=0",
		"value key=k name=v idx=0 mk= v=1 t=0",
		"timer key=k name=t idx=0 mk= v= t=7",
	}, got)

	n := 0
	require.NoError(t, b.ScanNamespace("op", func(e Entry) error { n++; return ErrStop }))
	require.Equal(t, 1, n, "ErrStop ends the whole scan")
}
