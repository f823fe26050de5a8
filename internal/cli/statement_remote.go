package cli

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// StatementNameKey is the session key that names the next statement the
// shell creates on a server (then it is cleared), as in Confluent's shell.
const StatementNameKey = "client.statement-name"

// remoteEngine is the Engine of `eddy sql --server`: every SQL statement
// becomes a statement on the server, which the shell waits for and whose
// results it streams. SET, RESET and USE stay in the shell: they change the
// session properties sent with each statement as spec.properties (the
// shell's own keys, sql-client.* and client.*, are not sent).
type remoteEngine struct {
	cl  *client.Client
	cfg map[string]string
	// settle is how long a script waits for more rows of a SELECT that
	// has not completed before it takes what came as the snapshot.
	settle time.Duration
	// where says where statements run ("on the server URL", "in eddy sql
	// (pid 12)"); manage is the flag that reaches them from eddy statement
	// ("--server URL", "--data-dir DIR").
	where, manage string
	// submitted are the background statements this shell created.
	submitted []string
	// tidy deletes every statement that is not a background job once
	// its result is shown (a shell attached to a data directory's owner
	// leaves behind only what the embedded shell would).
	tidy bool
}

// StatementClient returns the client of the statements API: SHOW JOBS and
// STOP JOB use it.
func (e *remoteEngine) StatementClient() *client.Client { return e.cl }

// OpenNotice says nothing: the attach message or the server's address was
// printed already.
func (e *remoteEngine) OpenNotice() string { return "" }

// ExitNotice names the background statements this shell started that
// still run, and how to stop them.
func (e *remoteEngine) ExitNotice() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var running []string
	for _, name := range e.submitted {
		st, err := e.cl.GetStatement(ctx, name)
		if err == nil && !st.Spec.Stopped && !st.Status.Phase.IsTerminal() {
			running = append(running, name)
		}
	}
	if len(running) == 0 {
		return ""
	}
	what := "statements you started keep"
	if len(running) == 1 {
		what = "statement you started keeps"
	}
	return fmt.Sprintf("[INFO] %d %s running %s: %s\nStop one with STOP JOB '<name>', or with: eddy statement stop <name> %s\n",
		len(running), what, e.where, strings.Join(running, ", "), e.manage)
}

// scriptSettle is how long a script waits for more rows of a SELECT that
// does not complete (a test hook).
var scriptSettle = 3 * time.Second

func newRemoteEngine(cl *client.Client) *remoteEngine {
	return &remoteEngine{cl: cl, cfg: map[string]string{}, settle: scriptSettle}
}

// Config returns the session properties.
func (e *remoteEngine) Config() map[string]string { return e.cfg }

// Close does nothing: statements belong to the server.
func (e *remoteEngine) Close() error { return nil }

// Execute runs one statement on the server. It waits while the statement
// is PENDING; then a SELECT, SHOW, DESCRIBE or EXPLAIN returns its rows (a
// running SELECT as a live stream, which stops the statement when closed;
// the statement of a SHOW, DESCRIBE or EXPLAIN is deleted once read), an
// INSERT keeps running in the background, and other statements return
// their detail. A statement that FAILED returns its error, with the
// position and hint the server gave.
func (e *remoteEngine) Execute(ctx context.Context, sql string, interactive bool) (*Result, error) {
	if res, ok, err := e.local(sql); ok {
		return res, err
	}
	name := e.cfg[StatementNameKey]
	delete(e.cfg, StatementNameKey)
	if name == "" {
		name = generateStatementName("", statementNow())
	}
	_, err := e.cl.CreateStatement(ctx, v1.Statement{
		Name: name,
		Spec: v1.Spec{Statement: sql, Properties: e.properties()},
	})
	if err != nil {
		return nil, remoteError(err)
	}
	st, err := e.cl.Await(ctx, name, client.PhaseIn(v1.Running, v1.Completed, v1.Stopped, v1.Degraded), 0)
	switch {
	case errors.Is(err, client.ErrFailed):
		return nil, failedStatementError(st)
	case ctx.Err() != nil:
		e.stop(name)
		return nil, ctx.Err()
	case err != nil:
		return nil, remoteError(err)
	}
	return e.result(ctx, st, interactive)
}

