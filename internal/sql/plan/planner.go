package plan

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/parser"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
)

// Session is the SQL session a statement is planned in.
type Session struct {
	Catalog  string
	Database string
	// Config holds SET options.
	Config map[string]string
	// PlanVersion is the plan version statements are planned with (see
	// LatestPlan); 0 plans with the latest. A resumed durable statement
	// keeps the version it was created with.
	PlanVersion int
}

// Planner plans statements of one session. It is not safe for concurrent
// use.
type Planner struct {
	Catalog  *catalog.Catalog
	Registry *ptf.Registry
	// UDFs are the user-defined scalar, table and aggregate functions
	// CREATE FUNCTION can bind; nil has none.
	UDFs *udf.Registry
	// Connectors holds the connector factories tables name with
	// 'connector'.
	Connectors *connector.Registry
	Session    *Session
	// Now is the statement clock: it stamps the creation time of
	// 'datagen' tables (nil leaves it unset: generated times then count
	// from the epoch) and the current-time functions read it for each
	// row (nil: they see the planning time).
	Now func() time.Time
	// env is the environment of built-in calls over Now; envZone the
	// 'table.local-time-zone' it was made for.
	env     *builtinCall
	envZone string
	// Artifacts resolves a function bound to an artifact (CREATE FUNCTION
	// ... USING JAR 'eddy-artifact://...'); nil refuses such functions.
	Artifacts func(f *catalog.Function) (*ptf.Definition, error)

	required ptf.ChangelogMode
	// ctes are the named queries of the WITH clauses in scope.
	ctes []cte
	// viewDepth counts the views being expanded (cycle guard).
	viewDepth int
	// allowLimit is set while the next SELECT planned is the outermost
	// one of a query whose rows go to the client.
	allowLimit bool
	// ttlHints are the STATE_TTL hints of the SELECT being planned
	// (hint_ttl.go).
	ttlHints *ttlHints
}

// QueryPlan is a planned query or insert.
type QueryPlan struct {
	Job    *jobgraph.Job
	Schema *types.Schema
	Mode   jobgraph.Mode
	// Key holds the upsert or primary key positions in Schema, if known.
	Key []int
	// Changelog is the exact changelog of the rows (Mode names only the
	// encoding): it tells, for example, retract-no-delete from retract.
	Changelog ptf.ChangelogMode
	// Version is the plan version the job was planned with.
	Version int
	// Logical is the bound plan and Optimized the plan the job was
	// translated from (after rewrites and changelog inference), for
	// EXPLAIN.
	Logical, Optimized *Bound
}

// qualify splits a possibly qualified name into catalog, database, name.
func (p *Planner) qualify(n *ast.ObjectName) (cat, db, name string, err error) {
	parts := n.Names()
	cat, db = p.Session.Catalog, p.Session.Database
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		db, name = parts[0], parts[1]
	case 3:
		cat, db, name = parts[0], parts[1], parts[2]
	default:
		return "", "", "", errAt(n.Pos(), sqlerr.Syntax, "Invalid name %s: use [catalog.][database.]name", n)
	}
	return cat, db, name, nil
}

// ResolveTable finds a table in the catalog.
func (p *Planner) ResolveTable(n *ast.ObjectName) (*catalog.Table, error) {
	cat, db, name, err := p.qualify(n)
	if err != nil {
		return nil, err
	}
	if t, ok := p.Catalog.Table(cat, db, name); ok {
		return t, nil
	}
	if err := p.checkDatabase(cat, db, n.Pos()); err != nil {
		return nil, err
	}
	e := errAt(n.Pos(), sqlerr.UnknownTable, "Table '%s' not found in %s.%s", n, cat, db)
	if tables := p.Catalog.Tables(cat, db); len(tables) > 0 {
		e.WithHint("tables here: %s%s", strings.Join(tables, ", "), suggest(name, tables))
	} else {
		e.WithHint("create it first with CREATE TABLE %s (...)", name)
	}
	return nil, e
}

// checkDatabase returns a positioned error unless catalog cat has database
// db.
func (p *Planner) checkDatabase(cat, db string, pos sqlerr.Pos) error {
	if !p.Catalog.HasCatalog(cat) {
		return errAt(pos, sqlerr.UnknownCatalog, "Catalog '%s' does not exist", cat).
			WithHint("create it with CREATE CATALOG %s, or see SHOW CATALOGS", cat)
	}
	if !p.Catalog.HasDatabase(cat, db) {
		return errAt(pos, sqlerr.UnknownDatabase, "Database '%s' does not exist in catalog '%s'", db, cat).
			WithHint("create it with CREATE DATABASE %s.%s, or see SHOW DATABASES", cat, db)
	}
	return nil
}

