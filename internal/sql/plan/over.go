package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// OVER in the select list (decision 0026, reference §5.1). The OVER calls
// of a SELECT are computed by one Over node between the FROM (or the GROUP
// BY) and the projection: a calc appends the window's keys and the calls'
// arguments that are not plain columns, the Over node appends one column
// per call, and the select list binds each call to its column (scope
// subst), as GROUP BY does for aggregate calls.

// rankFuncs are the ranking functions.
var rankFuncs = map[string]jobgraph.RankFunc{
	"ROW_NUMBER": jobgraph.RowNumber, "RANK": jobgraph.RankNumber, "DENSE_RANK": jobgraph.DenseRank,
}

// overCalls returns the OVER calls of the select list, each once.
func overCalls(s *ast.Select) []*ast.FuncCall {
	var out []*ast.FuncCall
	seen := map[string]bool{}
	for _, it := range s.Items {
		ast.Inspect(it.Expr, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.ScalarSubquery, *ast.Exists:
				return false
			case *ast.In:
				return x.Query == nil
			case *ast.FuncCall:
				if x.Over != nil {
					if k := ast.Format(x); !seen[k] {
						seen[k] = true
						out = append(out, x)
					}
					return false
				}
			}
			return true
		})
	}
	return out
}

// hasOver reports whether an expression has an OVER call.
func hasOver(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if fc, ok := n.(*ast.FuncCall); ok && fc.Over != nil {
			found = true
		}
		return !found
	})
	return found
}

// resolveWindow returns the window of an OVER call with the named windows
// it refers to merged in.
func resolveWindow(w *ast.WindowSpec, named map[string]*ast.NamedWindow, depth int) (*ast.WindowSpec, error) {
	if w.Ref == nil {
		return w, nil
	}
	nw, ok := named[strings.ToLower(w.Ref.Name)]
	if !ok || depth > len(named) {
		return nil, errAt(w.Ref.Pos(), sqlerr.InvalidArgument, "Window '%s' not found", w.Ref.Name).
			WithHint("define it in the WINDOW clause of the same SELECT: WINDOW %s AS (PARTITION BY ... ORDER BY ...)", w.Ref.Name)
	}
	base, err := resolveWindow(nw.Spec, named, depth+1)
	if err != nil {
		return nil, err
	}
	out := *base
	out.Ref = nil
	out.Loc = w.Loc
	if w.PartitionBy != nil {
		if base.PartitionBy != nil {
			return nil, errAt(w.PartitionBy[0].Pos(), sqlerr.InvalidArgument, "PARTITION BY not allowed with existing window reference")
		}
		out.PartitionBy = w.PartitionBy
	}
	if w.OrderBy != nil {
		if base.OrderBy != nil {
			return nil, errAt(w.OrderBy[0].Pos(), sqlerr.InvalidArgument, "ORDER BY not allowed in both base and referenced windows")
		}
		out.OrderBy = w.OrderBy
	}
	if w.Frame != nil {
		out.Frame = w.Frame
	}
	return &out, nil
}

// windowKey is the text of a resolved window, to compare windows.
func windowKey(w *ast.WindowSpec) string {
	c := *w
	fc := &ast.FuncCall{Name: &ast.ObjectName{Parts: []*ast.Ident{{Name: "f"}}}, Over: &c}
	return ast.Format(fc)
}

