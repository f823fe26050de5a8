package opt

import (
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// dropAggregateUpdateBefore tells a group aggregate whose only consumer is
// an upsert sink keyed by the group key not to build -U rows: the sink
// writes the +U rows and drops the -U ones (ONLY_UPDATE_AFTER), as Flink's
// GroupAggregate runs with generateUpdateBefore = false when no operator
// downstream requires UPDATE_BEFORE. Between the aggregate and the sink
// only calcs may lie, filtering on key columns at most (onlyUpdateAfter),
// so a -U and its +U pass or fail together; a sink with the upsert
// materializer needs the -U rows and keeps them.
func dropAggregateUpdateBefore(s *plan.Sink) {
	if s.Spec.Kind == jobgraph.CollectSink || s.Spec.Mode != jobgraph.Upsert || s.Materialize || len(s.PK) == 0 {
		return
	}
	cl := plan.ChangelogOf(s.In)
	if cl.Mode != jobgraph.Retract || !sameColumns(mapKey(cl.Key, s.Target), s.PK) || !onlyUpdateAfter(s.In) {
		return
	}
	if in, ok := dropBelowCalcs(s.In); ok {
		s.In = in
	}
}

// dropBelowCalcs returns r with the aggregate under its calcs marked to
// drop -U rows, and whether there was one.
func dropBelowCalcs(r plan.Rel) (plan.Rel, bool) {
	switch n := r.(type) {
	case *plan.Calc:
		in, ok := dropBelowCalcs(n.In)
		if !ok {
			return r, false
		}
		return n.WithInputs([]plan.Rel{in}), true
	case *plan.Aggregate:
		c := *n
		c.DropUpdateBefore = true
		return &c, true
	}
	return r, false
}
