package opt

import (
	"slices"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// pruneJoinInputs drops the columns of a join's inputs that neither the
// calc above it, nor the join's keys and condition read, with a
// projection below the join: the join keeps narrower rows in its state.
func pruneJoinInputs(r plan.Rel) plan.Rel {
	c, ok := r.(*plan.Calc)
	if !ok || c.Project == nil {
		return r
	}
	j, ok := c.In.(*plan.Join)
	if !ok {
		return r
	}
	leftCols, rightCols := j.Left.Columns(), j.Right.Columns()
	nl, nr := len(leftCols), len(rightCols)
	semi := j.Kind == jobgraph.SemiJoin || j.Kind == jobgraph.AntiJoin
	needL, needR := make([]bool, nl), make([]bool, nr)
	// The join's output: left then right (left only for semi and anti).
	mark := func(i int) {
		if i < nl {
			needL[i] = true
		} else if i-nl < nr {
			needR[i-nl] = true
		}
	}
	reads := []expr.Expr{c.Filter, j.Residual}
	reads = append(reads, c.Project...)
	for k, e := range reads {
		if e == nil {
			continue
		}
		cols, known := expr.Columns(e)
		if !known {
			return r
		}
		if k == 1 || !semi {
			for _, i := range cols {
				mark(i)
			}
		} else {
			for _, i := range cols {
				needL[i] = true
			}
		}
	}
	for _, k := range j.LeftKeys {
		needL[k] = true
	}
	for _, k := range j.RightKeys {
		needR[k] = true
	}
	keepL, keepR := kept(needL), kept(needR)
	if len(keepL) == nl && len(keepR) == nr {
		return r
	}
	nj := *j
	toL, toR := positions(nl, keepL), positions(nr, keepR)
	var ok2 bool
	if nj.Left, ok2 = project(j.Left, keepL); !ok2 {
		return r
	}
	if nj.Right, ok2 = project(j.Right, keepR); !ok2 {
		return r
	}
	nj.LeftKeys, nj.RightKeys = mapAll(j.LeftKeys, toL), mapAll(j.RightKeys, toR)
	// The residual reads the left row followed by the right row.
	concat := append(slices.Clone(toL), make([]int, nr)...)
	for i, p := range toR {
		concat[nl+i] = -1
		if p >= 0 {
			concat[nl+i] = len(keepL) + p
		}
	}
	concatCols := append(slices.Clone(nj.Left.Columns()), nj.Right.Columns()...)
	if nj.Residual, ok2 = remap(j.Residual, concat, concatCols); !ok2 {
		return r
	}
	// The output and the calc above.
	out := concat
	if semi {
		out = toL
	}
	nj.Cols = nil
	for i, p := range out {
		if p >= 0 {
			nj.Cols = append(nj.Cols, j.Cols[i])
		}
	}
	nc := *c
	nc.In = &nj
	if nc.Filter, ok2 = remap(c.Filter, out, nj.Cols); !ok2 {
		return r
	}
	nc.Project = make([]expr.Expr, len(c.Project))
	for i, x := range c.Project {
		if nc.Project[i], ok2 = remap(x, out, nj.Cols); !ok2 {
			return r
		}
	}
	return &nc
}

// kept lists the needed positions; at least the first column stays, so
// that no side becomes empty.
func kept(need []bool) []int {
	var out []int
	for i, n := range need {
		if n {
			out = append(out, i)
		}
	}
	if len(out) == 0 && len(need) > 0 {
		out = []int{0}
	}
	return out
}

// positions maps each of n columns to its position among keep, or -1.
func positions(n int, keep []int) []int {
	to := make([]int, n)
	for i := range to {
		to[i] = -1
	}
	for p, i := range keep {
		to[i] = p
	}
	return to
}

func mapAll(idx, to []int) []int {
	out := make([]int, len(idx))
	for i, k := range idx {
		out[i] = to[k]
	}
	return out
}

// project returns a calc over in keeping the columns keep (in itself when
// keep is all of them), part of the input of the join above.
func project(in plan.Rel, keep []int) (plan.Rel, bool) {
	cols := in.Columns()
	if len(keep) == len(cols) {
		return in, true
	}
	c := &plan.Calc{In: in, Prepares: true}
	for _, i := range keep {
		c.Project = append(c.Project, colRef(cols, i))
		c.Cols = append(c.Cols, cols[i])
	}
	return c, true
}
