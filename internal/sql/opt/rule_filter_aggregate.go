package opt

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// filterIntoAggregate pushes the conditions of a calc above a GROUP BY
// that read only group keys (HAVING k > 1) below it: a group the condition
// removes is never built.
func filterIntoAggregate(r plan.Rel) plan.Rel {
	c, ok := r.(*plan.Calc)
	if !ok || c.Filter == nil {
		return r
	}
	a, ok := c.In.(*plan.Aggregate)
	if !ok || len(a.Keys) == 0 {
		return r
	}
	in := a.In.Columns()
	var keep, push []expr.Expr
	for _, cond := range expr.Conjuncts(c.Filter) {
		cols, ok := pushable(cond)
		if !ok || cols[len(cols)-1] >= len(a.Keys) {
			keep = append(keep, cond)
			continue
		}
		x, ok := remap(cond, a.Keys, in)
		if !ok {
			keep = append(keep, cond)
			continue
		}
		push = append(push, x)
	}
	if len(push) == 0 {
		return r
	}
	na := *a
	if na.In, ok = filterOver(a.In, push, c, true); !ok {
		return r
	}
	out, ok := withFilter(c, &na, keep)
	if !ok {
		return r
	}
	return out
}
