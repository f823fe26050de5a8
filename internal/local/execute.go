package local

import (
	"context"
	"errors"
	"fmt"
	"strings"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/internal/statement"
)

// Execute runs one statement. A continuous INSERT or CREATE TABLE AS
// becomes a durable statement (named by SET 'client.statement-name' for
// the next one, else cli-YYYYMMDD-HHMMSS-<hex>) that runs with the
// session's properties; everything else runs in the engine's session. In
// a script (interactive false) every job and running statement first
// catches up with the data written so far.
func (s *Session) Execute(ctx context.Context, sql string, interactive bool) (*cli.Result, error) {
	// BEGIN STATEMENT SET; INSERT ...; END; collects the INSERTs; END
	// submits them as one durable statement set.
	res, submit, err := s.eng.StatementSetStep(sql)
	if res != nil || err != nil {
		return res, err
	}
	if submit != "" {
		sql = submit
	}
	if !engine.IsBackground(sql) {
		return s.eng.Execute(ctx, sql, interactive)
	}
	if !interactive {
		if err := s.eng.Sync(ctx); err != nil {
			return nil, err
		}
	}
	cfg := s.eng.Config()
	name := strings.TrimSpace(cfg[cli.StatementNameKey])
	delete(cfg, cli.StatementNameKey) // it names only the next statement
	if name == "" {
		name = s.mgr.GenerateName("cli")
	}
	props := statementProperties(s.eng.SessionProperties())
	// Plan first: SQL errors come back with their line and column, and no
	// statement is left behind.
	out, err := s.eng.Run(ctx, sql, engine.RunOptions{DryRun: true, Properties: props, Name: name})
	if err != nil {
		return nil, err
	}
	if err := statement.ValidateName(name); err != nil {
		return nil, sqlerr.Newf(sqlerr.InvalidOption, "Invalid statement name '%s' (from 'client.statement-name')", name).
			WithHint("use lowercase letters, digits and '-', starting and ending with a letter or digit, at most %d characters", statement.MaxNameLength)
	}
	st, err := s.mgr.Create(ctx, v1.Statement{Name: name, Spec: v1.Spec{Statement: sql, Properties: props}})
	if errors.Is(err, statement.ErrExists) {
		return nil, sqlerr.Newf(sqlerr.DuplicateObject, "A statement named '%s' exists already in this data directory", name).
			WithHint("name the next statement otherwise with SET 'client.statement-name' = '...', or delete the old one with: eddy statement delete %s --data-dir %s", name, s.dir)
	}
	if err != nil {
		return nil, err
	}
	if st.Status.Phase == v1.Failed {
		// It failed as it started: report it as the statement's error and
		// leave nothing behind, as a failed submission in Flink's client.
		_ = s.mgr.Delete(context.WithoutCancel(ctx), name)
		return nil, cli.StatementFailure(&st)
	}
	what := "It"
	if out.Kind == "CREATE_TABLE_AS" {
		what = "Table has been created; the statement writing into it"
	}
	return &cli.Result{Message: fmt.Sprintf("Submitted statement '%s' (%s). %s runs in the background and resumes whenever this data directory is opened again (eddy sql or eddy server). SHOW JOBS lists it; STOP JOB '%s' stops it.",
		name, strings.ReplaceAll(out.Kind, "_", " "), what, name)}, nil
}

// statementProperties returns the session properties a statement runs
// with: all but the shell's own keys (sql-client.*, client.*).
func statementProperties(props map[string]string) map[string]string {
	for k := range props {
		if strings.HasPrefix(k, "sql-client.") || strings.HasPrefix(k, "client.") || k == "execution.result-mode" {
			delete(props, k)
		}
	}
	return props
}

// OpenNotice tells which statements started again as the session opened
// ("" for none).
func (s *Session) OpenNotice() string {
	if len(s.resumed) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[INFO] %s of this data directory resumed from %s last checkpoint:\n", count(len(s.resumed), "statement"), its(len(s.resumed)))
	list(&b, s.resumed)
	b.WriteString("SHOW JOBS lists them; STOP JOB '<name>' stops one.\n")
	return b.String()
}

// ExitNotice tells which statements will run again when the data
// directory is opened next, and how to stop them ("" for none).
func (s *Session) ExitNotice() string {
	bg := s.mgr.Background()
	if len(bg) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[INFO] %s will resume from %s last checkpoint when the data directory %s is opened again (eddy sql or eddy server):\n", count(len(bg), "statement"), its(len(bg)), s.dir)
	list(&b, bg)
	fmt.Fprintf(&b, "Stop one with STOP JOB '<name>' in eddy sql, or with: eddy statement stop <name> --data-dir %s\n", s.dir)
	return b.String()
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func its(n int) string {
	if n == 1 {
		return "its"
	}
	return "their"
}

// list writes one line per statement: its name and its SQL on one line,
// cut to 70 characters.
func list(b *strings.Builder, sts []v1.Statement) {
	width := 0
	for _, st := range sts {
		width = max(width, len(st.Name))
	}
	for _, st := range sts {
		sql := strings.Join(strings.Fields(st.Spec.Statement), " ")
		if r := []rune(sql); len(r) > 70 {
			sql = string(r[:67]) + "..."
		}
		fmt.Fprintf(b, "  %-*s  %s\n", width, st.Name, sql)
	}
}
