package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/deploy"
	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/server"
	"github.com/eddy-sql/eddy/internal/statement"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/stretchr/testify/require"
)

// startServer starts an in-process eddy server on a fresh data directory
// with one API key, and returns its URL, key and secret.
func startServer(t *testing.T) (url, key, secret string) {
	t.Helper()
	reg := ptf.NewRegistry()
	require.NoError(t, examples.Register(reg))
	eng, err := engine.Open(context.Background(), engine.Options{DataDir: t.TempDir(), Registry: reg})
	require.NoError(t, err)
	mgr, err := statement.Open(statement.Options{Engine: eng, CheckpointInterval: 50 * time.Millisecond})
	require.NoError(t, err)
	srv, err := server.New(server.Options{Manager: mgr, DB: eng.Env().DB, Engine: eng})
	require.NoError(t, err)
	k, err := server.NewKeyStore(eng.Env().DB, nil).Create("ci")
	require.NoError(t, err)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ts.Close()
		require.NoError(t, mgr.Close())
		require.NoError(t, eng.Close())
	})
	return ts.URL, k.ID, k.Secret
}

// program runs the program's main logic with args and the environment of
// a CI job, and returns its exit status and output.
func program(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut,
		deploy.WithExit(func(int) {}),
		deploy.WithLookupEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }),
		deploy.WithPollInterval(10*time.Millisecond))
	return code, out.String(), errOut.String()
}

func TestDeployAndManage(t *testing.T) {
	url, key, secret := startServer(t)
	// The pipeline passes the server and the credentials in the
	// environment, the names and the mode as arguments.
	env := map[string]string{"EDDY_SERVER": url, "EDDY_API_KEY": key, "EDDY_API_SECRET": secret}
	deployArgs := []string{"--application-name", "orders", "--on-conflict", "replace"}
	c, err := client.New(client.Server(url), client.APIKey(key, secret))
	require.NoError(t, err)
	ctx := context.Background()
	uid := func(name string) string {
		st, err := c.GetStatement(ctx, name)
		require.NoError(t, err)
		return st.Metadata.UID
	}

	// Deploy.
	code, out, errOut := program(t, env, deployArgs...)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, `orders-order-status-tracker          created    COMPLETED
orders-order-events                  created    COMPLETED
orders-order-status                  created    RUNNING
`, out)
	first := uid("orders-order-status")

	// Redeploy the unchanged program: a no-op.
	code, out, errOut = program(t, env, deployArgs...)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, `orders-order-status-tracker          unchanged  COMPLETED
orders-order-events                  unchanged  COMPLETED
orders-order-status                  unchanged  RUNNING
`, out)
	require.Contains(t, errOut, `Statement "orders-order-status" is unchanged (phase RUNNING)`)
	require.Equal(t, first, uid("orders-order-status"))

	// The pipeline works: events in, statuses out.
	_, err = c.CreateStatement(ctx, v1.Statement{Name: "test-events", Spec: v1.Spec{Statement: `INSERT INTO order_events VALUES
  (101, 'PLACED', TIMESTAMP '2026-08-01 09:00:00'), (101, 'SHIPPED', TIMESTAMP '2026-08-01 09:00:30')`}})
	require.NoError(t, err)

	// list shows the application's statements.
	code, out, errOut = program(t, env, "list", "--application-name", "orders")
	require.Equal(t, 0, code, errOut)
	require.Len(t, strings.Split(strings.TrimSpace(out), "\n"), 4, out)
	require.Contains(t, out, "orders-order-status ")
	require.NotContains(t, out, "test-events")

	// Stop with await.
	stopArgs := []string{"stop", "--statement-name", "order-status", "--application-name", "orders", "--action.await"}
	code, _, errOut = program(t, env, stopArgs...)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, `Statement "orders-order-status" is STOPPED.`)

	// A redeploy leaves the stopped statement alone.
	code, out, errOut = program(t, env, deployArgs...)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "orders-order-status                  unchanged  STOPPED")

	// Resume with await; describe shows it RUNNING with the same uid:
	// it kept its state.
	code, _, errOut = program(t, env, "resume", "--statement-name", "order-status", "--application-name", "orders", "--action.await=1m")
	require.Equal(t, 0, code, errOut)
	code, out, errOut = program(t, env, "describe", "--statement-name", "order-status", "--application-name", "orders")
	require.Equal(t, 0, code, errOut)
	var st v1.Statement
	require.NoError(t, json.Unmarshal([]byte(out), &st))
	require.Equal(t, v1.Running, st.Status.Phase)
	require.Equal(t, first, st.Metadata.UID)

	// A changed spec (a new property) replaces every statement; the DDL
	// runs again harmlessly, and the pipeline keeps its state.
	code, out, errOut = program(t, env, append(deployArgs, "--property", "table.exec.state.ttl=7d")...)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, `orders-order-status-tracker          replaced   COMPLETED
orders-order-events                  replaced   COMPLETED
orders-order-status                  replaced   RUNNING
`, out)
	// The tracker keeps its uid and state types, so the server carried its
	// state and source positions over: the statement keeps its identity.
	require.Equal(t, first, uid("orders-order-status"))
	// Under on-conflict fail the same change fails, with the difference.
	code, _, errOut = program(t, env, "--application-name", "orders")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "Error: deploying order-status-tracker: statement \"orders-order-status-tracker\" already exists with a different spec (on-conflict fail):")
	require.Contains(t, errOut, "-table.exec.state.ttl=7d")

	// Delete with await, then it is gone.
	code, _, errOut = program(t, env, "delete", "--statement-name", "order-status", "--application-name", "orders", "--action.await")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, `Statement "orders-order-status" is deleted.`)
	code, _, errOut = program(t, env, "describe", "--statement-name", "order-status", "--application-name", "orders")
	require.Equal(t, 1, code)
	require.Equal(t, "Error: statement \"orders-order-status\" not found\n", errOut)
}

func TestFailures(t *testing.T) {
	url, key, _ := startServer(t)
	// A wrong secret: exit 1 before anything is deployed.
	env := map[string]string{"EDDY_SERVER": url, "EDDY_API_KEY": key, "EDDY_API_SECRET": "wrong"}
	code, out, errOut := program(t, env, "--application-name", "orders")
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "Error: authentication failed")
	code, _, errOut = program(t, env, "stop", "--statement-name", "order-status")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "Error: authentication failed")
	// No server at all.
	code, _, errOut = program(t, nil, "list")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "Error: no server")
	// replace without an application name.
	code, _, errOut = program(t, map[string]string{"EDDY_SERVER": url}, "--on-conflict", "replace")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "on-conflict replace needs an application name")
	// --help and --version exit 0.
	code, out, _ = program(t, nil, "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "Actions:")
	code, out, _ = program(t, nil, "--version")
	require.Equal(t, 0, code)
	require.Contains(t, out, "eddy "+deploy.Version)
}
