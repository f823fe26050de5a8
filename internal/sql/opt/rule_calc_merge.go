package opt

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// calcMerge merges a calc into the calc below it: one operator filters by
// both conditions and computes the upper projection over the lower one's
// input (Flink's FlinkCalcMergeRule). It does not merge when that would
// evaluate a non-deterministic expression of the lower projection more
// than once per row, or repeat an expensive one; nor when an expression is
// opaque to the rewriter.
func calcMerge(r plan.Rel) plan.Rel {
	top, ok := r.(*plan.Calc)
	if !ok {
		return r
	}
	bot, ok := top.In.(*plan.Calc)
	if !ok {
		return r
	}
	filter, project := top.Filter, top.Project
	if bot.Project != nil {
		uses := map[int]int{}
		count := func(e expr.Expr) bool {
			_, ok := expr.Substitute(e, func(i int) expr.Expr { uses[i]++; return nil })
			return ok
		}
		if filter != nil && !count(filter) {
			return r
		}
		if project == nil {
			// The top passes the bottom's columns on.
			for i := range bot.Project {
				uses[i]++
			}
		}
		for _, x := range project {
			if !count(x) {
				return r
			}
		}
		for i, n := range uses {
			x := bot.Project[i]
			if n > 1 && (!expr.IsDeterministic(x) || expr.Size(x) > 3) {
				return r
			}
		}
		sub := func(i int) expr.Expr { return bot.Project[i] }
		if filter != nil {
			if filter, ok = expr.Substitute(filter, sub); !ok {
				return r
			}
		}
		if project == nil {
			project = bot.Project
		} else {
			next := make([]expr.Expr, len(project))
			for i, x := range project {
				if next[i], ok = expr.Substitute(x, sub); !ok {
					return r
				}
			}
			project = next
		}
	}
	f, err := expr.And(bot.Filter, filter)
	if err != nil {
		return r
	}
	m := &plan.Calc{In: bot.In, Filter: f, Project: project, Cols: top.Cols, Prepares: top.Prepares, FilterPos: top.FilterPos, Pos: top.Pos}
	if bot.Filter != nil {
		m.FilterPos = bot.FilterPos
	}
	return m
}
