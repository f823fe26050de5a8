package plan

import (
	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/parser"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// cte is a named query of a WITH clause in scope.
type cte struct {
	def *ast.CTE
}

// planWith plans WITH ... body: the named queries are inlined where the
// body (or a later named query) reads them, as Flink does.
func (p *Planner) planWith(w *ast.With, st *stmt) (*frag, error) {
	saved := len(p.ctes)
	defer func() { p.ctes = p.ctes[:saved] }()
	for _, c := range w.CTEs {
		for _, o := range p.ctes[saved:] {
			if o.def.Name.Name == c.Name.Name {
				return nil, errAt(c.Name.Pos(), sqlerr.DuplicateObject, "The query name '%s' is defined twice in WITH", c.Name.Name)
			}
		}
		p.ctes = append(p.ctes, cte{def: c})
	}
	return p.planQuery(w.Body, st)
}

// lookupCTE finds the named query a one-part table name refers to; the
// innermost (latest) definition wins.
func (p *Planner) lookupCTE(n *ast.ObjectName) (int, bool) {
	if len(n.Parts) != 1 {
		return 0, false
	}
	for i := len(p.ctes) - 1; i >= 0; i-- {
		if p.ctes[i].def.Name.Name == n.Parts[0].Name {
			return i, true
		}
	}
	return 0, false
}

// planCTE plans a reference to named query i: its query sees only the
// named queries defined before it.
func (p *Planner) planCTE(i int, alias *ast.Alias, st *stmt) (*frag, error) {
	saved := p.ctes
	p.ctes = p.ctes[:i:i]
	defer func() { p.ctes = saved }()
	c := saved[i].def
	f, err := p.planQuery(c.Query, st)
	if err != nil {
		return nil, err
	}
	if err := applyAlias(f, &ast.Alias{Name: c.Name, Columns: c.Columns}); err != nil {
		return nil, err
	}
	return f, applyAlias(f, alias)
}

// planView plans a reference to a view: its query, parsed from the
// catalog, planned without the named queries of the referencing query.
func (p *Planner) planView(t *catalog.Table, n *ast.TableName, st *stmt) (*frag, error) {
	stmt, err := parser.ParseStatement(t.View)
	if err != nil {
		return nil, errAt(n.Pos(), sqlerr.Internal, "The query of view '%s' cannot be parsed: %v", t.Name, err)
	}
	q, ok := stmt.(ast.Query)
	if !ok {
		return nil, errAt(n.Pos(), sqlerr.Internal, "The query of view '%s' is not a query", t.Name)
	}
	saved := p.ctes
	p.ctes = nil
	defer func() { p.ctes = saved }()
	if p.viewDepth++; p.viewDepth > 32 {
		return nil, errAt(n.Pos(), sqlerr.InvalidArgument, "View '%s' refers to itself through other views", t.Name)
	}
	defer func() { p.viewDepth-- }()
	f, err := p.planQuery(q, st)
	if err != nil {
		return nil, err
	}
	var cols []*ast.Ident
	for _, c := range t.Columns {
		cols = append(cols, &ast.Ident{Name: c.Name})
	}
	if len(cols) != len(f.sc.cols) {
		return nil, errAt(n.Pos(), sqlerr.InvalidArgument, "View '%s' declares %d columns, but its query now returns %d; create the view again", t.Name, len(cols), len(f.sc.cols))
	}
	if err := applyAlias(f, &ast.Alias{Name: &ast.Ident{Name: t.Name}, Columns: cols}); err != nil {
		return nil, err
	}
	return f, applyAlias(f, n.Alias)
}