// returnsRows reports whether statements of a sql_kind return rows, even
// none (EXPLAIN returns its plan as the detail).
func returnsRows(kind string) bool {
	return kind == "SELECT" || strings.HasPrefix(kind, "SHOW_") || kind == "DESCRIBE"
}

func isStaticKind(kind string) bool {
	return strings.HasPrefix(kind, "SHOW_") || kind == "DESCRIBE" || kind == "EXPLAIN"
}

// result turns a statement that left PENDING into the shell's result.
func (e *remoteEngine) result(ctx context.Context, st *v1.Statement, interactive bool) (*Result, error) {
	kind := ""
	if st.Status.Traits != nil {
		kind = st.Status.Traits.SQLKind
	}
	phase := st.Status.Phase
	if phase != v1.Completed && !(phase == v1.Running && kind == "SELECT") {
		if kind == "SELECT" {
			return &Result{Message: "Statement '" + st.Name + "' is " + string(phase) + ": " + st.Status.Detail}, nil
		}
		e.submitted = append(e.submitted, st.Name)
		return &Result{Message: "Submitted statement '" + st.Name + "': it runs in the background (" + string(phase) +
			"). Manage it with: eddy statement describe|stop|delete " + st.Name + manageSuffix(e.manage)}, nil
	}
	schema := resultSchema(st.Status.Traits)
	if phase == v1.Completed {
		// All the rows are there: read them now, so that a statement
		// without rows (EXPLAIN, SHOW CREATE TABLE) shows its detail.
		var rows []v1.ResultRow
		for r, err := range e.cl.ResultRows(ctx, st.Name, false) {
			if err != nil {
				return nil, remoteError(err)
			}
			rows = append(rows, r)
		}
		if isStaticKind(kind) || e.tidy {
			e.forget(st.Name)
		}
		if len(rows) == 0 && !returnsRows(kind) {
			msg := st.Status.Detail
			if msg == "" {
				msg = "Execute statement succeeded."
			}
			return &Result{Message: msg}, nil
		}
		changes := make([]types.Row, len(rows))
		for i, r := range rows {
			changes[i] = resultRow(schema, r)
		}
		return &Result{Rows: &RowStream{Schema: schema, Key: upsertKey(st), Static: isStaticKind(kind), Next: sliceNext(changes)}}, nil
	}
	return &Result{Rows: e.liveRows(st, schema, interactive)}, nil
}

// liveRows streams the results of a running SELECT. Interactively it
// follows them until they are complete or the stream is closed; in a
// script it ends once no row came for e.settle (the snapshot). Closing the
// stream stops the statement unless its results were complete.
func (e *remoteEngine) liveRows(st *v1.Statement, schema *types.Schema, interactive bool) *RowStream {
	rs := &RowStream{Schema: schema, Key: upsertKey(st), Name: st.Name}
	var (
		quiet    *time.Timer
		cancel   context.CancelFunc
		pull     func() (v1.ResultRow, error, bool)
		stopPull func()
		complete bool
	)
	rs.Next = func(ctx context.Context) (types.Row, bool, error) {
		if pull == nil {
			var ictx context.Context
			ictx, cancel = context.WithCancel(ctx)
			if !interactive {
				quiet = time.AfterFunc(e.settle, cancel)
			}
			pull, stopPull = iter.Pull2(e.cl.ResultRows(ictx, st.Name, true))
		}
		r, err, ok := pull()
		switch {
		case !ok:
			complete = true
			return types.Row{}, false, nil
		case err != nil && ctx.Err() == nil && !interactive && errors.Is(err, context.Canceled):
			return types.Row{}, false, nil // quiet for e.settle: the snapshot is taken
		case err != nil:
			return types.Row{}, false, remoteError(err)
		}
		if quiet != nil {
			quiet.Reset(e.settle)
		}
		return resultRow(schema, r), true, nil
	}
	rs.Close = func() {
		if quiet != nil {
			quiet.Stop()
		}
		if cancel != nil {
			cancel()
			stopPull()
		}
		switch {
		case e.tidy:
			e.forget(st.Name)
		case !complete:
			e.stop(st.Name)
		}
	}
	return rs
}

// forget deletes a statement that only looked something up (SHOW,
// DESCRIBE, EXPLAIN) once its result is read, so that catalog lookups do
// not pile up on the server. It is best effort.
func (e *remoteEngine) forget(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = e.cl.DeleteStatement(ctx, name)
}

