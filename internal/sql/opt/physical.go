package opt

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/types"
)

// Physical translation: each node of the optimized plan becomes one
// operator of the job's DAG (DESIGN §5, third form), with the uid the plan
// gave it, HASH edges into keyed operators and FORWARD edges otherwise.
// Nodes are emitted depth-first from the sink, inputs in port order, so
// the DAG is in topological order and holds only what the sink reaches.

// translator builds a job from a plan.
type translator struct {
	job *jobgraph.Job
	// done maps a translated plan node to its endpoint (shared inputs are
	// translated once).
	done map[plan.Rel]int
}

// translate turns an optimized plan into a job.
func translate(b *plan.Bound) (*jobgraph.Job, error) {
	t := &translator{job: &jobgraph.Job{Inputs: b.Inputs, Parallelism: 1}, done: map[plan.Rel]int{}}
	s := b.Root
	// The sink's enforcers (casts, NOT NULL, lengths) run in a calc; from
	// plan version 2 it merges with the calc of the query below it.
	var enforce *plan.Calc
	if s.EnforceProject != nil || s.EnforceFilter != nil {
		cols := s.In.Columns()
		if s.EnforceProject != nil {
			cols = s.Columns()
		}
		enforce = &plan.Calc{In: s.In, Filter: s.EnforceFilter, Project: s.EnforceProject, Cols: cols}
		if b.Version >= plan.PlanV2 {
			if m, ok := calcMerge(enforce).(*plan.Calc); ok {
				enforce = m
			}
		}
	}
	in := s.In
	if enforce != nil {
		in = enforce.In
	}
	end, err := t.endpoint(in)
	if err != nil {
		return nil, err
	}
	if enforce != nil {
		end = t.add("calc", end, &jobgraph.Calc{Filter: enforce.Filter, Project: enforce.Project}, plan.SchemaOf(enforce))
	}
	if s.Materialize {
		end = t.addNode(jobgraph.Node{
			UID:    "materialize/0",
			Inputs: []jobgraph.Edge{{From: end, Exchange: jobgraph.Hash, Keys: s.Spec.Key}},
			Op:     &jobgraph.Materialize{Key: s.Spec.Key, Conflict: plan.ConflictStrategy(s.OnConflict), Table: s.Spec.Table, StateTTL: s.StateTTL},
			Out:    s.Spec.Schema,
		})
	}
	t.job.Result = end
	t.job.Sink = s.Spec
	return t.job, nil
}

func (t *translator) addNode(n jobgraph.Node) int {
	t.job.Nodes = append(t.job.Nodes, n)
	return len(t.job.Nodes) - 1
}

// add appends a stateless operator reading from along a FORWARD edge.
func (t *translator) add(kind string, from int, op any, out *types.Schema) int {
	return t.addNode(jobgraph.Node{UID: fmt.Sprintf("%s/%d", kind, len(t.job.Nodes)), Inputs: []jobgraph.Edge{{From: from}}, Op: op, Out: out})
}

// endpoint translates r and returns the endpoint emitting its rows.
func (t *translator) endpoint(r plan.Rel) (int, error) {
	if e, ok := t.done[r]; ok {
		return e, nil
	}
	e, err := t.translate(r)
	if err != nil {
		return 0, err
	}
	t.done[r] = e
	return e, nil
}

