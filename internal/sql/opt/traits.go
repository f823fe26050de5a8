package opt

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/types"
)

// Changelog traits (reference §1.2). After the normalizes are placed,
// every node of the plan has a provided changelog, inferred bottom-up: the
// row kinds it emits (Flink's changelog mode, printed [I,UB,UA,D]) and its
// upsert key. Requirements flow top-down from the sink: an upsert sink
// whose primary key is the query's upsert key takes only the +U rows
// (ONLY_UPDATE_AFTER) and drops the -U rows, provided every operator
// between can deliver its updates that way; a filter on columns other than
// the upsert key cannot (FLINK-9528: an update moving a row out of the
// filter arrives as a lone -U), so the sink then needs the sink upsert
// materializer to turn the retractions into upserts on its key.

// Traits is what a node of the optimized plan emits.
type Traits struct {
	Kinds jobgraph.Kinds
	// Key is the upsert key (column positions), or nil.
	Key []int
}

// inferTraits returns the traits of every node under the sink, and of the
// sink (what it writes).
func inferTraits(s *plan.Sink) map[plan.Rel]Traits {
	out := map[plan.Rel]Traits{}
	var visit func(r plan.Rel) jobgraph.Kinds
	visit = func(r plan.Rel) jobgraph.Kinds {
		if t, ok := out[r]; ok {
			return t.Kinds
		}
		var in []jobgraph.Kinds
		for _, x := range r.Inputs() {
			in = append(in, visit(x))
		}
		var k jobgraph.Kinds
		switch n := r.(type) {
		case *plan.Scan:
			k = kindsOfMode(n.Mode)
		case *plan.Values:
			k = jobgraph.Kinds{Insert: true}
		case *plan.Calc, *plan.Limit, *plan.Correlate, *plan.WindowTVF:
			k = in[0]
		case *plan.Aggregate:
			k = jobgraph.Kinds{Insert: true, UpdateBefore: !n.DropUpdateBefore, UpdateAfter: true, Delete: updating(in[0])}
		case *plan.Join:
			if n.Kind == jobgraph.InnerJoin || n.Kind == jobgraph.SemiJoin {
				k = union(in...)
			} else {
				k = kindsOfMode(jobgraph.Retract)
			}
		case *plan.Union:
			k = union(in...)
		case *plan.WindowAggregate, *plan.WindowJoin:
			k = jobgraph.Kinds{Insert: true}
		case *plan.PTFCall:
			p := n.Spec.Produced
			k = jobgraph.Kinds{Insert: true, UpdateBefore: p.Contains(types.UpdateBefore), UpdateAfter: p.Contains(types.UpdateAfter), Delete: p.Contains(types.Delete)}
		case *plan.Normalize:
			k = jobgraph.Kinds{Insert: true, UpdateBefore: !n.DropUpdateBefore, UpdateAfter: true, Delete: true}
		case *plan.Over, *plan.Rank, *plan.Deduplicate, *plan.IntervalJoin, *plan.TemporalJoin, *plan.TemporalSort, *plan.WindowRank, *plan.WindowDedup:
			k, _ = timeKinds(r, in)
		case *plan.Sink:
			k = in[0]
			switch {
			case n.Materialize:
				k = jobgraph.Kinds{Insert: true, UpdateAfter: true, Delete: true}
			case n.Spec.Kind != jobgraph.CollectSink && n.Spec.Mode == jobgraph.Upsert:
				k.UpdateBefore = false // an upsert sink writes the +U rows
			}
		}
		t := Traits{Kinds: k}
		switch n := r.(type) {
		case *plan.Sink:
			if n.Spec.Mode == jobgraph.Upsert && n.Spec.Kind != jobgraph.CollectSink {
				t.Key = n.Spec.Key // in the sink's columns
			}
		default:
			if updating(k) {
				t.Key = plan.ChangelogOf(r).Key
			}
		}
		out[r] = t
		return k
	}
	visit(s)
	return out
}

// onlyUpdateAfter reports whether the updates of r can be delivered as
// upserts on its upsert key (ONLY_UPDATE_AFTER): no operator between the
// one that emits them and r filters them on other columns than the key.
func onlyUpdateAfter(r plan.Rel) bool {
	switch n := r.(type) {
	case *plan.Calc:
		if n.Filter != nil {
			in := plan.ChangelogOf(n.In)
			if in.Mode != jobgraph.Append {
				cols, known := expr.Columns(n.Filter)
				if !known || !subset(cols, in.Key) {
					return false
				}
			}
		}
		return onlyUpdateAfter(n.In)
	case *plan.Limit:
		return onlyUpdateAfter(n.In)
	}
	return true
}

func subset(cols, key []int) bool {
	for _, c := range cols {
		found := false
		for _, k := range key {
			found = found || c == k
		}
		if !found {
			return false
		}
	}
	return len(key) > 0
}

func kindsOfMode(m jobgraph.Mode) jobgraph.Kinds {
	switch m {
	case jobgraph.Upsert:
		return jobgraph.Kinds{Insert: true, UpdateAfter: true, Delete: true}
	case jobgraph.Retract:
		return jobgraph.Kinds{Insert: true, UpdateBefore: true, UpdateAfter: true, Delete: true}
	}
	return jobgraph.Kinds{Insert: true}
}

func union(ks ...jobgraph.Kinds) jobgraph.Kinds {
	var out jobgraph.Kinds
	for _, k := range ks {
		out = jobgraph.Kinds{Insert: out.Insert || k.Insert, UpdateBefore: out.UpdateBefore || k.UpdateBefore, UpdateAfter: out.UpdateAfter || k.UpdateAfter, Delete: out.Delete || k.Delete}
	}
	return out
}

func updating(k jobgraph.Kinds) bool { return k.UpdateBefore || k.UpdateAfter || k.Delete }