// planOver plans the OVER calls of the select list of s over f.
func (p *Planner) planOver(s *ast.Select, f *frag) error {
	calls := overCalls(s)
	if len(calls) == 0 {
		if s.Windows != nil {
			return nil // a WINDOW clause nobody uses, as Calcite allows
		}
		return nil
	}
	named := map[string]*ast.NamedWindow{}
	for _, w := range s.Windows {
		k := strings.ToLower(w.Name.Name)
		if _, dup := named[k]; dup {
			return errAt(w.Pos(), sqlerr.InvalidArgument, "Duplicate window names are not allowed: '%s'", w.Name.Name)
		}
		named[k] = w
	}
	var win *ast.WindowSpec
	for _, fc := range calls {
		w, err := resolveWindow(fc.Over, named, 0)
		if err != nil {
			return err
		}
		if win == nil {
			win = w
		} else if windowKey(w) != windowKey(win) {
			return errAt(fc.Over.Pos(), sqlerr.Unsupported, "All aggregates must be computed on the same window.").
				WithHint("give every OVER call of the SELECT the same PARTITION BY, ORDER BY and frame, or compute them in separate subqueries")
		}
	}
	in := f.sc
	inCols := f.rel.Columns()
	var pre []expr.Expr
	var preCols []column
	for i, c := range in.cols {
		x, err := expr.Col(i, c.name, c.typ)
		if err != nil {
			return err
		}
		pre, preCols = append(pre, x), append(preCols, c)
	}
	extras := false
	add := func(x expr.Expr, c column) int {
		if i, ok := expr.ColumnOf(x); ok && i < len(in.cols) {
			return i
		}
		extras = true
		c.name, c.hidden = fmt.Sprintf("$over%d", len(pre)), true
		pre, preCols = append(pre, x), append(preCols, c)
		return len(pre) - 1
	}
	node := &Over{Pos: calls[0].Pos(), UID: f.st.overUID()}
	ttl, err := p.stateTTL()
	if err != nil {
		return err
	}
	node.StateTTL = ttl
	for _, e := range win.PartitionBy {
		if hasAggregate(e) && in.subst == nil || hasOver(e) {
			return errAt(e.Pos(), sqlerr.InvalidArgument, "PARTITION BY of an OVER window cannot hold an OVER call")
		}
		x, err := bindExpr(e, in)
		if err != nil {
			return err
		}
		node.PartitionKeys = append(node.PartitionKeys, add(x, column{typ: x.Type()}))
	}
	for _, o := range win.OrderBy {
		x, err := bindExpr(o.Expr, in)
		if err != nil {
			return err
		}
		k := jobgraph.SortKey{Col: add(x, column{typ: x.Type()}), Desc: o.Desc, NullsFirst: !o.Desc}
		switch o.Nulls {
		case ast.NullsFirst:
			k.NullsFirst = true
		case ast.NullsLast:
			k.NullsFirst = false
		}
		node.OrderBy = append(node.OrderBy, k)
	}
	if len(win.OrderBy) > 0 {
		node.OrderPos = win.OrderBy[0].Pos()
	} else {
		node.OrderPos = win.Pos()
	}
	var outCols []column
	for _, fc := range calls {
		name := strings.ToUpper(fc.Name.Last().Name)
		if rf, isRank := rankFuncs[name]; isRank && len(fc.Name.Parts) == 1 {
			if len(calls) > 1 {
				return errAt(fc.Pos(), sqlerr.Unsupported, "%s() with other OVER calls in one SELECT is not supported", name).
					WithHint("compute %s() in a subquery of its own", name)
			}
			if len(fc.Args) > 0 || fc.Star {
				return errAt(fc.Pos(), sqlerr.InvalidFunction, "%s takes no arguments", name)
			}
			if win.Frame != nil {
				return errAt(win.Frame.Pos(), sqlerr.InvalidArgument, "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions")
			}
			if len(win.OrderBy) == 0 {
				return errAt(fc.Over.Pos(), sqlerr.InvalidArgument, "Over Agg: The window rank function without order by. please re-check the over window statement.")
			}
			node.HasRank, node.Rank = true, rf
			outCols = append(outCols, column{name: fmt.Sprintf("w0$o%d", len(outCols)), typ: types.BigInt.NonNull(), hidden: true})
			continue
		}
		fn, ok := overAggOf(fc)
		if !ok {
			switch name {
			case "LAG", "LEAD", "NTILE", "PERCENT_RANK", "CUME_DIST", "NTH_VALUE":
				return errAt(fc.Pos(), sqlerr.Unsupported, "%s OVER (...) is not supported yet", name)
			}
			return errAt(fc.Pos(), sqlerr.InvalidFunction, "OVER must be applied to aggregate function, but '%s' is not an aggregate function", fc.Name)
		}
		call, col, err := p.bindAggCall(fc, fn, in, add)
		if err != nil {
			return err
		}
		node.Calls = append(node.Calls, call)
		col.name, col.hidden = fmt.Sprintf("w0$o%d", len(outCols)), true
		outCols = append(outCols, col)
	}
	if !node.HasRank {
		if err := overFrame(node, win, f, inCols); err != nil {
			return err
		}
	}
	if node.HasRank {
		node.UID = "rank/" + strings.TrimPrefix(node.UID, "over/")
	}
	if extras {
		f.sc = &scope{cols: preCols}
		f.addCalc(Calc{Project: pre, Pos: s.Pos()})
	}
	node.In = f.rel
	node.Cols = append([]Column(nil), f.rel.Columns()...)
	if node.IsSorted() {
		// A retract changelog carries no time attribute.
		for i := range node.Cols {
			node.Cols[i].Time = NotTime
		}
	}
	for _, c := range outCols {
		node.Cols = append(node.Cols, Column{Name: c.name, Type: c.typ})
	}
	f.rel = node
	out := &scope{cols: append(preCols, outCols...), subst: maps.Clone(in.subst), grouped: in.grouped, groupKeys: in.groupKeys, env: in.env, inner: in.inner}
	if out.subst == nil {
		out.subst = map[string]int{}
	}
	for i, fc := range calls {
		out.subst[ast.Format(fc)] = len(preCols) + i
	}
	f.sc = out
	return nil
}

