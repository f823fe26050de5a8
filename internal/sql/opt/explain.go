package opt

import (
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// Explain renders what EXPLAIN prints for a planned statement, in three
// sections as Flink does:
//
//   - "== Abstract Syntax Tree ==": the logical plan as bound (views and
//     named queries inlined, subqueries as joins);
//   - "== Optimized Physical Plan ==": the plan after the rewrite rules and
//     changelog inference, each node with the changelog it emits
//     (changelogMode=[I,UB,UA,D]) and its upsert key, exchanges before the
//     keyed operators;
//   - "== Optimized Execution Plan ==": the operator DAG the job runs: each
//     operator with its uid (which names its state), the exchanges, the
//     changelog kinds each emits.
//
// parallelism is 'parallelism.default', the subtasks the runtime is asked
// for.
func Explain(q *plan.QueryPlan, parallelism int) string {
	var b strings.Builder
	b.WriteString("== Abstract Syntax Tree ==\n")
	b.WriteString(plan.Explain(q.Logical, plan.ExplainOptions{}))
	b.WriteString("\n== Optimized Physical Plan ==\n")
	b.WriteString(explainOptimized(q.Optimized))
	b.WriteString("\n== Optimized Execution Plan ==\n")
	fmt.Fprintf(&b, "Job(parallelism=[%d])\n", parallelism)
	b.WriteString(jobgraph.Explain(q.Job))
	return b.String()
}

// explainOptimized prints an optimized plan with its changelog traits.
func explainOptimized(b *plan.Bound) string {
	traits := inferTraits(b.Root)
	return plan.Explain(b, plan.ExplainOptions{
		Optimized: true,
		Annotate: func(r plan.Rel) string {
			t := traits[r]
			s := "changelogMode=" + t.Kinds.String()
			if t.Key != nil {
				s += ", upsertKeys=[[" + strings.Join(columnNames(r, t.Key), ", ") + "]]"
			}
			return s
		},
		Exchange: exchange,
	})
}

// exchange names the exchange into port i of r: hashed by the keys of a
// keyed operator, "single" when it has none (a global aggregate).
func exchange(r plan.Rel, i int) string {
	var keys []int
	switch n := r.(type) {
	case *plan.Aggregate:
		keys = n.Keys
	case *plan.Join:
		keys = n.LeftKeys
		if i == 1 {
			keys = n.RightKeys
		}
	case *plan.Normalize:
		keys = n.Key
	case *plan.PTFCall:
		t, ok := tableOnPort(n, i)
		if !ok || !t.SetSemantic {
			return ""
		}
		keys = t.Keys
	case *plan.Over, *plan.Rank, *plan.Deduplicate, *plan.IntervalJoin, *plan.TemporalJoin, *plan.TemporalSort, *plan.WindowRank, *plan.WindowDedup:
		keys = timeExchangeKeys(r, i)
	default:
		return ""
	}
	if len(keys) == 0 {
		return "Exchange(distribution=[single])"
	}
	return "Exchange(distribution=[hash[" + strings.Join(columnNames(r.Inputs()[i], keys), ", ") + "]])"
}

func tableOnPort(n *plan.PTFCall, port int) (jobgraph.PTFTable, bool) {
	for _, t := range n.Spec.Tables {
		if t.Input == port {
			return t, true
		}
	}
	return jobgraph.PTFTable{}, false
}

func columnNames(r plan.Rel, idx []int) []string {
	cols := r.Columns()
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = cols[k].Name
	}
	return out
}
