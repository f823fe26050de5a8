package deploy_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/deploy"
	"github.com/stretchr/testify/require"
)

// setupPipeline creates a source table and two running statements of
// application "orders" and one of another application.
func setupPipeline(t *testing.T, s *testServer) {
	t.Helper()
	c := newClient(t, s)
	create(t, c, "setup-src", "CREATE TABLE src (id INT, v STRING)")
	create(t, c, "setup-dst", "CREATE TABLE dst (id INT, v STRING)")
	create(t, c, "orders-copy", "INSERT INTO dst SELECT * FROM src")
	create(t, c, "orders-query", "SELECT * FROM src")
	create(t, c, "billing-copy", "INSERT INTO dst SELECT id, v FROM src WHERE id > 0")
}

// action runs FromArgs with an action and checks that it exited with
// code, and that the program's logic would not run.
func action(t *testing.T, env map[string]string, code int, args ...string) ran {
	t.Helper()
	r := fromArgs(env, args...)
	require.True(t, r.exited, "%q did not exit", args)
	require.Equal(t, code, r.code, "%q: stdout:\n%s\nstderr:\n%s", args, r.stdout, r.stderr)
	require.Nil(t, r.settings)
	var ee *deploy.ExitError
	require.ErrorAs(t, r.err, &ee)
	require.Equal(t, code, ee.Code)
	return r
}

func TestActionList(t *testing.T) {
	s := newServer(t)
	setupPipeline(t, s)
	env := serverEnv(s)

	r := action(t, env, 0, "list", "--application-name", "orders")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 3, r.stdout)
	contains(t, "list", lines[0], "NAME", "PHASE", "CREATED", "STATEMENT")
	contains(t, "list", lines[1], "orders-copy", "RUNNING", "INSERT INTO dst SELECT * FROM src")
	contains(t, "list", lines[2], "orders-query", "RUNNING")

	// Without an application name: everything.
	r = action(t, env, 0, "list")
	contains(t, "list", r.stdout, "billing-copy", "orders-copy", "orders-query", "setup-src")

	// With a statement name: that one.
	r = action(t, env, 0, "list", "--application-name", "orders", "--statement-name", "copy")
	require.Len(t, strings.Split(strings.TrimSpace(r.stdout), "\n"), 2, r.stdout)
	contains(t, "list", r.stdout, "orders-copy")

	// An application without statements.
	r = action(t, env, 0, "list", "--application-name", "shop")
	require.Equal(t, "No statements of application \"shop\".\n", r.stdout)

	// --action.await is ignored by list.
	action(t, env, 0, "list", "--action.await", "--application-name", "orders")
}

func TestActionDescribe(t *testing.T) {
	s := newServer(t)
	setupPipeline(t, s)
	env := serverEnv(s)
	env["EDDY_APPLICATION_NAME"] = "orders"

	r := action(t, env, 0, "describe", "--statement-name", "copy")
	var st v1.Statement
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &st), r.stdout)
	require.Equal(t, "orders-copy", st.Name)
	require.Equal(t, v1.Running, st.Status.Phase)
	require.Equal(t, "INSERT INTO dst SELECT * FROM src", st.Spec.Statement)
	require.NotEmpty(t, st.Metadata.UID)
	require.Empty(t, r.stderr)

	// The statement name from the environment.
	env["EDDY_STATEMENT_NAME"] = "query"
	r = action(t, env, 0, "describe")
	require.Contains(t, r.stdout, `"name": "orders-query"`)

	r = action(t, env, 1, "describe", "--statement-name", "nope")
	require.Equal(t, "Error: statement \"orders-nope\" not found\n", r.stderr)
	require.Empty(t, r.stdout)
}

func TestActionStopResumeDelete(t *testing.T) {
	s := newServer(t)
	setupPipeline(t, s)
	c := newClient(t, s)
	env := serverEnv(s)
	args := func(action string, more ...string) []string {
		return append([]string{action, "--statement-name", "copy", "--application-name", "orders"}, more...)
	}

	r := action(t, env, 0, args("stop", "--action.await")...)
	contains(t, "stop", r.stderr, `Requested to stop statement "orders-copy"`,
		`Waiting up to 15m0s for statement "orders-copy" to be STOPPED or COMPLETED...`,
		`Statement "orders-copy" is STOPPED.`)
	require.Equal(t, "STOPPED", phase(t, c, "orders-copy"))

	// Stopping a stopped statement succeeds.
	action(t, env, 0, args("stop")...)

	r = action(t, env, 0, args("resume", "--action.await=30s")...)
	contains(t, "resume", r.stderr, `Requested to resume statement "orders-copy"`,
		`Waiting up to 30s for statement "orders-copy" to be RUNNING or COMPLETED...`, `is RUNNING.`)
	require.Equal(t, "RUNNING", phase(t, c, "orders-copy"))

	// Without --action.await stop returns once accepted.
	r = action(t, env, 0, args("stop")...)
	require.NotContains(t, r.stderr, "Waiting")

	r = action(t, env, 0, args("delete", "--action.await", "1m")...)
	contains(t, "delete", r.stderr, `Requested to delete statement "orders-copy".`, `Statement "orders-copy" is deleted.`)
	require.Equal(t, "gone", phase(t, c, "orders-copy"))
	require.Equal(t, "RUNNING", phase(t, c, "orders-query"), "only the named statement is touched")

	// Now it is not found.
	for _, a := range []string{"stop", "resume", "delete", "describe"} {
		r = action(t, env, 1, args(a)...)
		require.Equal(t, "Error: statement \"orders-copy\" not found\n", r.stderr, a)
	}
}

