package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/wasm/wasmtest"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestScript runs testdata/script/*.txtar: the eddy command line end to
// end, with `eddy server` running in the background on a free port
// ($PORT). Commands besides testscript's own:
//
//	waitserver URL   wait until URL/healthz answers 200 (30s at most)
//	loadenv FILE     set the variables of FILE's "export K=V" lines (eval)
//	setjson VAR FILE FIELD
//	                 set VAR to the string FIELD of the JSON object in
//	                 FILE (VAR=$(... -o json | jq -r .FIELD))
func TestScript(t *testing.T) {
	if testing.Short() {
		t.Skip("runs eddy server")
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			// A -race binary sleeps 1s at a successful exit by default.
			env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			for _, k := range []string{"EDDY_SERVER", "EDDY_API_KEY", "EDDY_API_SECRET", "EDDY_CONFIG", "EDDY_APPLICATION_NAME"} {
				env.Setenv(k, "")
			}
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return err
			}
			defer l.Close()
			env.Setenv("PORT", fmt.Sprint(l.Addr().(*net.TCPAddr).Port))
			// eddy function build runs the Go toolchain in the repository;
			// compiled modules go to the tests' shared cache.
			root, err := wasmtest.Root()
			if err != nil {
				return err
			}
			env.Setenv("EDDY_REPO", root)
			env.Setenv("EDDY_WASM_CACHE_DIR", wasmtest.CacheDir())
			for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOTOOLCHAIN"} {
				if v, err := exec.Command("go", "env", k).Output(); err == nil {
					env.Setenv(k, strings.TrimSpace(string(v)))
				}
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitserver": waitServer,
			"loadenv":    loadEnv,
			"setjson":    setJSON,
			"docscript":  docScript,
		},
	})
}

func waitServer(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitserver URL")
	}
	deadline := time.Now().Add(waitTimeout)
	for {
		resp, err := http.Get(args[0] + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s did not become healthy: %v", args[0], err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func loadEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: loadenv FILE")
	}
	sc := bufio.NewScanner(strings.NewReader(ts.ReadFile(args[0])))
	n := 0
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "export ")
		k, v, ok2 := strings.Cut(line, "=")
		if !ok || !ok2 {
			ts.Fatalf("not an export line: %q", sc.Text())
		}
		ts.Setenv(k, v)
		n++
	}
	if n == 0 {
		ts.Fatalf("no export lines in %s", args[0])
	}
}

func setJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: setjson VAR FILE FIELD")
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[1])), &obj); err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	v, ok := obj[args[2]].(string)
	if !ok {
		ts.Fatalf("%s has no string field %q", args[1], args[2])
	}
	ts.Setenv(args[0], v)
}
