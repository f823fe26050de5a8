package plan

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
)

// addNode appends a node to the job's DAG and returns its index. Nodes may
// be added in any order while planning; finish sorts them.
func addNode(job *jobgraph.Job, n jobgraph.Node) int {
	job.Nodes = append(job.Nodes, n)
	return len(job.Nodes) - 1
}

// insertNormalize puts a ChangelogNormalize keyed by key right after input
// i (before any operator that reads it) and returns it; an input is
// normalized once.
func insertNormalize(job *jobgraph.Job, i int, key []int) *jobgraph.Normalize {
	src := jobgraph.Source(i)
	for _, n := range job.Nodes {
		if nz, ok := n.Op.(*jobgraph.Normalize); ok && n.Inputs[0].From == src {
			return nz
		}
	}
	idx := len(job.Nodes)
	for k := range job.Nodes {
		for e := range job.Nodes[k].Inputs {
			if job.Nodes[k].Inputs[e].From == src {
				job.Nodes[k].Inputs[e].From = idx
			}
		}
	}
	nz := &jobgraph.Normalize{Key: key}
	addNode(job, jobgraph.Node{
		UID:    fmt.Sprintf("normalize/%d", i),
		Inputs: []jobgraph.Edge{{From: src, Exchange: jobgraph.Hash, Keys: key}},
		Op:     nz,
		Out:    job.Inputs[i].Schema,
	})
	return nz
}

// finish fixes the job's DAG once planning is done: it sets the sink's
// endpoint, drops identity calcs (a rewrite), sorts the nodes
// topologically (inputs first) and drops nodes the sink does not reach.
func finish(job *jobgraph.Job, result int) {
	job.Result = result
	// Identity calcs pass rows on unchanged: route around them.
	skip := func(e int) int {
		for e >= 0 {
			c, ok := job.Nodes[e].Op.(*jobgraph.Calc)
			if !ok || !c.IsIdentity() {
				break
			}
			e = job.Nodes[e].Inputs[0].From
		}
		return e
	}
	job.Result = skip(job.Result)
	for k := range job.Nodes {
		for e := range job.Nodes[k].Inputs {
			job.Nodes[k].Inputs[e].From = skip(job.Nodes[k].Inputs[e].From)
		}
	}
	// Depth-first from the result: a node is placed after its inputs.
	order := make([]int, 0, len(job.Nodes))
	newIdx := make([]int, len(job.Nodes))
	for i := range newIdx {
		newIdx[i] = -1
	}
	var visit func(e int)
	visit = func(e int) {
		if e < 0 || newIdx[e] >= 0 {
			return
		}
		newIdx[e] = -2 // on the stack
		for _, in := range job.Nodes[e].Inputs {
			visit(in.From)
		}
		newIdx[e] = len(order)
		order = append(order, e)
	}
	visit(job.Result)
	nodes := make([]jobgraph.Node, len(order))
	for i, old := range order {
		n := job.Nodes[old]
		n.Inputs = append([]jobgraph.Edge(nil), n.Inputs...)
		for e := range n.Inputs {
			if f := n.Inputs[e].From; f >= 0 {
				n.Inputs[e].From = newIdx[f]
			}
		}
		nodes[i] = n
	}
	job.Nodes = nodes
	if job.Result >= 0 {
		job.Result = newIdx[job.Result]
	}
}

// nextUID returns the uid of a new node of kind prefix ("agg", "join"):
// the prefix and the number of nodes of the same operator before it, so
// that the same query text always gives the same uids.
func nextUID[T any](job *jobgraph.Job, prefix string) string {
	n := 0
	for _, nd := range job.Nodes {
		if _, ok := nd.Op.(T); ok {
			n++
		}
	}
	return fmt.Sprintf("%s/%d", prefix, n)
}
