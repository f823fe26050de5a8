package plan

import (
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Window aggregation (reference §4.3): a GROUP BY whose keys include both
// window_start and window_end of one window (a window TVF's, or those a
// window aggregate or window join passes on) is a WindowAggregate: one
// insert-only row per window and key when the window fires.

// WindowAggregate groups by window and Keys. Its input carries its window
// in columns (Windowing.Attached); its output is the keys, the calls, then
// window_start, window_end and window_time (the time attribute).
type WindowAggregate struct {
	In        Rel
	Keys      []int
	Calls     []jobgraph.AggCall
	Windowing jobgraph.Windowing
	// UID names the operator's state (agg/N, numbered with the other
	// aggregates in binding order).
	UID  string
	Cols []Column
	Pos  sqlerr.Pos
}

// Inputs implements Rel.
func (n *WindowAggregate) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel.
func (n *WindowAggregate) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *WindowAggregate) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }

// The roles of window columns.
const (
	winStart = iota + 1
	winEnd
	winTime
)

// winCol says that a column holds window_start, window_end or window_time
// of the windows of node src.
type winCol struct {
	src  Rel
	role int
	w    jobgraph.Window
	// time is the kind of window_time (RowTime or ProcTime), typ its type.
	time TimeKind
	typ  types.Type
}

// windowCols returns the columns of r that hold the window columns of a
// window TVF, window aggregate or window join below it, by position;
// calcs pass on plain references to them.
func windowCols(r Rel) map[int]winCol {
	switch n := r.(type) {
	case *WindowTVF:
		k := len(n.Cols)
		t, typ := n.Cols[k-1].Time, n.Cols[k-1].Type
		return map[int]winCol{
			k - 3: {src: n, role: winStart, w: n.Window, time: t, typ: typ},
			k - 2: {src: n, role: winEnd, w: n.Window, time: t, typ: typ},
			k - 1: {src: n, role: winTime, w: n.Window, time: t, typ: typ},
		}
	case *WindowAggregate:
		k := len(n.Cols)
		t, typ := n.Cols[k-1].Time, n.Cols[k-1].Type
		return map[int]winCol{
			k - 3: {src: n, role: winStart, w: n.Windowing.Window, time: t, typ: typ},
			k - 2: {src: n, role: winEnd, w: n.Windowing.Window, time: t, typ: typ},
			k - 1: {src: n, role: winTime, w: n.Windowing.Window, time: t, typ: typ},
		}
	case *WindowJoin:
		out := map[int]winCol{}
		if n.Kind != jobgraph.RightJoin && n.Kind != jobgraph.FullJoin {
			for i, c := range windowCols(n.Left) {
				out[i] = winCol{src: n, role: c.role, w: n.Window, time: c.time, typ: c.typ}
			}
		}
		if n.Kind == jobgraph.InnerJoin || n.Kind == jobgraph.RightJoin {
			k := len(n.Left.Columns())
			for i, c := range windowCols(n.Right) {
				out[k+i] = winCol{src: n, role: c.role, w: n.Window, time: c.time, typ: c.typ}
			}
		}
		return out
	case *Calc:
		in := windowCols(n.In)
		if len(in) == 0 || n.Project == nil {
			return in
		}
		out := map[int]winCol{}
		for i, x := range n.Project {
			if j, ok := expr.ColumnOf(x); ok {
				if c, ok := in[j]; ok {
					out[i] = c
				}
			}
		}
		return out
	}
	return nil
}