// overAggOf returns the aggregate function an OVER call applies.
func overAggOf(fc *ast.FuncCall) (jobgraph.AggFunc, bool) {
	if u, _, isUser := userAggOf(fc); isUser {
		return jobgraph.AggFunc(u.name), true
	}
	if len(fc.Name.Parts) != 1 {
		return "", false
	}
	fn, ok := aggFuncs[strings.ToUpper(fc.Name.Last().Name)]
	return fn, ok
}

// overFrame checks the ORDER BY of an OVER aggregate and binds its frame.
// Ordered by one time attribute ascending, over an insert-only input, it
// is Flink's streaming OVER; ordered otherwise (several keys, DESC, a
// column that is no time attribute) it is the sorted OVER of decision
// 0035, an Eddy extension, which takes ROWS frames and the unbounded RANGE
// frame.
func overFrame(node *Over, win *ast.WindowSpec, f *frag, inCols []Column) error {
	if len(win.OrderBy) == 0 {
		return errAt(win.Pos(), sqlerr.Unsupported, "OVER windows' ordering in stream mode must be defined on a time attribute.").
			WithHint("add ORDER BY a time attribute (a column with a WATERMARK, or PROCTIME()), or ORDER BY any column for Eddy's sorted OVER")
	}
	k := node.OrderBy[0]
	if len(win.OrderBy) > 1 || k.Desc || k.Col >= len(inCols) || inCols[k.Col].Time == NotTime {
		node.Sorted = true
	}
	sorted := node.Sorted || f.changelog().Mode != jobgraph.Append
	fr := win.Frame
	if fr == nil {
		node.Frame = jobgraph.OverFrame{Unbounded: true}
		return nil
	}
	node.Frame.Rows = fr.Rows
	if fr.End != nil && fr.End.Kind != ast.CurrentRow {
		return errAt(fr.End.Pos(), sqlerr.Unsupported, "OVER windows in stream mode must end at CURRENT ROW").
			WithHint("write BETWEEN ... PRECEDING AND CURRENT ROW")
	}
	switch b := fr.Start; b.Kind {
	case ast.UnboundedPreceding:
		node.Frame.Unbounded = true
	case ast.CurrentRow:
	case ast.Preceding:
		v, err := bindExpr(b.Offset, &scope{})
		if err != nil {
			return err
		}
		val, err := v.Eval(nil)
		if err != nil {
			return positioned(err, b.Offset.Pos(), sqlerr.InvalidArgument)
		}
		switch {
		case fr.Rows && v.Type().IsInteger() && !val.IsNull() && val.Int() >= 0:
			node.Frame.Preceding = val.Int()
		case !fr.Rows && sorted:
			return errAt(b.Pos(), sqlerr.Unsupported, "RANGE BETWEEN ... PRECEDING is supported only over an insert-only input ordered by one time attribute").
				WithHint("over an updating input or another ORDER BY, write ROWS BETWEEN n PRECEDING AND CURRENT ROW or RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW")
		case !fr.Rows && v.Type().ID == types.TypeIntervalDayTime && !val.IsNull() && val.Int() >= 0:
			node.Frame.Preceding = val.Int()
		case fr.Rows:
			return errAt(b.Offset.Pos(), sqlerr.InvalidArgument, "ROWS needs a non-negative integer literal before PRECEDING, but %s has type %s", ast.Format(b.Offset), v.Type())
		default:
			return errAt(b.Offset.Pos(), sqlerr.InvalidArgument, "RANGE over a time attribute needs a day-time INTERVAL before PRECEDING, but %s has type %s", ast.Format(b.Offset), v.Type()).
				WithHint("write RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW")
		}
	default:
		return errAt(b.Pos(), sqlerr.Unsupported, "OVER windows in stream mode must start at UNBOUNDED PRECEDING, n PRECEDING or CURRENT ROW")
	}
	return nil
}

