package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/eddy-sql/eddy/internal/artifact"
	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/connector/builtin"
	"github.com/eddy-sql/eddy/internal/connector/datagen"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/logstore"
	"github.com/eddy-sql/eddy/internal/runtime"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/parser"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/internal/store"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/udf"
)

// Options configure an engine.
type Options struct {
	// DataDir is the data directory; "" keeps everything in memory.
	DataDir string
	// Registry holds the functions CREATE FUNCTION can bind.
	Registry *ptf.Registry
	// UDFs holds the user-defined scalar, table and aggregate functions
	// CREATE FUNCTION can bind (ids distinct from Registry's).
	UDFs *udf.Registry
	// Logger receives debug logs. Default: discard.
	Logger *slog.Logger
	// Clock supplies processing time. Default: the system clock.
	Clock runtime.Clock
	// Connectors holds the connectors tables may use. Default: the
	// built-in ones (package connector/builtin).
	Connectors *connector.Registry
	// Stdout and Stderr are where 'print' tables print. Default: the
	// process's standard output and error.
	Stdout, Stderr io.Writer
	// WasmCacheDir caches compiled WebAssembly modules (the functions of
	// artifacts). Default: wasm-cache in the data directory, or memory.
	WasmCacheDir string
}

// Engine is an embedded engine with one SQL session.
type Engine struct {
	db   *store.DB
	logs *logstore.Store
	cat  *catalog.Catalog
	reg  *ptf.Registry
	udfs *udf.Registry
	// connectors are the connector factories of tables.
	connectors *connector.Registry
	arts       *artifact.Store
	// modules runs the functions of artifacts (WebAssembly).
	modules functionModules
	sess    *plan.Session
	env     runtime.Env
	logger  *slog.Logger

	mu   sync.Mutex
	jobs []*runtime.Job
	// writers holds, per table (full name), the running jobs that write
	// it (see writers.go).
	writers map[string][]writer
	// sessionJobs counts the writing jobs the session started (their
	// labels).
	sessionJobs int
	// external returns jobs that scripts wait for besides the session's
	// own (SyncAlso).
	external func() []*runtime.Job

	// runMu serialises Run, which executes with its own session; run holds
	// the options of the statement being run.
	runMu sync.Mutex
	run   *runState
	// stmtSet is the session's open BEGIN STATEMENT SET (statementset.go).
	stmtSet statementSetState
}

var _ cli.Engine = (*Engine)(nil)

// catalogKV adapts the store to catalog.KV with synced writes.
type catalogKV struct{ db *store.DB }

func (k catalogKV) Get(key []byte) ([]byte, bool, error) { return k.db.Get(key) }
func (k catalogKV) Set(key, val []byte) error            { return k.db.Set(key, val) }
func (k catalogKV) Delete(key []byte) error              { return k.db.Delete(key) }
func (k catalogKV) Scan(prefix []byte, fn func(key, val []byte) error) error {
	return k.db.Scan(prefix, fn)
}

// Open opens (or creates) the data directory.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Clock == nil {
		opts.Clock = runtime.SystemClock{}
	}
	if opts.Registry == nil {
		opts.Registry = ptf.NewRegistry()
	}
	if opts.UDFs == nil {
		opts.UDFs = udf.NewRegistry()
	}
	if opts.Connectors == nil {
		opts.Connectors = builtin.Registry()
	}
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.DataDir != "" {
		if err := os.MkdirAll(opts.DataDir, 0o755); err != nil {
			return nil, fmt.Errorf("creating data directory %s: %w", opts.DataDir, err)
		}
	}
	db, err := store.Open(opts.DataDir, store.Options{Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("opening data directory %s: %w", opts.DataDir, err)
	}
	logs, err := logstore.New(db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("opening logs: %w", err)
	}
	cat, err := catalog.Open(catalogKV{db}, string([]byte{store.PrefixCatalog}))
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("opening catalog: %w", err)
	}
	e := &Engine{
		db: db, logs: logs, cat: cat, reg: opts.Registry, udfs: opts.UDFs, connectors: opts.Connectors, logger: opts.Logger,
		arts: artifact.NewStore(db, opts.Clock.Now),
		sess: &plan.Session{Catalog: catalog.DefaultCatalog, Database: catalog.DefaultDatabase, Config: map[string]string{}},
	}
	e.modules.cacheDir = opts.WasmCacheDir
	if e.modules.cacheDir == "" {
		e.modules.cacheDir = wasmCacheDir(opts.DataDir)
	}
	e.env = runtime.Env{DB: db, Logs: logs, Clock: opts.Clock, Logger: opts.Logger, Stdout: opts.Stdout, Stderr: opts.Stderr, Functions: &e.modules}
	if err := e.ensureExamples(); err != nil {
		db.Close()
		return nil, err
	}
	return e, nil
}

