package engine

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/artifact"
	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

func (e *Engine) createTable(ctx context.Context, s *ast.CreateTable) (*cli.Result, error) {
	p := e.planner()
	if s.Like != nil {
		if s.Query != nil {
			return nil, sqlerr.Newf(sqlerr.Syntax, "CREATE TABLE AS SELECT cannot have a LIKE clause").At(s.Like.Pos())
		}
		var err error
		if s, err = e.expandLike(p, s); err != nil {
			return nil, err
		}
	}
	var q *plan.QueryPlan
	var schema *types.Schema
	if s.Query != nil {
		var err error
		if q, err = planSelect(p, s.Query); err != nil {
			return nil, err
		}
		schema = q.Schema
		seen := map[string]bool{}
		for _, f := range schema.Fields {
			if seen[f.Name] {
				return nil, sqlerr.Newf(sqlerr.InvalidArgument, "The query of CREATE TABLE %s AS returns two columns named '%s'", s.Name, f.Name).At(s.Query.Pos()).
					WithHint("give the columns distinct aliases in the select list (SELECT a.k AS a_k, b.k AS b_k ...)")
			}
			seen[f.Name] = true
		}
	}
	t, err := p.TableFromDDL(s, schema)
	if err != nil {
		return nil, err
	}
	jobID := newID()
	if e.run != nil {
		jobID = e.run.jobID
	}
	replaced := false
	if existing, exists := e.cat.Table(t.Catalog, t.Database, t.Name); exists {
		res, err := e.existingTable(ctx, p, s, existing, jobID)
		if res != nil || err != nil {
			return res, err
		}
		// CREATE OR REPLACE: the old table is gone; create it anew.
		replaced = true
	}
	if s.Query != nil {
		t.Owner = "an interactive session"
		if e.run != nil && e.run.name != "" {
			t.Owner = "statement " + e.run.name
		}
	}
	note := ""
	if t.Connector() != "" {
		if note, err = e.createConnectorTable(ctx, p, t, s); err != nil {
			return nil, err
		}
	} else {
		t.Log = t.FullName() + "#" + newID()
		if err := e.logs.CreateLog(t.Log, t.Buckets()); err != nil {
			return nil, fmt.Errorf("creating the log of %s: %w", t.Name, err)
		}
	}
	if err := e.cat.CreateTable(t); err != nil {
		return nil, err
	}
	if s.Query == nil {
		if note != "" {
			return &cli.Result{Message: "Table '" + t.Name + "' has been created." + note}, nil
		}
		return ok()
	}
	ins, err := planInsert(p, t, ctasColumns(s, schema), s.Query, s.Query.Pos())
	if err != nil {
		_ = e.cat.DropTable(t.Catalog, t.Database, t.Name)
		if t.Log != "" {
			_ = e.logs.DropLog(t.Log)
		}
		return nil, err
	}
	if _, err := e.startJob(ctx, ins, false, jobID); err != nil {
		return nil, err
	}
	if replaced {
		return &cli.Result{Message: fmt.Sprintf("Table '%s' has been replaced and a job writing into it is running.", t.Name)}, nil
	}
	return &cli.Result{Message: fmt.Sprintf("Table '%s' has been created and a job writing into it is running.", t.Name)}, nil
}