// hasOverItem reports whether the select list has an OVER call.
func hasOverItem(s *ast.Select) bool {
	for _, it := range s.Items {
		if hasOver(it.Expr) {
			return true
		}
	}
	return false
}

// planOrderBy plans ORDER BY [LIMIT n] [OFFSET m] of s over its projected
// rows f (reference §6.2): with LIMIT, a global Top-N (Flink's SortLimit,
// a Rank without partition keys and without the rank column); without, a
// temporal sort, whose first key must be a time attribute ascending. The
// outermost SELECT of a query whose rows go to the client (toClient) may
// sort by any of its columns: the client sorts the table it materializes.
func (p *Planner) planOrderBy(s *ast.Select, f *frag, extras int, toClient bool) error {
	cols := f.rel.Columns()
	var keys []jobgraph.SortKey
	nextExtra := len(cols) - extras
	for _, o := range s.OrderBy {
		i := -1
		switch e := o.Expr.(type) {
		case *ast.ColumnRef:
			if j, err := f.sc.resolve(e); err == nil && !f.sc.cols[j].hidden {
				i = j
			}
		case *ast.NumericLit:
			if x, err := bindExpr(e, &scope{}); err == nil && x.Type().IsInteger() {
				if v, err := x.Eval(nil); err == nil && v.Int() >= 1 && int(v.Int()) <= len(cols) {
					i = int(v.Int()) - 1
				}
			}
		}
		if i < 0 && extras > 0 && !isOrderColumn(o.Expr, f.sc) {
			// An expression over the FROM columns, computed as a hidden
			// column of the projection (withOrderColumns).
			i, nextExtra = nextExtra, nextExtra+1
		}
		if i < 0 {
			return errAt(o.Pos(), sqlerr.Unsupported, "ORDER BY %s is not supported yet: ORDER BY takes columns of the select list", ast.Format(o.Expr)).
				WithHint("add the expression to the select list with an alias and order by the alias")
		}
		k := jobgraph.SortKey{Col: i, Desc: o.Desc, NullsFirst: !o.Desc}
		switch o.Nulls {
		case ast.NullsFirst:
			k.NullsFirst = true
		case ast.NullsLast:
			k.NullsFirst = false
		}
		keys = append(keys, k)
	}
	if s.Limit == nil {
		if s.Offset != nil {
			return errAt(s.Offset.Pos(), sqlerr.Unsupported, "OFFSET without LIMIT is not supported on a stream").
				WithHint("add LIMIT n: ORDER BY ... LIMIT n OFFSET m is a Top-N")
		}
		k := keys[0]
		if (cols[k.Col].Time == NotTime || k.Desc) && toClient && extras == 0 {
			// The rows go to the client, which sorts the table it
			// materializes (a script's snapshot of the result).
			f.st.order = keys
			return nil
		}
		if (cols[k.Col].Time == NotTime || k.Desc) && toClient {
			return errAt(s.OrderBy[0].Pos(), sqlerr.Unsupported, "ORDER BY of a result the client sorts takes columns of the select list").
				WithHint("add the ORDER BY expressions to the select list")
		}
		if cols[k.Col].Time == NotTime || k.Desc {
			return errAt(s.OrderBy[0].Pos(), sqlerr.Unsupported, "Sort on a non-time-attribute field is not supported.").
				WithHint("order by a time attribute ascending first (a column with a WATERMARK, or PROCTIME()), or add LIMIT n for a Top-N")
		}
		n := &TemporalSort{In: f.rel, TimeColumn: k.Col, ProcTime: cols[k.Col].Time == ProcTime, OrderBy: keys[1:], UID: "sort/" + strings.TrimPrefix(f.st.overUID(), "over/"), Pos: s.OrderBy[0].Pos()}
		f.rel = n
		return dropOrderColumns(f, extras)
	}
	limit, err := literalCount(s.Limit, "LIMIT")
	if err != nil {
		return err
	}
	var offset int64
	if s.Offset != nil {
		if offset, err = literalCount(s.Offset, "OFFSET"); err != nil {
			return err
		}
	}
	if limit == 0 {
		none, err := expr.Lit(types.NewBool(false), types.Boolean.NonNull())
		if err != nil {
			return err
		}
		f.rel = &Calc{In: f.rel, Filter: none, Cols: cols, Pos: s.Pos()}
		return nil
	}
	ttl, err := p.stateTTL()
	if err != nil {
		return err
	}
	n := &Rank{In: f.rel, OrderBy: keys, Func: jobgraph.RowNumber, Start: offset + 1, End: offset + limit, StateTTL: ttl,
		UID: "rank/" + strings.TrimPrefix(f.st.overUID(), "over/"), Pos: s.OrderBy[0].Pos()}
	for _, c := range cols {
		n.Cols = append(n.Cols, Column{Name: c.Name, Type: c.Type})
	}
	f.rel = n
	return dropOrderColumns(f, extras)
}

