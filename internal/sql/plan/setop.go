package plan

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// planSetOp plans UNION [ALL]: a Union node over both sides, each cast to
// the columns' common types; UNION (distinct) adds a GroupAggregate on
// every column, as Flink plans it.
func (p *Planner) planSetOp(n *ast.SetOp, st *stmt) (*frag, error) {
	allowLimit := p.allowLimit
	p.allowLimit = false
	if len(n.OrderBy) > 0 {
		return p.planSetOpOrdered(n, st, allowLimit)
	}
	l, err := p.planQuery(n.Left, st)
	if err != nil {
		return nil, err
	}
	r, err := p.planQuery(n.Right, st)
	if err != nil {
		return nil, err
	}
	if len(l.sc.cols) != len(r.sc.cols) {
		return nil, errAt(n.OpPos, sqlerr.InvalidArgument, "Set operator cannot combine queries with different column counts: the left side has %d columns, the right side %d", len(l.sc.cols), len(r.sc.cols))
	}
	cols := make([]column, len(l.sc.cols))
	for i := range cols {
		t, ok := expr.CommonType(l.sc.cols[i].typ, r.sc.cols[i].typ)
		if !ok {
			return nil, errAt(n.OpPos, sqlerr.TypeMismatch, "Type mismatch in column %d of UNION: %s and %s have no common type", i+1, l.sc.cols[i].typ, r.sc.cols[i].typ).
				WithHint("CAST one side to the other's type")
		}
		cols[i] = column{name: l.sc.cols[i].name, typ: t}
	}
	if n.Kind != ast.Union {
		return p.planIntersectExcept(n, l, r, cols, allowLimit)
	}
	var ins []Rel
	for _, side := range []*frag{l, r} {
		if err := castFrag(side, cols, n.OpPos); err != nil {
			return nil, err
		}
		ins = append(ins, side.rel)
	}
	sc := &scope{cols: cols}
	u := &Union{Ins: ins, Cols: plainColumns(sc), Op: "UNION", Pos: n.OpPos}
	lt, rt := l.timeAttrs(), r.timeAttrs()
	for i := range cols {
		if lt[i] && rt[i] {
			u.Cols[i].Time = l.rel.Columns()[i].Time
		}
	}
	f := &frag{st: st, rel: u, sc: sc}
	if !n.All {
		if err := p.planDistinct(&ast.Select{}, f); err != nil {
			return nil, err
		}
	}
	if n.Limit != nil {
		if !allowLimit {
			return nil, errAt(n.Limit.Pos(), sqlerr.Unsupported, "LIMIT is supported only on the outermost query that returns rows yet")
		}
		return f, planLimit(f, n.Limit)
	}
	return f, nil
}

// castFrag casts the columns of f to cols' types (keeping f's names) with
// a calc, when any differs.
func castFrag(f *frag, cols []column, pos sqlerr.Pos) error {
	same := true
	proj := make([]expr.Expr, len(cols))
	out := make([]column, len(cols))
	for i, c := range f.sc.cols {
		x, err := expr.Col(i, c.name, c.typ)
		if err != nil {
			return err
		}
		if !c.typ.Same(cols[i].typ) {
			same = false
			if x, err = expr.Cast(x, cols[i].typ, false); err != nil {
				return positioned(err, pos, sqlerr.TypeMismatch)
			}
		}
		proj[i] = x
		out[i] = column{name: c.name, typ: cols[i].typ}
	}
	if same {
		return nil
	}
	f.sc = &scope{cols: out}
	f.addCalc(Calc{Project: proj, Prepares: true})
	return nil
}

// planValues plans VALUES (...), (...) as a query: a Values node. Columns
// are named EXPR$0, EXPR$1, ... and typed by the common type of each
// column; every value must be a constant expression.
func (p *Planner) planValues(v *ast.Values, st *stmt) (*frag, error) {
	var rows [][]expr.Expr
	width := -1
	for _, r := range v.Rows {
		items := r.Values
		if width >= 0 && len(items) != width {
			return nil, errAt(r.Pos(), sqlerr.InvalidArgument, "All rows of VALUES must have the same number of columns: this row has %d, the first has %d", len(items), width)
		}
		width = len(items)
		var xs []expr.Expr
		for _, it := range items {
			x, err := bindExpr(it, &scope{})
			if err != nil {
				return nil, err
			}
			xs = append(xs, x)
		}
		rows = append(rows, xs)
	}
	cols := make([]column, width)
	for i := range cols {
		var ts []types.Type
		for _, r := range rows {
			ts = append(ts, r[i].Type())
		}
		t, ok := expr.CommonType(ts...)
		if !ok {
			return nil, errAt(v.Pos(), sqlerr.TypeMismatch, "The values of column %d of VALUES have no common type", i+1)
		}
		cols[i] = column{name: fmt.Sprintf("EXPR$%d", i), typ: t}
	}
	var vals [][]types.Value
	for _, r := range rows {
		row := make([]types.Value, width)
		for i, x := range r {
			if !x.Type().Same(cols[i].typ) {
				var err error
				if x, err = expr.Cast(x, cols[i].typ, false); err != nil {
					return nil, positioned(err, v.Pos(), sqlerr.TypeMismatch)
				}
			}
			val, err := x.Eval(nil)
			if err != nil {
				return nil, positioned(err, v.Pos(), sqlerr.InvalidArgument)
			}
			row[i] = val
		}
		vals = append(vals, row)
	}
	return valuesFrag(st, cols, vals), nil
}

