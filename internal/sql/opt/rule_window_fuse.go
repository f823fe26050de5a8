package opt

import (
	"slices"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
)

// windowTVFIntoAggregate fuses a window TVF into the window aggregate
// above it (Flink's TimeAttributeWindowingStrategy): when the calc between
// them reads the window only as the window_start and window_end keys, the
// aggregate assigns the windows itself from the time attribute, and the
// TVF's rows (one per window for HOP and CUMULATE) are never built. A
// SESSION TVF fuses only when its PARTITION BY columns are the group keys
// (a fused session window is per group key).
func windowTVFIntoAggregate(r plan.Rel) plan.Rel {
	wa, ok := r.(*plan.WindowAggregate)
	if !ok || !wa.Windowing.Attached {
		return r
	}
	c, ok := wa.In.(*plan.Calc)
	if !ok || c.Project == nil {
		return r
	}
	tvf, ok := c.In.(*plan.WindowTVF)
	if !ok {
		return r
	}
	nIn := len(tvf.In.Columns())
	ws, we := wa.Windowing.WindowStart, wa.Windowing.WindowEnd
	if i, ok := expr.ColumnOf(c.Project[ws]); !ok || i != nIn {
		return r
	}
	if i, ok := expr.ColumnOf(c.Project[we]); !ok || i != nIn+1 {
		return r
	}
	reads := func(x expr.Expr) bool { // only the TVF's input columns
		cols, known := expr.Columns(x)
		if !known {
			return false
		}
		for _, k := range cols {
			if k >= nIn {
				return false
			}
		}
		return true
	}
	if c.Filter != nil && !reads(c.Filter) {
		return r
	}
	used := map[int]bool{}
	for _, k := range wa.Keys {
		used[k] = true
	}
	for _, call := range wa.Calls {
		for _, a := range call.Args {
			used[a] = true
		}
		if call.Filter >= 0 {
			used[call.Filter] = true
		}
	}
	pos := make([]int, len(c.Project))
	var proj []expr.Expr
	var cols []plan.Column
	for i, x := range c.Project {
		if i == ws || i == we || !used[i] {
			pos[i] = -1 // window_time, when grouped, is the aggregate's own
			continue
		}
		if !reads(x) {
			return r
		}
		pos[i] = len(proj)
		proj, cols = append(proj, x), append(cols, c.Cols[i])
	}
	w := tvf.Window
	if w.Kind == jobgraph.Session {
		var keys []int
		for _, k := range wa.Keys {
			i, ok := expr.ColumnOf(c.Project[k])
			if !ok {
				return r
			}
			keys = append(keys, i)
		}
		a, b := slices.Clone(keys), slices.Clone(w.PartitionKeys)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(slices.Compact(a), slices.Compact(b)) {
			return r
		}
		w.PartitionKeys = nil
	}
	if !w.ProcTime() {
		in := tvf.In.Columns()
		t, err := expr.Col(w.TimeColumn, in[w.TimeColumn].Name, in[w.TimeColumn].Type)
		if err != nil {
			return r
		}
		w.TimeColumn = len(proj)
		proj, cols = append(proj, t), append(cols, plan.Column{Name: in[tvf.Window.TimeColumn].Name, Type: in[tvf.Window.TimeColumn].Type})
	}
	remap := func(ks []int) []int {
		out := make([]int, len(ks))
		for i, k := range ks {
			out[i] = pos[k]
		}
		return out
	}
	calls := make([]jobgraph.AggCall, len(wa.Calls))
	for i, call := range wa.Calls {
		call.Args = remap(call.Args)
		if call.Filter >= 0 {
			call.Filter = pos[call.Filter]
		}
		calls[i] = call
	}
	pre := &plan.Calc{In: tvf.In, Filter: c.Filter, Project: proj, Cols: cols, Prepares: c.Prepares, FilterPos: c.FilterPos, Pos: c.Pos}
	n := *wa
	n.In, n.Keys, n.Calls = pre, remap(wa.Keys), calls
	n.Windowing = jobgraph.Windowing{Window: w}
	return &n
}
