package opt

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// joinConditionPush moves the parts of a join's condition that read only
// one side into that side, where that does not change which rows the join
// emits: both sides of an inner join; the side an outer join pads with
// NULLs (a row of it that fails the condition matches nothing either
// way); the subquery side of semi and anti joins, and the outer side of a
// semi join (an outer row failing the condition has no match). The side an
// outer join keeps, and the outer side of an anti join, keep their rows
// whatever the condition says, so their conditions stay in the join.
func joinConditionPush(r plan.Rel) plan.Rel {
	j, ok := r.(*plan.Join)
	if !ok || j.Residual == nil {
		return r
	}
	leftCols, rightCols := j.Left.Columns(), j.Right.Columns()
	nl := len(leftCols)
	var leftOK, rightOK bool
	switch j.Kind {
	case jobgraph.InnerJoin, jobgraph.SemiJoin:
		leftOK, rightOK = true, true
	case jobgraph.LeftJoin, jobgraph.AntiJoin:
		rightOK = true
	case jobgraph.RightJoin:
		leftOK = true
	}
	var keep, toLeft, toRight []expr.Expr
	for _, cond := range expr.Conjuncts(j.Residual) {
		cols, ok := pushable(cond)
		switch {
		case !ok:
			keep = append(keep, cond)
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
		if nj.Left, ok = filterOver(j.Left, toLeft, nil, true); !ok {
			return r
		}
	}
	if len(toRight) > 0 {
		if nj.Right, ok = filterOver(j.Right, toRight, nil, true); !ok {
			return r
		}
	}
	var err error
	if nj.Residual, err = expr.And(keep...); err != nil {
		return r
	}
	return &nj
}
