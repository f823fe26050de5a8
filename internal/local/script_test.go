//go:build linux || darwin

package local_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/eddy-sql/eddy"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"eddy": func() { os.Exit(eddy.Run()) },
	})
}

// TestScript runs testdata/script/*.txtar: eddy sql and eddy statement on
// local data directories, through the real command line (the test binary
// runs as eddy). Commands besides testscript's own:
//
//	waitsocket DIR          wait until DIR's socket answers (30 s at most)
//	waitfor FILE REGEXP     wait until FILE matches REGEXP (30 s at most)
//	pty [-env K=V]... [-stdin FILE] SCRIPT eddy ARGS...
//	                        run eddy in a pseudo-terminal (100x30) and
//	                        drive it with SCRIPT (see runPTY); the screen
//	                        output, escapes included, is the command's
//	                        stdout; -stdin reads stdin from FILE instead
//	                        of the terminal
func TestScript(t *testing.T) {
	if testing.Short() {
		t.Skip("runs eddy processes")
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			for _, k := range []string{"EDDY_SERVER", "EDDY_API_KEY", "EDDY_API_SECRET", "EDDY_CONFIG", "EDDY_APPLICATION_NAME", "EDDY_DATA_DIR", "CI"} {
				env.Setenv(k, "")
			}
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return err
			}
			defer l.Close()
			env.Setenv("PORT", fmt.Sprint(l.Addr().(*net.TCPAddr).Port))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitsocket": waitSocket,
			"waitfor":    waitFor,
			"pty":        runPTY,
		},
	})
}

const waitTimeout = 30 * time.Second

func waitSocket(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitsocket DIR")
	}
	path := filepath.Join(ts.MkAbs(args[0]), "eddy.sock")
	deadline := time.Now().Add(waitTimeout)
	for {
		c, err := net.Dial("unix", path)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("no socket answers at %s: %v", path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func waitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfor FILE REGEXP")
	}
	re := regexp.MustCompile(args[1])
	deadline := time.Now().Add(waitTimeout)
	for {
		b, _ := os.ReadFile(ts.MkAbs(args[0]))
		if re.Match(b) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s does not match %q after %s:\n%s", args[0], args[1], waitTimeout, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runPTY runs eddy in a pseudo-terminal and follows a script of steps, one
// per line ('#' comments):
//
//	expect [-within D] REGEXP   wait until the output since the last
//	                            expect matches (default within 15s)
//	send TEXT                   type TEXT (Go escapes: \r, \x1b, \x03)
//	sleep D                     wait
//	exit [-within D]            wait for the process to end
//
// The process's environment is the script's, with TERM=xterm unless -env
// sets it; CI is never set (termenv would then skip its terminal queries,
// hiding the stall this tests).
func runPTY(ts *testscript.TestScript, neg bool, args []string) {
	var env []string
	stdin := ""
	for len(args) >= 2 && (args[0] == "-env" || args[0] == "-stdin") {
		if args[0] == "-env" {
			env = append(env, args[1])
		} else {
			stdin = args[1]
		}
		args = args[2:]
	}
	if len(args) < 2 || args[1] != "eddy" {
		ts.Fatalf("usage: pty [-env K=V]... SCRIPT eddy ARGS...")
	}
	steps := ts.ReadFile(args[0])
	bin, err := exec.LookPath("eddy")
	if err != nil {
		// testscript puts eddy on the script's $PATH.
		for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
			if p := filepath.Join(dir, "eddy"); fileExists(p) {
				bin = p
				break
			}
		}
	}
	if bin == "" {
		ts.Fatalf("eddy is not on $PATH")
	}
	cmd := exec.Command(bin, args[2:]...)
	cmd.Dir = ts.Getenv("WORK")
	cmd.Env = ptyEnv(ts, env)
	if stdin != "" { // stdin from a file, output to the terminal
		in, err := os.Open(ts.MkAbs(stdin))
		if err != nil {
			ts.Fatalf("%v", err)
		}
		defer in.Close()
		cmd.Stdin = in
	}
	attrs := &syscall.SysProcAttr{Setsid: true, Setctty: true} // the terminal is the controlling one
	if stdin != "" {
		attrs.Ctty = 1 // stdout's; stdin is a file
	}
	f, err := pty.StartWithAttrs(cmd, &pty.Winsize{Rows: 30, Cols: 100}, attrs)
	if err != nil {
		ts.Fatalf("starting eddy in a pty: %v", err)
	}
	var mu sync.Mutex
	var out strings.Builder
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		b := make([]byte, 4096)
		for {
			n, err := f.Read(b)
			mu.Lock()
			out.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	output := func() string {
		mu.Lock()
		defer mu.Unlock()
		return out.String()
	}
	fail := func(format string, a ...any) {
		_ = cmd.Process.Kill()
		<-exited
		f.Close()
		<-readDone
		ts.Logf("screen output:\n%q", output())
		ts.Fatalf(format, a...)
	}
	mark := 0 // expect matches the output after the previous match
	done := false
	for lineNo, line := range strings.Split(steps, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		within := 15 * time.Second
		if strings.HasPrefix(rest, "-within ") {
			d, r, _ := strings.Cut(strings.TrimPrefix(rest, "-within "), " ")
			if within, err = time.ParseDuration(d); err != nil {
				ts.Fatalf("%s:%d: %v", args[0], lineNo+1, err)
			}
			rest = r
		}
		switch verb {
		case "expect":
			re, err := regexp.Compile(rest)
			if err != nil {
				ts.Fatalf("%s:%d: %v", args[0], lineNo+1, err)
			}
			start := time.Now()
			for {
				o := output()
				if loc := re.FindStringIndex(o[mark:]); loc != nil {
					mark += loc[1]
					ts.Logf("pty: %q after %s", rest, time.Since(start).Round(time.Millisecond))
					break
				}
				if time.Since(start) > within {
					fail("%s:%d: no %q within %s", args[0], lineNo+1, rest, within)
				}
				time.Sleep(5 * time.Millisecond)
			}
		case "send":
			text, err := strconv.Unquote(`"` + strings.ReplaceAll(rest, `"`, `\"`) + `"`)
			if err != nil {
				ts.Fatalf("%s:%d: %v", args[0], lineNo+1, err)
			}
			if _, err := f.Write([]byte(text)); err != nil {
				fail("%s:%d: writing to the pty: %v", args[0], lineNo+1, err)
			}
		case "sleep":
			d, err := time.ParseDuration(rest)
			if err != nil {
				ts.Fatalf("%s:%d: %v", args[0], lineNo+1, err)
			}
			time.Sleep(d)
		case "exit":
			select {
			case err := <-exited:
				if err != nil && !neg {
					fail("eddy ended with %v", err)
				}
				done = true
			case <-time.After(within):
				fail("%s:%d: eddy did not end within %s", args[0], lineNo+1, within)
			}
		default:
			ts.Fatalf("%s:%d: unknown step %q", args[0], lineNo+1, verb)
		}
	}
	if !done {
		_ = cmd.Process.Kill()
		<-exited
	}
	f.Close()
	<-readDone
	fmt.Fprint(ts.Stdout(), output())
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// ptyEnv is the script's environment for a pty process: TERM=xterm, no CI,
// then the -env settings.
func ptyEnv(ts *testscript.TestScript, extra []string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "WORK", "GORACE", "GOCOVERDIR"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, "TERM=xterm")
	return append(env, extra...)
}