func TestActionFailures(t *testing.T) {
	s := newServer(t)
	setupPipeline(t, s)
	env := serverEnv(s)

	// No statement name.
	for _, a := range []string{"describe", "stop", "resume", "delete"} {
		r := action(t, env, 1, a, "--application-name", "orders")
		require.Contains(t, r.stderr, "Error: "+a+" needs a statement: give --statement-name NAME", a)
	}
	// No server.
	r := action(t, nil, 1, "list")
	require.Contains(t, r.stderr, "Error: no server: give --server URL")
	// Invalid arguments.
	r = action(t, env, 1, "stop", "--statement-name", "copy", "--on-conflict", "sometimes")
	require.Contains(t, r.stderr, `Error: invalid on-conflict "sometimes"`)
	// A wrong key, from the environment.
	bad := serverEnv(s)
	bad["EDDY_API_KEY"] = "wrong"
	r = action(t, bad, 1, "list")
	require.Equal(t, "Error: authentication failed: the server at "+s.URL+" refused the API key from $EDDY_API_KEY; "+
		"check --api-key/--api-secret, api.key/api.secret in the properties file, or $EDDY_API_KEY/$EDDY_API_SECRET\n", r.stderr)
	// No key at all.
	r = action(t, map[string]string{"EDDY_SERVER": s.URL}, 1, "stop", "--statement-name", "orders-copy")
	require.Contains(t, r.stderr, "refused the request: it needs an API key")
	// An unreachable server.
	r = action(t, nil, 1, "list", "--server", "http://127.0.0.1:1")
	require.Contains(t, r.stderr, "Error: cannot reach the server at http://127.0.0.1:1 (--server)")
}

func TestActionAwaitTimeout(t *testing.T) {
	s := newServer(t)
	setupPipeline(t, s)
	// The statement never gets past STOPPING.
	s.setHook(func(r *http.Request, status int, body map[string]any) (int, map[string]any) {
		if r.Method == http.MethodGet && r.URL.Path == "/v1/statements/orders-copy" {
			st := body["status"].(map[string]any)
			st["phase"], st["detail"] = "STOPPING", "Taking a final checkpoint."
		}
		return status, body
	})
	r := action(t, serverEnv(s), 1, "stop", "--statement-name", "copy", "--application-name", "orders", "--action.await=300ms")
	contains(t, "stderr", r.stderr,
		`Error: timed out after 300ms waiting for statement "orders-copy" to be STOPPED or COMPLETED`,
		"Last seen: STOPPING: Taking a final checkpoint.")
}

func TestActionResumeFailed(t *testing.T) {
	s := newServer(t)
	setupPipeline(t, s)
	c := newClient(t, s)
	env := serverEnv(s)
	action(t, env, 0, "stop", "--statement-name", "orders-copy", "--action.await")
	require.Equal(t, "STOPPED", phase(t, c, "orders-copy"))
	// The resumed statement FAILS.
	s.setHook(func(r *http.Request, status int, body map[string]any) (int, map[string]any) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/statements/orders-copy":
			st := body["status"].(map[string]any)
			if st["phase"] != "STOPPED" {
				st["phase"], st["detail"] = "FAILED", "Function Boom failed: kaput."
			}
		case r.URL.Path == "/v1/statements/orders-copy/exceptions":
			body["data"] = []any{map[string]any{"kind": "StatementException", "name": "RUNTIME_ERROR",
				"message": "Function Boom failed: kaput.", "timestamp": "2026-08-01T09:00:12Z"}}
		}
		return status, body
	})
	r := action(t, env, 1, "resume", "--statement-name", "orders-copy", "--action.await")
	contains(t, "stderr", r.stderr,
		`Error: statement "orders-copy" FAILED: Function Boom failed: kaput.`,
		"Latest exception (2026-08-01T09:00:12Z): RUNTIME_ERROR: Function Boom failed: kaput.")
}

func TestActionPermissionDenied(t *testing.T) {
	s := newServer(t)
	s.setHook(func(r *http.Request, status int, body map[string]any) (int, map[string]any) {
		return http.StatusForbidden, map[string]any{"status": 403, "error": map[string]any{
			"code": "FORBIDDEN", "message": "The key may not delete statements.", "suggestion": "Use an admin key."}}
	})
	r := action(t, serverEnv(s), 1, "delete", "--statement-name", "x")
	require.Equal(t, "Error: permission denied: The key may not delete statements.\n  Hint: Use an admin key.\n", r.stderr)
}
