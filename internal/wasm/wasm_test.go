package wasm_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/wasm"
	"github.com/eddy-sql/eddy/internal/wasm/wasmtest"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
)

const guestPkg = "./internal/wasm/testdata/guest"

var (
	rtOnce sync.Once
	rt     *wasm.Runtime
	rtErr  error
)

// runtime returns a runtime shared by the tests (modules compile once).
func runtime(t testing.TB) *wasm.Runtime {
	t.Helper()
	rtOnce.Do(func() { rt, rtErr = wasm.New(wasm.Options{Tick: 10 * time.Millisecond, CacheDir: wasmtest.CacheDir()}) })
	require.NoError(t, rtErr)
	return rt
}

func moduleBytes(t testing.TB) []byte { return wasmtest.Module(t, guestPkg) }

func load(t *testing.T, lim wasm.Limits) *wasm.Module {
	t.Helper()
	m, err := runtime(t).Load(context.Background(), moduleBytes(t), lim)
	require.NoError(t, err)
	return m
}

func def(t *testing.T, m *wasm.Module, id string) *ptf.Definition {
	t.Helper()
	d, ok := m.Definition(id)
	require.True(t, ok, "module has no %s: %v", id, m.IDs())
	return d
}

func TestModuleDescribesItsFunctions(t *testing.T) {
	m := load(t, wasm.Limits{})
	ids := m.IDs()
	require.Contains(t, ids, "examples.OrderStatusTracker")
	require.Contains(t, ids, "test.Spin")
	d := def(t, m, "examples.OrderStatusTracker")
	require.Equal(t, "ROW<status STRING>", d.Output)
	require.Len(t, d.State, 1)
	require.Equal(t, "state", d.State[0].StateName())
	require.Equal(t, "examples.OrderState{Status string;}", d.State[0].StateSchema())
	require.Equal(t, ptf.UpsertFullDeletes(), d.ProducedMode(ptf.ChangelogContext{}))
	require.Nil(t, d.OnTimer)
	require.NotNil(t, def(t, m, "examples.InactivityAlert").OnTimer)
	require.Equal(t, m.Hash(), wasm.Hash(wasmtest.Module(t, guestPkg)))

	// Loading the same bytes again is the same module.
	again, err := runtime(t).Load(context.Background(), wasmtest.Module(t, guestPkg), wasm.Limits{})
	require.NoError(t, err)
	require.Same(t, m, again)
}

// module assembles a WebAssembly binary: imports (module.name, all of
// type () -> ()), and exports (name -> signature) of empty functions.
func module(imports []string, exports map[string]string) []byte {
	vec := func(items ...[]byte) []byte {
		out := []byte{byte(len(items))}
		for _, it := range items {
			out = append(out, it...)
		}
		return out
	}
	name := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	section := func(id byte, body []byte) []byte { return append([]byte{id, byte(len(body))}, body...) }
	types := map[string][]byte{
		"()->()": {0x60, 0, 0}, "()->i64": {0x60, 0, 1, 0x7e}, "(i32)->i32": {0x60, 1, 0x7f, 1, 0x7f}, "(i32)->i64": {0x60, 1, 0x7f, 1, 0x7e},
	}
	types["host"] = []byte{0x60, 6, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 1, 0x7e}
	sigs := []string{"()->()", "()->i64", "(i32)->i32", "(i32)->i64", "host"}
	var typeVec [][]byte
	for _, s := range sigs {
		typeVec = append(typeVec, types[s])
	}
	out := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	out = append(out, section(1, vec(typeVec...))...)
	var imps [][]byte
	for _, imp := range imports {
		mod, fn, _ := strings.Cut(imp, ".")
		typ := byte(0)
		if imp == "eddy.host" {
			typ = 4
		}
		imps = append(imps, append(append(name(mod), name(fn)...), 0, typ))
	}
	if len(imps) > 0 {
		out = append(out, section(2, vec(imps...))...)
	}
	names := make([]string, 0, len(exports))
	for n := range exports {
		names = append(names, n)
	}
	slices.Sort(names)
	var funcs, exps, bodies [][]byte
	for i, n := range names {
		funcs = append(funcs, []byte{byte(slices.Index(sigs, exports[n]))})
		exps = append(exps, append(name(n), 0, byte(len(imports)+i)))
		body := []byte{0, 0x0b} // no locals, end
		if strings.HasSuffix(exports[n], "i64") {
			body = []byte{0, 0x42, 0, 0x0b} // i64.const 0
		} else if strings.HasSuffix(exports[n], "i32") {
			body = []byte{0, 0x41, 0, 0x0b} // i32.const 0
		}
		bodies = append(bodies, append([]byte{byte(len(body))}, body...))
	}
	if len(funcs) > 0 {
		out = append(out, section(3, vec(funcs...))...)
		out = append(out, section(5, vec([]byte{0, 1}))...) // memory of 1 page, exported
		out = append(out, section(7, vec(append(exps, append(name("memory"), 2, 0))...))...)
		out = append(out, section(10, vec(bodies...))...)
	}
	return out
}

