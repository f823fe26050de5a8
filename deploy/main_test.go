package deploy_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/deploy"
	"go.uber.org/goleak"
)

// exampleServer serves the examples (which cannot start their own).
var exampleServer *testServer

func TestMain(m *testing.M) {
	s, err := startServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the example server:", err)
		os.Exit(1)
	}
	exampleServer = s
	code := m.Run()
	s.Close()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// newServer starts a server for one test.
func newServer(t *testing.T) *testServer {
	t.Helper()
	s, err := startServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// ran is what FromArgs did.
type ran struct {
	settings       *deploy.Settings
	err            error
	exited         bool
	code           int
	stdout, stderr string
}

// fromArgs calls FromArgs with env as the environment, capturing the
// output and the exit status.
func fromArgs(env map[string]string, args ...string) ran {
	var r ran
	var stdout, stderr bytes.Buffer
	r.settings, r.err = deploy.FromArgs(args,
		deploy.WithExit(func(code int) { r.exited, r.code = true, code }),
		deploy.WithStdout(&stdout), deploy.WithStderr(&stderr),
		deploy.WithLookupEnv(lookup(env)),
		deploy.WithVersion("1.2.3"), deploy.WithProgramName("orders-deploy"),
		deploy.WithPollInterval(10*time.Millisecond),
	)
	r.stdout, r.stderr = stdout.String(), stderr.String()
	return r
}

func lookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

// serverEnv is the environment that points at s.
func serverEnv(s *testServer) map[string]string {
	return map[string]string{"EDDY_SERVER": s.URL, "EDDY_API_KEY": s.Key, "EDDY_API_SECRET": s.Secret}
}

// newClient returns a client of s, to set up and check statements.
func newClient(t *testing.T, s *testServer) *client.Client {
	t.Helper()
	c, err := client.New(client.Server(s.URL), client.APIKey(s.Key, s.Secret), client.PollInterval(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// create creates a statement and waits until it is RUNNING or COMPLETED.
func create(t *testing.T, c *client.Client, name, sql string) *v1.Statement {
	t.Helper()
	ctx := context.Background()
	if _, err := c.CreateStatement(ctx, v1.Statement{Name: name, Spec: v1.Spec{Statement: sql}}); err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	st, err := c.Await(ctx, name, client.PhaseIn(v1.Running, v1.Completed), 30*time.Second)
	if err != nil {
		t.Fatalf("awaiting %s: %v", name, err)
	}
	return st
}

// phase returns a statement's phase, or "gone".
func phase(t *testing.T, c *client.Client, name string) string {
	t.Helper()
	st, err := c.GetStatement(context.Background(), name)
	if client.IsNotFound(err) {
		return "gone"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(st.Status.Phase)
}

// contains fails the test unless s contains every want.
func contains(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}
