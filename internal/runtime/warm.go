package runtime

// warmChunk is how many events of a batch the subtask warms at once
// before processing them: their working set stays in the CPU's fastest
// caches between warming and processing.
const warmChunk = 64

// A warmer is an operator that can prepare for rows it is about to
// process. A keyed operator's lookups miss the CPU cache when it holds
// many keys, and one row at a time the misses come one after another:
// warm reads what Process will read for several rows in loops whose loads
// do not depend on each other, so the processor overlaps their latency.
// warm has no effect but on the caches: the rows are processed as before.
type warmer interface {
	// warm is given the events of a batch; it warms for the records of
	// the source input that arrive on port.
	warm(port int, evs []event, input int)
}

// warmTarget is a warmer fed directly by a source input.
type warmTarget struct {
	w           warmer
	input, port int
}

// findWarmers lists the operators that implement warmer among the
// consumers of the source inputs.
func (st *subtask) findWarmers() {
	for in, o := range st.srcOut {
		for _, t := range o.ts {
			if t.node < 0 {
				continue
			}
			if w, ok := st.ops[t.node].(warmer); ok {
				st.warmers = append(st.warmers, warmTarget{w: w, input: in, port: t.port})
			}
		}
	}
}

// warm warms the operators fed by the source for the events of a batch.
func (st *subtask) warm(evs []event) {
	for _, t := range st.warmers {
		t.w.warm(t.port, evs, t.input)
	}
}