// ResolveFunction finds a PTF by SQL name.
func (p *Planner) ResolveFunction(n *ast.ObjectName) (string, *ptf.Definition, error) {
	cat, db, name, err := p.qualify(n)
	if err != nil {
		return "", nil, err
	}
	f, ok := p.Catalog.Function(cat, db, name)
	if !ok {
		if be := builtinTableFunctionError(name, n.Pos()); be != nil && len(n.Parts) == 1 {
			return "", nil, be
		}
		e := errAt(n.Pos(), sqlerr.UnknownFunction, "Function '%s' not found in %s.%s", n, cat, db)
		if _, known := p.Registry.Lookup("examples." + name); known {
			e.WithHint("register it first: CREATE FUNCTION %s AS 'examples.%s'", name, name)
		} else if fns := p.Catalog.Functions(cat, db); len(fns) > 0 {
			e.WithHint("functions here: %s%s", strings.Join(fns, ", "), suggest(name, fns))
		} else {
			e.WithHint("register a function with CREATE FUNCTION %s AS '<id>'; available ids: %s", name, strings.Join(p.Registry.IDs(), ", "))
		}
		return "", nil, e
	}
	if f.Artifact != "" {
		if p.Artifacts == nil {
			return "", nil, errAt(n.Pos(), sqlerr.UnknownFunction, "Function '%s' is bound to artifact %s, which this engine cannot load", name, f.Artifact)
		}
		def, err := p.Artifacts(f)
		if err != nil {
			if se, ok := sqlerr.As(err); ok {
				return "", nil, se.At(n.Pos())
			}
			return "", nil, errAt(n.Pos(), sqlerr.UnknownFunction, "Function '%s' cannot be loaded from artifact %s: %v", name, f.Artifact, err)
		}
		return f.ID, def, nil
	}
	def, ok := p.Registry.Lookup(f.ID)
	if !ok {
		return "", nil, errAt(n.Pos(), sqlerr.UnknownFunction, "Function '%s' is bound to '%s', which this eddy binary does not have", name, f.ID).
			WithHint("build a binary with the function compiled in (eddy.Main(eddy.WithFunctions(...))) or drop the function")
	}
	return f.ID, def, nil
}

// stateTTL returns 'table.exec.state.ttl' in nanoseconds.
func (p *Planner) stateTTL() (int64, error) {
	s := p.Session.Config["table.exec.state.ttl"]
	if s == "" {
		return 0, nil
	}
	d, err := ParseDuration(s)
	if err != nil {
		return 0, sqlerr.Newf(sqlerr.InvalidOption, "Invalid 'table.exec.state.ttl' = '%s': %v", s, err)
	}
	return int64(d), nil
}

// addInput adds a table as an input of the job.
func (p *Planner) addInput(job *jobgraph.Job, t *catalog.Table, pos sqlerr.Pos) (int, error) {
	in := jobgraph.Input{
		Table: t.FullName(), Log: t.Log, Partitions: t.Buckets(),
		Physical: t.PhysicalSchema(), Schema: t.Schema(), Mode: p.TableMode(t),
	}
	if t.Connector() != "" {
		if err := p.source(&in, t, pos); err != nil {
			return 0, err
		}
	}
	cols, used, err := p.tableColumns(t)
	if err != nil {
		return 0, err
	}
	in.Columns, in.MetaUsed = cols, used
	for _, k := range t.PrimaryKey {
		in.Key = append(in.Key, t.ColumnIndex(k))
	}
	if t.Watermark != nil {
		wm, err := watermarkExpr(t)
		if err != nil {
			return 0, err
		}
		in.Watermark = &jobgraph.Watermark{Column: t.ColumnIndex(t.Watermark.Column), Expr: wm}
	}
	job.Inputs = append(job.Inputs, in)
	return len(job.Inputs) - 1, nil
}

// tableColumns returns the expressions that compute the full row from the
// stored row plus metadata, or nil when every column is physical.
func (p *Planner) tableColumns(t *catalog.Table) ([]expr.Expr, uint16, error) {
	phys := t.PhysicalSchema()
	if phys.Len() == len(t.Columns) {
		return nil, 0, nil
	}
	var used uint16
	sc := scopeOf(phys, t.Name)
	var out []expr.Expr
	pi := 0
	for _, c := range t.Columns {
		switch c.Kind {
		case catalog.Physical:
			x, err := expr.Col(pi, c.Name, c.Type.Type)
			if err != nil {
				return nil, 0, err
			}
			out = append(out, x)
			pi++
		case catalog.Computed:
			e, err := parseStoredExpr(c.Expr)
			if err != nil {
				return nil, 0, fmt.Errorf("parsing computed column %s: %w", c.Name, err)
			}
			x, err := bindExpr(e, sc)
			if err != nil {
				return nil, 0, err
			}
			out = append(out, x)
		case catalog.Metadata:
			key := metadataKey(c)
			m, ok := p.metadataOf(t, key)
			if !ok {
				return nil, 0, fmt.Errorf("table %s: unknown metadata key %q", t.Name, key)
			}
			used |= 1 << m.Slot
			x, err := expr.Col(phys.Len()+m.Slot, key, m.Type)
			if err != nil {
				return nil, 0, err
			}
			if !x.Type().Same(c.Type.Type) {
				if x, err = expr.Cast(x, c.Type.Type, false); err != nil {
					return nil, 0, err
				}
			}
			out = append(out, x)
		}
	}
	return out, used, nil
}

// watermarkExpr binds the stored watermark expression over the full row.
func watermarkExpr(t *catalog.Table) (expr.Expr, error) {
	e, err := parseStoredExpr(t.Watermark.Expr)
	if err != nil {
		return nil, fmt.Errorf("parsing watermark of %s: %w", t.Name, err)
	}
	if isSourceWatermark(e) {
		e = sourceWatermarkOf(t.Watermark.Column)
	}
	return bindExpr(e, scopeOf(t.Schema(), t.Name))
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// parseStoredExpr parses an expression stored in the catalog (computed
// columns, watermarks), which was validated when the table was created.
func parseStoredExpr(src string) (ast.Expr, error) {
	st, err := parser.ParseStatement("SELECT " + src + " FROM t")
	if err != nil {
		return nil, err
	}
	sel, ok := st.(*ast.Select)
	if !ok || len(sel.Items) != 1 {
		return nil, fmt.Errorf("not a single expression: %s", src)
	}
	return sel.Items[0].Expr, nil
}
