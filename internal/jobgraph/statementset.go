package jobgraph

import (
	"fmt"
	"reflect"
	"strconv"
)

// Output is one further sink of a statement set: the rows of endpoint
// Result go to Sink, in changelog Mode (with UpsertKey for upsert
// streams).
type Output struct {
	Result    int
	Sink      Sink
	Mode      Mode
	UpsertKey []int
}

// Results returns the endpoints that feed the job's sinks: Result first,
// then those of Outputs.
func (j *Job) Results() []int {
	out := []int{j.Result}
	for _, o := range j.Outputs {
		out = append(out, o.Result)
	}
	return out
}

// Sinks returns the job's sinks in the order of Results.
func (j *Job) Sinks() []*Sink {
	out := []*Sink{&j.Sink}
	for i := range j.Outputs {
		out = append(out, &j.Outputs[i].Sink)
	}
	return out
}

// MergeStatementSet combines the jobs of the INSERTs of a statement set
// into one job with one sink per INSERT, in order. Inputs that are the
// same table read the same way (equal specs, no external source) are read
// once and feed every plan that reads them. The operators of the first
// job keep their uids; those of job i (from 1) get the prefix "set<i>-",
// so that the state of the operators of different INSERTs never mixes
// (process table functions keep their uids, which must be distinct).
func MergeStatementSet(jobs []*Job) (*Job, error) {
	if len(jobs) == 0 {
		return nil, fmt.Errorf("internal: a statement set without INSERT")
	}
	m := &Job{Parallelism: jobs[0].Parallelism}
	ptfUIDs := map[string]int{}
	for i, j := range jobs {
		if j.Sink.Kind == CollectSink {
			return nil, fmt.Errorf("internal: statement %d of the statement set has no sink", i+1)
		}
		if len(j.Outputs) > 0 {
			return nil, fmt.Errorf("internal: statement %d of the statement set is a statement set", i+1)
		}
		// remap maps endpoints of job j to endpoints of m.
		inputs := make([]int, len(j.Inputs))
		for k, in := range j.Inputs {
			inputs[k] = -1
			if in.Source == nil && in.Generator == nil {
				for l := range m.Inputs {
					if m.Inputs[l].Source == nil && m.Inputs[l].Generator == nil && reflect.DeepEqual(m.Inputs[l], in) {
						inputs[k] = l
						break
					}
				}
			}
			if inputs[k] < 0 {
				inputs[k] = len(m.Inputs)
				m.Inputs = append(m.Inputs, in)
			}
		}
		base := len(m.Nodes)
		remap := func(e int) int {
			if k, ok := IsSource(e); ok {
				return Source(inputs[k])
			}
			return base + e
		}
		for _, n := range j.Nodes {
			if p, isPTF := n.Op.(*PTF); isPTF && p.UID != "" {
				if prev, dup := ptfUIDs[p.UID]; dup {
					return nil, &DuplicateUIDError{UID: p.UID, First: prev, Second: i}
				}
				ptfUIDs[p.UID] = i
			} else if i > 0 && n.UID != "" {
				n.UID = "set" + strconv.Itoa(i) + "-" + n.UID
			}
			ins := make([]Edge, len(n.Inputs))
			for k, e := range n.Inputs {
				e.From = remap(e.From)
				ins[k] = e
			}
			n.Inputs = ins
			m.Nodes = append(m.Nodes, n)
		}
		if i == 0 {
			m.Result, m.Sink, m.Mode, m.UpsertKey = remap(j.Result), j.Sink, j.Mode, j.UpsertKey
		} else {
			m.Outputs = append(m.Outputs, Output{Result: remap(j.Result), Sink: j.Sink, Mode: j.Mode, UpsertKey: j.UpsertKey})
		}
		m.Parallelism = max(m.Parallelism, j.Parallelism)
	}
	return m, nil
}

// DuplicateUIDError reports two process table function calls of a
// statement set with the same uid (their state would be one).
type DuplicateUIDError struct {
	UID           string
	First, Second int // statement indexes, from 0
}

func (e *DuplicateUIDError) Error() string {
	return fmt.Sprintf("the process table function uid '%s' is used by statements %d and %d of the statement set", e.UID, e.First+1, e.Second+1)
}