func (t *translator) translate(r plan.Rel) (int, error) {
	// Inputs first, in port order.
	ins := make([]int, len(r.Inputs()))
	for i, in := range r.Inputs() {
		e, err := t.endpoint(in)
		if err != nil {
			return 0, err
		}
		ins[i] = e
	}
	out := plan.SchemaOf(r)
	switch n := r.(type) {
	case *plan.Scan:
		return jobgraph.Source(n.Input), nil
	case *plan.Values:
		return t.addNode(jobgraph.Node{UID: fmt.Sprintf("values/%d", len(t.job.Nodes)), Op: &jobgraph.Values{Rows: n.Rows}, Out: out}), nil
	case *plan.Calc:
		if n.IsIdentity() {
			return ins[0], nil
		}
		return t.add("calc", ins[0], &jobgraph.Calc{Filter: n.Filter, Project: n.Project}, out), nil
	case *plan.Aggregate:
		return t.addNode(jobgraph.Node{
			UID:    n.UID,
			Inputs: []jobgraph.Edge{{From: ins[0], Exchange: jobgraph.Hash, Keys: n.Keys}},
			Op:     &jobgraph.Aggregate{Keys: n.Keys, Calls: n.Calls, StateTTL: n.StateTTL, DropUpdateBefore: n.DropUpdateBefore, MiniBatch: n.MiniBatch},
			Out:    out,
		}), nil
	case *plan.Join:
		return t.addNode(jobgraph.Node{
			UID: n.UID,
			Inputs: []jobgraph.Edge{
				{From: ins[0], Exchange: jobgraph.Hash, Keys: n.LeftKeys},
				{From: ins[1], Exchange: jobgraph.Hash, Keys: n.RightKeys},
			},
			Op: &jobgraph.Join{
				Kind: n.Kind, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys, NullSafe: n.NullSafe, Residual: n.Residual,
				Left: plan.SchemaOf(n.Left), Right: plan.SchemaOf(n.Right), StateTTL: n.StateTTL, SideTTL: n.SideTTL, HasSideTTL: n.HasSideTTL,
			},
			Out: out,
		}), nil
	case *plan.Union:
		edges := make([]jobgraph.Edge, len(ins))
		for i, e := range ins {
			edges[i] = jobgraph.Edge{From: e}
		}
		return t.addNode(jobgraph.Node{UID: fmt.Sprintf("union/%d", len(t.job.Nodes)), Inputs: edges, Op: &jobgraph.Union{}, Out: out}), nil
	case *plan.PTFCall:
		edges := make([]jobgraph.Edge, len(ins))
		for _, tb := range n.Spec.Tables {
			e := jobgraph.Edge{From: ins[tb.Input]}
			if tb.SetSemantic {
				e.Exchange, e.Keys = jobgraph.Hash, tb.Keys
			}
			edges[tb.Input] = e
		}
		return t.addNode(jobgraph.Node{UID: "ptf/" + n.Spec.UID, Inputs: edges, Op: n.Spec, Out: n.Spec.Out}), nil
	case *plan.Correlate:
		return t.add("correlate", ins[0], n.Spec, out), nil
	case *plan.WindowAggregate:
		return t.addNode(jobgraph.Node{
			UID:    n.UID,
			Inputs: []jobgraph.Edge{{From: ins[0], Exchange: jobgraph.Hash, Keys: n.Keys}},
			Op:     &jobgraph.WindowAggregate{Keys: n.Keys, Calls: insertOnlyCalls(n.Calls, n.In), Windowing: n.Windowing},
			Out:    out,
		}), nil
	case *plan.WindowJoin:
		return t.addNode(jobgraph.Node{
			UID: n.UID,
			Inputs: []jobgraph.Edge{
				{From: ins[0], Exchange: jobgraph.Hash, Keys: n.LeftKeys},
				{From: ins[1], Exchange: jobgraph.Hash, Keys: n.RightKeys},
			},
			Op: &jobgraph.WindowJoin{
				Kind: n.Kind, Window: n.Window, LeftStart: n.LeftStart, LeftEnd: n.LeftEnd, RightStart: n.RightStart, RightEnd: n.RightEnd,
				LeftKeys: n.LeftKeys, RightKeys: n.RightKeys, NullSafe: n.NullSafe, Residual: n.Residual,
				Left: plan.SchemaOf(n.Left), Right: plan.SchemaOf(n.Right),
			},
			Out: out,
		}), nil
	case *plan.WindowTVF:
		node := jobgraph.Node{UID: fmt.Sprintf("windowtvf/%d", len(t.job.Nodes)), Inputs: []jobgraph.Edge{{From: ins[0]}}, Op: &jobgraph.WindowTVF{Window: n.Window}, Out: out}
		if n.UID != "" {
			node.UID = n.UID
			node.Inputs[0].Exchange, node.Inputs[0].Keys = jobgraph.Hash, n.Window.PartitionKeys
		}
		return t.addNode(node), nil
	case *plan.Limit:
		if n.N > 0 {
			t.job.Limit = int(n.N)
			return ins[0], nil
		}
		// The job's Limit of 0 means no limit: LIMIT 0 filters every row
		// out instead.
		none, err := expr.Lit(types.NewBool(false), types.Boolean.NonNull())
		if err != nil {
			return 0, err
		}
		return t.add("calc", ins[0], &jobgraph.Calc{Filter: none}, out), nil
	case *plan.Normalize:
		return t.addNode(jobgraph.Node{
			UID:    n.UID,
			Inputs: []jobgraph.Edge{{From: ins[0], Exchange: jobgraph.Hash, Keys: n.Key}},
			Op:     &jobgraph.Normalize{Key: n.Key, DropUpdateBefore: n.DropUpdateBefore, StateTTL: n.StateTTL},
			Out:    out,
		}), nil
	}
	if e, ok, err := t.translateTime(r, ins); ok {
		return e, err
	}
	return 0, fmt.Errorf("internal: no operator for plan node %T", r)
}

// insertOnlyCalls marks the calls of a window aggregate over an insert-only
// input (MIN and MAX then keep only the extreme value).
func insertOnlyCalls(calls []jobgraph.AggCall, in plan.Rel) []jobgraph.AggCall {
	if plan.ChangelogOf(in).Mode != jobgraph.Append {
		return calls
	}
	out := make([]jobgraph.AggCall, len(calls))
	for i, c := range calls {
		c.InsertOnly = true
		out[i] = c
	}
	return out
}
