package table

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// Option configures an Environment.
type Option func(*config)

type config struct {
	dataDir   string
	funcs     map[string]*ptf.Definition
	examples  bool
	wasmCache string
}

// WithWasmCacheDir caches compiled function modules (UploadArtifact) in
// dir instead of the data directory.
func WithWasmCacheDir(dir string) Option { return func(c *config) { c.wasmCache = dir } }

// WithDataDir keeps tables and state in dir; without it everything lives
// in memory and disappears with the Environment.
func WithDataDir(dir string) Option { return func(c *config) { c.dataDir = dir } }

// WithFunctions registers functions by id for CREATE FUNCTION.
func WithFunctions(funcs map[string]*ptf.Definition) Option {
	return func(c *config) {
		for id, d := range funcs {
			c.funcs[id] = d
		}
	}
}

// WithoutExamples leaves the examples.* functions out of the registry.
func WithoutExamples() Option { return func(c *config) { c.examples = false } }

// Environment is a session on the embedded engine. It is safe for
// concurrent use; statements run one at a time.
type Environment struct {
	mu    sync.Mutex
	eng   *engine.Engine
	reg   *ptf.Registry
	bound map[*ptf.Definition]string
}

// New opens an environment.
func New(ctx context.Context, opts ...Option) (*Environment, error) {
	c := &config{funcs: map[string]*ptf.Definition{}, examples: true}
	for _, o := range opts {
		o(c)
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
	eng, err := engine.Open(ctx, engine.Options{DataDir: c.dataDir, Registry: reg, WasmCacheDir: c.wasmCache})
	if err != nil {
		return nil, err
	}
	return &Environment{eng: eng, reg: reg, bound: map[*ptf.Definition]string{}}, nil
}

// Close stops running statements and closes the data directory.
func (e *Environment) Close() error { return e.eng.Close() }

// ExecuteSQL runs one SQL statement. Statements that return rows (SELECT,
// SHOW) return them in the Result; a SELECT is a snapshot of its inputs.
func (e *Environment) ExecuteSQL(ctx context.Context, sql string) (*Result, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.execute(ctx, sql)
}

func (e *Environment) execute(ctx context.Context, sql string) (*Result, error) {
	r, err := e.eng.Execute(ctx, sql, false)
	if err != nil {
		return nil, err
	}
	return &Result{Message: r.Message, stream: r.Rows}, nil
}

// functionName binds def to a SQL name, registering it if needed.
func (e *Environment) functionName(ctx context.Context, def *ptf.Definition) (string, error) {
	if name, ok := e.bound[def]; ok {
		return name, nil
	}
	id := ""
	for _, known := range e.reg.IDs() {
		if d, _ := e.reg.Lookup(known); d == def {
			id = known
			break
		}
	}
	if id == "" {
		id = fmt.Sprintf("tableapi.f%d", len(e.bound))
		if err := e.reg.Register(id, def); err != nil {
			return "", err
		}
	}
	name := id[strings.LastIndexByte(id, '.')+1:]
	if _, err := e.execute(ctx, fmt.Sprintf("CREATE TEMPORARY FUNCTION IF NOT EXISTS %s AS '%s'", ast.QuoteIdent(name), id)); err != nil {
		return "", err
	}
	e.bound[def] = name
	return name, nil
}

// From starts a pipeline from a table.
func (e *Environment) From(name string) *Table { return &Table{env: e, from: name} }

// Argument is a named scalar argument of a function call.
type Argument struct {
	name string
	sql  string
}

// Literal is a constant value waiting for an argument name.
type Literal struct{ sql string }

// Lit returns a literal of a Go value: int, int64, float64, string, bool,
// or a types.Value (rendered with its own type).
func Lit(v any) Literal {
	switch x := v.(type) {
	case int:
		return Literal{fmt.Sprint(x)}
	case int64:
		return Literal{fmt.Sprintf("CAST(%d AS BIGINT)", x)}
	case float64:
		return Literal{fmt.Sprintf("CAST(%v AS DOUBLE)", x)}
	case string:
		return Literal{ast.QuoteString(x)}
	case bool:
		return Literal{strings.ToUpper(fmt.Sprint(x))}
	case types.Value:
		return Literal{types.FormatSQL(x, x.InferType())}
	}
	return Literal{fmt.Sprintf("'%v'", v)}
}

// As names the argument, like Flink's asArgument.
func (l Literal) As(name string) Argument { return Argument{name: name, sql: l.sql} }

// Descriptor is DESCRIPTOR(cols...) for an argument such as on_time.
func Descriptor(name string, cols ...string) Argument {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = ast.QuoteIdent(c)
	}
	return Argument{name: name, sql: "DESCRIPTOR(" + strings.Join(q, ", ") + ")"}
}

