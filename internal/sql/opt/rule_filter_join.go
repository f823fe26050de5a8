package opt

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// filterIntoJoin pushes the conditions of a calc above a join that read
// only one side's columns below the join, into that side, where the side
// keeps all its rows: both sides of an inner join, the left side of a LEFT
// JOIN and of semi and anti joins, the right side of a RIGHT JOIN. A
// condition on the side that an outer join pads with NULLs stays above
// (below, it would keep the padded rows the condition removes).
// Conditions that are not deterministic stay where they are.
func filterIntoJoin(r plan.Rel) plan.Rel {
	c, ok := r.(*plan.Calc)
	if !ok || c.Filter == nil {
		return r
	}
	j, ok := c.In.(*plan.Join)
	if !ok {
		return r
	}
	leftCols, rightCols := j.Left.Columns(), j.Right.Columns()
	nl := len(leftCols)
	leftOK := j.Kind == jobgraph.InnerJoin || j.Kind == jobgraph.LeftJoin || j.Kind == jobgraph.SemiJoin || j.Kind == jobgraph.AntiJoin
	rightOK := j.Kind == jobgraph.InnerJoin || j.Kind == jobgraph.RightJoin
	var keep, toLeft, toRight []expr.Expr
	for _, cond := range expr.Conjuncts(c.Filter) {
		cols, ok := pushable(cond)
		if !ok {
			keep = append(keep, cond)
			continue
		}
		switch {
		case cols[len(cols)-1] < nl && leftOK:
			toLeft = append(toLeft, cond)
		case cols[0] >= nl && rightOK:
			to := make([]int, cols[len(cols)-1]+1)
			for i := range to {
				to[i] = i - nl
			}
			x, ok := remap(cond, to, rightCols)
			if !ok {
				keep = append(keep, cond)
				continue
			}
			toRight = append(toRight, x)
		default:
			keep = append(keep, cond)
		}
	}
	if len(toLeft) == 0 && len(toRight) == 0 {
		return r
	}
	nj := *j
	if len(toLeft) > 0 {
		if nj.Left, ok = filterOver(j.Left, toLeft, c, true); !ok {
			return r
		}
	}
	if len(toRight) > 0 {
		if nj.Right, ok = filterOver(j.Right, toRight, c, true); !ok {
			return r
		}
	}
	out, ok := withFilter(c, &nj, keep)
	if !ok {
		return r
	}
	return out
}
