package plan

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/ptf"
)

// Changelog is the changelog a relation provides, derived bottom-up from
// the plan (Flink's provided modes and upsert keys). It assumes the
// normalizes changelog inference (package opt) places: an operator that
// needs the retractions of an upsert table (a WHERE, a select list
// dropping its key, an aggregate, a join, a set operation) reads it
// through a ChangelogNormalize at the table.
type Changelog struct {
	Mode jobgraph.Mode
	// Key is the upsert key (column positions); nil when unknown.
	Key []int
	// Source is the input whose rows the relation is through stateless
	// calcs only, so that it can still be normalized at the table; -1
	// otherwise.
	Source int
	// PTF is the function call whose output the relation is through calcs
	// only (its exact changelog is known), or nil.
	PTF *jobgraph.PTF
}

// Exact returns the exact changelog of the rows: what the function
// produces for a call's output, else that of the mode (upsert tables may
// have key-only deletes).
func (c Changelog) Exact() ptf.ChangelogMode {
	if c.PTF != nil {
		return c.PTF.Produced
	}
	switch c.Mode {
	case jobgraph.Upsert:
		return ptf.Upsert()
	case jobgraph.Retract:
		return ptf.Retract()
	}
	return ptf.InsertOnly()
}

// ChangelogOf derives the changelog of r.
func ChangelogOf(r Rel) Changelog {
	switch n := r.(type) {
	case *Scan:
		return Changelog{Mode: n.Mode, Key: n.Key, Source: n.Input}
	case *Calc:
		c := ChangelogOf(n.In)
		if n.Filter != nil && !n.Prepares && c.Mode == jobgraph.Upsert && c.Source >= 0 {
			c.Mode = jobgraph.Retract // normalized at the table
		}
		if n.Project != nil {
			c.Key = RemapKey(c.Key, n.Project)
			if c.Key == nil && !n.Prepares && c.Mode == jobgraph.Upsert && c.Source >= 0 {
				c.Mode = jobgraph.Retract
			}
		}
		return c
	case *Aggregate:
		key := make([]int, len(n.Keys))
		for i := range key {
			key[i] = i
		}
		return Changelog{Mode: jobgraph.Retract, Key: key, Source: -1}
	case *Join:
		l, r := ChangelogOf(n.Left), ChangelogOf(n.Right)
		mode := jobgraph.Retract
		if (n.Kind == jobgraph.InnerJoin || n.Kind == jobgraph.SemiJoin) && l.Mode == jobgraph.Append && r.Mode == jobgraph.Append {
			mode = jobgraph.Append
		}
		return Changelog{Mode: mode, Source: -1}
	case *Union:
		mode := jobgraph.Append
		for _, in := range n.Ins {
			if ChangelogOf(in).Mode != jobgraph.Append {
				mode = jobgraph.Retract
			}
		}
		return Changelog{Mode: mode, Source: -1}
	case *PTFCall:
		c := Changelog{Mode: jobgraph.Retract, Source: -1, PTF: n.Spec}
		switch p := n.Spec.Produced; {
		case p.IsInsertOnly():
			c.Mode = jobgraph.Append
		case p.IsUpsert():
			c.Mode = jobgraph.Upsert
			if len(n.Spec.Tables) > 0 {
				for i := range n.Spec.Tables[0].Keys {
					c.Key = append(c.Key, i)
				}
			}
		}
		return c
	case *Correlate:
		// An input row's key no longer identifies one output row; an
		// upsert input is normalized below it.
		mode := ChangelogOf(n.In).Mode
		if mode == jobgraph.Upsert {
			mode = jobgraph.Retract
		}
		return Changelog{Mode: mode, Source: -1}
	case *WindowAggregate:
		key := make([]int, 0, len(n.Keys)+2)
		for i := range n.Keys {
			key = append(key, i)
		}
		k := len(n.Cols)
		return Changelog{Mode: jobgraph.Append, Key: append(key, k-3, k-2), Source: -1}
	case *WindowJoin:
		return Changelog{Mode: jobgraph.Append, Source: -1}
	case *WindowTVF:
		return Changelog{Mode: ChangelogOf(n.In).Mode, Source: -1}
	case *Limit:
		return ChangelogOf(n.In)
	case *Normalize:
		c := ChangelogOf(n.In)
		c.Mode, c.PTF = jobgraph.Retract, nil
		return c
	case *Sink:
		c := ChangelogOf(n.In)
		if n.Materialize {
			c.Mode = jobgraph.Upsert
		}
		return c
	}
	if c, ok := timeChangelog(r); ok {
		return c
	}
	return Changelog{Mode: jobgraph.Append, Source: -1}
}

// RemapKey returns the positions of key columns in the output of a
// projection (the first plain reference to each), or nil when the
// projection drops one.
func RemapKey(key []int, project []expr.Expr) []int {
	var out []int
	for _, k := range key {
		found := -1
		for j, x := range project {
			if i, ok := expr.ColumnOf(x); ok && i == k {
				found = j
				break
			}
		}
		if found < 0 {
			return nil
		}
		out = append(out, found)
	}
	return out
}