// isOrderColumn reports whether an ORDER BY item names a visible column of
// the output.
func isOrderColumn(e ast.Expr, sc *scope) bool {
	if ref, ok := e.(*ast.ColumnRef); ok {
		j, err := sc.resolve(ref)
		return err == nil && !sc.cols[j].hidden
	}
	_, ok := e.(*ast.NumericLit)
	return ok
}

// withOrderColumns returns the select to project for s: s itself, or,
// when ORDER BY sorts by expressions that are not output columns (ORDER BY
// ts with ts not selected), s with those expressions appended as hidden
// items, and their number.
func (p *Planner) withOrderColumns(s *ast.Select, f *frag) (*ast.Select, int, error) {
	if len(s.OrderBy) == 0 || s.Distinct {
		return s, 0, nil
	}
	trial := &frag{st: f.st, rel: f.rel, sc: f.sc}
	var c Calc
	if err := p.project(s, trial, &c); err != nil {
		return nil, 0, err
	}
	var extra []*ast.SelectItem
	for _, o := range s.OrderBy {
		if isOrderColumn(o.Expr, trial.sc) {
			continue
		}
		if _, err := bindExpr(o.Expr, f.sc); err != nil {
			return s, 0, nil // planOrderBy reports it
		}
		extra = append(extra, &ast.SelectItem{Expr: o.Expr, Alias: &ast.Ident{Loc: ast.Loc{Start: o.Pos()}, Name: fmt.Sprintf("$order%d", len(extra))}})
	}
	if len(extra) == 0 {
		return s, 0, nil
	}
	out := *s
	out.Items = append(append([]*ast.SelectItem(nil), s.Items...), extra...)
	return &out, len(extra), nil
}

// dropOrderColumns projects the hidden ORDER BY columns away.
func dropOrderColumns(f *frag, extras int) error {
	if extras == 0 {
		return nil
	}
	cols := f.rel.Columns()
	n := len(cols) - extras
	project := make([]expr.Expr, n)
	for i := range project {
		x, err := expr.Col(i, cols[i].Name, cols[i].Type)
		if err != nil {
			return err
		}
		project[i] = x
	}
	f.sc = &scope{cols: f.sc.cols[:n]}
	f.addCalc(Calc{Project: project})
	return nil
}

