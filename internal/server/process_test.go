package server_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/stretchr/testify/require"
)

// buildEddy builds the eddy binary into a temporary directory.
func buildEddy(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "eddy")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/eddy-sql/eddy/cmd/eddy").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// process is a running `eddy server`.
type process struct {
	t      *testing.T
	cmd    *exec.Cmd
	url    string
	stderr *syncBuffer
	done   chan struct{} // closed when stderr is drained
}

// startServer starts `eddy server` on a free loopback port and waits until
// it logs its address.
func startServer(t *testing.T, bin, dir string) *process {
	t.Helper()
	cmd := exec.Command(bin, "server", "--data-dir", dir, "--listen", "127.0.0.1:0",
		"--log-format", "json", "--log-level", "debug", "--checkpoint-interval", "50ms")
	pipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p := &process{t: t, cmd: cmd, stderr: &syncBuffer{}, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			_, _ = p.stderr.Write([]byte(line + "\n"))
			var rec struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "serving the REST API" {
				addr <- rec.Addr
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-p.done
			_ = cmd.Wait()
		}
	})
	select {
	case a := <-addr:
		p.url = "http://" + a
	case <-p.done:
		_ = cmd.Wait()
		t.Fatalf("eddy server exited before listening:\n%s", p.stderr.String())
	case <-time.After(waitTimeout):
		t.Fatalf("eddy server did not listen in time:\n%s", p.stderr.String())
	}
	return p
}

// stop sends sig and waits for the process to end.
func (p *process) stop(sig syscall.Signal) error {
	require.NoError(p.t, p.cmd.Process.Signal(sig))
	select {
	case <-p.done:
	case <-time.After(waitTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	return p.cmd.Wait()
}

func (p *process) client(key v1.APIKey) *client {
	return &client{t: p.t, url: p.url, key: key.ID, secret: key.Secret,
		hc: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: waitTimeout}}
}

// TestServerProcess runs the eddy binary: it creates an API key, starts
// the server, creates statements over HTTP, kills the server with SIGKILL,
// restarts it and checks that the statements run again and that the sink
// holds every row exactly once; then it stops the server with SIGTERM.
func TestServerProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the eddy binary")
	}
	bin := buildEddy(t)
	dir := t.TempDir()

	// Without a key the server refuses to start and says what to do.
	out, err := exec.Command(bin, "server", "--data-dir", dir, "--listen", "127.0.0.1:0").CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "eddy api-key create --data-dir "+dir)

	out, err = exec.Command(bin, "api-key", "create", "--data-dir", dir, "-o", "json").Output()
	require.NoError(t, err)
	var key v1.APIKey
	require.NoError(t, json.Unmarshal(out, &key))
	require.NotEmpty(t, key.Secret)

	p := startServer(t, bin, dir)
	c := p.client(key)
	c.run("src", "CREATE TABLE src (id INT, item STRING) DISTRIBUTED INTO 2 BUCKETS")
	c.run("sink", "CREATE TABLE sink (id INT, item STRING) DISTRIBUTED INTO 1 BUCKETS")
	c.run("fill-1", "INSERT INTO src VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	c.create("copy", "INSERT INTO sink SELECT id, UPPER(item) FROM src")
	c.waitPhase("copy", v1.Running)
	c.create("watch-1", "SELECT * FROM sink")
	require.ElementsMatch(t, []string{"1,A", "2,B", "3,C"}, rowStrings(c.results("watch-1", 3)))

	err = p.stop(syscall.SIGKILL)
	var exitErr *exec.ExitError
	require.True(t, errors.As(err, &exitErr), "%v", err)

	p = startServer(t, bin, dir)
	c = p.client(key)
	require.Equal(t, v1.Running, c.get("copy").Status.Phase)
	require.Equal(t, v1.Running, c.get("watch-1").Status.Phase)
	require.Equal(t, v1.Completed, c.get("fill-1").Status.Phase)
	c.run("fill-2", "INSERT INTO src VALUES (4, 'd'), (5, 'e')")
	c.create("watch-2", "SELECT * FROM sink")
	got := rowStrings(c.results("watch-2", 5))
	slices.Sort(got)
	require.Equal(t, []string{"1,A", "2,B", "3,C", "4,D", "5,E"}, got)

	// Secrets stay out of the log; requests are logged with the key id.
	logs := p.stderr.String()
	require.NotContains(t, logs, key.Secret)
	require.Contains(t, logs, `"key_id":"`+key.ID+`"`)

	require.NoError(t, p.stop(syscall.SIGTERM), "stderr:\n%s", p.stderr.String())
	logs = p.stderr.String()
	for _, step := range []string{"shutting down", "stopping statements", "closing data directory"} {
		require.True(t, strings.Contains(logs, step), "no %q in the log:\n%s", step, logs)
	}

	// After a graceful stop the statements run again too.
	p = startServer(t, bin, dir)
	c = p.client(key)
	require.Equal(t, v1.Running, c.get("copy").Status.Phase)
	require.NoError(t, p.stop(syscall.SIGTERM))
}
