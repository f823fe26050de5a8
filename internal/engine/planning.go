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

// planInsert plans INSERT INTO t [(cols)] query (also the insert of CREATE
// TABLE AS SELECT).
func planInsert(p *plan.Planner, t *catalog.Table, cols []*ast.Ident, q ast.Query, pos sqlerr.Pos) (*plan.QueryPlan, error) {
	return planInsertWith(p, t, cols, q, pos, plan.InsertOptions{})
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
