package opt

import (
	"slices"

	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// Rewrite rules (DESIGN §5, second form). Each rule looks at one node of
// the logical plan, whose inputs the driver has already rewritten, and
// returns a replacement, or the node itself when it does not apply. The
// driver applies the rules bottom-up, every node as often as a rule
// changes it, and repeats over the whole plan until no rule applies (a
// fixed point). Rules keep the plan's meaning: the same rows with the same
// changelog; they run before changelog inference, which sees the
// rewritten plan.
//
// A node may be the input of several others (the pre-projection of
// GROUPING SETS): rules never change a node in place, they build new
// nodes, and the driver rewrites each node once per pass, so every
// consumer of a shared input sees the same rewritten node.

// rule is one rewrite rule.
type rule struct {
	// name identifies the rule in tests (rewrite rules=...).
	name string
	// apply returns the rewritten node, or r itself.
	apply func(r plan.Rel) plan.Rel
}

// rules are the rules of plan version 2, in the order they are tried at
// each node.
var rules = []rule{
	{"calc-identity", calcIdentity},
	{"calc-merge", calcMerge},
	{"filter-into-join", filterIntoJoin},
	{"join-condition-push", joinConditionPush},
	{"filter-into-union", filterIntoUnion},
	{"filter-into-aggregate", filterIntoAggregate},
	{"prune-join-inputs", pruneJoinInputs},
	{"window-tvf-into-aggregate", windowTVFIntoAggregate},
	{"rank", rankRule},
}

// rulesV3 are the rules of plan version 3: those of version 2 with the
// rank rule that also ranks per SESSION window.
var rulesV3 = append(slices.Clone(rules[:len(rules)-1]), rule{"rank", rankRuleV3})

// rulesV4 are the rules of plan version 4: those of version 3 and the
// pruning of rank columns that no one reads.
var rulesV4 = append(slices.Clone(rulesV3), rule{"rank-number-prune", rankNumberPrune})

// rulesOf returns the rewrite rules of a plan version (2 or later).
func rulesOf(version int) []rule {
	if version >= plan.PlanV4 {
		return rulesV4
	}
	if version >= plan.PlanV3 {
		return rulesV3
	}
	return rules
}

// maxPasses bounds the passes over a plan; rules that keep undoing each
// other would otherwise loop.
const maxPasses = 32

// rewrite applies rs to the plan under the sink to a fixed point.
func rewrite(root *plan.Sink, rs []rule) *plan.Sink {
	var in plan.Rel = root.In
	for pass := 0; pass < maxPasses; pass++ {
		d := &driver{rules: rs, done: map[plan.Rel]plan.Rel{}}
		next := d.visit(in)
		if !d.changed {
			break
		}
		in = next
	}
	s := *root
	s.In = in
	return &s
}

// driver is one bottom-up pass.
type driver struct {
	rules   []rule
	done    map[plan.Rel]plan.Rel
	changed bool
}

func (d *driver) visit(r plan.Rel) plan.Rel {
	if x, ok := d.done[r]; ok {
		return x
	}
	orig := r
	ins := r.Inputs()
	if len(ins) > 0 {
		next := make([]plan.Rel, len(ins))
		same := true
		for i, in := range ins {
			next[i] = d.visit(in)
			same = same && next[i] == in
		}
		if !same {
			r = r.WithInputs(next)
		}
	}
	for tries := 0; tries < 16; tries++ {
		applied := false
		for _, rl := range d.rules {
			if x := rl.apply(r); x != r {
				r, applied, d.changed = x, true, true
				break
			}
		}
		if !applied {
			break
		}
	}
	d.done[orig] = r
	return r
}