// windowize turns an aggregate whose keys include window_start and
// window_end of one window into a window aggregate followed by a calc
// giving the aggregate's columns (window_time stays a time attribute). It
// returns agg when the keys do not.
func windowize(agg *Aggregate) Rel {
	wc := windowCols(agg.In)
	if len(wc) == 0 {
		return agg
	}
	start, end, wtime := -1, -1, -1
	for i, k := range agg.Keys {
		if c, ok := wc[k]; ok && c.role == winStart {
			start = i
		}
	}
	if start < 0 {
		return agg
	}
	src := wc[agg.Keys[start]]
	for i, k := range agg.Keys {
		if c, ok := wc[k]; ok && c.src == src.src {
			switch c.role {
			case winEnd:
				end = i
			case winTime:
				wtime = i
			}
		}
	}
	if end < 0 {
		return agg
	}
	in := agg.In.Columns()
	var keys []int
	pos := make([]int, len(agg.Keys)) // aggregate key i -> window aggregate output
	for i, k := range agg.Keys {
		if i == start || i == end || i == wtime {
			continue
		}
		pos[i] = len(keys)
		keys = append(keys, k)
	}
	nk, nc := len(keys), len(agg.Calls)
	pos[start], pos[end] = nk+nc, nk+nc+1
	if wtime >= 0 {
		pos[wtime] = nk + nc + 2
	}
	cols := make([]Column, 0, nk+nc+3)
	for _, k := range keys {
		cols = append(cols, Column{Name: in[k].Name, Type: in[k].Type})
	}
	cols = append(cols, agg.Cols[len(agg.Keys):]...)
	ws, we := in[agg.Keys[start]], in[agg.Keys[end]]
	cols = append(cols, Column{Name: "window_start", Type: ws.Type}, Column{Name: "window_end", Type: we.Type}, Column{Name: "window_time", Type: src.typ, Time: src.time})
	w := src.w
	if !w.ProcTime() {
		w.TimeColumn = agg.Keys[start] // attached: only says event time
	}
	wa := &WindowAggregate{
		In: agg.In, Keys: keys, Calls: agg.Calls,
		Windowing: jobgraph.Windowing{Window: w, Attached: true, WindowStart: agg.Keys[start], WindowEnd: agg.Keys[end]},
		UID:       agg.UID, Cols: cols, Pos: agg.Pos,
	}
	proj := make([]expr.Expr, 0, len(agg.Cols))
	outCols := slices.Clone(agg.Cols)
	for i := range agg.Keys {
		c := cols[pos[i]]
		x, err := expr.Col(pos[i], c.Name, c.Type)
		if err != nil {
			return agg
		}
		proj = append(proj, x)
		if i == wtime {
			outCols[i].Time = c.Time
			outCols[i].Type = c.Type
		}
	}
	for ci := range agg.Calls {
		c := cols[nk+ci]
		x, err := expr.Col(nk+ci, c.Name, c.Type)
		if err != nil {
			return agg
		}
		proj = append(proj, x)
	}
	return &Calc{In: wa, Project: proj, Cols: outCols, Pos: agg.Pos}
}

// windowAggAttrs renders a window aggregate for EXPLAIN.
func windowAggAttrs(n *WindowAggregate) []string {
	in := names(n.In.Columns())
	sel := pick(in, n.Keys)
	for i, c := range n.Calls {
		sel = append(sel, as(c.String(in), n.Cols[len(n.Keys)+i].Name))
	}
	timeFn := "rowtime"
	if n.Windowing.Window.ProcTime() {
		timeFn = "proctime"
	}
	k := len(n.Cols)
	sel = append(sel, "start('w$) AS "+n.Cols[k-3].Name, "end('w$) AS "+n.Cols[k-2].Name, timeFn+"('w$) AS "+n.Cols[k-1].Name)
	return []string{"groupBy=[" + strings.Join(pick(in, n.Keys), ", ") + "]", "window=[" + n.Windowing.Window.Summary(n.Windowing, in) + "]",
		"select=[" + strings.Join(sel, ", ") + "]", "uid=[" + n.UID + "]"}
}

// WindowJoin joins two windowed inputs on their windows (equal
// window_start and window_end) and the equi-join keys (reference §3.6):
// each window's rows are joined when it fires, outer sides padded, and
// its state is dropped. Its output is both rows, insert-only.
type WindowJoin struct {
	Left, Right Rel
	Kind        jobgraph.JoinKind
	// Window is both sides' windowing.
	Window                                   jobgraph.Window
	LeftStart, LeftEnd, RightStart, RightEnd int
	LeftKeys, RightKeys                      []int
	NullSafe                                 []bool
	Residual                                 expr.Expr
	// UID names the operator's state (join/N, numbered with the joins).
	UID  string
	Cols []Column
	Pos  sqlerr.Pos
}

// Inputs implements Rel.
func (n *WindowJoin) Inputs() []Rel { return []Rel{n.Left, n.Right} }

// Columns implements Rel.
func (n *WindowJoin) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *WindowJoin) WithInputs(in []Rel) Rel { c := *n; c.Left, c.Right = in[0], in[1]; return &c }

// sameWindows reports whether two windowings assign the same windows.
func sameWindows(a, b jobgraph.Window) bool {
	return a.Kind == b.Kind && a.Size == b.Size && a.Slide == b.Slide && a.Step == b.Step && a.Offset == b.Offset &&
		a.Gap == b.Gap && a.ProcTime() == b.ProcTime() && a.TimeZone == b.TimeZone
}

