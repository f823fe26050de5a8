package wasmtest_test

import (
	"testing"

	"github.com/eddy-sql/eddy/internal/wasm"
	"github.com/eddy-sql/eddy/internal/wasm/wasmtest"
)

// TestWarm builds every module the tests load and compiles it into the
// shared cache (CacheDir). CI runs it before the race-detector tests,
// under which wazero compiles a Go module several times slower.
func TestWarm(t *testing.T) {
	rt, err := wasm.New(wasm.Options{CacheDir: wasmtest.CacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	for _, pkg := range []string{
		"./internal/wasm/testdata/guest",
		"./internal/wasm/testdata/guestv2",
		"./internal/wasm/testdata/noexports",
		"./examples/wasm/OrderStatusTracker",
	} {
		code := wasmtest.Module(t, pkg)
		if _, err := rt.Load(t.Context(), code, wasm.Limits{}); err != nil && pkg != "./internal/wasm/testdata/noexports" {
			t.Fatalf("%s: %v", pkg, err)
		}
	}
}
