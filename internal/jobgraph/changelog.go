package jobgraph

import (
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// Kinds is a set of row kinds an operator emits, printed as Flink's
// EXPLAIN prints a changelog mode: [I], [I,UB,UA], [I,UA,D], [I,UB,UA,D].
type Kinds struct{ Insert, UpdateBefore, UpdateAfter, Delete bool }

// String renders the set as changelogMode=[...] does.
func (k Kinds) String() string {
	var parts []string
	for _, p := range []struct {
		on   bool
		name string
	}{{k.Insert, "I"}, {k.UpdateBefore, "UB"}, {k.UpdateAfter, "UA"}, {k.Delete, "D"}} {
		if p.on {
			parts = append(parts, p.name)
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func (k Kinds) union(o Kinds) Kinds {
	return Kinds{k.Insert || o.Insert, k.UpdateBefore || o.UpdateBefore, k.UpdateAfter || o.UpdateAfter, k.Delete || o.Delete}
}

func (k Kinds) updating() bool { return k.UpdateBefore || k.UpdateAfter || k.Delete }

func kindsOfMode(m Mode) Kinds {
	switch m {
	case Upsert:
		return Kinds{Insert: true, UpdateAfter: true, Delete: true}
	case Retract:
		return Kinds{Insert: true, UpdateBefore: true, UpdateAfter: true, Delete: true}
	}
	return Kinds{Insert: true}
}

// ChangelogKinds infers, bottom-up, the row kinds each endpoint of the job
// emits (Flink's provided changelog modes): sources by their changelog
// mode, a normalize a retract changelog, a group aggregate inserts and
// updates (and deletes when its input has updates or deletes), an inner
// join the union of its inputs, outer joins everything, a PTF what it
// declares; OVER aggregates, interval joins and temporal sorts insert, a
// Top-N emits every kind, a deduplication inserts (keep first) or inserts
// and updates (keep last), a temporal join what its left input gives;
// window aggregates, ranks, deduplications and joins insert, a window TVF
// passes its input's kinds on. The result is indexed by node; sources are
// in src.
func ChangelogKinds(j *Job) (nodes []Kinds, src []Kinds) {
	src = make([]Kinds, len(j.Inputs))
	for i, in := range j.Inputs {
		src[i] = kindsOfMode(in.Mode)
	}
	nodes = make([]Kinds, len(j.Nodes))
	of := func(e int) Kinds {
		if i, ok := IsSource(e); ok {
			return src[i]
		}
		return nodes[e]
	}
	for k, n := range j.Nodes {
		var in Kinds
		for _, e := range n.Inputs {
			in = in.union(of(e.From))
		}
		switch op := n.Op.(type) {
		case *Normalize:
			nodes[k] = Kinds{Insert: true, UpdateBefore: !op.DropUpdateBefore, UpdateAfter: true, Delete: true}
		case *Aggregate:
			nodes[k] = Kinds{Insert: true, UpdateBefore: !op.DropUpdateBefore, UpdateAfter: true, Delete: in.updating()}
		case *Join:
			if op.Kind == InnerJoin || op.Kind == SemiJoin {
				nodes[k] = in
			} else {
				nodes[k] = kindsOfMode(Retract)
			}
		case *PTF:
			p := op.Produced
			nodes[k] = Kinds{Insert: true, UpdateBefore: p.Contains(types.UpdateBefore), UpdateAfter: p.Contains(types.UpdateAfter), Delete: p.Contains(types.Delete)}
		case *Values:
			nodes[k] = Kinds{Insert: true}
		case *Materialize:
			nodes[k] = Kinds{Insert: true, UpdateAfter: true, Delete: true}
		case *OverAggregate, *IntervalJoin, *TemporalSort:
			nodes[k] = Kinds{Insert: true}
		case *SortedOver:
			nodes[k] = kindsOfMode(Retract)
		case *Rank:
			nodes[k] = Kinds{Insert: true, UpdateBefore: !op.DropUpdateBefore, UpdateAfter: true, Delete: true}
		case *Deduplicate:
			if op.KeepLast {
				nodes[k] = Kinds{Insert: true, UpdateBefore: !op.DropUpdateBefore, UpdateAfter: true}
			} else {
				nodes[k] = Kinds{Insert: true}
			}
		case *TemporalJoin:
			nodes[k] = of(n.Inputs[0].From) // the left input's changelog
		case *WindowAggregate, *WindowRank, *WindowDeduplicate, *WindowJoin:
			nodes[k] = Kinds{Insert: true} // one final row per window
		default: // calc, union: what their inputs give
			nodes[k] = in
		}
	}
	return nodes, src
}
