package deploy_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/deploy"
	"github.com/stretchr/testify/require"
)

// newEnv returns an Env of s with the settings of args, and the buffer
// its messages go to.
func newEnv(t *testing.T, s *testServer, args ...string) (*deploy.Env, *bytes.Buffer) {
	t.Helper()
	var stderr bytes.Buffer
	settings, err := deploy.FromArgs(args,
		deploy.WithExit(func(int) { t.Fatal("FromArgs exited") }),
		deploy.WithStdout(&stderr), deploy.WithStderr(&stderr),
		deploy.WithLookupEnv(lookup(serverEnv(s))),
		deploy.WithPollInterval(10*time.Millisecond))
	require.NoError(t, err)
	env, err := settings.Environment(context.Background())
	require.NoError(t, err)
	return env, &stderr
}

const (
	createSrc  = "CREATE TABLE src (id INT, v STRING)"
	createDst  = "CREATE TABLE dst (id INT, v STRING)"
	copyRows   = "INSERT INTO dst SELECT * FROM src"
	copyRowsV2 = "INSERT INTO dst SELECT id, UPPER(v) FROM src"
)

// deployTables creates src and dst.
func deployTables(t *testing.T, env *deploy.Env) {
	t.Helper()
	ctx := context.Background()
	env.SetStatementName("src")
	_, err := env.ExecuteSQL(ctx, createSrc)
	require.NoError(t, err)
	env.SetStatementName("dst")
	_, err = env.ExecuteSQL(ctx, createDst)
	require.NoError(t, err)
}

func TestExecuteSQLIdempotent(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	env, log := newEnv(t, s, "--application-name", "orders")
	deployTables(t, env)

	env.SetStatementName("copy")
	h, err := env.ExecuteSQL(ctx, copyRows)
	require.NoError(t, err)
	require.Equal(t, "orders-copy", h.Name())
	require.Equal(t, deploy.Created, h.Outcome())
	require.Equal(t, v1.Running, h.Deployed().Status.Phase)
	uid := h.Deployed().Metadata.UID
	contains(t, "log", log.String(), `Statement "orders-src" created (phase COMPLETED).`, `Statement "orders-copy" created (phase RUNNING).`)

	// A second run of the program: nothing changes, even with another
	// final ';' and blanks.
	env2, log2 := newEnv(t, s, "--application-name", "orders")
	deployTables(t, env2)
	env2.SetStatementName("copy")
	h2, err := env2.ExecuteSQL(ctx, "\n  "+copyRows+" ;\n")
	require.NoError(t, err)
	require.Equal(t, deploy.Unchanged, h2.Outcome())
	require.Equal(t, uid, h2.Deployed().Metadata.UID)
	contains(t, "log", log2.String(), `Statement "orders-copy" is unchanged (phase RUNNING)`, `Statement "orders-src" is unchanged (phase COMPLETED)`)
	require.NotContains(t, log2.String(), "created")

	st, err := h2.Statement(ctx)
	require.NoError(t, err)
	require.Equal(t, uid, st.Metadata.UID)
}

func TestExecuteSQLConflictFail(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	env, _ := newEnv(t, s, "--application-name", "orders")
	deployTables(t, env)
	env.SetStatementName("copy")
	h, err := env.ExecuteSQL(ctx, copyRows)
	require.NoError(t, err)
	uid := h.Deployed().Metadata.UID

	env.SetStatementName("copy")
	_, err = env.ExecuteSQL(ctx, copyRowsV2)
	var ce *deploy.ConflictError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "orders-copy", ce.Name)
	require.Equal(t, `statement "orders-copy" already exists with a different spec (on-conflict fail):
--- orders-copy statement (deployed)
+++ orders-copy statement (new)
@@ -1 +1 @@
-INSERT INTO dst SELECT * FROM src
+INSERT INTO dst SELECT id, UPPER(v) FROM src
Hint: to replace it, run with --on-conflict replace (it then starts fresh unless the server carries its state over); to keep both, give the new statement another name.`, err.Error())

	// Properties are part of the spec.
	env.SetStatementName("copy")
	_, err = env.ExecuteSQL(ctx, copyRows, deploy.Property("table.exec.state.ttl", "1h"))
	require.ErrorAs(t, err, &ce)
	require.Equal(t, `--- orders-copy properties (deployed)
+++ orders-copy properties (new)
@@ -0,0 +1 @@
+table.exec.state.ttl=1h
`, ce.Diff())

	// Nothing was touched.
	st, err := h.Statement(ctx)
	require.NoError(t, err)
	require.Equal(t, uid, st.Metadata.UID)
	require.Equal(t, v1.Running, st.Status.Phase)
}

