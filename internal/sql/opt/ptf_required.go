package opt

import (
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// The changelog a function call must produce is what its consumer
// requires (Flink passes the parent's requirement to getChangelogMode):
// the binder asks every call for the sink's requirement; from plan
// version 2, a call whose rows an aggregate, a join, a set operation, or
// a filter or projection that needs the retractions reads is asked for a
// retract changelog instead, so that a function that can emit -U rows
// does and needs no ChangelogNormalize after it. Calls that feed another
// call's table argument keep the mode they were bound with (that
// argument's changelog was derived from it).

// need is what a consumer requires from a call below it.
type need uint8

const (
	// asBound keeps the requirement the call was bound with.
	asBound need = iota
	// retractions needs -U rows.
	retractions
)

// requirePTFs replans the calls of a plan for their consumers.
func requirePTFs(root *plan.Sink) *plan.Sink {
	type key struct {
		r plan.Rel
		n need
	}
	done := map[key]plan.Rel{}
	var visit func(r plan.Rel, n need) plan.Rel
	visit = func(r plan.Rel, n need) plan.Rel {
		if d, ok := done[key{r, n}]; ok {
			return d
		}
		var childNeed need
		switch x := r.(type) {
		case *plan.Calc:
			childNeed = n
			if !x.Prepares && needsRetractions(x) {
				childNeed = retractions
			}
		case *plan.Limit:
			childNeed = n
		case *plan.Aggregate, *plan.Join, *plan.Union:
			childNeed = retractions
		}
		ins := r.Inputs()
		next := make([]plan.Rel, len(ins))
		changed := false
		for i, in := range ins {
			next[i] = visit(in, childNeed)
			changed = changed || next[i] != in
		}
		out := r
		if changed {
			out = r.WithInputs(next)
		}
		if c, ok := out.(*plan.PTFCall); ok && n == retractions {
			p := c.Spec.Produced
			if !p.IsInsertOnly() && !p.Contains(types.UpdateBefore) {
				if spec, ok := plan.RequirePTF(c.Spec, ptf.Retract()); ok {
					nc := *c
					nc.Spec = spec
					out = &nc
				}
			}
		}
		done[key{r, n}] = out
		return out
	}
	s := *root
	s.In = visit(root.In, asBound)
	return &s
}

// needsRetractions reports whether a calc over an upsert changelog needs
// its -U rows: a filter, or a projection that drops the upsert key.
func needsRetractions(c *plan.Calc) bool {
	if c.Filter != nil {
		return true
	}
	if c.Project == nil {
		return false
	}
	in := plan.ChangelogOf(c.In)
	return in.Mode == jobgraph.Upsert && plan.RemapKey(in.Key, c.Project) == nil
}
