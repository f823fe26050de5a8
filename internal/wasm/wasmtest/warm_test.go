package wasmtest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/eddy-sql/eddy/internal/wasm"
	"github.com/eddy-sql/eddy/internal/wasm/wasmtest"
)

// TestWarm builds every module the tests load and compiles it into the
// shared cache (CacheDir): the test modules, and every example function's
// module as make wasm-examples built it (build/wasm/<Name>.wasm, which
// TestAcceptanceWithArtifacts loads) or as the tests build it. CI runs it before the race-detector tests,
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
	root, err := wasmtest.Root()
	if err != nil {
		t.Fatal(err)
	}
	examples, err := os.ReadDir(filepath.Join(root, "examples", "wasm"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range examples {
		code, err := os.ReadFile(filepath.Join(root, "build", "wasm", e.Name()+".wasm"))
		if err != nil {
			code = wasmtest.Module(t, "./examples/wasm/"+e.Name())
		}
		if _, err := rt.Load(t.Context(), code, wasm.Limits{}); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
	}
}
