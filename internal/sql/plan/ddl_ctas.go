package plan

import (
	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// addQueryColumns builds the columns of CREATE TABLE ... AS SELECT with
// Flink 2's schema definition (FLIP-463): columns declared in the CREATE
// part that the query does not return come first (the query leaves them
// NULL), then the query's columns in its order; a declared column of the
// same name as a query column keeps the query's position but takes the
// declared type (the query's value is cast to it as by INSERT) and
// comment.
func (p *Planner) addQueryColumns(t *catalog.Table, ct *ast.CreateTable, query *types.Schema) error {
	declared := map[string]*ast.ColumnDef{}
	var fresh []*ast.ColumnDef
	for _, c := range ct.Columns {
		if query.Index(c.Name.Name) < 0 {
			fresh = append(fresh, c)
			continue
		}
		if _, dup := declared[c.Name.Name]; dup {
			return errAt(c.Pos(), sqlerr.DuplicateObject, "Column '%s' is declared twice", c.Name.Name)
		}
		if c.Kind != ast.PhysicalColumn {
			return errAt(c.Pos(), sqlerr.InvalidArgument, "A column named '%s' already exists in the source schema: a %s column cannot replace it", c.Name.Name, c.Kind).
				WithHint("give the %s column another name, or alias the query's column", c.Kind)
		}
		declared[c.Name.Name] = c
	}
	for _, f := range query.Fields {
		col := catalog.Column{Name: f.Name, Type: catalog.Type{Type: f.Type}, Kind: catalog.Physical}
		if d := declared[f.Name]; d != nil {
			col.Type = catalog.Type{Type: d.Type.Type}
			if d.Comment != nil {
				col.Comment = d.Comment.Value
			}
			if d.PrimaryKey {
				if len(t.PrimaryKey) > 0 {
					return errAt(d.Pos(), sqlerr.InvalidArgument, "A table can have only one primary key")
				}
				t.PrimaryKey = []string{f.Name}
			}
		}
		t.Columns = append(t.Columns, col)
	}
	n := len(t.Columns)
	cf := *ct
	cf.Columns = fresh
	if err := p.addColumns(t, &cf); err != nil {
		return err
	}
	// The new columns go first.
	t.Columns = append(t.Columns[n:], t.Columns[:n]...)
	return nil
}
