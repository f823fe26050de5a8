package engine

import (
	"errors"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// createView stores a view: its query (checked by planning it) in
// canonical SQL, and its columns. Temporary views live in the session.
func (e *Engine) createView(s *ast.CreateView) (*cli.Result, error) {
	p := e.planner()
	q, err := planSelect(p, s.Query)
	if err != nil {
		return nil, err
	}
	cat, db := e.qualify(s.Name)
	if err := e.checkDatabase(cat, db, s.Name.Pos()); err != nil {
		return nil, err
	}
	name := s.Name.Last().Name
	fields := q.Schema.Fields
	if len(s.Columns) > 0 {
		if len(s.Columns) != len(fields) {
			return nil, sqlerr.Newf(sqlerr.InvalidArgument, "View '%s' lists %d columns, but its query returns %d", name, len(s.Columns), len(fields)).At(s.Name.Pos())
		}
		renamed := make([]types.Field, len(fields))
		for i, f := range fields {
			renamed[i] = types.Field{Name: s.Columns[i].Name, Type: f.Type}
		}
		fields = renamed
	}
	t := &catalog.Table{Catalog: cat, Database: db, Name: name, View: ast.Format(s.Query), Temporary: s.Temporary}
	if s.Comment != nil {
		t.Comment = s.Comment.Value
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.Name] {
			return nil, sqlerr.Newf(sqlerr.InvalidArgument, "View '%s' would have two columns named '%s'", name, f.Name).At(s.Name.Pos()).
				WithHint("give the columns distinct aliases in the query, or list the view's column names: CREATE VIEW %s (a, b, ...) AS ...", name)
		}
		seen[f.Name] = true
		t.Columns = append(t.Columns, catalog.Column{Name: f.Name, Type: catalog.Type{Type: f.Type}})
	}
	if err := e.cat.CreateTable(t); err != nil {
		if errors.Is(err, catalog.ErrExists) {
			if s.IfNotExists {
				return ok()
			}
			return nil, sqlerr.Newf(sqlerr.DuplicateObject, "Could not execute CreateView in path `%s`.`%s`.`%s`: Table (or view) %s.%s already exists in Catalog %s.", cat, db, name, db, name, cat).At(s.Name.Pos()).
				WithHint("use CREATE VIEW IF NOT EXISTS, or DROP VIEW %s first", name)
		}
		return nil, err
	}
	return ok()
}

// dropView drops a view; tables are dropped with DROP TABLE.
func (e *Engine) dropView(s *ast.DropView) (*cli.Result, error) {
	t, err := e.planner().ResolveTable(s.Name)
	if err != nil {
		if s.IfExists {
			return ok()
		}
		return nil, err
	}
	if t.View == "" {
		return nil, sqlerr.Newf(sqlerr.InvalidArgument, "'%s' is a table, not a view", t.Name).At(s.Name.Pos()).
			WithHint("drop it with DROP TABLE %s", t.Name)
	}
	if err := e.cat.DropTable(t.Catalog, t.Database, t.Name); err != nil {
		return nil, err
	}
	return ok()
}

// views lists the views of the current database, for SHOW VIEWS.
func (e *Engine) views() []string {
	var out []string
	for _, n := range e.cat.Tables(e.sess.Catalog, e.sess.Database) {
		if t, found := e.cat.Table(e.sess.Catalog, e.sess.Database, n); found && t.View != "" {
			out = append(out, n)
		}
	}
	return out
}

// notAView refuses writing into or dropping a view as a table.
func notAView(t *catalog.Table, pos sqlerr.Pos, what string) error {
	if t.View == "" {
		return nil
	}
	return sqlerr.Newf(sqlerr.InvalidArgument, "'%s' is a view: %s", t.Name, what).At(pos)
}

// qualify returns the catalog and database a one- to three-part object
// name lives in, defaulting to the session's.
func (e *Engine) qualify(n *ast.ObjectName) (cat, db string) {
	cat, db = e.sess.Catalog, e.sess.Database
	switch parts := n.Names(); len(parts) {
	case 2:
		db = parts[0]
	case 3:
		cat, db = parts[0], parts[1]
	}
	return cat, db
}
