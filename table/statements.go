package table

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/deploy"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/statement"
)

// statementName returns the name of the next submitted statement: the one
// SetStatementName or SET 'client.statement-name' gave, else a generated
// one, prefixed with the application name. e.mu is held.
func (e *Environment) statementName() string {
	name := e.nextName
	e.nextName = ""
	if name == "" {
		name = strings.TrimSpace(e.eng.Config()[cli.StatementNameKey])
	}
	if name == "" {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		name = "table-api-" + hex.EncodeToString(b)
	}
	return e.qualified(name)
}

func (e *Environment) qualified(name string) string {
	if e.app == "" {
		return name
	}
	return e.app + "-" + name
}

// statementProperties returns the session properties a statement runs
// with, as internal/local submits them: all but the client's own keys.
func (e *Environment) statementProperties() map[string]string {
	props := e.eng.SessionProperties()
	for k := range props {
		if strings.HasPrefix(k, "sql-client.") || strings.HasPrefix(k, "client.") || k == "execution.result-mode" {
			delete(props, k)
		}
	}
	return props
}

// submit runs a continuous INSERT or CREATE TABLE AS as a durable
// statement of the data directory (internal/local: dry run first, so SQL
// errors keep their positions; a statement that fails as it starts is
// deleted). A statement of that name that exists already is left alone
// when its SQL and properties are the same (a re-run of an unchanged
// program); otherwise the on-conflict rule applies. e.mu is held.
func (e *Environment) submit(ctx context.Context, sql string) (*Result, error) {
	name := e.statementName()
	old, err := e.sess.Client().GetStatement(ctx, name)
	switch {
	case err == nil:
		return e.redeploy(ctx, old, sql)
	case !client.IsNotFound(err):
		return nil, fmt.Errorf("statement %s: %w", name, err)
	}
	if _, err := e.sess.Execute(ctx, fmt.Sprintf("SET '%s' = %s", cli.StatementNameKey, ast.QuoteString(name)), false); err != nil {
		return nil, err
	}
	r, err := e.sess.Execute(ctx, sql, false)
	if err != nil {
		// The name was for this statement only.
		_, _ = e.sess.Execute(context.WithoutCancel(ctx), fmt.Sprintf("RESET '%s'", cli.StatementNameKey), false)
		return nil, err
	}
	return &Result{Message: r.Message, Outcome: deploy.Created, handles: []*StatementHandle{{env: e, name: name}}}, nil
}

// redeploy applies a statement whose name exists: unchanged, a conflict,
// or a replace (WithOnConflict(deploy.Replace)), as package deploy does on
// a server.
func (e *Environment) redeploy(ctx context.Context, old *v1.Statement, sql string) (*Result, error) {
	name := old.Name
	want := v1.Spec{Statement: sql, Properties: e.statementProperties()}
	h := []*StatementHandle{{env: e, name: name}}
	if statement.SameSpec(old.Spec, want) {
		return &Result{Outcome: deploy.Unchanged, handles: h, Message: fmt.Sprintf(
			"Statement '%s' is unchanged (phase %s): it exists already with the same SQL and properties.", name, old.Status.Phase)}, nil
	}
	var diff strings.Builder
	cli.WriteSpecDiff(&diff, name, old.Spec, want)
	if e.onConflict != deploy.Replace {
		return nil, fmt.Errorf("statement '%s' exists already with a different spec:\n%s"+
			"Hint: give the new statement another name (SetStatementName), delete the old one (Statement(name).Delete), "+
			"or replace it with table.WithOnConflict(deploy.Replace)", name, diff.String())
	}
	// Plan first, so that SQL errors keep their positions.
	if _, err := e.eng.Run(ctx, sql, engine.RunOptions{DryRun: true, Properties: want.Properties, Name: name}); err != nil {
		return nil, err
	}
	res, err := e.sess.Client().ReplaceStatement(ctx, v1.Statement{Name: name, Spec: want})
	if err != nil {
		return nil, fmt.Errorf("replacing statement %s: %w", name, err)
	}
	msg := fmt.Sprintf("Statement '%s' replaced; its state and source positions were carried over.", name)
	if !res.StateCarried {
		msg = fmt.Sprintf("Statement '%s' replaced; it starts fresh because %s.", name, res.Reason)
	}
	return &Result{Outcome: deploy.Replaced, handles: h, Message: msg}, nil
}

