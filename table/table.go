package table

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/eddy-sql/eddy/deploy"
	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/local"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
)

// Option configures an Environment.
type Option func(*config)

type config struct {
	dataDir   string
	funcs     map[string]*ptf.Definition
	udfs      *udf.Registry
	examples  bool
	wasmCache string
	app       string
	logger    *slog.Logger
	conflict  deploy.OnConflict
}

// WithWasmCacheDir caches compiled function modules (UploadArtifact) in
// dir instead of the data directory.
func WithWasmCacheDir(dir string) Option { return func(c *config) { c.wasmCache = dir } }

// WithDataDir keeps tables, statements and their state in dir: the
// statements an environment submitted (ExecuteInsert, StatementSet) resume
// from their last checkpoint when an environment, `eddy sql` or `eddy
// server` opens dir again, and `eddy statement … --data-dir dir` manages
// them. Without it everything lives in memory and disappears with the
// Environment.
func WithDataDir(dir string) Option { return func(c *config) { c.dataDir = dir } }

// WithFunctions registers functions by id for CREATE FUNCTION.
func WithFunctions(funcs map[string]*ptf.Definition) Option {
	return func(c *config) {
		for id, d := range funcs {
			c.funcs[id] = d
		}
	}
}

// WithUDFs sets the user-defined scalar, table and aggregate functions
// CREATE FUNCTION can bind.
func WithUDFs(r *udf.Registry) Option { return func(c *config) { c.udfs = r } }

// WithoutExamples leaves the examples.* functions out of the registry.
func WithoutExamples() Option { return func(c *config) { c.examples = false } }

// WithApplicationName prefixes every statement name the environment
// submits with name and a hyphen, as Confluent's client.application-name:
// application "marketplace-analytics" and statement "vendors-per-brand"
// give the statement marketplace-analytics-vendors-per-brand.
func WithApplicationName(name string) Option { return func(c *config) { c.app = name } }

// WithOnConflict sets what submitting a statement does when a statement of
// its name exists with another SQL or other properties: deploy.Fail (the
// default) returns an error with the difference; deploy.Replace replaces
// it, carrying its state over when the new plan can read it (as `eddy
// statement replace`), which needs an application name, as Confluent's
// client.on-conflict=replace. A statement whose SQL and properties are
// unchanged is always left alone, so re-running a program is idempotent.
func WithOnConflict(c deploy.OnConflict) Option { return func(cf *config) { cf.conflict = c } }

// WithLogger sets the logger of the engine and its statements.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// Environment is a session on the embedded engine and its durable
// statements, Flink's TableEnvironment. It is safe for concurrent use;
// statements run one at a time.
type Environment struct {
	mu    sync.Mutex
	sess  *local.Session
	eng   *engine.Engine
	reg   *ptf.Registry
	bound map[*ptf.Definition]string
	app   string
	// nextName names the next submitted statement (SetStatementName).
	nextName   string
	onConflict deploy.OnConflict
	// temp are the names bound as temporary functions; dataDir is "" in
	// memory.
	temp    map[string]bool
	dataDir string
}

// New opens an environment.
func New(ctx context.Context, opts ...Option) (*Environment, error) {
	c := &config{funcs: map[string]*ptf.Definition{}, examples: true, conflict: deploy.Fail}
	for _, o := range opts {
		o(c)
	}
	switch c.conflict {
	case deploy.Fail:
	case deploy.Replace:
		if c.app == "" {
			return nil, fmt.Errorf("table: WithOnConflict(deploy.Replace) needs WithApplicationName, so that a re-run replaces only the statements it submitted before")
		}
	default:
		return nil, fmt.Errorf("table: invalid on-conflict %q: use deploy.Fail or deploy.Replace", c.conflict)
	}
	reg := ptf.NewRegistry()
	if c.examples {
		if err := examples.Register(reg); err != nil {
			return nil, err
		}
	}
	for id, d := range c.funcs {
		if err := reg.Register(id, d); err != nil {
			return nil, err
		}
	}
	sess, err := local.Open(ctx, local.Options{DataDir: c.dataDir, Registry: reg, UDFs: c.udfs, WasmCacheDir: c.wasmCache,
		Logger: c.logger, Command: "eddy table API program"})
	if err != nil {
		return nil, err
	}
	return &Environment{sess: sess, eng: sess.Engine(), reg: reg, bound: map[*ptf.Definition]string{}, app: c.app, onConflict: c.conflict,
		temp: map[string]bool{}, dataDir: c.dataDir}, nil
}