// Table is a table or the result of a function call, not yet executed.
type Table struct {
	env       *Environment
	from      string
	partition []string
	call      *call
	err       error
}

type call struct {
	input *Table
	def   *ptf.Definition
	args  []Argument
}

// PartitionBy partitions the table for a set-semantic function argument.
func (t *Table) PartitionBy(cols ...string) *Table {
	c := *t
	c.partition = cols
	return &c
}

// Process calls def with this table as its (first) table argument.
func (t *Table) Process(def *ptf.Definition, args ...Argument) *Table {
	return &Table{env: t.env, call: &call{input: t, def: def, args: args}}
}

func (t *Table) tableArgSQL() (string, error) {
	if t.call != nil {
		return "", fmt.Errorf("table: a function result cannot be passed to another function yet")
	}
	s := "TABLE " + t.from
	if len(t.partition) > 0 {
		q := make([]string, len(t.partition))
		for i, c := range t.partition {
			q[i] = ast.QuoteIdent(c)
		}
		s += " PARTITION BY (" + strings.Join(q, ", ") + ")"
	}
	return s, nil
}

// sql renders the query; it registers functions as needed.
func (t *Table) sql(ctx context.Context) (string, error) {
	if t.call == nil {
		return "SELECT * FROM " + t.from, nil
	}
	name, err := t.env.functionName(ctx, t.call.def)
	if err != nil {
		return "", err
	}
	tables := t.call.def.TableArgs()
	if len(tables) != 1 {
		return "", fmt.Errorf("table: Process supports functions with exactly one table argument, %s has %d", name, len(tables))
	}
	in, err := t.call.input.tableArgSQL()
	if err != nil {
		return "", err
	}
	parts := []string{tables[0].Name + " => " + in}
	for _, a := range t.call.args {
		parts = append(parts, a.name+" => "+a.sql)
	}
	return fmt.Sprintf("SELECT * FROM %s(%s)", ast.QuoteIdent(name), strings.Join(parts, ", ")), nil
}

// SQL returns the statement the pipeline runs as.
func (t *Table) SQL(ctx context.Context) (string, error) {
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	return t.sql(ctx)
}

// Execute runs the pipeline as a snapshot query and returns its rows.
func (t *Table) Execute(ctx context.Context) (*Result, error) {
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	q, err := t.sql(ctx)
	if err != nil {
		return nil, err
	}
	return t.env.execute(ctx, q)
}

// InsertInto runs INSERT INTO target with the pipeline's rows, as a
// background job of the environment.
func (t *Table) InsertInto(ctx context.Context, target string) error {
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	q, err := t.sql(ctx)
	if err != nil {
		return err
	}
	_, err = t.env.execute(ctx, "INSERT INTO "+target+" "+q)
	return err
}

// Result is the outcome of a statement.
type Result struct {
	// Message is set for statements without rows.
	Message string
	stream  *cli.RowStream
}

// Schema returns the columns of the rows, or nil.
func (r *Result) Schema() *types.Schema {
	if r.stream == nil {
		return nil
	}
	return r.stream.Schema
}

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
