package engine

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/runtime"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/parser"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/types"
)

// runState carries the options of one Run call to startJob.
type runState struct {
	name            string
	dryRun          bool
	jobID           string
	resume          bool
	checkpointEvery time.Duration
	// stateSchema is the state schema of the checkpoint a resume starts
	// from (see RunOptions.StateSchema).
	stateSchema string
	// operatorState is the RunOptions.OperatorState of a resume.
	operatorState string
	job           *runtime.Job
	plan          *plan.QueryPlan
}

// RunOptions configure Run.
type RunOptions struct {
	// Properties are the statement's session properties:
	// 'sql.current-catalog', 'sql.current-database' and SET options.
	Properties map[string]string
	// JobID identifies the job's state and checkpoints; a statement uses
	// its uid so that it resumes where it stopped.
	JobID string
	// Name is the statement's name (the statement_name of dead-letter
	// rows).
	Name string
	// Resume restarts from the job's last checkpoint.
	Resume bool
	// CheckpointInterval of the job. Default: the runtime's.
	CheckpointInterval time.Duration
	// DryRun plans the statement and reports its outcome (kind, schema,
	// sources, state schema) without changing anything or starting a job.
	DryRun bool
	// PlanVersion plans the statement with that plan version (see
	// plan.LatestPlan); 0 plans with the latest. A resumed statement keeps
	// the version it was created with, so that its operators read what
	// their state was built from.
	PlanVersion int
	// StateSchema, with Resume, is the Outcome.StateSchema of the run that
	// wrote the checkpoint: a plan whose functions declare state the
	// checkpoint cannot be read as (a function's artifact changed to an
	// incompatible version) is refused instead of started.
	StateSchema string
	// OperatorState, with Resume, is the Outcome.OperatorState of the run
	// that wrote the checkpoint: a plan whose stateful operators keep
	// other state (a table it reads was altered since, decision 0036) is
	// refused instead of started on state it cannot read.
	OperatorState string
}

// Outcome is what Run did.
type Outcome struct {
	// Kind is the statement's sql_kind: CREATE_TABLE, CREATE_TABLE_AS,
	// INSERT_INTO, SELECT, CREATE_FUNCTION, ...
	Kind    string
	Message string
	// Job is the job a background (INSERT, CTAS) or foreground (SELECT)
	// statement started; nil for statements that completed at once.
	Job *runtime.Job
	// Schema, Key and AppendOnly describe the rows of a SELECT (or the
	// sink of an INSERT).
	Schema     *types.Schema
	Key        []int
	AppendOnly bool
	// Changelog names the exact changelog mode of the rows (insert-only,
	// retract, retract-no-delete, upsert, upsert-no-delete, ...).
	Changelog string
	// Rows holds the rows of a statement that returns a static result
	// (SHOW, DESCRIBE).
	Rows [][]types.Value
	// Sources are the log tables the job reads, by full name and log.
	Sources map[string]string
	// StateSchema describes the job's PTF state (uid and state types), so a
	// replacing statement can tell whether it may carry the state over.
	StateSchema string
	// OperatorState describes the state of the job's other stateful
	// operators (uid and the types of what each keeps), for the same
	// purpose.
	OperatorState string
	// PlanVersion is the plan version of the job.
	PlanVersion int
	// Artifacts are the ids of the artifacts whose functions the job runs.
	Artifacts []string
	// Namespaces are the job's state namespaces.
	Namespaces []string
}

// Run executes one statement for the statement manager, with its own
// session built from opts.Properties. INSERT, CTAS and SELECT start a
// continuous job owned by the caller (not by the engine's session).
func (e *Engine) Run(ctx context.Context, sql string, opts RunOptions) (*Outcome, error) {
	stmt, err := parser.ParseStatement(sql)
	if err != nil {
		return nil, err
	}
	e.runMu.Lock()
	defer e.runMu.Unlock()
	sess := &plan.Session{Catalog: catalog.DefaultCatalog, Database: catalog.DefaultDatabase, Config: map[string]string{}}
	for k, v := range opts.Properties {
		switch k {
		case "sql.current-catalog":
			sess.Catalog = v
		case "sql.current-database":
			sess.Database = v
		default:
			sess.Config[k] = v
		}
	}
	sess.PlanVersion = opts.PlanVersion
	if _, set := sess.Config[plan.RequireOnConflictKey]; opts.Resume && !set {
		// A statement that runs again was accepted when it was created,
		// perhaps before Flink 2.3's ON CONFLICT check: it resumes.
		sess.Config[plan.RequireOnConflictKey] = "false"
	}
	saved := e.sess
	e.sess = sess
	e.run = &runState{name: opts.Name, jobID: opts.JobID, resume: opts.Resume, checkpointEvery: opts.CheckpointInterval, dryRun: opts.DryRun, stateSchema: opts.StateSchema, operatorState: opts.OperatorState}
	defer func() { e.sess, e.run = saved, nil }()
	if opts.DryRun {
		if q, isQuery := stmt.(ast.Query); isQuery {
			p, err := planSelect(e.planner(), q)
			if err != nil {
				return nil, err
			}
			e.run.plan = p
		} else if err := e.dryRun(stmt); err != nil {
			return nil, err
		}
		return e.outcome(ctx, stmt, &cli.Result{})
	}
	res, err := e.execute(ctx, stmt, true)
	if err != nil {
		return nil, err
	}
	return e.outcome(ctx, stmt, res)
}

