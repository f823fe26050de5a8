package opt

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// The strategy of a Top-N (Flink's RankProcessStrategy, reference §5.2):
// AppendFast for an insert-only input; UpdateFast for an updating input
// without deletes whose upsert key contains the partition key and whose
// sort keys only move towards the top (ORDER BY COUNT(*) DESC over an
// insert-only aggregate, Flink's modified monotonicity); Retract
// otherwise.

// monotonicity is how a column of an updating relation changes when a row
// of its upsert key is updated.
type monotonicity uint8

const (
	notMonotonic monotonicity = iota
	constant                  // never changes (a group key)
	increasing
	decreasing
)

// rankStrategy picks the strategy of a Rank and, for UpdateFast, the
// upsert key of its input.
func rankStrategy(n *plan.Rank) (jobgraph.RankStrategy, []int) {
	cl := plan.ChangelogOf(n.In)
	if cl.Mode == jobgraph.Append {
		return jobgraph.AppendFastStrategy, nil
	}
	if len(cl.Key) == 0 || !containsAll(cl.Key, n.PartitionKeys) {
		return jobgraph.RetractStrategy, nil
	}
	for _, k := range n.OrderBy {
		switch columnMonotonicity(n.In, k.Col) {
		case constant:
		case increasing:
			if !k.Desc {
				return jobgraph.RetractStrategy, nil
			}
		case decreasing:
			if k.Desc {
				return jobgraph.RetractStrategy, nil
			}
		default:
			return jobgraph.RetractStrategy, nil
		}
	}
	return jobgraph.UpdateFastStrategy, cl.Key
}

// columnMonotonicity follows column col of r down to the aggregate that
// computes it, through projections that pass it on unchanged. The
// aggregate's input must be insert-only (no deletes reach the Top-N, and
// COUNT only grows); a filter between could turn an update into a lone
// retraction, so none may lie between.
func columnMonotonicity(r plan.Rel, col int) monotonicity {
	for {
		switch n := r.(type) {
		case *plan.Calc:
			if n.Filter != nil {
				return notMonotonic
			}
			if n.Project != nil {
				i, ok := expr.ColumnOf(n.Project[col])
				if !ok {
					return notMonotonic
				}
				col = i
			}
			r = n.In
		case *plan.Aggregate:
			if plan.ChangelogOf(n.In).Mode != jobgraph.Append {
				return notMonotonic
			}
			if col < len(n.Keys) {
				return constant
			}
			c := n.Calls[col-len(n.Keys)]
			if c.Filter >= 0 && c.Func != jobgraph.AggCount && c.Func != jobgraph.AggCountStar {
				return notMonotonic
			}
			switch c.Func {
			case jobgraph.AggCountStar, jobgraph.AggCount, jobgraph.AggMax:
				return increasing
			case jobgraph.AggMin:
				return decreasing
			}
			return notMonotonic
		default:
			return notMonotonic
		}
	}
}

func containsAll(key, cols []int) bool {
	for _, c := range cols {
		found := false
		for _, k := range key {
			found = found || k == c
		}
		if !found {
			return false
		}
	}
	return true
}