// stop stops a statement the shell no longer shows, if it still runs.
func (e *remoteEngine) stop(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := e.cl.GetStatement(ctx, name)
	if err == nil && !st.Spec.Stopped && !st.Status.Phase.IsTerminal() {
		_, _ = e.cl.StopStatement(ctx, name)
	}
}

func upsertKey(st *v1.Statement) []int {
	if st.Status.Traits == nil {
		return nil
	}
	return st.Status.Traits.UpsertColumns
}

// properties returns the session properties that are sent with a statement.
func (e *remoteEngine) properties() map[string]string {
	out := map[string]string{}
	for k, v := range e.cfg {
		if !isShellKey(k) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// isShellKey reports whether a session key belongs to the shell rather
// than to the statements.
func isShellKey(k string) bool {
	return strings.HasPrefix(k, "sql-client.") || strings.HasPrefix(k, "client.") || k == "execution.result-mode"
}

// The statements the shell answers itself.
var (
	ident      = "(`[^`]+`|[A-Za-z_][A-Za-z0-9_$]*)"
	setAllRE   = regexp.MustCompile(`(?is)^SET$`)
	setKeyRE   = regexp.MustCompile(`(?is)^SET\s+(?:'((?:[^']|'')*)'|([A-Za-z0-9_.\-]+))\s*=\s*(?:'((?:[^']|'')*)'|(\S+))$`)
	resetRE    = regexp.MustCompile(`(?is)^RESET(?:\s+(?:'((?:[^']|'')*)'|([A-Za-z0-9_.\-]+)))?$`)
	useCatRE   = regexp.MustCompile(`(?is)^USE\s+CATALOG\s+` + ident + `$`)
	useDbRE    = regexp.MustCompile(`(?is)^USE\s+` + ident + `(?:\.` + ident + `)?$`)
	validModes = []string{"table", "changelog", "tableau"}
)

// local answers SET, RESET and USE; ok is false for other statements.
func (e *remoteEngine) local(sql string) (res *Result, ok bool, err error) {
	sql = strings.TrimSpace(sql)
	unq := func(s string) string { return strings.ReplaceAll(s, "''", "'") }
	switch {
	case setAllRE.MatchString(sql):
		rows := make([]types.Row, 0, len(e.cfg))
		for _, k := range slices.Sorted(maps.Keys(e.cfg)) {
			rows = append(rows, types.Row{Values: []types.Value{types.NewString(k), types.NewString(e.cfg[k])}})
		}
		s := types.NewSchema(types.Field{Name: "key", Type: types.String}, types.Field{Name: "value", Type: types.String})
		return &Result{Rows: &RowStream{Schema: s, Static: true, Next: sliceNext(rows)}}, true, nil
	case setKeyRE.MatchString(sql):
		m := setKeyRE.FindStringSubmatch(sql)
		k, v := unq(m[1])+m[2], unq(m[3])+m[4]
		if k == ResultModeKey || k == "execution.result-mode" {
			if !slices.Contains(validModes, strings.ToLower(v)) {
				return nil, true, sqlerr.Newf(sqlerr.InvalidOption, "Invalid result mode '%s'", v).WithHint("use 'table', 'changelog' or 'tableau'")
			}
			v = strings.ToLower(v)
		}
		e.cfg[k] = v
		return &Result{Message: "Session property has been set."}, true, nil
	case resetRE.MatchString(sql):
		m := resetRE.FindStringSubmatch(sql)
		if k := unq(m[1]) + m[2]; k != "" {
			delete(e.cfg, k)
		} else {
			clear(e.cfg)
		}
		return &Result{Message: "Session property has been reset."}, true, nil
	case useCatRE.MatchString(sql):
		m := useCatRE.FindStringSubmatch(sql)
		e.cfg["sql.current-catalog"] = unquoteIdent(m[1])
		delete(e.cfg, "sql.current-database")
		return &Result{Message: "Execute statement succeeded."}, true, nil
	case useDbRE.MatchString(sql) && !strings.EqualFold(useDbRE.FindStringSubmatch(sql)[1], "catalog"):
		m := useDbRE.FindStringSubmatch(sql)
		if m[2] != "" {
			e.cfg["sql.current-catalog"] = unquoteIdent(m[1])
			e.cfg["sql.current-database"] = unquoteIdent(m[2])
		} else {
			e.cfg["sql.current-database"] = unquoteIdent(m[1])
		}
		return &Result{Message: "Execute statement succeeded."}, true, nil
	}
	return nil, false, nil
}

func unquoteIdent(s string) string {
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		return s[1 : len(s)-1]
	}
	return s
}

// sliceNext returns a Next function over rows.
func sliceNext(rows []types.Row) func(context.Context) (types.Row, bool, error) {
	i := 0
	return func(context.Context) (types.Row, bool, error) {
		if i == len(rows) {
			return types.Row{}, false, nil
		}
		i++
		return rows[i-1], true, nil
	}
}

// remoteError turns an error of the client into the shell's error type,
// with the server's code, position and suggestion.
func remoteError(err error) error {
	ce, ok := errors.AsType[*client.Error](err)
	switch {
	case client.IsUnauthorized(err):
		return sqlerr.Newf(sqlerr.Code(v1.CodeUnauthorized), "authentication failed: check --api-key/--api-secret (or %s/%s)", APIKeyEnv, APISecretEnv)
	case !ok:
		return err
	}
	e := &sqlerr.Error{Code: sqlerr.Code(ce.Code), Message: ce.Message, Hint: ce.Suggestion, Pos: parsePos(ce.Position), Cause: err}
	if e.Code == "" {
		e.Code = sqlerr.Internal
	}
	return e
}

// detailRE matches the detail of a statement that failed on a SQL error:
// "at LINE:COL: message", then optionally "\nHint: hint".
var detailRE = regexp.MustCompile(`(?s)^at (\d+:\d+): (.*?)(?:\nHint: (.*))?$`)

// failedStatementError returns the error of a FAILED statement, from its
// detail.
func failedStatementError(st *v1.Statement) error {
	detail := st.Status.Detail
	if detail == "" {
		detail = "Statement '" + st.Name + "' failed."
	}
	e := &sqlerr.Error{Code: sqlerr.Runtime, Message: detail}
	if m := detailRE.FindStringSubmatch(detail); m != nil {
		e.Pos, e.Message, e.Hint = parsePos(m[1]), m[2], m[3]
	} else if msg, hint, ok := strings.Cut(detail, "\nHint: "); ok {
		e.Message, e.Hint = msg, hint
	}
	if e.Hint == "" {
		e.Hint = "See eddy statement exceptions " + st.Name + "."
	}
	return e
}

// parsePos parses "line:column".
func parsePos(s string) sqlerr.Pos {
	l, c, ok := strings.Cut(s, ":")
	if !ok {
		return sqlerr.Pos{}
	}
	line, err1 := strconv.Atoi(l)
	col, err2 := strconv.Atoi(c)
	if err1 != nil || err2 != nil || line < 1 || col < 1 {
		return sqlerr.Pos{}
	}
	return sqlerr.Pos{Line: line, Col: col}
}

// serverMode reports whether eddy sql runs against a server: --server or
// --config was given. The environment alone does not switch it, so that a
// variable set for deployments cannot redirect local scripts.
func (c *sqlCommand) serverMode() bool {
	_, server := c.given["server"]
	_, config := c.given["config"]
	return server || config
}

// withServer connects to the server, checks that it answers and accepts
// the API key, and calls f with the remote engine.
func (c *sqlCommand) withServer(ctx context.Context, f func(Engine) error) error {
	sc := &statementCmd{opts: c.opts, output: "table"}
	var err error
	if sc.settings, err = ResolveSettings(SettingSources{Flags: c.given, LookupEnv: c.opts.LookupEnv}); err != nil {
		return sc.failf("%v", err)
	}
	if sc.cl, err = newClient(sc.settings, c.opts.Version); err != nil {
		return sc.failf("%v", err)
	}
	if _, _, err := sc.cl.ListStatements(ctx, client.Filter{}, 1, ""); err != nil {
		return sc.fail(err, "")
	}
	eng := newRemoteEngine(sc.cl)
	eng.where = "on the server " + sc.settings.Server
	eng.manage = "--server " + sc.settings.Server
	return f(eng)
}

// manageSuffix is " FLAG" for a non-empty flag.
func manageSuffix(flag string) string {
	if flag == "" {
		return ""
	}
	return " " + flag
}
