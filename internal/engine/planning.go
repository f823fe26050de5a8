package engine

import (
	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/opt"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// planSelect plans a query whose rows go back to the client: the binder
// (package plan) builds its logical plan, package opt optimizes it into a
// job.
func planSelect(p *plan.Planner, q ast.Query) (*plan.QueryPlan, error) {
	b, err := p.BindSelect(q)
	if err != nil {
		return nil, err
	}
	return opt.Optimize(b)
}

// planInsert plans the insert of CREATE TABLE AS SELECT into t [(cols)]:
// the table is the query's own, so its primary key is not checked against
// the query's upsert key (CTAS has no ON CONFLICT clause).
func planInsert(p *plan.Planner, t *catalog.Table, cols []*ast.Ident, q ast.Query, pos sqlerr.Pos) (*plan.QueryPlan, error) {
	return planInsertWith(p, t, cols, q, pos, plan.InsertOptions{CreateTableAs: true})
}

// planInsertWith is planInsert with the options of the INSERT (OVERWRITE,
// static partitions).
func planInsertWith(p *plan.Planner, t *catalog.Table, cols []*ast.Ident, q ast.Query, pos sqlerr.Pos, o plan.InsertOptions) (*plan.QueryPlan, error) {
	b, err := p.BindInsertWith(t, cols, q, pos, o)
	if err != nil {
		return nil, err
	}
	return opt.Optimize(b)
}
