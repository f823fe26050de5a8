package cli

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the eddy command (with the fake
// engine) inside the testscript scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"eddy": func() {
			os.Exit(Run(context.Background(), Options{Version: "v0.0.0-test", OpenEngine: openFake}, os.Args[1:]))
		},
	})
}

// TestScript runs testdata/script/*.txtar. Run with -update to rewrite
// the expected files of cmp commands.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			// A -race binary sleeps 1s at a successful exit by default.
			env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			return nil
		},
	})
}