// existingTable handles CREATE TABLE of a table that exists. A CTAS
// statement that created the table resumes writing into it (a durable
// statement restarting or replaced by a new version of itself); CREATE OR
// REPLACE drops the table unless another running job writes it; otherwise
// the statement fails as in Flink, so that no table ever gets a second
// CTAS writer. It returns (nil, nil) when the table was dropped and must
// be created anew.
func (e *Engine) existingTable(ctx context.Context, p *plan.Planner, s *ast.CreateTable, existing *catalog.Table, jobID string) (*cli.Result, error) {
	// Tables created before owners were recorded resume for the statement
	// that restarts.
	legacy := existing.Owner == "" && e.run != nil && e.run.resume
	if s.Query != nil && e.run != nil && e.run.name != "" && (existing.Owner == "statement "+e.run.name || legacy) {
		var cols []*ast.Ident
		if len(s.Columns) > 0 {
			q, err := planSelect(p, s.Query)
			if err != nil {
				return nil, err
			}
			cols = ctasColumns(s, q.Schema)
		}
		ins, err := planInsert(p, existing, cols, s.Query, s.Query.Pos())
		if err != nil {
			return nil, err
		}
		if _, err := e.startJob(ctx, ins, false, jobID); err != nil {
			return nil, err
		}
		return &cli.Result{Message: fmt.Sprintf("Resumed the job writing into '%s'.", existing.Name)}, nil
	}
	if s.IfNotExists {
		if s.Query == nil {
			return ok()
		}
		return &cli.Result{Message: fmt.Sprintf("Table '%s' already exists: nothing was created and no job was started.", existing.Name)}, nil
	}
	if s.OrReplace {
		if ws := e.tableWriters(existing.FullName()); len(ws) > 0 {
			return nil, sqlerr.Newf(sqlerr.DuplicateObject, "Table '%s' cannot be replaced: it is written by %s", existing.Name, strings.Join(ws, ", ")).At(s.Name.Pos()).
				WithHint("stop the statements that write %s first", existing.Name)
		}
		if _, err := e.dropTable(&ast.DropTable{Loc: s.Loc, Name: s.Name}); err != nil {
			return nil, err
		}
		return nil, nil
	}
	err := sqlerr.Newf(sqlerr.DuplicateObject, "Could not execute CreateTable in path `%s`.`%s`.`%s`: Table (or view) %s.%s already exists in Catalog %s.",
		existing.Catalog, existing.Database, existing.Name, existing.Database, existing.Name, existing.Catalog).At(s.Name.Pos())
	if s.Query != nil {
		return nil, err.WithHint("write into the existing table with INSERT INTO %s SELECT ..., replace it with CREATE OR REPLACE TABLE %s AS ..., or DROP TABLE %s first", existing.Name, existing.Name, existing.Name)
	}
	return nil, err.WithHint("use CREATE TABLE IF NOT EXISTS, or DROP TABLE %s first", existing.Name)
}

func (e *Engine) dropTable(s *ast.DropTable) (*cli.Result, error) {
	p := e.planner()
	t, err := p.ResolveTable(s.Name)
	if err != nil {
		if s.IfExists {
			return ok()
		}
		return nil, err
	}
	if err := notAView(t, s.Name.Pos(), "drop it with DROP VIEW "+t.Name); err != nil {
		return nil, err
	}
	if err := e.cat.DropTable(t.Catalog, t.Database, t.Name); err != nil {
		return nil, err
	}
	if t.Log != "" {
		if err := e.logs.DropLog(t.Log); err != nil {
			return nil, fmt.Errorf("dropping the log of %s: %w", t.Name, err)
		}
	}
	if note := e.droppedNote(t); note != "" {
		return &cli.Result{Message: fmt.Sprintf("Table '%s' has been dropped.%s", t.Name, note)}, nil
	}
	return ok()
}

func (e *Engine) insert(ctx context.Context, s *ast.Insert) (*cli.Result, error) {
	p := e.planner()
	t, err := p.ResolveTable(s.Table)
	if err != nil {
		return nil, err
	}
	if err := notAView(t, s.Table.Pos(), "views cannot be written; INSERT INTO a table"); err != nil {
		return nil, err
	}
	opts := plan.InsertOptionsOf(s)
	if v, isValues := s.Query.(*ast.Values); isValues {
		rows, err := p.PlanValuesWith(t, s.Columns, v, opts, s.Table.Pos())
		if err != nil {
			return nil, err
		}
		if t.Connector() != "" {
			var so connector.SinkOptions
			if so, err = p.InsertSinkOptions(t, opts, s.Table.Pos()); err == nil {
				err = e.writeConnector(ctx, p, t, so, rows, s.Table.Pos())
			}
		} else {
			err = e.appendRows(t, rows)
		}
		if err != nil {
			return nil, err
		}
		return &cli.Result{Message: fmt.Sprintf("Inserted %d rows into %s.", len(rows), t.Name)}, nil
	}
	q, err := planInsertWith(p, t, s.Columns, s.Query, s.Query.Pos(), opts)
	if err != nil {
		return nil, err
	}
	if _, err := e.startJob(ctx, q, false, ""); err != nil {
		return nil, err
	}
	verb := "INSERT INTO"
	if s.Overwrite {
		verb = "INSERT OVERWRITE"
	}
	return &cli.Result{Message: fmt.Sprintf("Submitted %s %s: the job runs in the background.", verb, t.Name)}, nil
}