// Close stops the statements' jobs and closes the data directory. With a
// data directory, the statements keep their phases and state: those that
// were running resume when the directory is opened again. In memory, they
// end with the environment.
func (e *Environment) Close() error { return e.sess.Close() }

// ExecuteSQL runs one SQL statement. Statements that return rows (SELECT,
// SHOW, EXPLAIN) return them in the Result; a SELECT is a snapshot of its
// inputs. A continuous INSERT INTO … SELECT or CREATE TABLE … AS SELECT is
// submitted as a durable statement, whose handle Result.Statement returns.
func (e *Environment) ExecuteSQL(ctx context.Context, sql string) (*Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.execute(ctx, sql)
}

func (e *Environment) execute(ctx context.Context, sql string) (*Result, error) {
	if engine.IsBackground(sql) {
		return e.submit(ctx, sql)
	}
	r, err := e.sess.Execute(ctx, sql, false)
	if err != nil {
		return nil, err
	}
	return &Result{Message: r.Message, stream: r.Rows}, nil
}

// functionName binds def to a SQL name. A function bound in the current
// database to def's registry id (CREATE FUNCTION) is called by that name,
// so that a durable statement resumes in another process; otherwise def is
// bound as a temporary function, registered under a generated id if
// needed.
func (e *Environment) functionName(ctx context.Context, def *ptf.Definition) (string, error) {
	if name, ok := e.bound[def]; ok {
		return name, nil
	}
	props := e.eng.SessionProperties()
	cat, db := props["sql.current-catalog"], props["sql.current-database"]
	id := e.registryID(def)
	if id != "" {
		for _, n := range e.eng.Catalog().Functions(cat, db) {
			if f, ok := e.eng.Catalog().Function(cat, db, n); ok && f.ID == id && !f.Temporary {
				e.bound[def] = n
				return n, nil
			}
		}
	}
	for i := len(e.bound); id == ""; i++ {
		if _, taken := e.reg.Lookup(fmt.Sprintf("tableapi.f%d", i)); !taken {
			id = fmt.Sprintf("tableapi.f%d", i)
			if err := e.reg.Register(id, def); err != nil {
				return "", err
			}
		}
	}
	// The id's last part names the function, unless the name is bound to
	// another function already.
	base := id[strings.LastIndexByte(id, '.')+1:]
	name := base
	for i := 1; ; i++ {
		f, taken := e.eng.Catalog().Function(cat, db, name)
		if !taken {
			if _, err := e.execute(ctx, fmt.Sprintf("CREATE TEMPORARY FUNCTION %s AS '%s'", ast.QuoteIdent(name), id)); err != nil {
				return "", err
			}
			e.temp[name] = true
			break
		}
		if f.ID == id {
			e.temp[name] = f.Temporary
			break
		}
		name = fmt.Sprintf("%s_%d", base, i)
	}
	e.bound[def] = name
	return name, nil
}

// registryID returns the id def is registered under, or "".
func (e *Environment) registryID(def *ptf.Definition) string {
	for _, known := range e.reg.IDs() {
		if d, _ := e.reg.Lookup(known); d == def {
			return known
		}
	}
	return ""
}

// CreateFunction binds def to name in the current database, as CREATE
// FUNCTION name AS 'id' with the id def is registered under (WithFunctions
// or the examples). The binding is stored with the data directory, so
// that a statement calling the function resumes when the directory is
// opened again; Process and FromCall then call def by this name.
func (e *Environment) CreateFunction(ctx context.Context, name string, def *ptf.Definition) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	id := e.registryID(def)
	if id == "" {
		return fmt.Errorf("table: CreateFunction(%q): the definition is not registered; register it with table.WithFunctions so that it is there when a later environment opens the data directory", name)
	}
	if _, err := e.execute(ctx, fmt.Sprintf("CREATE FUNCTION IF NOT EXISTS %s AS '%s'", ast.QuoteIdent(name), id)); err != nil {
		return err
	}
	e.bound[def] = name
	e.temp[name] = false
	return nil
}

