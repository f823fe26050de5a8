package plan

import (
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Legacy group windows (reference §4.7): GROUP BY TUMBLE(ts, size [,
// offset]), HOP(ts, slide, size [, offset]) or SESSION(ts, gap) with the
// other group keys, and the auxiliary functions TUMBLE_START, _END,
// _ROWTIME, _PROCTIME (HOP_*, SESSION_*) with the same arguments in the
// select list and HAVING. It is a window aggregate that assigns the
// windows itself (sessions per group key, as Flink's group window
// aggregate); the auxiliary calls read its window_start, window_end and
// window_time.

// groupWindow is the group window of a GROUP BY.
type groupWindow struct {
	call *ast.FuncCall
	w    jobgraph.Window
	// timeCol is the time attribute's position in the aggregate's input
	// scope; timeKind its kind.
	timeCol  int
	timeKind TimeKind
	timeType column
}

var groupWindowSigs = map[string]string{
	"TUMBLE":  "TUMBLE(time_attr, interval[, offset])",
	"HOP":     "HOP(time_attr, slide, size[, offset])",
	"SESSION": "SESSION(time_attr, gap)",
}

// isGroupWindowCall reports whether a GROUP BY item is TUMBLE(...),
// HOP(...) or SESSION(...).
func isGroupWindowCall(e ast.Expr) (*ast.FuncCall, bool) {
	fc, ok := e.(*ast.FuncCall)
	if !ok || len(fc.Name.Parts) != 1 {
		return nil, false
	}
	_, ok = groupWindowSigs[strings.ToUpper(fc.Name.Last().Name)]
	return fc, ok
}

// takeGroupWindow removes the group window call from the group
// expressions and binds it over f.
func (p *Planner) takeGroupWindow(exprs []ast.Expr, sets [][]int, f *frag) ([]ast.Expr, *groupWindow, error) {
	var gw *groupWindow
	var rest []ast.Expr
	for _, g := range exprs {
		fc, ok := isGroupWindowCall(g)
		if !ok {
			rest = append(rest, g)
			continue
		}
		if gw != nil {
			return nil, nil, errAt(g.Pos(), sqlerr.InvalidArgument, "Only a single window group function may be used in GROUP BY")
		}
		if sets != nil {
			return nil, nil, errAt(g.Pos(), sqlerr.Unsupported, "GROUPING SETS with a group window function are not supported yet").
				WithHint("use the window TVFs: GROUP BY window_start, window_end, GROUPING SETS (...) over TABLE(TUMBLE(...))")
		}
		var err error
		if gw, err = p.bindGroupWindow(fc, f); err != nil {
			return nil, nil, err
		}
	}
	return rest, gw, nil
}

func (p *Planner) bindGroupWindow(fc *ast.FuncCall, f *frag) (*groupWindow, error) {
	name := strings.ToUpper(fc.Name.Last().Name)
	sig := groupWindowSigs[name]
	nargs := map[string][2]int{"TUMBLE": {2, 3}, "HOP": {3, 4}, "SESSION": {2, 2}}[name]
	if len(fc.Args) < nargs[0] || len(fc.Args) > nargs[1] || fc.Star || fc.Distinct {
		return nil, errAt(fc.Pos(), sqlerr.InvalidFunction, "Invalid number of arguments to function '%s'. Was expecting %s", name, sig)
	}
	ref, ok := fc.Args[0].(*ast.ColumnRef)
	var ci int
	var err error
	if ok {
		ci, err = f.sc.resolve(ref)
		if err != nil {
			return nil, err
		}
	}
	if !ok || f.rel.Columns()[ci].Time == NotTime {
		return nil, errAt(fc.Args[0].Pos(), sqlerr.InvalidArgument, "Window can only be defined on a time attribute column, but is type of %s", argType(fc.Args[0], f.sc)).
			WithHint("the first argument of %s must be a rowtime or proctime column: one with a WATERMARK, or PROCTIME()", name)
	}
	col := f.rel.Columns()[ci]
	gw := &groupWindow{call: fc, timeCol: ci, timeKind: col.Time, timeType: f.sc.cols[ci]}
	w := jobgraph.Window{TimeColumn: 0}
	if col.Time == ProcTime || col.Type.ID == types.TypeTimestampLTZ {
		w.TimeZone = p.sessionTimeZone()
	}
	iv := func(i int, param string, positive bool) (int64, error) {
		return windowInterval(fc.Args[i], param, name, sig, positive)
	}
	switch name {
	case "TUMBLE":
		w.Kind = jobgraph.Tumble
		if w.Size, err = iv(1, "size", true); err != nil {
			return nil, err
		}
		if len(fc.Args) > 2 {
			if w.Offset, err = iv(2, "offset", false); err != nil {
				return nil, err
			}
		}
	case "HOP":
		w.Kind = jobgraph.Hop
		if w.Slide, err = iv(1, "slide", true); err != nil {
			return nil, err
		}
		if w.Size, err = iv(2, "size", true); err != nil {
			return nil, err
		}
		if len(fc.Args) > 3 {
			if w.Offset, err = iv(3, "offset", false); err != nil {
				return nil, err
			}
		}
		if w.Size%w.Slide != 0 {
			return nil, errAt(fc.Args[2].Pos(), sqlerr.InvalidArgument, "Slicing Hopping Window requires size must be an integral multiple of slide, but got size %dms and slide %dms.", w.Size/1e6, w.Slide/1e6)
		}
	case "SESSION":
		w.Kind = jobgraph.Session
		if w.Gap, err = iv(1, "gap", true); err != nil {
			return nil, err
		}
	}
	gw.w = w
	return gw, nil
}

// argType renders the type of a group window's time argument (messages).
func argType(e ast.Expr, sc *scope) string {
	x, err := bindExpr(e, sc)
	if err != nil {
		return "?"
	}
	return x.Type().String()
}

// auxiliary returns the texts of the auxiliary calls of the group window
// (their arguments are the window's), by the window column they read:
// start, end, time (_ROWTIME of an event-time window, _PROCTIME of a
// processing-time one).
func (gw *groupWindow) auxiliary() [3][]string {
	name := strings.ToUpper(gw.call.Name.Last().Name)
	text := func(suffix string) string {
		c := *gw.call
		c.Name = &ast.ObjectName{Parts: []*ast.Ident{{Name: name + suffix}}}
		return ast.Format(&c)
	}
	timeFn := "_ROWTIME"
	if gw.timeKind == ProcTime {
		timeFn = "_PROCTIME"
	}
	return [3][]string{{text("_START")}, {text("_END")}, {text(timeFn)}}
}

// planGroupWindow finishes planAggregate for a group window: the time
// attribute joins the pre-projection, the window aggregate assigns the
// windows, and the auxiliary calls read its window columns.
func (p *Planner) planGroupWindow(f *frag, gw *groupWindow, pre []expr.Expr, preCols []column, keyCols, callCols []column,
	calls []jobgraph.AggCall, subst, groupKeys map[string]int, in *scope, pos sqlerr.Pos) error {
	tc := gw.timeType
	x, err := expr.Col(gw.timeCol, tc.name, tc.typ)
	if err != nil {
		return err
	}
	pre, preCols = append(pre, x), append(preCols, column{name: tc.name, typ: tc.typ})
	f.sc = &scope{cols: preCols}
	f.addCalc(Calc{Project: pre, Prepares: true})
	w := gw.w
	w.TimeColumn = len(pre) - 1
	if gw.timeKind == ProcTime {
		w.TimeColumn = -1
	}
	keys := make([]int, len(keyCols))
	for i := range keys {
		keys[i] = i
	}
	wcols := jobgraph.WindowColumns(tc.typ)
	outCols := append(append([]column(nil), keyCols...), callCols...)
	cols := plainColumns(&scope{cols: outCols})
	for i, fl := range wcols {
		c := Column{Name: fl.Name, Type: fl.Type}
		if i == 2 {
			c.Time = gw.timeKind
		}
		cols = append(cols, c)
		outCols = append(outCols, column{name: "$" + fl.Name, typ: fl.Type})
	}
	n := len(keyCols) + len(callCols)
	for i, texts := range gw.auxiliary() {
		for _, t := range texts {
			subst[t] = n + i
		}
	}
	f.rel = &WindowAggregate{In: f.rel, Keys: keys, Calls: calls, Windowing: jobgraph.Windowing{Window: w}, UID: f.st.aggUID(), Cols: cols, Pos: pos}
	f.sc = &scope{cols: outCols, subst: subst, grouped: in, groupKeys: groupKeys}
	return nil
}
