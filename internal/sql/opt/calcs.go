package opt

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// Helpers the rules share to build calcs.

// colRef references column i of cols.
func colRef(cols []plan.Column, i int) expr.Expr {
	x, err := expr.Col(i, cols[i].Name, cols[i].Type)
	if err != nil {
		panic("opt: " + err.Error()) // columns of a bound plan are valid
	}
	return x
}

// filterOver puts the conjunction of conds in a calc over in that keeps
// in's columns; prepares marks it as part of the input of the operator
// above (see plan.Calc.Prepares).
func filterOver(in plan.Rel, conds []expr.Expr, like *plan.Calc, prepares bool) (plan.Rel, bool) {
	f, err := expr.And(conds...)
	if err != nil {
		return nil, false
	}
	c := &plan.Calc{In: in, Filter: f, Cols: in.Columns(), Prepares: prepares}
	if like != nil {
		c.FilterPos, c.Pos = like.FilterPos, like.Pos
	}
	return c, true
}

// withFilter returns c with another filter (nil for none), or its input
// when nothing is left to do.
func withFilter(c *plan.Calc, in plan.Rel, conds []expr.Expr) (plan.Rel, bool) {
	f, err := expr.And(conds...)
	if err != nil {
		return nil, false
	}
	n := *c
	n.In, n.Filter = in, f
	return &n, true
}

// pushable reports whether a condition may move below another operator:
// it must be deterministic and the rewriter must see its columns.
func pushable(c expr.Expr) ([]int, bool) {
	cols, known := expr.Columns(c)
	if !known || len(cols) == 0 || !expr.IsDeterministic(c) {
		return nil, false
	}
	return cols, true
}

// remap substitutes column i of e by column to[i] of cols (to[i] < 0:
// the column is gone, which callers rule out).
func remap(e expr.Expr, to []int, cols []plan.Column) (expr.Expr, bool) {
	if e == nil {
		return nil, true
	}
	return expr.Substitute(e, func(i int) expr.Expr {
		if i >= len(to) || to[i] < 0 {
			return nil
		}
		if to[i] == i {
			return nil
		}
		return colRef(cols, to[i])
	})
}