// ensureExamples creates the read-only examples catalog when it is
// missing: examples.marketplace with the generated tables clicks,
// customers, orders and products (package datagen). Tables whose
// definition differs from this version's are replaced.
func (e *Engine) ensureExamples() error {
	cat := datagen.ExamplesCatalog
	if !e.cat.HasCatalog(cat) {
		if err := e.cat.CreateCatalog(&catalog.CatalogInfo{Name: cat}); err != nil {
			return fmt.Errorf("creating the examples catalog: %w", err)
		}
	}
	for _, et := range datagen.Examples() {
		if !e.cat.HasDatabase(cat, et.Database) {
			if err := e.cat.CreateDatabase(&catalog.Database{Catalog: cat, Name: et.Database}); err != nil {
				return fmt.Errorf("creating the examples catalog: %w", err)
			}
		}
		want := exampleTable(et)
		if have, ok := e.cat.Table(cat, et.Database, et.Name); ok {
			a, errA := json.Marshal(have)
			b, errB := json.Marshal(want)
			if errA == nil && errB == nil && bytes.Equal(a, b) {
				continue
			}
			if err := e.cat.DropTable(cat, et.Database, et.Name); err != nil {
				return fmt.Errorf("updating example table %s: %w", want.FullName(), err)
			}
		}
		if err := e.cat.CreateTable(want); err != nil {
			return fmt.Errorf("creating example table %s: %w", want.FullName(), err)
		}
	}
	return nil
}

// exampleTable is the catalog entry of a table of the examples catalog.
func exampleTable(et datagen.ExampleTable) *catalog.Table {
	t := &catalog.Table{
		Catalog: datagen.ExamplesCatalog, Database: et.Database, Name: et.Name,
		PrimaryKey: et.PrimaryKey, Options: map[string]string{}, Comment: et.Comment,
	}
	for _, f := range et.Columns {
		t.Columns = append(t.Columns, catalog.Column{Name: f.Name, Type: catalog.Type{Type: f.Type}, Kind: catalog.Physical})
	}
	if et.Watermark != "" {
		t.Watermark = &catalog.Watermark{Column: et.Watermark, Expr: ast.QuoteIdent(et.Watermark)}
	}
	maps.Copy(t.Options, et.Options)
	return t
}

// checkWritable refuses statements that would change the read-only
// examples catalog (writing into a source-only connector's table is
// refused by the planner).
func (e *Engine) checkWritable(stmt ast.Statement) error {
	readOnly := func(pos sqlerr.Pos, what string) error {
		return sqlerr.Newf(sqlerr.Unsupported, "The catalog '%s' is read-only: %s", datagen.ExamplesCatalog, what).At(pos).
			WithHint("copy the data into a table of your own, e.g. CREATE TABLE my_clicks AS SELECT * FROM examples.marketplace.clicks")
	}
	catalogOf := func(n *ast.ObjectName, parts int) string {
		if names := n.Names(); len(names) == parts {
			return names[0]
		}
		return e.sess.Catalog
	}
	switch s := stmt.(type) {
	case *ast.CreateTable:
		if catalogOf(s.Name, 3) == datagen.ExamplesCatalog {
			return readOnly(s.Name.Pos(), "tables cannot be created in it")
		}
	case *ast.DropTable:
		if catalogOf(s.Name, 3) == datagen.ExamplesCatalog {
			return readOnly(s.Name.Pos(), "its tables cannot be dropped")
		}
	case *ast.AlterTable:
		if catalogOf(s.Name, 3) == datagen.ExamplesCatalog {
			return readOnly(s.Name.Pos(), "its tables cannot be altered")
		}
	case *ast.CreateDatabase:
		if catalogOf(s.Name, 2) == datagen.ExamplesCatalog {
			return readOnly(s.Name.Pos(), "databases cannot be created in it")
		}
	case *ast.CreateFunction:
		if catalogOf(s.Name, 3) == datagen.ExamplesCatalog {
			return readOnly(s.Name.Pos(), "functions cannot be created in it")
		}
	case *ast.Insert:
		t, err := e.planner().ResolveTable(s.Table)
		if err != nil {
			return nil // the insert reports it
		}
		if t.Catalog == datagen.ExamplesCatalog {
			return readOnly(s.Table.Pos(), "its tables cannot be written into")
		}
	}
	return nil
}