func TestExecuteSQLConflictReplace(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	env, _ := newEnv(t, s, "--application-name", "orders")
	deployTables(t, env)
	env.SetStatementName("copy")
	h, err := env.ExecuteSQL(ctx, copyRows)
	require.NoError(t, err)
	uid := h.Deployed().Metadata.UID

	env2, log := newEnv(t, s, "--application-name", "orders", "--on-conflict", "replace")
	env2.SetStatementName("copy")
	h2, err := env2.ExecuteSQL(ctx, copyRowsV2)
	require.NoError(t, err)
	require.Equal(t, deploy.Replaced, h2.Outcome())
	// Same tables, no function state: the replaced statement continues
	// from the old one's source positions under the same uid.
	require.Equal(t, uid, h2.Deployed().Metadata.UID)
	require.Equal(t, v1.Running, h2.Deployed().Status.Phase)
	require.Equal(t, copyRowsV2, h2.Deployed().Spec.Statement)
	contains(t, "log", log.String(),
		`Statement "orders-copy" exists with a different spec; replacing it (on-conflict replace):`,
		"-INSERT INTO dst SELECT * FROM src\n+INSERT INTO dst SELECT id, UPPER(v) FROM src",
		`Statement "orders-copy" replaced; its state and source positions were carried over`)

	// Replacing again with the same SQL is a no-op.
	env2.SetStatementName("copy")
	h3, err := env2.ExecuteSQL(ctx, copyRowsV2)
	require.NoError(t, err)
	require.Equal(t, deploy.Unchanged, h3.Outcome())
	require.Equal(t, h2.Deployed().Metadata.UID, h3.Deployed().Metadata.UID)
}

func TestExecuteSQLStateCarriedFrom(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	env, log := newEnv(t, s, "--application-name", "orders", "--on-conflict", "replace")
	deployTables(t, env)
	env.SetStatementName("copy")
	_, err := env.ExecuteSQL(ctx, copyRows)
	require.NoError(t, err)
	// The server replaces in one step; this statement has no function
	// state and reads the same table, so its positions are carried over.
	env.SetStatementName("copy")
	h, err := env.ExecuteSQL(ctx, copyRowsV2, deploy.NoAwait())
	require.NoError(t, err)
	require.Equal(t, deploy.Replaced, h.Outcome())
	require.Contains(t, h.Deployed().Status.StateCarriedFrom, "orders-copy@")
	require.Contains(t, log.String(), "its state and source positions were carried over")
	require.NotContains(t, log.String(), "starts fresh")
}

func TestEnvironmentChecks(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	settings := func(args ...string) *deploy.Settings {
		r := fromArgs(serverEnv(s), args...)
		require.NoError(t, r.err)
		return r.settings
	}
	_, err := settings("--on-conflict", "replace").Environment(ctx)
	require.ErrorContains(t, err, "on-conflict replace needs an application name")

	st := settings()
	st.APISecret = "wrong"
	_, err = st.Environment(ctx)
	require.ErrorContains(t, err, "authentication failed: the server at "+s.URL+" refused the API key from $EDDY_API_KEY")
	require.True(t, client.IsUnauthorized(err), "the client's error stays in the chain")

	st = settings()
	st.Server = ""
	_, err = st.Environment(ctx)
	require.ErrorContains(t, err, "no server")

	st = settings()
	st.OnConflict = "merge"
	_, err = st.Environment(ctx)
	require.ErrorContains(t, err, `invalid on-conflict "merge"`)
}

func TestSetStatementNameResets(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	env, log := newEnv(t, s, "--application-name", "orders")
	env.SetStatementName("src")
	h, err := env.ExecuteSQL(ctx, createSrc)
	require.NoError(t, err)
	require.Equal(t, "orders-src", h.Name())

	// The name applied to that statement only: the next one gets a
	// generated name. A DDL statement completes: no warning.
	h, err = env.ExecuteSQL(ctx, createDst)
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`^orders-\d{8}-\d{6}-[0-9a-f]{12}$`), h.Name())
	require.Equal(t, v1.Completed, h.Deployed().Status.Phase)
	require.NotContains(t, log.String(), "Warning")

	// A background statement with a generated name gets a warning.
	h, err = env.ExecuteSQL(ctx, copyRows)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(h.Name(), "orders-2"), h.Name())
	require.Contains(t, log.String(), `Warning: background statement "`+h.Name()+`" got a generated name`)
}

func TestStatementNameSetting(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	// --statement-name names the first statement only.
	env, _ := newEnv(t, s, "--application-name", "orders", "--statement-name", "src")
	h, err := env.ExecuteSQL(ctx, createSrc)
	require.NoError(t, err)
	require.Equal(t, "orders-src", h.Name())
	h, err = env.ExecuteSQL(ctx, createDst)
	require.NoError(t, err)
	require.NotEqual(t, "orders-src", h.Name())

	// A name set by the program wins, with a warning.
	env, log := newEnv(t, s, "--application-name", "orders", "--statement-name", "from-flag")
	env.SetStatementName("copy")
	h, err = env.ExecuteSQL(ctx, copyRows)
	require.NoError(t, err)
	require.Equal(t, "orders-copy", h.Name())
	require.Contains(t, log.String(), `Warning: the program names its statement "copy", which overrides statement name "from-flag" from --statement-name.`)

	// Without an application name the name is used as it is.
	env, _ = newEnv(t, s)
	env.SetStatementName("plain")
	h, err = env.ExecuteSQL(ctx, "CREATE TABLE plain_t (x INT)")
	require.NoError(t, err)
	require.Equal(t, "plain", h.Name())

	// An invalid name.
	env.SetStatementName("Bad_Name")
	_, err = env.ExecuteSQL(ctx, "CREATE TABLE t2 (x INT)")
	require.ErrorContains(t, err, `invalid statement name "Bad_Name"`)
}

