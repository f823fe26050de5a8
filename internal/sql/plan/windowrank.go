package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// Window Top-N and window deduplication (decision 0026, reference §4.4):
// a ranking function partitioned by window_start and window_end of one
// window TVF, window aggregate or window join, over an insert-only input,
// is ranked per window and emitted once when the window fires.

// WindowRank is a window Top-N: per window and partition, the rows ranked
// Start..End, emitted when the window fires.
type WindowRank struct {
	In            Rel
	Windowing     jobgraph.Windowing
	PartitionKeys []int
	OrderBy       []jobgraph.SortKey
	Func          jobgraph.RankFunc
	Start, End    int64
	OutputRank    bool
	UID           string
	Cols          []Column
	Pos           sqlerr.Pos
}

// WindowDedup is a window deduplication: per window and key the first or
// the last row by the window's time attribute.
type WindowDedup struct {
	In         Rel
	Windowing  jobgraph.Windowing
	Keys       []int
	KeepLast   bool
	TimeColumn int
	UID        string
	Pos        sqlerr.Pos
}

// Inputs implements Rel.
func (n *WindowRank) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel.
func (n *WindowRank) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *WindowRank) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }

// Inputs implements Rel.
func (n *WindowDedup) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel.
func (n *WindowDedup) Columns() []Column { return n.In.Columns() }

// WithInputs implements Rel.
func (n *WindowDedup) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }

// WindowPartition finds window_start and window_end of one window among
// the PARTITION BY keys of a ranking function over in: the windowing of a
// window Top-N (attached windows) and the other keys; ok is false when the
// keys hold no such pair, the window is a SESSION and session is false
// (plan version 2), or in is updating.
func WindowPartition(in Rel, keys []int, session bool) (w jobgraph.Windowing, rest []int, ok bool) {
	if ChangelogOf(in).Mode != jobgraph.Append {
		return w, nil, false
	}
	wc := windowCols(in)
	start, end := -1, -1
	var src Rel
	for _, k := range keys {
		c, isWin := wc[k]
		switch {
		case isWin && c.role == winStart && start < 0 && (src == nil || src == c.src):
			start, src, w.Window = k, c.src, c.w
		case isWin && c.role == winEnd && end < 0 && (src == nil || src == c.src):
			end, src, w.Window = k, c.src, c.w
		default:
			rest = append(rest, k)
		}
	}
	if start < 0 || end < 0 || w.Window.Kind == jobgraph.Session && !session {
		return jobgraph.Windowing{}, nil, false
	}
	if !w.Window.ProcTime() {
		w.Window.TimeColumn = start // attached: only says event time
	}
	w.Attached, w.WindowStart, w.WindowEnd = true, start, end
	return w, rest, true
}

// IsWindowTime reports whether column col of in is the time attribute of
// the window whose window_start is column start: the DESCRIPTOR column of
// the window TVF, or window_time, passed on by calcs.
func IsWindowTime(in Rel, col, start int) bool {
	wc := windowCols(in)
	if c, ok := wc[col]; ok && c.role == winTime && c.src == wc[start].src {
		return true
	}
	src, i := traceColumn(in, col)
	tvf, ok := src.(*WindowTVF)
	return ok && tvf == wc[start].src && i == tvf.Window.TimeColumn
}

// traceColumn follows column col of r down through calcs that pass it on.
func traceColumn(r Rel, col int) (Rel, int) {
	for {
		c, ok := r.(*Calc)
		if !ok {
			return r, col
		}
		if c.Project != nil {
			j, isCol := expr.ColumnOf(c.Project[col])
			if !isCol {
				return c, col
			}
			col = j
		}
		r = c.In
	}
}

// windowRankName and windowRankAttrs render the nodes of this file.
func windowRankName(r Rel) (logical, physical string, ok bool) {
	switch r.(type) {
	case *WindowRank:
		return "LogicalRank", "WindowRank", true
	case *WindowDedup:
		return "LogicalRank", "WindowDeduplicate", true
	}
	return "", "", false
}

func windowRankAttrs(r Rel) []string {
	switch n := r.(type) {
	case *WindowRank:
		in := names(n.In.Columns())
		return []string{"window=[" + n.Windowing.Window.Summary(n.Windowing, in) + "]", "rankType=[" + n.Func.String() + "]",
			fmt.Sprintf("rankRange=[rankStart=%d, rankEnd=%d]", n.Start, n.End),
			"partitionBy=[" + strings.Join(pick(in, n.PartitionKeys), ", ") + "]", "orderBy=[" + sortKeys(in, n.OrderBy) + "]",
			"select=[" + strings.Join(names(n.Cols), ", ") + "]", "uid=[" + n.UID + "]"}
	case *WindowDedup:
		in := names(n.In.Columns())
		keep := "FirstRow"
		if n.KeepLast {
			keep = "LastRow"
		}
		return []string{"window=[" + n.Windowing.Window.Summary(n.Windowing, in) + "]", "keep=[" + keep + "]",
			"partitionKeys=[" + strings.Join(pick(in, n.Keys), ", ") + "]", "orderKey=[" + in[n.TimeColumn] + "]", "uid=[" + n.UID + "]"}
	}
	return nil
}

// WindowKeys are the keys a window Top-N or deduplication hashes by: the
// window, then the partition.
func WindowKeys(w jobgraph.Windowing, keys []int) []int {
	return append([]int{w.WindowStart, w.WindowEnd}, slices.Clone(keys)...)
}
