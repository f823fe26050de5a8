package opt

import (
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// ExplainStatementSet renders EXPLAIN of a statement set: the logical and
// the optimized plan of each INSERT in order (as Flink prints one tree per
// sink), then the one job that runs them all.
func ExplainStatementSet(inserts []*plan.QueryPlan, job *jobgraph.Job, parallelism int) string {
	var b strings.Builder
	b.WriteString("== Abstract Syntax Tree ==\n")
	for i, q := range inserts {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(plan.Explain(q.Logical, plan.ExplainOptions{}))
	}
	b.WriteString("\n== Optimized Physical Plan ==\n")
	for i, q := range inserts {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(explainOptimized(q.Optimized))
	}
	b.WriteString("\n== Optimized Execution Plan ==\n")
	fmt.Fprintf(&b, "Job(parallelism=[%d])\n", parallelism)
	b.WriteString(jobgraph.Explain(job))
	return b.String()
}