func (e *Engine) query(ctx context.Context, q ast.Query, interactive bool) (*cli.Result, error) {
	p := e.planner()
	qp, err := planSelect(p, q)
	if err != nil {
		return nil, err
	}
	job, err := e.startJob(ctx, qp, !interactive, "")
	if err != nil {
		return nil, err
	}
	res := jobResult(job, qp.Schema, qp.Key, qp.Job.Limit)
	for _, k := range qp.Job.Sink.OrderBy {
		res.Rows.Order = append(res.Rows.Order, cli.SortKey{Col: k.Col, Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	return res, nil
}

var functionIDPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)*$`)

func (e *Engine) createFunction(s *ast.CreateFunction) (*cli.Result, error) {
	fromArtifact := len(s.Resources) > 0 && strings.HasPrefix(s.Resources[0].Path.Value, artifact.URIScheme)
	if len(s.Resources) > 0 && !fromArtifact {
		return nil, sqlerr.Newf(sqlerr.Unsupported, "USING JAR is not supported for '%s': Eddy runs process table functions written in Go, compiled into the eddy binary or uploaded as WebAssembly artifacts", s.Resources[0].Path.Value).
			At(s.Resources[0].Pos()).
			WithHint("drop the USING JAR clause and bind a registered function id, e.g. CREATE FUNCTION %s AS '%s'; or upload your function as a WebAssembly module (eddy artifact create NAME --artifact-file f.wasm) and bind it with USING JAR 'eddy-artifact://art-…' (see docs/artifacts.md)",
				s.Name.Last().Name, e.suggestID(s))
	}
	if l := strings.ToUpper(s.Language); l != "" && l != "JAVA" && l != "GO" {
		return nil, sqlerr.Newf(sqlerr.Unsupported, "LANGUAGE %s is not supported: functions are written in Go", s.Language).At(s.LanguagePos)
	}
	id := s.Identifier.Value
	_, isUDF := e.udfs.Lookup(id)
	if fromArtifact {
		if !functionIDPattern.MatchString(id) {
			return nil, sqlerr.Newf(sqlerr.UnknownFunction, "'%s' is not a function id", id).At(s.Identifier.Pos()).
				WithHint("ids are the dotted names the module registers, such as 'examples.OrderStatusTracker'")
		}
	} else if _, found := e.reg.Lookup(id); !found && !isUDF {
		err := sqlerr.Newf(sqlerr.UnknownFunction, "No function is registered under the id '%s' in this eddy binary", id).At(s.Identifier.Pos())
		if !functionIDPattern.MatchString(id) {
			return nil, err.WithHint("ids are dotted names such as 'examples.Median'; registered ids: %s", strings.Join(e.functionIDs(), ", "))
		}
		return nil, err.WithHint("registered ids: %s", strings.Join(e.functionIDs(), ", "))
	}
	cat, db := e.qualify(s.Name)
	if err := e.checkDatabase(cat, db, s.Name.Pos()); err != nil {
		return nil, err
	}
	f := &catalog.Function{Catalog: cat, Database: db, Name: s.Name.Last().Name, ID: id, Temporary: s.Temporary}
	if fromArtifact {
		if err := e.createArtifactFunction(s, f); err != nil {
			return nil, err
		}
	}
	if err := e.cat.CreateFunction(f); err != nil {
		if errors.Is(err, catalog.ErrExists) {
			if s.IfNotExists {
				return ok()
			}
			return nil, sqlerr.Newf(sqlerr.DuplicateObject, "Function '%s' already exists in %s.%s", f.Name, cat, db).At(s.Name.Pos()).
				WithHint("use CREATE FUNCTION IF NOT EXISTS, or DROP FUNCTION %s first", f.Name)
		}
		return nil, err
	}
	return ok()
}

// functionIDs lists the ids of the process table functions and the
// user-defined functions, sorted.
func (e *Engine) functionIDs() []string {
	ids := append(e.reg.IDs(), e.udfs.IDs()...)
	slices.Sort(ids)
	return ids
}

// checkDatabase returns a positioned error unless catalog cat has database
// db.
func (e *Engine) checkDatabase(cat, db string, pos sqlerr.Pos) error {
	if !e.cat.HasCatalog(cat) {
		return sqlerr.Newf(sqlerr.UnknownCatalog, "Catalog '%s' does not exist", cat).At(pos).
			WithHint("create it with CREATE CATALOG %s, or see SHOW CATALOGS", cat)
	}
	if !e.cat.HasDatabase(cat, db) {
		return sqlerr.Newf(sqlerr.UnknownDatabase, "Database '%s' does not exist in catalog '%s'", db, cat).At(pos).
			WithHint("create it with CREATE DATABASE %s.%s, or see SHOW DATABASES", cat, db)
	}
	return nil
}

// suggestID returns the registered id that a CREATE FUNCTION ... USING JAR
// most likely means: examples.<Class> for the class named by AS, or
// examples.<Name> for the function's name, or any registered id.
func (e *Engine) suggestID(s *ast.CreateFunction) string {
	class := s.Identifier.Value
	if i := strings.LastIndex(class, "."); i >= 0 {
		class = class[i+1:]
	}
	for _, name := range []string{class, s.Name.Last().Name} {
		if _, ok := e.reg.Lookup("examples." + name); ok {
			return "examples." + name
		}
	}
	if ids := e.reg.IDs(); len(ids) > 0 {
		return ids[0]
	}
	return "examples.Median"
}

func (e *Engine) dropFunction(s *ast.DropFunction) (*cli.Result, error) {
	cat, db := e.qualify(s.Name)
	if err := e.cat.DropFunction(cat, db, s.Name.Last().Name); err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			if s.IfExists {
				return ok()
			}
			return nil, sqlerr.Newf(sqlerr.UnknownFunction, "Function '%s' does not exist", s.Name).At(s.Name.Pos())
		}
		return nil, err
	}
	return ok()
}

var resultModes = map[string]bool{"table": true, "changelog": true, "tableau": true}

func (e *Engine) set(s *ast.Set) (*cli.Result, error) {
	if s.Key == nil {
		var rows [][]string
		for _, k := range sortedKeys(e.sess.Config) {
			rows = append(rows, []string{k, e.sess.Config[k]})
		}
		return staticResult(stringSchema("key", "value"), stringRows(rows)), nil
	}
	k, v := s.Key.Value, s.Value.Value
	switch k {
	case "sql-client.execution.result-mode":
		if !resultModes[strings.ToLower(v)] {
			return nil, sqlerr.Newf(sqlerr.InvalidOption, "Invalid result mode '%s'", v).At(s.Value.Pos()).
				WithHint("use 'table', 'changelog' or 'tableau'")
		}
		v = strings.ToLower(v)
	case plan.LocalTimeZoneKey:
		if _, err := plan.ParseLocalTimeZone(v); err != nil {
			return nil, sqlerr.Newf(sqlerr.InvalidOption, "%v", err).At(s.Value.Pos())
		}
	case "table.exec.state.ttl":
		if _, err := plan.ParseDuration(v); err != nil {
			return nil, sqlerr.Newf(sqlerr.InvalidOption, "Invalid '%s': %v", k, err).At(s.Value.Pos())
		}
	case plan.MiniBatchEnabledKey, plan.MiniBatchLatencyKey, plan.MiniBatchSizeKey:
		if err := plan.ParseMiniBatchOption(k, v); err != nil {
			var se *sqlerr.Error
			if errors.As(err, &se) {
				return nil, se.At(s.Value.Pos())
			}
			return nil, err
		}
	case expr.NotNullEnforcerKey:
		if _, ok := expr.ParseNotNullEnforcer(v); !ok || v == "" {
			return nil, sqlerr.Newf(sqlerr.InvalidOption, "Invalid '%s' = '%s'", k, v).At(s.Value.Pos()).
				WithHint("use 'ERROR' (the default: a NULL written into a NOT NULL column fails the statement) or 'DROP' (such rows are dropped)")
		}
		v = strings.ToUpper(v)
	case expr.TypeLengthEnforcerKey:
		if _, ok := expr.ParseLengthEnforcer(v); !ok || v == "" {
			return nil, sqlerr.Newf(sqlerr.InvalidOption, "Invalid '%s' = '%s'", k, v).At(s.Value.Pos()).
				WithHint("use 'IGNORE' (the default: values are written unchanged), 'TRIM_PAD' (cut to the column length, pad CHAR) or 'ERROR'")
		}
		v = strings.ToUpper(v)
	}
	e.sess.Config[k] = v
	return &cli.Result{Message: "Session property has been set."}, nil
}

func (e *Engine) reset(s *ast.Reset) (*cli.Result, error) {
	if s.Key == nil {
		e.sess.Config = map[string]string{}
	} else {
		delete(e.sess.Config, s.Key.Value)
	}
	return &cli.Result{Message: "Session property has been reset."}, nil
}

// ctasColumns returns the target columns of the INSERT of CREATE TABLE ...
// AS SELECT: nil (all, by position) unless the CREATE part declares
// columns, which may come before the query's (FLIP-463); then the query's
// column names.
func ctasColumns(s *ast.CreateTable, query *types.Schema) []*ast.Ident {
	if len(s.Columns) == 0 {
		return nil
	}
	cols := make([]*ast.Ident, 0, query.Len())
	for _, f := range query.Fields {
		cols = append(cols, &ast.Ident{Loc: ast.Loc{Start: s.Query.Pos()}, Name: f.Name})
	}
	return cols
}