// dryRun plans INSERT and CREATE TABLE AS SELECT without effects.
func (e *Engine) dryRun(stmt ast.Statement) error {
	p := e.planner()
	switch s := stmt.(type) {
	case *ast.Insert:
		t, err := p.ResolveTable(s.Table)
		if err != nil {
			return err
		}
		if _, isValues := s.Query.(*ast.Values); isValues {
			return nil
		}
		e.run.plan, err = planInsertWith(p, t, s.Columns, s.Query, s.Query.Pos(), plan.InsertOptionsOf(s))
		return err
	case *ast.StatementSet:
		var err error
		e.run.plan, _, err = e.planStatementSet(p, s)
		return err
	case *ast.CreateTable:
		if s.Query == nil {
			return nil
		}
		if t, err := p.ResolveTable(s.Name); err == nil {
			var cols []*ast.Ident
			if len(s.Columns) > 0 {
				q, err := planSelect(p, s.Query)
				if err != nil {
					return err
				}
				cols = ctasColumns(s, q.Schema)
			}
			e.run.plan, err = planInsert(p, t, cols, s.Query, s.Query.Pos())
			return err
		}
		var err error
		e.run.plan, err = planSelect(p, s.Query)
		return err
	}
	return nil
}

func (e *Engine) outcome(ctx context.Context, stmt ast.Statement, res *cli.Result) (*Outcome, error) {
	out := &Outcome{Kind: sqlKind(stmt), Message: res.Message, Job: e.run.job}
	if out.Job != nil {
		out.Namespaces = out.Job.Namespaces()
	}
	if p := e.run.plan; p != nil {
		out.Schema, out.Key = p.Schema, p.Key
		out.AppendOnly = p.Mode == jobgraph.Append
		if !p.Changelog.IsZero() {
			out.Changelog = p.Changelog.Name()
		}
		out.Sources = map[string]string{}
		for _, in := range p.Job.Inputs {
			out.Sources[in.Table] = in.Log
		}
		out.StateSchema = stateSchemaOf(p)
		out.Artifacts = e.artifactsOf(p.Job.PTFs())
		out.OperatorState = operatorState(p.Job)
		out.PlanVersion = p.Version
	}
	if res.Rows != nil && out.Job == nil {
		out.Schema = res.Rows.Schema
		for {
			r, ok, err := res.Rows.Next(ctx)
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			out.Rows = append(out.Rows, r.Values)
		}
		res.Rows.Close()
	}
	return out, nil
}

// sqlKind names a statement's kind as Confluent's traits do.
func sqlKind(s ast.Statement) string {
	switch n := s.(type) {
	case *ast.CreateTable:
		if n.Query != nil {
			return "CREATE_TABLE_AS"
		}
		return "CREATE_TABLE"
	case *ast.DropTable:
		return "DROP_TABLE"
	case *ast.AlterTable:
		return "ALTER_TABLE"
	case *ast.CreateView:
		return "CREATE_VIEW"
	case *ast.DropView:
		return "DROP_VIEW"
	case *ast.Insert:
		return "INSERT_INTO"
	case *ast.StatementSet:
		return "STATEMENT_SET"
	case ast.Query:
		return "SELECT"
	case *ast.CreateFunction:
		return "CREATE_FUNCTION"
	case *ast.DropFunction:
		return "DROP_FUNCTION"
	case *ast.CreateCatalog:
		return "CREATE_CATALOG"
	case *ast.CreateDatabase:
		return "CREATE_DATABASE"
	case *ast.Show:
		return "SHOW_" + strings.ReplaceAll(n.What.String(), " ", "_")
	case *ast.Describe:
		return "DESCRIBE"
	case *ast.DescribeFunction:
		return "DESCRIBE_FUNCTION"
	case *ast.Explain:
		return "EXPLAIN"
	case *ast.Set:
		return "SET"
	case *ast.Reset:
		return "RESET"
	case *ast.UseCatalog, *ast.UseDatabase:
		return "USE"
	}
	return "OTHER"
}

// Env exposes the engine's store, logs and clock to the statement manager.
func (e *Engine) Env() runtime.Env { return e.env }

// Catalog exposes the engine's catalog.
func (e *Engine) Catalog() *catalog.Catalog { return e.cat }

// FormatOffsets renders partition offsets the way Confluent's
// latest_offsets does: "partition:0,offset:100;partition:1,offset:200".
func FormatOffsets(offsets []int64) string {
	parts := make([]string, len(offsets))
	for p, o := range offsets {
		parts[p] = "partition:" + strconv.Itoa(p) + ",offset:" + strconv.FormatInt(o, 10)
	}
	return strings.Join(parts, ";")
}