// windowJoin turns a join whose keys pair window_start and window_end of
// two windowed, insert-only inputs with the same (not SESSION) windows
// into a window join (also the semi and anti joins of IN and EXISTS); it
// returns jn when they do not.
func windowJoin(jn *Join) Rel {
	switch jn.Kind {
	case jobgraph.InnerJoin, jobgraph.LeftJoin, jobgraph.RightJoin, jobgraph.FullJoin, jobgraph.SemiJoin, jobgraph.AntiJoin:
	default:
		return jn
	}
	lw, rw := windowCols(jn.Left), windowCols(jn.Right)
	if len(lw) == 0 || len(rw) == 0 || ChangelogOf(jn.Left).Mode != jobgraph.Append || ChangelogOf(jn.Right).Mode != jobgraph.Append {
		return jn
	}
	ls, le, rs, re := -1, -1, -1, -1
	var lsrc, rsrc winCol
	var lk, rk []int
	var ns []bool
	for i := range jn.LeftKeys {
		l, lok := lw[jn.LeftKeys[i]]
		r, rok := rw[jn.RightKeys[i]]
		if lok && rok && l.role == r.role && (ls < 0 || l.src == lsrc.src) && (rs < 0 || r.src == rsrc.src) {
			switch {
			case l.role == winStart && ls < 0:
				ls, rs, lsrc, rsrc = jn.LeftKeys[i], jn.RightKeys[i], l, r
				continue
			case l.role == winEnd && le < 0:
				le, re, lsrc, rsrc = jn.LeftKeys[i], jn.RightKeys[i], l, r
				continue
			}
		}
		lk, rk = append(lk, jn.LeftKeys[i]), append(rk, jn.RightKeys[i])
		ns = append(ns, i < len(jn.NullSafe) && jn.NullSafe[i])
	}
	if ls < 0 || le < 0 || lw[ls].src != lw[le].src || rw[rs].src != rw[re].src ||
		!sameWindows(lsrc.w, rsrc.w) || lsrc.w.Kind == jobgraph.Session {
		return jn
	}
	w := lsrc.w
	if !w.ProcTime() {
		w.TimeColumn = ls // attached: only says event time
	}
	// The sides' window_time columns stay time attributes (Flink's window
	// join keeps them).
	cols := slices.Clone(jn.Cols)
	nl := len(jn.Left.Columns())
	for i, c := range lw {
		if c.role == winTime && cols[i].Type.Same(c.typ) {
			cols[i].Time = c.time
		}
	}
	for i, c := range rw {
		if c.role == winTime && nl+i < len(cols) && cols[nl+i].Type.Same(c.typ) {
			cols[nl+i].Time = c.time
		}
	}
	return &WindowJoin{
		Left: jn.Left, Right: jn.Right, Kind: jn.Kind, Window: w,
		LeftStart: ls, LeftEnd: le, RightStart: rs, RightEnd: re,
		LeftKeys: lk, RightKeys: rk, NullSafe: ns, Residual: jn.Residual,
		UID: jn.UID, Cols: cols, Pos: jn.Pos,
	}
}

// windowJoinAttrs renders a window join for EXPLAIN.
func windowJoinAttrs(n *WindowJoin) []string {
	l, r := names(n.Left.Columns()), names(n.Right.Columns())
	var cond []string
	for i := range n.LeftKeys {
		eq := "="
		if i < len(n.NullSafe) && n.NullSafe[i] {
			eq = "IS NOT DISTINCT FROM"
		}
		cond = append(cond, l[n.LeftKeys[i]]+" "+eq+" "+r[n.RightKeys[i]])
	}
	if n.Residual != nil {
		cond = append(cond, n.Residual.String())
	}
	where := strings.Join(cond, " AND ")
	if where == "" {
		where = "true"
	}
	lw := jobgraph.Windowing{Window: n.Window, Attached: true, WindowStart: n.LeftStart, WindowEnd: n.LeftEnd}
	rw := jobgraph.Windowing{Window: n.Window, Attached: true, WindowStart: n.RightStart, WindowEnd: n.RightEnd}
	return []string{"leftWindow=[" + n.Window.Summary(lw, l) + "]", "rightWindow=[" + n.Window.Summary(rw, r) + "]",
		"joinType=[" + n.Kind.String() + "]", "where=[" + where + "]", "select=[" + strings.Join(names(n.Cols), ", ") + "]", "uid=[" + n.UID + "]"}
}

// windowKeysInEverySet reports, per group key of GROUPING SETS over pre
// (the pre-projection), whether it is a window column that every set
// groups by: it stays NOT NULL (window_start and window_end of a windowed
// GROUPING SETS, as in Flink).
func windowKeysInEverySet(pre Rel, nKeys int, sets [][]int) []bool {
	out := make([]bool, nKeys)
	wc := windowCols(pre)
	for k := range out {
		if _, ok := wc[k]; !ok || len(sets) == 0 {
			continue
		}
		out[k] = true
		for _, set := range sets {
			if !slices.Contains(set, k) {
				out[k] = false
				break
			}
		}
	}
	return out
}