// literalCount binds LIMIT or OFFSET: a non-negative integer literal.
func literalCount(e ast.Expr, what string) (int64, error) {
	v, err := bindExpr(e, &scope{})
	if err == nil && v.Type().IsInteger() {
		if lv, ok := expr.ConstValue(v); ok && !lv.IsNull() && lv.Int() >= 0 {
			return lv.Int(), nil
		}
	}
	return 0, errAt(e.Pos(), sqlerr.InvalidArgument, "%s needs a non-negative integer literal", what)
}

// withQualifyItems returns s with the OVER calls of its QUALIFY appended
// to the select list as hidden items ($qualifyN), and their number.
func withQualifyItems(s *ast.Select) (*ast.Select, int, error) {
	if s.Qualify == nil {
		return s, 0, nil
	}
	if s.Distinct {
		return nil, 0, errAt(s.Qualify.Pos(), sqlerr.Unsupported, "QUALIFY with SELECT DISTINCT is not supported yet").
			WithHint("filter in a subquery: SELECT DISTINCT ... FROM (SELECT ... QUALIFY ...)")
	}
	q := &ast.Select{Items: []*ast.SelectItem{{Expr: s.Qualify}}}
	calls := overCalls(q)
	if len(calls) == 0 && !hasOverItem(s) {
		return nil, 0, errAt(s.Qualify.Pos(), sqlerr.InvalidArgument, "QUALIFY expression '%s' must contain a window function", ast.Format(s.Qualify))
	}
	out := *s
	out.Items = slices.Clone(s.Items)
	for i, fc := range calls {
		out.Items = append(out.Items, &ast.SelectItem{Expr: fc, Alias: &ast.Ident{Loc: ast.Loc{Start: fc.Pos()}, Name: fmt.Sprintf("$qualify%d", i)}})
	}
	return &out, len(calls), nil
}

// planQualify filters the projected rows of f by QUALIFY: the condition
// reads the select list's columns by name and its OVER calls from their
// hidden columns (the nq columns before the orderExtras ones), which are
// then dropped. The filter above the projection above the Over is the
// Top-N pattern of rule rank.
func planQualify(s *ast.Select, f *frag, nq, orderExtras int) error {
	cols := f.sc.cols
	first := len(cols) - orderExtras - nq
	qsc := &scope{cols: cols, subst: map[string]int{}}
	q := &ast.Select{Items: []*ast.SelectItem{{Expr: s.Qualify}}}
	for i, fc := range overCalls(q) {
		qsc.subst[ast.Format(fc)] = first + i
	}
	x, err := bindExpr(s.Qualify, qsc)
	if err != nil {
		return err
	}
	if x.Type().ID != types.TypeBoolean && x.Type().ID != types.TypeNull {
		return errAt(s.Qualify.Pos(), sqlerr.TypeMismatch, "QUALIFY needs a BOOLEAN condition, but %s has type %s", ast.Format(s.Qualify), x.Type())
	}
	if nq == 0 {
		f.addCalc(Calc{Filter: x, FilterPos: s.Qualify.Pos(), Pos: s.Pos()})
		return nil
	}
	// One calc filters and drops the hidden columns, so that rule rank
	// sees that nothing reads the rank.
	var project []expr.Expr
	var keep []column
	for i, c := range cols {
		if i >= first && i < first+nq {
			continue
		}
		ref, err := expr.Col(i, c.name, c.typ)
		if err != nil {
			return err
		}
		project, keep = append(project, ref), append(keep, c)
	}
	f.sc = &scope{cols: keep}
	f.addCalc(Calc{Filter: x, FilterPos: s.Qualify.Pos(), Project: project, Pos: s.Pos()})
	return nil
}

// planSetOpOrdered plans ORDER BY [LIMIT] after a set operation: the
// operation, then the sort of its rows as planOrderBy sorts a SELECT's.
func (p *Planner) planSetOpOrdered(n *ast.SetOp, st *stmt, toClient bool) (*frag, error) {
	bare := *n
	bare.OrderBy, bare.Limit = nil, nil
	f, err := p.planSetOp(&bare, st)
	if err != nil {
		return nil, err
	}
	return f, p.planOrderBy(&ast.Select{Loc: ast.Loc{Start: n.Pos()}, OrderBy: n.OrderBy, Limit: n.Limit}, f, 0, toClient)
}
