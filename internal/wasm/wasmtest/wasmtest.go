// Package wasmtest builds function modules for tests: each package once
// per test process, with the Go toolchain that runs the tests.
package wasmtest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/eddy-sql/eddy/internal/wasm"
)

var (
	mu    sync.Mutex
	built = map[string][]byte{}
	dir   string
)

// Module builds the main package pkg (a path relative to the module root,
// such as "./internal/wasm/testdata/guest") into a module and returns its
// bytes. Builds are shared by the tests of one process.
func Module(t testing.TB, pkg string) []byte {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if b, ok := built[pkg]; ok {
		return b
	}
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "eddy-wasmtest-"); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, strings.NewReplacer("/", "_", ".", "_").Replace(pkg)+".wasm")
	var stderr bytes.Buffer
	if err := wasm.Build(context.Background(), "", root, pkg, out, &stderr, &stderr); err != nil {
		t.Fatalf("building %s: %v\n%s", pkg, err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	built[pkg] = b
	return b
}

// Root returns the directory of the Eddy module (the go.mod above the
// working directory).
func Root() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module github.com/eddy-sql/eddy\n")) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", os.ErrNotExist
		}
		d = parent
	}
}

// CacheDir is a compiled-module cache shared by test processes (wazero
// writes it atomically), so that a module compiles once per machine and
// not once per test package: compiling is slow under the race detector.
func CacheDir() string { return filepath.Join(os.TempDir(), "eddy-wasmtest-cache") }