// Config returns the session configuration.
func (e *Engine) Config() map[string]string {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	return e.sess.Config
}

// Close stops running jobs and closes the data directory.
func (e *Engine) Close() error {
	e.mu.Lock()
	jobs := e.jobs
	e.jobs = nil
	e.mu.Unlock()
	for _, j := range jobs {
		j.Cancel()
	}
	var errs []error
	// Jobs of an embedded session end with it; their state goes too (the
	// statements of a server are durable instead).
	b := e.db.NewBatch()
	for _, j := range jobs {
		if err := j.Wait(); err != nil && !errors.Is(err, context.Canceled) {
			errs = append(errs, err)
		}
		errs = append(errs, j.DeleteState(b))
	}
	errs = append(errs, b.Commit(false), e.closeModules(), e.db.Close())
	return errors.Join(errs...)
}

func (e *Engine) planner() *plan.Planner {
	return &plan.Planner{Catalog: e.cat, Registry: e.reg, UDFs: e.udfs, Connectors: e.connectors, Session: e.sess, Now: e.env.Clock.Now, Artifacts: e.resolveArtifactFunction}
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Execute runs one statement.
func (e *Engine) Execute(ctx context.Context, sql string, interactive bool) (*cli.Result, error) {
	res, submit, err := e.StatementSetStep(sql)
	if res != nil || err != nil {
		return res, err
	}
	if submit != "" {
		sql = submit
	}
	stmt, err := parser.ParseStatement(sql)
	if err != nil {
		return nil, err
	}
	if !interactive {
		if err := e.syncJobs(ctx); err != nil {
			return nil, err
		}
	}
	// Run swaps the session for a statement's own; the statement manager
	// may run one while the session executes (a client attached to a
	// shell), so the two take turns.
	e.runMu.Lock()
	defer e.runMu.Unlock()
	return e.execute(ctx, stmt, interactive)
}

func (e *Engine) execute(ctx context.Context, stmt ast.Statement, interactive bool) (*cli.Result, error) {
	if err := e.checkWritable(stmt); err != nil {
		return nil, err
	}
	switch s := stmt.(type) {
	case *ast.CreateTable:
		return e.createTable(ctx, s)
	case *ast.DropTable:
		return e.dropTable(s)
	case *ast.AlterTable:
		return e.alterTable(s)
	case *ast.CreateView:
		return e.createView(s)
	case *ast.DropView:
		return e.dropView(s)
	case *ast.Insert:
		return e.insert(ctx, s)
	case *ast.StatementSet:
		return e.statementSet(ctx, s)
	case *ast.BeginStatementSet, *ast.EndStatementSet:
		return nil, sqlerr.Newf(sqlerr.Unsupported, "BEGIN STATEMENT SET and END belong to an interactive session").At(stmt.Pos()).
			WithHint("submit the INSERT statements together as EXECUTE STATEMENT SET BEGIN INSERT ...; INSERT ...; END")
	case ast.Query:
		return e.query(ctx, s, interactive)
	case *ast.CreateFunction:
		return e.createFunction(s)
	case *ast.DropFunction:
		return e.dropFunction(s)
	case *ast.Set:
		return e.set(s)
	case *ast.Reset:
		return e.reset(s)
	case *ast.UseCatalog:
		if !e.cat.HasCatalog(s.Name.Name) {
			return nil, sqlerr.Newf(sqlerr.UnknownCatalog, "Catalog '%s' does not exist", s.Name.Name).At(s.Name.Pos()).
				WithHint("create it with CREATE CATALOG %s, or see SHOW CATALOGS", s.Name.Name)
		}
		e.sess.Catalog = s.Name.Name
		if dbs := e.cat.Databases(s.Name.Name); len(dbs) > 0 {
			e.sess.Database = dbs[0]
			if e.cat.HasDatabase(s.Name.Name, catalog.DefaultDatabase) {
				e.sess.Database = catalog.DefaultDatabase
			}
		}
		return ok()
	case *ast.UseDatabase:
		parts := s.Name.Names()
		cat, db := e.sess.Catalog, parts[len(parts)-1]
		if len(parts) == 2 {
			cat = parts[0]
		}
		if !e.cat.HasDatabase(cat, db) {
			return nil, sqlerr.Newf(sqlerr.UnknownDatabase, "Database '%s' does not exist in catalog '%s'", db, cat).At(s.Name.Pos()).
				WithHint("create it with CREATE DATABASE %s, or see SHOW DATABASES", db)
		}
		e.sess.Catalog, e.sess.Database = cat, db
		return ok()
	case *ast.CreateCatalog:
		err := e.cat.CreateCatalog(&catalog.CatalogInfo{Name: s.Name.Name, Options: options(s.Options)})
		if errors.Is(err, catalog.ErrExists) {
			if s.IfNotExists {
				return ok()
			}
			return nil, sqlerr.Newf(sqlerr.DuplicateObject, "Catalog '%s' already exists", s.Name.Name).At(s.Name.Pos())
		}
		if err != nil {
			return nil, err
		}
		// Every catalog starts with a default database, as in Flink.
		if err := e.cat.CreateDatabase(&catalog.Database{Catalog: s.Name.Name, Name: catalog.DefaultDatabase}); err != nil {
			return nil, err
		}
		return ok()
	case *ast.CreateDatabase:
		parts := s.Name.Names()
		cat, db := e.sess.Catalog, parts[len(parts)-1]
		if len(parts) == 2 {
			cat = parts[0]
		}
		err := e.cat.CreateDatabase(&catalog.Database{Catalog: cat, Name: db})
		switch {
		case errors.Is(err, catalog.ErrExists):
			if s.IfNotExists {
				return ok()
			}
			return nil, sqlerr.Newf(sqlerr.DuplicateObject, "Database '%s.%s' already exists", cat, db).At(s.Name.Pos())
		case errors.Is(err, catalog.ErrNotFound):
			return nil, sqlerr.Newf(sqlerr.UnknownCatalog, "Catalog '%s' does not exist", cat).At(s.Name.Pos()).
				WithHint("create it first with CREATE CATALOG %s", cat)
		case err != nil:
			return nil, err
		}
		return ok()
	case *ast.Show:
		return e.show(s)
	case *ast.Describe:
		return e.describe(s)
	case *ast.DescribeFunction:
		return e.describeFunction(s)
	case *ast.ShowCreateTable:
		return e.showCreateTable(s)
	case *ast.Explain:
		return e.explain(s)
	case *ast.AddJar:
		return nil, sqlerr.Newf(sqlerr.Unsupported, "ADD JAR is not supported: Eddy runs functions written in Go, not Java").At(s.Pos()).
			WithHint("compile your functions into an eddy binary with eddy.Main(eddy.WithFunctions(...)); see examples/custom-binary")
	}
	return nil, sqlerr.Newf(sqlerr.Unsupported, "This statement is not supported yet: %s", ast.Format(stmt)).At(stmt.Pos())
}

func ok() (*cli.Result, error) { return &cli.Result{Message: "Execute statement succeeded."}, nil }

func options(opts []*ast.Option) map[string]string {
	m := map[string]string{}
	for _, o := range opts {
		m[o.Key.Value] = o.Value.Value
	}
	return m
}

// startJob starts a job and remembers it for syncJobs and Close. id names
// the job ("" for a new id; a durable statement's job always takes its
// statement's id).
func (e *Engine) startJob(ctx context.Context, p *plan.QueryPlan, bounded bool, id string) (*runtime.Job, error) {
	par := 1
	if v := e.sess.Config["parallelism.default"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 128 {
			return nil, sqlerr.Newf(sqlerr.InvalidOption, "Invalid 'parallelism.default' = '%s': use a number from 1 to 128", v)
		}
		par = n
	}
	if id == "" {
		id = newID()
	}
	opts := runtime.Options{ID: id, Bounded: bounded, Parallelism: par}
	if v := e.sess.Config["eddy.state.cache-keys"]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, sqlerr.Newf(sqlerr.InvalidOption, "Invalid 'eddy.state.cache-keys' = '%s': use a number of keys (0 or less: unbounded)", v)
		}
		if n <= 0 {
			n = -1
		}
		opts.CacheKeys = n
	}
	if v := e.sess.Config["execution.checkpointing.interval"]; v != "" {
		d, err := plan.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, sqlerr.Newf(sqlerr.InvalidOption, "Invalid 'execution.checkpointing.interval' = '%s': use a duration such as '1 s' or '100 ms'", v)
		}
		if d == 0 {
			// No periodic checkpoints: commit only on sync, on stop and
			// at the end (and when a checkpoint's size limit is reached).
			opts.CheckpointInterval, opts.CheckpointRecords = 1<<62, 1<<62
		} else {
			opts.CheckpointInterval = d
		}
	}
	name := "sql session"
	if e.run != nil && e.run.name != "" {
		name = e.run.name
	}
	for i := range p.Job.Inputs {
		p.Job.Inputs[i].Errors.Statement = name
	}
	if e.run != nil && e.run.resume && e.run.operatorState != "" {
		if now := operatorState(p.Job); now != e.run.operatorState {
			return nil, sqlerr.Newf(sqlerr.InvalidArgument, "The statement cannot resume from its checkpoint: the state of its operators changed (old %s, new %s)", e.run.operatorState, now).
				WithHint("a table the statement reads was probably altered since it started; create the statement anew (its state starts empty)")
		}
	}
	if e.run != nil && e.run.resume && e.run.stateSchema != "" {
		if err := compatibleState(e.run.stateSchema, stateSchemaOf(p)); err != nil {
			return nil, err
		}
	}
	if e.run != nil {
		opts.ID, opts.Resume, opts.Bounded = e.run.jobID, e.run.resume, false
		if e.run.checkpointEvery > 0 {
			opts.CheckpointInterval = e.run.checkpointEvery
		}
	}
	job, err := runtime.Start(context.WithoutCancel(ctx), e.env, p.Job, opts)
	if err != nil {
		return nil, err
	}
	if p.Job.Sink.Kind != jobgraph.CollectSink {
		label := e.ownerLabel()
		for _, sk := range p.Job.Sinks() {
			e.addWriter(sk.Table, label, job)
		}
	}
	if e.run != nil {
		e.run.job, e.run.plan = job, p
		return job, nil
	}
	if !bounded {
		e.mu.Lock()
		e.jobs = append(e.jobs, job)
		e.mu.Unlock()
	}
	return job, nil
}