// StatementHandle manages one durable statement from the program that
// submitted it, Confluent's StatementHandle: stop, resume and delete keep
// working on the same state (a stop takes a final checkpoint that the
// resume continues from).
type StatementHandle struct {
	env  *Environment
	name string
}

// Statement returns the handle of the statement named name (prefixed with
// the application name), whether or not this environment submitted it.
func (e *Environment) Statement(name string) *StatementHandle {
	return &StatementHandle{env: e, name: e.qualified(name)}
}

// ListStatements lists the statements of the data directory; with an
// application name, those of the application.
func (e *Environment) ListStatements(ctx context.Context) ([]v1.Statement, error) {
	f := client.Filter{}
	if e.app != "" {
		f.NamePrefix = e.app + "-"
	}
	return e.sess.Client().ListAll(ctx, f)
}

// Name returns the statement's name.
func (h *StatementHandle) Name() string { return h.name }

func (h *StatementHandle) client() *client.Client { return h.env.sess.Client() }

// Statement returns the statement as the statements API shows it (its
// SQL, phase, detail and traits), as deploy.Handle.Statement does for a
// server's statements.
func (h *StatementHandle) Statement(ctx context.Context) (*v1.Statement, error) {
	st, err := h.client().GetStatement(ctx, h.name)
	if err != nil {
		return nil, fmt.Errorf("statement %s: %w", h.name, err)
	}
	return st, nil
}

// Phase returns the statement's phase (RUNNING, STOPPED, ...).
func (h *StatementHandle) Phase(ctx context.Context) (v1.Phase, error) {
	st, err := h.Statement(ctx)
	if err != nil {
		return "", err
	}
	return st.Status.Phase, nil
}

// Stop stops the statement and waits until it is STOPPED: its final
// checkpoint is taken, and Resume continues from it.
func (h *StatementHandle) Stop(ctx context.Context) error {
	if _, err := h.client().StopStatement(ctx, h.name); err != nil {
		return fmt.Errorf("stopping statement %s: %w", h.name, err)
	}
	if _, err := h.client().Await(ctx, h.name, client.PhaseIn(v1.Stopped), 0); err != nil {
		return fmt.Errorf("stopping statement %s: %w", h.name, err)
	}
	return nil
}

// Resume runs a stopped statement again from its last checkpoint and
// waits until it runs (or completed, for bounded inputs).
func (h *StatementHandle) Resume(ctx context.Context) error {
	if _, err := h.client().ResumeStatement(ctx, h.name); err != nil {
		return fmt.Errorf("resuming statement %s: %w", h.name, err)
	}
	if _, err := h.client().Await(ctx, h.name, client.PhaseIn(v1.Running, v1.Degraded, v1.Completed), 0); err != nil {
		return fmt.Errorf("resuming statement %s: %w", h.name, err)
	}
	return nil
}

// Delete stops the statement, deletes its state and removes it, and waits
// until it is gone. The tables it wrote keep their rows.
func (h *StatementHandle) Delete(ctx context.Context) error {
	if err := h.client().DeleteStatement(ctx, h.name); err != nil {
		return fmt.Errorf("deleting statement %s: %w", h.name, err)
	}
	if err := h.client().AwaitDeleted(ctx, h.name, 0); err != nil {
		return fmt.Errorf("deleting statement %s: %w", h.name, err)
	}
	return nil
}

// Exceptions returns the statement's latest exceptions, newest first.
func (h *StatementHandle) Exceptions(ctx context.Context) ([]v1.Exception, error) {
	return h.client().Exceptions(ctx, h.name)
}

// StatementSet groups INSERT statements that are submitted together,
// Flink's StatementSet.
type StatementSet struct {
	env     *Environment
	inserts []func(context.Context) (string, error)
}

// CreateStatementSet starts an empty statement set.
func (e *Environment) CreateStatementSet() *StatementSet { return &StatementSet{env: e} }

