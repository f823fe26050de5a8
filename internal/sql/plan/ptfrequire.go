package plan

import (
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/ptf"
)

// RequirePTF returns a bound call planned for a consumer that requires
// required (the function's ChangelogContext.Required) instead of the
// statement's sink requirement it was bound with, and whether its
// changelog changed. A mode that binding would refuse (updates with
// pass-through columns or on_time, upserts from row-semantic tables)
// keeps the call as it was.
func RequirePTF(spec *jobgraph.PTF, required ptf.ChangelogMode) (*jobgraph.PTF, bool) {
	var modes []ptf.ChangelogMode
	var keys [][]int
	for _, a := range spec.Def.Args {
		if !a.IsTable() {
			modes, keys = append(modes, ptf.ChangelogMode{}), append(keys, nil)
			continue
		}
		found := false
		for _, t := range spec.Tables {
			if t.Arg == a.Name {
				modes, keys, found = append(modes, t.Delivered), append(keys, t.Keys), true
			}
		}
		if !found {
			return spec, false
		}
	}
	p := spec.Def.ProducedMode(ptf.ChangelogContext{Tables: modes, Required: required, Args: spec.Scalars, PartitionBy: keys})
	if p == spec.Produced {
		return spec, false
	}
	n := *spec
	n.Produced = p
	if err := (&ptfCall{name: spec.Name, def: spec.Def}).checkOutputMode(&n); err != nil {
		return spec, false
	}
	return &n, true
}
