package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/opt"
	"github.com/eddy-sql/eddy/internal/sql/parser"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// Statement sets (docs/decisions/0027): EXECUTE STATEMENT SET BEGIN
// insert; ... END plans its INSERTs together and runs them as one job with
// one sink per INSERT. The SQL client's form, BEGIN STATEMENT SET; then
// INSERTs, then END;, collects the INSERTs in the session (StatementSetStep)
// and submits them as an EXECUTE STATEMENT SET.

// statementSetState is the open BEGIN STATEMENT SET of the session.
type statementSetState struct {
	open    bool
	inserts []string // the INSERT texts collected so far
}

// StatementSetSQL returns the EXECUTE STATEMENT SET statement that runs
// the given INSERT statements (texts without their ';') as one job.
func StatementSetSQL(inserts []string) string {
	var b strings.Builder
	b.WriteString("EXECUTE STATEMENT SET\nBEGIN\n")
	for _, s := range inserts {
		b.WriteString(strings.TrimRight(strings.TrimSpace(s), ";"))
		b.WriteString(";\n")
	}
	b.WriteString("END")
	return b.String()
}

// ExecuteStatementSet runs INSERT statements (texts) as one statement set
// in the engine's session: one job writes every table. It is the Go form of
// EXECUTE STATEMENT SET for embedders (package table).
func (e *Engine) ExecuteStatementSet(ctx context.Context, inserts []string) (*cli.Result, error) {
	if len(inserts) == 0 {
		return nil, sqlerr.Newf(sqlerr.InvalidArgument, "A statement set needs at least one INSERT statement")
	}
	return e.Execute(ctx, StatementSetSQL(inserts), true)
}

// StatementSetStep handles the statements of the SQL client's BEGIN
// STATEMENT SET; ... END; form. It returns a result when sql was consumed
// (BEGIN, an INSERT collected into the open set, an END of an empty set),
// or submit, the EXECUTE STATEMENT SET to run in place of an END; both are
// zero for a statement outside a set, which runs as usual.
func (e *Engine) StatementSetStep(sql string) (res *cli.Result, submit string, err error) {
	stmt, perr := parser.ParseStatement(sql)
	e.runMu.Lock()
	defer e.runMu.Unlock()
	set := &e.stmtSet
	if perr != nil {
		if set.open {
			return nil, "", perr
		}
		return nil, "", nil
	}
	switch s := stmt.(type) {
	case *ast.BeginStatementSet:
		if set.open {
			return nil, "", onlyInserts(s.Pos())
		}
		set.open, set.inserts = true, nil
		return &cli.Result{Message: "[INFO] Begin a statement set."}, "", nil
	case *ast.EndStatementSet:
		if !set.open {
			return nil, "", sqlerr.Newf(sqlerr.InvalidArgument, `No Statement Set to submit, "END;" command should be used after "BEGIN STATEMENT SET;".`).At(s.Pos())
		}
		inserts := set.inserts
		set.open, set.inserts = false, nil
		if len(inserts) == 0 {
			return &cli.Result{Message: "[INFO] No statement in the statement set, skip submit."}, "", nil
		}
		return nil, StatementSetSQL(inserts), nil
	case *ast.Insert:
		if !set.open {
			return nil, "", nil
		}
		set.inserts = append(set.inserts, sql)
		return &cli.Result{Message: "[INFO] Add SQL update statement to the statement set."}, "", nil
	}
	if set.open {
		return nil, "", onlyInserts(stmt.Pos())
	}
	return nil, "", nil
}

func onlyInserts(pos sqlerr.Pos) error {
	return sqlerr.Newf(sqlerr.InvalidArgument, "Only INSERT statement is allowed in Statement Set.").At(pos).
		WithHint(`add INSERT INTO statements, then submit them with "END;"`)
}

// planStatementSet plans the INSERTs of a statement set and merges their
// jobs into one. It returns the merged plan (the first INSERT's schema and
// plans, the merged job) and the plan of each INSERT.
func (e *Engine) planStatementSet(p *plan.Planner, s *ast.StatementSet) (*plan.QueryPlan, []*plan.QueryPlan, error) {
	var plans []*plan.QueryPlan
	var jobs []*jobgraph.Job
	for _, ins := range s.Inserts {
		if err := e.checkWritable(ins); err != nil {
			return nil, nil, err
		}
		t, err := p.ResolveTable(ins.Table)
		if err != nil {
			return nil, nil, err
		}
		if err := notAView(t, ins.Table.Pos(), "views cannot be written; INSERT INTO a table"); err != nil {
			return nil, nil, err
		}
		q, err := planInsertWith(p, t, ins.Columns, ins.Query, ins.Query.Pos(), plan.InsertOptionsOf(ins))
		if err != nil {
			return nil, nil, err
		}
		plans = append(plans, q)
		jobs = append(jobs, q.Job)
	}
	job, err := jobgraph.MergeStatementSet(jobs)
	if err != nil {
		var dup *jobgraph.DuplicateUIDError
		if errors.As(err, &dup) {
			return nil, nil, sqlerr.Newf(sqlerr.InvalidArgument, "Duplicate uid '%s' in the statement set: the process table function calls of INSERT %d and INSERT %d would share their state", dup.UID, dup.First+1, dup.Second+1).
				At(s.Inserts[dup.Second].Pos()).WithHint("give each call its own uid => '...'")
		}
		return nil, nil, err
	}
	merged := *plans[0]
	merged.Job = job
	return &merged, plans, nil
}

// statementSet runs EXECUTE STATEMENT SET: one job, one sink per INSERT.
func (e *Engine) statementSet(ctx context.Context, s *ast.StatementSet) (*cli.Result, error) {
	q, _, err := e.planStatementSet(e.planner(), s)
	if err != nil {
		return nil, err
	}
	if _, err := e.startJob(ctx, q, false, ""); err != nil {
		return nil, err
	}
	var tables []string
	for _, sk := range q.Job.Sinks() {
		tables = append(tables, sk.Table)
	}
	n := fmt.Sprintf("%d INSERT statements", len(s.Inserts))
	if len(s.Inserts) == 1 {
		n = "1 INSERT statement"
	}
	return &cli.Result{Message: fmt.Sprintf("Submitted the statement set of %s as one job writing %s: it runs in the background.", n, strings.Join(tables, ", "))}, nil
}

// explainStatementSet is EXPLAIN STATEMENT SET BEGIN ... END.
func (e *Engine) explainStatementSet(s *ast.StatementSet, par int) (*cli.Result, error) {
	q, plans, err := e.planStatementSet(e.planner(), s)
	if err != nil {
		return nil, err
	}
	return &cli.Result{Message: "\n" + opt.ExplainStatementSet(plans, q.Job, par)}, nil
}
