package deploy_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eddy-sql/eddy"
	"github.com/eddy-sql/eddy/deploy"
	"github.com/stretchr/testify/require"
)

func TestFromArgsFlags(t *testing.T) {
	r := fromArgs(nil,
		"--server", "http://flag:8080", "--api-key=k", "--api-secret", "s",
		"--application-name", "orders", "--statement-name=order-status",
		"--on-conflict", "replace", "--action.await", "10min",
		"--property", "sql.current-database=shop", "-property", "table.exec.state.ttl=1h",
		"--", "--own-flag", "x")
	require.NoError(t, r.err)
	require.False(t, r.exited)
	s := r.settings
	require.Equal(t, "http://flag:8080", s.Server)
	require.Equal(t, "k", s.APIKey)
	require.Equal(t, "s", s.APISecret)
	require.Equal(t, "orders", s.ApplicationName)
	require.Equal(t, "order-status", s.StatementName)
	require.Equal(t, deploy.Replace, s.OnConflict)
	require.Equal(t, 10*time.Minute, s.Await)
	require.Equal(t, 10*time.Minute, s.Timeout, "a duration given to --action.await bounds the deployment's waits too")
	require.Equal(t, map[string]string{"sql.current-database": "shop", "table.exec.state.ttl": "1h"}, s.Properties)
	require.Equal(t, []string{"--own-flag", "x"}, s.Args)
	require.Equal(t, "--statement-name", s.Origins["statement.name"])
	require.Equal(t, "--server", s.Origins["server"])
}

func TestFromArgsDefaults(t *testing.T) {
	r := fromArgs(nil)
	require.NoError(t, r.err)
	s := r.settings
	require.Equal(t, deploy.Fail, s.OnConflict)
	require.Zero(t, s.Await, "actions do not wait without --action.await")
	require.Equal(t, deploy.DefaultTimeout, s.Timeout)
	require.Empty(t, s.Server)
	require.Nil(t, s.Args)
}

func TestFromArgsAwait(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"--action.await"}, 15 * time.Minute},
		{[]string{"--action.await", "--application-name", "x"}, 15 * time.Minute},
		{[]string{"--action.await=90s"}, 90 * time.Second},
		{[]string{"--action.await", "2h"}, 2 * time.Hour},
		{[]string{"--action.await", "5min"}, 5 * time.Minute},
	} {
		r := fromArgs(nil, tc.args...)
		require.NoError(t, r.err, tc.args)
		require.Equal(t, tc.want, r.settings.Await, tc.args)
	}
	// A word after --action.await that is no duration is not taken.
	r := fromArgs(nil, "--action.await", "soon")
	require.ErrorContains(t, r.err, `unexpected argument "soon"`)
}

func TestFromArgsPrecedence(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	full := write("full.properties", `# every key
server=http://file
api.key = file-key
api.secret: file-secret
application.name=file-app
statement.name   file-stmt
on-conflict=replace
`)
	part := write("part.properties", "server=http://file\nstatement.name=file-stmt\n")
	escaped := write("escaped.properties", "application.name=\\u0061pp\nserver=http://file\\\n  /eddy\n")
	env := map[string]string{
		"EDDY_SERVER": "http://env", "EDDY_API_KEY": "env-key", "EDDY_API_SECRET": "env-secret",
		"EDDY_APPLICATION_NAME": "env-app", "EDDY_STATEMENT_NAME": "env-stmt", "EDDY_ON_CONFLICT": "replace",
	}
	type want struct{ server, key, app, stmt, onConflict, stmtOrigin string }
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want want
	}{{
		name: "environment only",
		env:  env,
		want: want{"http://env", "env-key", "env-app", "env-stmt", "replace", "$EDDY_STATEMENT_NAME"},
	}, {
		name: "the file beats the environment",
		env:  env,
		args: []string{"--config", full},
		want: want{"http://file", "file-key", "file-app", "file-stmt", "replace", "statement.name in " + full},
	}, {
		name: "per setting: the file has only some",
		env:  env,
		args: []string{"--config", part},
		want: want{"http://file", "env-key", "env-app", "file-stmt", "replace", "statement.name in " + part},
	}, {
		name: "the file named by $EDDY_CONFIG",
		env:  map[string]string{"EDDY_CONFIG": part, "EDDY_API_KEY": "env-key", "EDDY_API_SECRET": "s"},
		want: want{"http://file", "env-key", "", "file-stmt", "fail", "statement.name in " + part},
	}, {
		name: "flags beat the file",
		env:  env,
		args: []string{"--config", full, "--server", "http://flag", "--api-key", "flag-key", "--api-secret", "x",
			"--application-name", "flag-app", "--statement-name", "flag-stmt", "--on-conflict", "fail"},
		want: want{"http://flag", "flag-key", "flag-app", "flag-stmt", "fail", "--statement-name"},
	}, {
		name: "empty flags count as not given",
		env:  env,
		args: []string{"--server=", "--statement-name="},
		want: want{"http://env", "env-key", "env-app", "env-stmt", "replace", "$EDDY_STATEMENT_NAME"},
	}, {
		name: "escapes and continuation lines",
		args: []string{"--config", escaped},
		want: want{"http://file/eddy", "", "app", "", "fail", ""},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := fromArgs(tc.env, tc.args...)
			require.NoError(t, r.err)
			s := r.settings
			got := want{s.Server, s.APIKey, s.ApplicationName, s.StatementName, string(s.OnConflict), s.Origins["statement.name"]}
			require.Equal(t, tc.want, got)
		})
	}
}

func TestFromArgsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.properties")
	require.NoError(t, os.WriteFile(bad, []byte("server=http://x\napi.secrt=oops\n"), 0o600))
	for _, tc := range []struct {
		args []string
		env  map[string]string
		err  string
	}{
		{[]string{"--bogus"}, nil, `unknown flag "--bogus"`},
		{[]string{"--server"}, nil, "flag --server needs a value"},
		{[]string{"--on-conflict", "overwrite"}, nil, `invalid on-conflict "overwrite" (--on-conflict): use fail or replace`},
		{nil, map[string]string{"EDDY_ON_CONFLICT": "keep"}, `invalid on-conflict "keep" ($EDDY_ON_CONFLICT)`},
		{[]string{"--action.await=0s"}, nil, "it must be positive"},
		{[]string{"--action.await=later"}, nil, `invalid duration "later"`},
		{[]string{"--property", "novalue"}, nil, `invalid --property "novalue": use KEY=VALUE`},
		{[]string{"--property", "a=1", "--property", "a=2"}, nil, "--property a is given twice"},
		{[]string{"--application-name", "Orders"}, nil, `invalid application name "Orders" (--application-name)`},
		{[]string{"--statement-name", "order_status"}, nil, `invalid statement name "order_status"`},
		{[]string{"--application-name", strings.Repeat("a", 60), "--statement-name", strings.Repeat("b", 40)}, nil, "at most 100 are allowed, the application prefix"},
		{[]string{"--api-key", "k"}, nil, "an API key is set (--api-key) but no secret"},
		{[]string{"--config", bad}, nil, `bad.properties:2: unknown key "api.secrt"`},
		{[]string{"--config", filepath.Join(dir, "missing")}, nil, "reading the properties file of --config"},
		{[]string{"--server", "http://x", "stray"}, nil, `unexpected argument "stray"`},
	} {
		r := fromArgs(tc.env, tc.args...)
		require.ErrorContains(t, r.err, tc.err, "args %q", tc.args)
		require.False(t, r.exited, "args %q: FromArgs returns errors without an action", tc.args)
		require.Nil(t, r.settings)
	}
}

func TestFullName(t *testing.T) {
	s := &deploy.Settings{ApplicationName: "orders"}
	name, err := s.FullName("order-status")
	require.NoError(t, err)
	require.Equal(t, "orders-order-status", name)
	_, err = s.FullName("-x")
	require.ErrorContains(t, err, "invalid statement name")
	s.ApplicationName = ""
	name, err = s.FullName("order-status")
	require.NoError(t, err)
	require.Equal(t, "order-status", name)
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"stop", "--statement-name", "x", "--help"}, {"--bogus", "-h"}} {
		r := fromArgs(nil, args...)
		require.True(t, r.exited, args)
		require.Equal(t, 0, r.code, args)
		var ee *deploy.ExitError
		require.True(t, errors.As(r.err, &ee), args)
		require.Equal(t, 0, ee.Code)
		contains(t, "help", r.stdout, "Usage:", "orders-deploy ACTION [FLAGS]",
			"list", "describe", "stop", "resume", "delete",
			"--server URL", "--api-key KEY", "--api-secret SECRET", "--config FILE", "--application-name APP",
			"--statement-name NAME", "--on-conflict MODE", "--action.await[=DURATION]", "--property KEY=VALUE",
			"--version", "$EDDY_STATEMENT_NAME", "Exit status: 0")
	}
	// After "--" the arguments are the program's.
	r := fromArgs(nil, "--", "--help")
	require.NoError(t, r.err)
	require.Equal(t, []string{"--help"}, r.settings.Args)
}

func TestVersion(t *testing.T) {
	r := fromArgs(nil, "--version")
	require.True(t, r.exited)
	require.Equal(t, 0, r.code)
	require.True(t, strings.HasPrefix(r.stdout, "1.2.3 (eddy "+deploy.Version+", go"), r.stdout)
	require.Equal(t, eddy.Version, deploy.Version, "deploy.Version must follow eddy.Version")
}

func TestUnknownAction(t *testing.T) {
	r := fromArgs(nil, "stpo", "--statement-name", "x")
	require.True(t, r.exited)
	require.Equal(t, 1, r.code)
	contains(t, "stderr", r.stderr, `unknown action "stpo"`, "list, describe, stop, resume, delete")
}