// syncJobs waits until every running job has caught up with all data
// written so far, repeating while jobs feed each other.
func (e *Engine) syncJobs(ctx context.Context) error {
	e.mu.Lock()
	jobs := append([]*runtime.Job(nil), e.jobs...)
	own := len(jobs)
	external := e.external
	e.mu.Unlock()
	if external != nil {
		jobs = append(jobs, external()...)
	}
	if len(jobs) == 0 {
		return nil
	}
	for round := 0; round < 100; round++ {
		before := e.totalRecords(jobs)
		for i, j := range jobs {
			if err := j.Sync(ctx); err != nil {
				if i < own {
					e.dropFailed(j)
				}
				return sqlerr.Newf(sqlerr.Runtime, "A running statement failed: %v", err).
					WithHint("fix the statement and run it again; the failed job was stopped")
			}
		}
		if e.totalRecords(jobs) == before {
			return nil
		}
	}
	return nil
}

// dropFailed forgets a job whose failure has been reported, so that later
// statements and Close do not report it again, and deletes its state.
func (e *Engine) dropFailed(j *runtime.Job) {
	e.mu.Lock()
	e.jobs = slices.DeleteFunc(e.jobs, func(x *runtime.Job) bool { return x == j })
	e.mu.Unlock()
	j.Cancel()
	_ = j.Wait() // the failure, reported by the caller
	b := e.db.NewBatch()
	if err := errors.Join(j.DeleteState(b), b.Commit(false)); err != nil {
		e.logger.Warn("deleting the state of a failed job", "err", err)
	}
}

// totalRecords counts the records committed to all logs and the rows the
// jobs wrote (Kafka sinks), to tell whether a round of syncing produced new
// data.
func (e *Engine) totalRecords(jobs []*runtime.Job) int64 {
	n := e.logRecords()
	for _, j := range jobs {
		n += j.Metrics().RecordsOut
	}
	return n
}

// logRecords counts the records committed to all logs.
func (e *Engine) logRecords() int64 {
	var n int64
	for _, l := range e.logs.Logs() {
		ends, err := e.logs.EndOffsets(l)
		if err != nil {
			continue
		}
		for _, o := range ends {
			n += o
		}
	}
	return n
}