// AddInsert adds INSERT INTO target with t's rows.
func (s *StatementSet) AddInsert(target string, t *Table) *StatementSet {
	s.inserts = append(s.inserts, func(ctx context.Context) (string, error) {
		q, err := t.sql(ctx)
		if err != nil {
			return "", err
		}
		return "INSERT INTO " + target + " " + q, nil
	})
	return s
}

// AddInsertSQL adds an INSERT statement written in SQL.
func (s *StatementSet) AddInsertSQL(sql string) *StatementSet {
	s.inserts = append(s.inserts, func(context.Context) (string, error) { return sql, nil })
	return s
}

func (s *StatementSet) render(ctx context.Context) ([]string, error) {
	if len(s.inserts) == 0 {
		return nil, errors.New("table: the statement set is empty; add INSERT statements with AddInsert")
	}
	out := make([]string, len(s.inserts))
	for i, f := range s.inserts {
		q, err := f(ctx)
		if err != nil {
			return nil, err
		}
		out[i] = strings.TrimRight(strings.TrimSpace(q), ";")
	}
	return out, nil
}

// SQL returns the set as Flink's EXECUTE STATEMENT SET BEGIN … END block.
func (s *StatementSet) SQL(ctx context.Context) (string, error) {
	s.env.mu.Lock()
	defer s.env.mu.Unlock()
	ins, err := s.render(ctx)
	if err != nil {
		return "", err
	}
	return statementSetSQL(ins), nil
}

func statementSetSQL(ins []string) string {
	return "EXECUTE STATEMENT SET\nBEGIN\n" + strings.Join(ins, ";\n") + ";\nEND"
}

// Explain returns the plans of the set's statements.
func (s *StatementSet) Explain(ctx context.Context) (string, error) {
	s.env.mu.Lock()
	defer s.env.mu.Unlock()
	ins, err := s.render(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, q := range ins {
		res, err := s.env.execute(ctx, "EXPLAIN "+q)
		if err != nil {
			return "", err
		}
		b.WriteString(strings.TrimPrefix(res.Message, "\n"))
	}
	return b.String(), nil
}

// Execute submits the set. When the engine runs EXECUTE STATEMENT SET as
// one statement, the set is that one durable statement. Until then each
// INSERT becomes its own durable statement, named <name>-1, <name>-2, ...:
// all are planned first, so that an error in any submits none, and if one
// fails as it starts, those already submitted are deleted.
func (s *StatementSet) Execute(ctx context.Context) (*Result, error) {
	s.env.mu.Lock()
	defer s.env.mu.Unlock()
	e := s.env
	ins, err := s.render(ctx)
	if err != nil {
		return nil, err
	}
	if block := statementSetSQL(ins); engine.IsBackground(block) {
		return e.submit(ctx, block)
	}
	props := e.eng.SessionProperties()
	for k := range props {
		if strings.HasPrefix(k, "client.") || strings.HasPrefix(k, "sql-client.") {
			delete(props, k)
		}
	}
	for _, q := range ins {
		if !engine.IsBackground(q) {
			return nil, fmt.Errorf("table: a statement set holds INSERT INTO … SELECT statements, not %q", q)
		}
		if _, err := e.eng.Run(ctx, q, engine.RunOptions{DryRun: true, Properties: props}); err != nil {
			return nil, err
		}
	}
	base := e.statementName()
	res := &Result{}
	var msgs []string
	for i, q := range ins {
		e.nextName = fmt.Sprintf("%s-%d", base, i+1)
		if e.app != "" {
			e.nextName = strings.TrimPrefix(e.nextName, e.app+"-")
		}
		r, err := e.submit(ctx, q)
		if err != nil {
			for _, h := range res.handles {
				_ = h.Delete(context.WithoutCancel(ctx))
			}
			return nil, fmt.Errorf("statement %d of the set: %w", i+1, err)
		}
		res.handles = append(res.handles, r.handles...)
		msgs = append(msgs, r.Message)
	}
	res.Message = strings.Join(msgs, "\n")
	return res, nil
}
