package plan

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/types"
)

// planSetOpAll plans INTERSECT ALL and EXCEPT ALL as Flink does: the
// tagged union of both sides is grouped by every column with the number
// of rows of each side (SUM of the tags), and each group's row is
// replicated min(left, right) times (INTERSECT ALL) or left - right times
// (EXCEPT ALL) by a stateless correlate, Flink's ReplicateRows. A change
// of a group's counts retracts its old copies and emits the new ones.
func (p *Planner) planSetOpAll(n *ast.SetOp, f *frag, sel *ast.Select, cols []column) (*frag, error) {
	ref := func(name string) *ast.ColumnRef { return &ast.ColumnRef{Parts: []*ast.Ident{{Name: name}}} }
	sum := func(name string) ast.Expr {
		return &ast.FuncCall{Name: &ast.ObjectName{Parts: []*ast.Ident{{Name: "SUM"}}}, Args: []ast.Expr{ref(name)}}
	}
	sel.Items = append(sel.Items,
		&ast.SelectItem{Expr: sum("$l"), Alias: &ast.Ident{Name: "$nl"}},
		&ast.SelectItem{Expr: sum("$r"), Alias: &ast.Ident{Name: "$nr"}})
	zero := &ast.NumericLit{Text: "0"}
	if n.Kind == ast.Except {
		sel.Having = &ast.Binary{Op: ast.OpGt, X: sum("$l"), Y: sum("$r")}
	} else {
		sel.Having = &ast.Binary{Op: ast.OpAnd,
			X: &ast.Binary{Op: ast.OpGt, X: sum("$l"), Y: zero},
			Y: &ast.Binary{Op: ast.OpGt, X: sum("$r"), Y: zero}}
	}
	if err := p.planAggregate(sel, f, false); err != nil {
		return nil, err
	}
	h, err := bindExpr(sel.Having, f.sc)
	if err != nil {
		return nil, err
	}
	width := len(cols)
	var proj []expr.Expr
	for i := 0; i < width+2; i++ {
		c := f.sc.cols[i]
		x, err := expr.Col(i, c.name, c.typ)
		if err != nil {
			return nil, err
		}
		proj = append(proj, x)
	}
	f.sc = &scope{cols: f.sc.cols[:width+2]}
	f.addCalc(Calc{Filter: h, Project: proj})
	nl, err := expr.Col(width, f.sc.cols[width].name, f.sc.cols[width].typ)
	if err != nil {
		return nil, err
	}
	nr, err := expr.Col(width+1, f.sc.cols[width+1].name, f.sc.cols[width+1].typ)
	if err != nil {
		return nil, err
	}
	spec := &jobgraph.Correlate{Name: "$REPLICATE_ROWS$", Func: replicateRows{except: n.Kind == ast.Except}, Args: []expr.Expr{nl, nr}, Columns: types.NewSchema()}
	f.rel = &Correlate{In: f.rel, Spec: spec, Cols: f.rel.Columns(), Pos: n.OpPos}
	proj = proj[:0]
	for i, c := range cols {
		x, err := expr.Col(i, c.name, c.typ)
		if err != nil {
			return nil, err
		}
		proj = append(proj, x)
	}
	f.sc = &scope{cols: cols}
	f.addCalc(Calc{Project: proj})
	return f, nil
}

// replicateRows is Flink's ReplicateRows for INTERSECT ALL and EXCEPT ALL:
// called with a group's left and right row counts, it emits the group's
// row min(left, right) times, or left - right times for EXCEPT ALL.
type replicateRows struct{ except bool }

func (r replicateRows) Eval(args []types.Value, emit func(row []types.Value) error) error {
	if args[0].IsNull() || args[1].IsNull() {
		return nil
	}
	l, rt := args[0].Int(), args[1].Int()
	n := min(l, rt)
	if r.except {
		n = l - rt
	}
	for range n {
		if err := emit(nil); err != nil {
			return err
		}
	}
	return nil
}