func TestExecuteSQLFailures(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	env, _ := newEnv(t, s, "--application-name", "orders")
	deployTables(t, env)
	c := newClient(t, s)
	_, err := c.CreateStatement(ctx, v1.Statement{Name: "rows", Spec: v1.Spec{Statement: "INSERT INTO src VALUES (1, 'a')"}})
	require.NoError(t, err)

	// A statement that FAILS when it runs. It may be RUNNING for a moment
	// first: wait for COMPLETED, which it never is, to see it fail.
	env, _ = newEnv(t, s, "--application-name", "orders", "--action.await=30s")
	env.SetStatementName("boom")
	h, err := env.ExecuteSQL(ctx, "INSERT INTO dst SELECT id / 0, v FROM src", deploy.AwaitPhases(v1.Completed))
	require.Error(t, err)
	require.True(t, errors.Is(err, client.ErrFailed), "%v", err)
	var se *deploy.StatementError
	require.ErrorAs(t, err, &se)
	require.Equal(t, "orders-boom", se.Name)
	require.Contains(t, err.Error(), `statement "orders-boom" FAILED: `)
	require.Contains(t, err.Error(), "division by zero")
	require.Contains(t, err.Error(), "Latest exception (")
	require.NotNil(t, h, "the handle comes with the error")
	require.Equal(t, v1.Failed, h.Deployed().Status.Phase)
	require.NoError(t, h.Delete(ctx, 10*time.Second))

	// Redeploying an unchanged FAILED statement fails again.
	env.SetStatementName("boom2")
	_, err = env.ExecuteSQL(ctx, "INSERT INTO dst SELECT id / 0, v FROM src", deploy.AwaitPhases(v1.Completed))
	require.ErrorIs(t, err, client.ErrFailed)
	env.SetStatementName("boom2")
	h, err = env.ExecuteSQL(ctx, "INSERT INTO dst SELECT id / 0, v FROM src")
	require.ErrorIs(t, err, client.ErrFailed)
	require.Equal(t, deploy.Unchanged, h.Outcome())

	// A SQL error: nothing is created.
	env.SetStatementName("typo")
	_, err = env.ExecuteSQL(ctx, "SELEC 1")
	require.ErrorContains(t, err, "at 1:1: unexpected 'SELEC', expected SELECT")
	require.Equal(t, "gone", phase(t, c, "orders-typo"))

	// No SQL.
	_, err = env.ExecuteSQL(ctx, " ; ")
	require.ErrorContains(t, err, "no SQL")
}

func TestExecuteSQLStopped(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	env, log := newEnv(t, s, "--application-name", "orders")
	deployTables(t, env)
	env.SetStatementName("copy")
	h, err := env.ExecuteSQL(ctx, copyRows, deploy.Stopped(), deploy.Label("team", "data"))
	require.NoError(t, err)
	require.Equal(t, v1.Stopped, h.Deployed().Status.Phase)
	require.Equal(t, map[string]string{"team": "data"}, h.Deployed().Metadata.Labels)

	// A redeploy without Stopped leaves it stopped, and does not wait.
	env.SetStatementName("copy")
	h, err = env.ExecuteSQL(ctx, copyRows)
	require.NoError(t, err)
	require.Equal(t, deploy.Unchanged, h.Outcome())
	require.Equal(t, v1.Stopped, h.Deployed().Status.Phase)
	require.Contains(t, log.String(), "Note: it is stopped and stays so")

	// Go live.
	st, err := h.Resume(ctx, 30*time.Second)
	require.NoError(t, err)
	require.Equal(t, v1.Running, st.Status.Phase)
}

func TestExecuteSQLAwaitTimeout(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	env, _ := newEnv(t, s, "--application-name", "orders", "--action.await=300ms")
	deployTables(t, env)
	s.setHook(func(r *http.Request, status int, body map[string]any) (int, map[string]any) {
		if body["name"] == "orders-copy" {
			st := body["status"].(map[string]any)
			st["phase"], st["detail"] = "PENDING", "Waiting for resources."
		}
		return status, body
	})
	env.SetStatementName("copy")
	h, err := env.ExecuteSQL(ctx, copyRows)
	require.ErrorIs(t, err, client.ErrTimeout)
	require.Equal(t, `timed out after 300ms waiting for statement "orders-copy" to be RUNNING or COMPLETED
Last seen: PENDING: Waiting for resources.`, err.Error())
	require.Equal(t, "orders-copy", h.Name())
}