// valuesFrag is a relation of fixed rows.
func valuesFrag(st *stmt, cols []column, rows [][]types.Value) *frag {
	sc := &scope{cols: cols}
	return &frag{st: st, rel: &Values{Rows: rows, Cols: plainColumns(sc)}, sc: sc}
}

// planIntersectExcept plans INTERSECT and EXCEPT (distinct) as Flink
// does: both sides tagged with a count column each, a union, and a
// GroupAggregate on every column whose HAVING keeps the rows present on
// both sides (INTERSECT) or only on the left (EXCEPT).
func (p *Planner) planIntersectExcept(n *ast.SetOp, l, r *frag, cols []column, allowLimit bool) (*frag, error) {
	if len(n.OrderBy) > 0 {
		return nil, errAt(n.OrderBy[0].Pos(), sqlerr.Unsupported, "ORDER BY on %s is not supported yet", n.Kind).
			WithHint("remove the ORDER BY of the %s: Eddy does not sort query results yet", n.Kind)
	}
	if n.Limit != nil && !allowLimit {
		return nil, errAt(n.Limit.Pos(), sqlerr.Unsupported, "LIMIT is supported only on the outermost query that returns rows yet").
			WithHint("drop the LIMIT, or move the %s to the outermost query", n.Kind)
	}
	var ins []Rel
	named := make([]column, len(cols))
	for i, c := range cols {
		named[i] = column{name: fmt.Sprintf("$c%d", i), typ: c.typ}
	}
	tagged := append(append([]column(nil), named...), column{name: "$l", typ: types.BigInt.NonNull()}, column{name: "$r", typ: types.BigInt.NonNull()})
	for k, side := range []*frag{l, r} {
		if err := castFrag(side, cols, n.OpPos); err != nil {
			return nil, err
		}
		var proj []expr.Expr
		for i, c := range side.sc.cols {
			x, err := expr.Col(i, c.name, c.typ)
			if err != nil {
				return nil, err
			}
			proj = append(proj, x)
		}
		for _, tag := range []int64{int64(1 - k), int64(k)} {
			x, err := expr.Lit(types.NewInt(tag), types.BigInt.NonNull())
			if err != nil {
				return nil, err
			}
			proj = append(proj, x)
		}
		side.sc = &scope{cols: tagged}
		side.addCalc(Calc{Project: proj, Prepares: true})
		ins = append(ins, side.rel)
	}
	sc := &scope{cols: tagged}
	f := &frag{st: l.st, rel: &Union{Ins: ins, Cols: plainColumns(sc), Op: n.Kind.String(), Pos: n.OpPos}, sc: sc}
	ref := func(name string) *ast.ColumnRef { return &ast.ColumnRef{Parts: []*ast.Ident{{Name: name}}} }
	sum := func(name string) ast.Expr {
		return &ast.FuncCall{Name: &ast.ObjectName{Parts: []*ast.Ident{{Name: "SUM"}}}, Args: []ast.Expr{ref(name)}}
	}
	zero := &ast.NumericLit{Text: "0"}
	rightOp := ast.OpGt
	if n.Kind == ast.Except {
		rightOp = ast.OpEq
	}
	sel := &ast.Select{
		Having: &ast.Binary{Op: ast.OpAnd,
			X: &ast.Binary{Op: ast.OpGt, X: sum("$l"), Y: zero},
			Y: &ast.Binary{Op: rightOp, X: sum("$r"), Y: zero}},
	}
	for _, c := range named {
		sel.GroupBy = append(sel.GroupBy, ref(c.name))
		sel.Items = append(sel.Items, &ast.SelectItem{Expr: ref(c.name)})
	}
	if n.All {
		f, err := p.planSetOpAll(n, f, sel, cols)
		if err == nil && n.Limit != nil {
			err = planLimit(f, n.Limit)
		}
		return f, err
	}
	if err := p.planAggregate(sel, f, false); err != nil {
		return nil, err
	}
	h, err := bindExpr(sel.Having, f.sc)
	if err != nil {
		return nil, err
	}
	var proj []expr.Expr
	for i, c := range cols {
		x, err := expr.Col(i, c.name, c.typ)
		if err != nil {
			return nil, err
		}
		proj = append(proj, x)
	}
	f.sc = &scope{cols: cols}
	f.addCalc(Calc{Filter: h, Project: proj})
	if n.Limit != nil {
		return f, planLimit(f, n.Limit)
	}
	return f, nil
}