// CreateTemporaryFunction binds def to name for this environment only,
// registering it under a generated id if needed.
func (e *Environment) CreateTemporaryFunction(ctx context.Context, name string, def *ptf.Definition) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	id := e.registryID(def)
	if id == "" {
		id = fmt.Sprintf("tableapi.%s", name)
		if err := e.reg.Register(id, def); err != nil {
			return err
		}
	}
	if _, err := e.execute(ctx, fmt.Sprintf("CREATE TEMPORARY FUNCTION %s AS '%s'", ast.QuoteIdent(name), id)); err != nil {
		return err
	}
	e.bound[def] = name
	e.temp[name] = true
	return nil
}

// From starts a pipeline from a table (a path such as "orders" or
// "examples.marketplace.clicks").
func (e *Environment) From(path string) *Table { return &Table{env: e, from: path} }

// SQLQuery starts a pipeline from a query, Flink's sqlQuery.
func (e *Environment) SQLQuery(query string) *Table {
	return &Table{env: e, query: func(*renderer) (string, error) { return query, nil }}
}

// FromValues is a table of literal rows, Flink's fromValues: each row is a
// slice of values (Go values or Exprs), columns are named cols.
func (e *Environment) FromValues(cols []string, rows ...[]any) *Table {
	return &Table{env: e, query: func(*renderer) (string, error) {
		if len(rows) == 0 {
			return "", fmt.Errorf("table: FromValues needs at least one row")
		}
		vals := make([]string, len(rows))
		for i, r := range rows {
			if len(r) != len(cols) {
				return "", fmt.Errorf("table: FromValues row %d has %d values for %d columns", i+1, len(r), len(cols))
			}
			vs := make([]string, len(r))
			for j, v := range r {
				vs[j] = operand(v).sql
			}
			vals[i] = "(" + strings.Join(vs, ", ") + ")"
		}
		q := make([]string, len(cols))
		for i, c := range cols {
			q[i] = ast.QuoteIdent(c)
		}
		return fmt.Sprintf("SELECT * FROM (VALUES %s) AS v(%s)", strings.Join(vals, ", "), strings.Join(q, ", ")), nil
	}}
}

// FromCall calls a function with the given arguments, Flink's fromCall:
// tables (t.AsArgument("input"), or t positionally), scalars
// (table.Lit(3).AsArgument("n")) and descriptors. A function without
// table arguments runs once.
//
//	env.FromCall(examples.MtControlStream,
//		events.PartitionBy("tenant_id").AsArgument("events"),
//		control.PartitionBy("tenant_id").AsArgument("control"))
func (e *Environment) FromCall(def *ptf.Definition, args ...Arg) *Table {
	return &Table{env: e, query: func(r *renderer) (string, error) { return r.call(def, nil, args) }}
}

// SetStatementName names the next statement the environment submits
// (ExecuteInsert, StatementSet.Execute, or an INSERT through ExecuteSQL),
// as Confluent's ConfluentTools.setStatementName; the name is reset
// afterwards. Names are lowercase letters, digits and '-', and are
// prefixed with the application name (WithApplicationName).
func (e *Environment) SetStatementName(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.nextName = name
}

// Result is the outcome of a statement, Flink's TableResult.
type Result struct {
	// Message is set for statements without rows.
	Message string
	// Outcome says what submitting a durable statement did: deploy.Created,
	// deploy.Unchanged (it existed with the same SQL and properties) or
	// deploy.Replaced; deploy.Existing for other statements.
	Outcome deploy.Outcome
	stream  *cli.RowStream
	handles []*StatementHandle
}

// Schema returns the columns of the rows, or nil.
func (r *Result) Schema() *types.Schema {
	if r.stream == nil {
		return nil
	}
	return r.stream.Schema
}

// Statement returns the handle of the durable statement the result's
// statement submitted (ExecuteInsert, an INSERT through ExecuteSQL), or
// nil; Confluent's ConfluentTools.getStatementHandle. For a statement set
// it is the first one; see Statements.
func (r *Result) Statement() *StatementHandle {
	if len(r.handles) == 0 {
		return nil
	}
	return r.handles[0]
}

// Statements returns the handles of every statement submitted.
func (r *Result) Statements() []*StatementHandle { return r.handles }

// Collect reads every change of the result: the changelog, with row kinds.
func (r *Result) Collect(ctx context.Context) ([]types.Row, error) {
	if r.stream == nil {
		return nil, nil
	}
	defer r.stream.Close()
	var out []types.Row
	for {
		row, ok, err := r.stream.Next(ctx)
		if err != nil {
			return out, err
		}
		if !ok {
			return out, nil
		}
		out = append(out, row)
	}
}