var abi = map[string]string{"eddy_describe": "()->i64", "eddy_buffer": "(i32)->i32", "eddy_call": "(i32)->i64", "_initialize": "()->()"}

func TestBadModules(t *testing.T) {
	r := runtime(t)
	ctx := context.Background()
	wrongSig := maps.Clone(abi)
	wrongSig["eddy_call"] = "()->()"
	for _, tc := range []struct {
		name string
		code []byte
		want string
	}{
		{"not wasm", []byte("PK\x03\x04 a jar file"), "not a valid WebAssembly module"},
		{"no exports", module(nil, nil), "not an Eddy function module: it does not export eddy_describe, eddy_buffer, eddy_call, _initialize; build function modules with: eddy function build"},
		{"wrong signature", module(nil, wrongSig), "it exports eddy_call with the wrong signature"},
		{"bad import", module([]string{"env.steal"}, abi), "it imports env.steal; function modules may import only WASI (wasi_snapshot_preview1) and Eddy's host functions"},
		{"unknown host import", module([]string{"eddy.spawn"}, abi), "it imports eddy.spawn, which this version of Eddy does not provide"},
		{"no host import", module(nil, abi), "not an Eddy function module: it does not import eddy.host"},
		{"empty description", module([]string{"eddy.host"}, abi), "not an Eddy function module: reading the module's description: malformed message"},
		{"a Go module without functions", wasmtest.Module(t, "./internal/wasm/testdata/noexports"), "it does not export eddy_describe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.Load(ctx, tc.code, wasm.Limits{})
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := r.Load(ctx, wasmtest.Module(t, guestPkg), wasm.Limits{Memory: 1 << 20})
	require.ErrorContains(t, err, "below the minimum")
}

// harness runs a module's function in the PTF test harness.
func harness(t *testing.T, d *ptf.Definition, opts ...ptftest.Option) *ptftest.Harness {
	t.Helper()
	opts = append([]ptftest.Option{ptftest.Table("input", "ROW<k STRING, w STRING>", ptftest.PartitionBy("k"))}, opts...)
	h, err := ptftest.New(d, opts...)
	require.NoError(t, err)
	return h
}

func TestOrderStatusTrackerInTheHarness(t *testing.T) {
	m := load(t, wasm.Limits{})
	d := def(t, m, "examples.OrderStatusTracker")
	h, err := ptftest.New(d, ptftest.Name("OrderStatusTracker"),
		ptftest.Table("input", "ROW<order_id INT NOT NULL, event_type STRING>", ptftest.PartitionBy("order_id")))
	require.NoError(t, err)
	for _, e := range []struct {
		id int64
		ev string
	}{{101, "PLACED"}, {102, "PLACED"}, {101, "FULFILLED"}, {102, "CANCELED"}, {101, "SHIPPED"}} {
		require.NoError(t, h.Insert("input", types.NewInt(e.id), types.NewString(e.ev)))
	}
	require.Equal(t, "+I[101, PENDING]\n+I[102, PENDING]\n-D[102, PENDING]\n+U[101, SHIPPED]\n", h.Format(h.Output()))
	st, ok, err := h.State(d.State[0], types.NewInt(101))
	require.NoError(t, err)
	require.True(t, ok)
	js, err := jsonOf(st)
	require.NoError(t, err)
	require.Equal(t, `{"status":"SHIPPED"}`, js)
	_, ok, err = h.State(d.State[0], types.NewInt(102))
	require.NoError(t, err)
	require.False(t, ok, "ClearAll removed the canceled order's state")
}

func TestViewsAndErrors(t *testing.T) {
	m := load(t, wasm.Limits{})
	h := harness(t, def(t, m, "test.Views"))
	for _, w := range []string{"a", "b", "a", "reset", "c"} {
		require.NoError(t, h.Insert("input", types.NewString("k1"), types.NewString(w)))
	}
	require.Equal(t, strings.Join([]string{
		"+I[k1, 1, a, 1]",
		"+I[k1, 2, a,b, 2]",
		"+I[k1, 3, a,b,a, 3]",
		"+I[k1, 4, a,b,a,reset, 4]", // ClearState clears the list when the call returns
		"+I[k1, 1, c, 5]",
	}, "\n")+"\n", h.Format(h.Output()))

	h = harness(t, def(t, m, "test.Fail"))
	require.NoError(t, h.Insert("input", types.NewString("ok"), types.NewString("")))
	out := h.Format(h.TakeOutput())
	require.Contains(t, out, "Unknown state entry: missing")
	require.Contains(t, out, "ptf: timer time out of range: 3000-01-01T00:00:00Z is outside")
	err := h.Insert("input", types.NewString("bad"), types.NewString(""))
	require.ErrorContains(t, err, "bad key")
}

func TestSandbox(t *testing.T) {
	m := load(t, wasm.Limits{})
	h := harness(t, def(t, m, "test.Escape"))
	require.NoError(t, h.Insert("input", types.NewString("k"), types.NewString("")))
	out := h.Format(h.Output())
	t.Log(out)
	for _, want := range []string{
		"read /etc/passwd: open /etc/passwd:",
		"write /tmp: open /tmp/eddy-wasm-escape:",
		"list .: open .:",
		"dial: dial tcp 127.0.0.1:22: ", // Go's in-process fake network of wasip1: nothing listens

		"env HOME: ]",
		"clock year: 1970]",
	} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out, "no error")
}

func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		fn   string
		lim  wasm.Limits
		want string
	}{
		{"test.Spin", wasm.Limits{CallTimeout: 200 * time.Millisecond}, "the function did not return within 200ms, its time limit per call"},
		{"test.Bomb", wasm.Limits{Memory: 64 << 20}, "the function exceeded its memory limit of 64 MiB (fatal error: out of memory)"},
		{"test.Exit", wasm.Limits{}, "the function module exited with code 3"},
	} {
		t.Run(tc.fn, func(t *testing.T) {
			m := load(t, tc.lim)
			h := harness(t, def(t, m, tc.fn))
			start := time.Now()
			err := h.Insert("input", types.NewString("k"), types.NewString(""))
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.Contains(t, err.Error(), "WebAssembly function "+tc.fn)
			require.Less(t, time.Since(start), 20*time.Second)
			var le *wasm.LimitError
			require.Equal(t, strings.HasPrefix(tc.want, "the function did not") || strings.Contains(tc.want, "memory limit"), errors.As(err, &le))
			// The module's shared instance was replaced: a healthy function
			// of the same module still runs.
			ok := harness(t, def(t, m, "examples.OrderStatusTracker"))
			require.NoError(t, ok.Insert("input", types.NewString("k"), types.NewString("PLACED")))
		})
	}
}

func TestPanicIsReportedLikeACompiledInPanic(t *testing.T) {
	m := load(t, wasm.Limits{})
	h := harness(t, def(t, m, "test.Panic"), ptftest.Name("Panicky"))
	err := h.Insert("input", types.NewString("k"), types.NewString(""))
	require.Error(t, err)
	first, _, _ := strings.Cut(err.Error(), "\n")
	require.Equal(t, `process table function Panicky (uid "Panicky"): function Panicky panicked: assignment to entry in nil map`, first)
	require.Contains(t, err.Error(), "[in the WebAssembly module]")
}

func jsonOf(v any) (string, error) {
	type marshaler interface{ MarshalJSON() ([]byte, error) }
	if m, ok := v.(marshaler); ok {
		b, err := m.MarshalJSON()
		return string(b), err
	}
	return "", fmt.Errorf("%T is not a JSON marshaler", v)
}
