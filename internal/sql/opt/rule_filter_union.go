package opt

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// filterIntoUnion pushes the deterministic conditions of a calc above a
// UNION ALL into each of its inputs.
func filterIntoUnion(r plan.Rel) plan.Rel {
	c, ok := r.(*plan.Calc)
	if !ok || c.Filter == nil {
		return r
	}
	u, ok := c.In.(*plan.Union)
	if !ok {
		return r
	}
	var keep, push []expr.Expr
	for _, cond := range expr.Conjuncts(c.Filter) {
		if _, ok := pushable(cond); ok {
			push = append(push, cond)
		} else {
			keep = append(keep, cond)
		}
	}
	if len(push) == 0 {
		return r
	}
	nu := *u
	nu.Ins = make([]plan.Rel, len(u.Ins))
	for i, in := range u.Ins {
		// The inputs have the union's column types, possibly NOT NULL
		// where the union's are nullable: the condition reads them as it
		// reads the union's rows.
		if nu.Ins[i], ok = filterOver(in, push, c, true); !ok {
			return r
		}
	}
	out, ok := withFilter(c, &nu, keep)
	if !ok {
		return r
	}
	return out
}
