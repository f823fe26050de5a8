package plan

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// conjuncts splits a condition at its top-level ANDs.
func conjuncts(e ast.Expr) []ast.Expr {
	if e == nil {
		return nil
	}
	if b, ok := e.(*ast.Binary); ok && b.Op == ast.OpAnd {
		return append(conjuncts(b.X), conjuncts(b.Y)...)
	}
	return []ast.Expr{e}
}

// andAll joins conditions with AND; nil for none.
func andAll(es []ast.Expr) ast.Expr {
	var out ast.Expr
	for _, e := range es {
		if out == nil {
			out = e
		} else {
			out = &ast.Binary{Op: ast.OpAnd, X: out, Y: e, OpPos: e.Pos()}
		}
	}
	return out
}

// refsWithin reports whether every column e references resolves in sc
// (and e references at least one column when needCol).
func refsWithin(e ast.Expr, sc *scope, needCol bool) bool {
	ok, any := true, false
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ColumnRef:
			any = true
			if _, err := sc.resolve(x); err != nil {
				ok = false
			}
			return false
		case *ast.Subquery:
			ok = false
			return false
		}
		return ok
	})
	return ok && (any || !needCol)
}

// planJoin plans a join of the FROM clause as a streaming regular join
// (Flink's StreamingJoin): both sides hashed by the equi-join keys of the
// condition, the rest of the condition evaluated on each matching pair.
// For inner and comma joins, where holds the conjuncts of WHERE: those
// that are equalities between the two sides become join keys too (the
// filter is pushed into the join); the others are returned.
func (p *Planner) planJoin(j *ast.Join, st *stmt, where []ast.Expr) (*frag, []ast.Expr, error) {
	inner := j.Type == ast.InnerJoin || j.Type == ast.CommaJoin || j.Type == ast.CrossJoin
	var l *frag
	var err error
	if lj, ok := j.Left.(*ast.Join); ok && inner {
		l, where, err = p.planJoin(lj, st, where)
	} else {
		l, err = p.planFrom(j.Left, st)
	}
	if err != nil {
		return nil, nil, err
	}
	if p.isCorrelate(j.Right) {
		// LATERAL TABLE(f(...)) and UNNEST read the left side's columns.
		f, err := p.planCorrelate(l, j)
		return f, where, err
	}
	r, err := p.planFrom(j.Right, st)
	if err != nil {
		return nil, nil, err
	}
	combined := &scope{cols: append(append([]column(nil), l.sc.cols...), r.sc.cols...)}
	conds := conjuncts(j.On)
	var rest []ast.Expr
	if inner {
		for _, w := range where {
			if refsWithin(w, combined, true) && !hasAggregate(w) {
				conds = append(conds, w)
			} else {
				rest = append(rest, w)
			}
		}
	} else {
		rest = where
	}
	// Equalities between one side and the other become keys.
	var lKeys, rKeys []expr.Expr
	var residual []ast.Expr
	for _, c := range conds {
		b, ok := c.(*ast.Binary)
		if ok && b.Op == ast.OpEq {
			x, y := b.X, b.Y
			if refsWithin(y, l.sc, true) && refsWithin(x, r.sc, true) && !refsWithin(x, l.sc, true) {
				x, y = y, x
			}
			if refsWithin(x, l.sc, true) && refsWithin(y, r.sc, true) && !refsWithin(y, l.sc, true) && !refsWithin(x, r.sc, true) {
				lx, rx, err := bindKeyPair(x, l.sc, y, r.sc, b.OpPos)
				if err != nil {
					return nil, nil, err
				}
				lKeys, rKeys = append(lKeys, lx), append(rKeys, rx)
				continue
			}
		}
		residual = append(residual, c)
	}
	// Key columns that are not plain columns of their side are appended
	// to it; they are dropped after the join.
	lPos, lExtra, err := keyColumns(l, lKeys)
	if err != nil {
		return nil, nil, err
	}
	rPos, rExtra, err := keyColumns(r, rKeys)
	if err != nil {
		return nil, nil, err
	}
	ext := &scope{cols: append(append([]column(nil), l.sc.cols...), r.sc.cols...)}
	jn := &Join{Left: l.rel, Right: r.rel, Kind: joinKind(j.Type), LeftKeys: lPos, RightKeys: rPos, NullSafe: make([]bool, len(lPos)), Pos: j.JoinPos}
	if len(residual) > 0 {
		// Appended key columns come after each side's own ($keyN: they
		// cannot be named).
		x, err := bindExpr(andAll(residual), ext)
		if err != nil {
			return nil, nil, err
		}
		if x.Type().ID != types.TypeBoolean && x.Type().ID != types.TypeNull {
			return nil, nil, errAt(residual[0].Pos(), sqlerr.TypeMismatch, "The join condition must be BOOLEAN, but %s has type %s", ast.Format(andAll(residual)), x.Type())
		}
		jn.Residual = x
	}
	if jn.StateTTL, err = p.stateTTL(); err != nil {
		return nil, nil, err
	}
	lt, lok := p.hintedTTL(l.sc)
	rt, rok := p.hintedTTL(r.sc)
	if lok || rok {
		if !lok {
			lt = jn.StateTTL
		}
		if !rok {
			rt = jn.StateTTL
		}
		jn.SideTTL, jn.HasSideTTL = [2]int64{lt, rt}, true
	}
	out := ext.cols
	switch jn.Kind {
	case jobgraph.LeftJoin:
		nullable(out[len(l.sc.cols):])
	case jobgraph.RightJoin:
		nullable(out[:len(l.sc.cols)])
	case jobgraph.FullJoin:
		nullable(out)
	}
	jn.UID = st.joinUID()
	f := &frag{st: st, sc: &scope{cols: out}}
	jn.Cols = plainColumns(f.sc)
	f.rel = windowJoin(jn)
	if tn, ok := j.Right.(*ast.TableName); ok && tn.AsOf != nil {
		tj, err := temporalJoin(jn, tn.AsOf, l.sc, len(l.sc.cols))
		if err != nil {
			return nil, nil, err
		}
		if tj.ProcTime {
			if err := p.checkLookupTable(tn); err != nil {
				return nil, nil, err
			}
		}
		f.rel = tj
	} else if f.rel == Rel(jn) {
		if ij := intervalJoin(jn, len(l.sc.cols)); ij != nil {
			f.rel = ij
		}
	}
	if lExtra > 0 || rExtra > 0 {
		// Drop the appended key columns.
		nl := len(l.sc.cols) - lExtra
		var proj []expr.Expr
		var cols []column
		for i, c := range out {
			if (i >= nl && i < len(l.sc.cols)) || i >= len(out)-rExtra {
				continue
			}
			x, err := expr.Col(i, c.name, c.typ)
			if err != nil {
				return nil, nil, err
			}
			proj, cols = append(proj, x), append(cols, c)
		}
		f.sc = &scope{cols: cols}
		f.addCalc(Calc{Project: proj})
	}
	return f, rest, nil
}

// keyColumns returns the positions of key expressions in f's rows,
// appending (with a calc) those that are not plain columns; extra counts
// the appended columns.
func keyColumns(f *frag, keys []expr.Expr) (pos []int, extra int, err error) {
	var proj []expr.Expr
	cols := append([]column(nil), f.sc.cols...)
	for _, k := range keys {
		if i, ok := expr.ColumnOf(k); ok {
			pos = append(pos, i)
			continue
		}
		pos = append(pos, len(cols))
		cols = append(cols, column{name: fmt.Sprintf("$key%d", len(cols)), typ: k.Type()})
		proj = append(proj, k)
		extra++
	}
	if extra == 0 {
		return pos, 0, nil
	}
	all := make([]expr.Expr, 0, len(cols))
	for i, c := range f.sc.cols {
		x, err := expr.Col(i, c.name, c.typ)
		if err != nil {
			return nil, 0, err
		}
		all = append(all, x)
	}
	f.sc = &scope{cols: cols}
	f.addCalc(Calc{Project: append(all, proj...), Prepares: true})
	return pos, extra, nil
}

// bindKeyPair binds the two sides of a join equality (x over the left
// scope, y over the right) and casts both to their common type, so that
// equal values hash and compare as equal keys.
func bindKeyPair(x ast.Expr, lsc *scope, y ast.Expr, rsc *scope, pos sqlerr.Pos) (expr.Expr, expr.Expr, error) {
	lx, err := bindExpr(x, lsc)
	if err != nil {
		return nil, nil, err
	}
	rx, err := bindExpr(y, rsc)
	if err != nil {
		return nil, nil, err
	}
	t, ok := expr.CommonType(lx.Type(), rx.Type())
	if !ok {
		return nil, nil, errAt(pos, sqlerr.TypeMismatch, "Cannot compare %s of type %s with %s of type %s", ast.Format(x), lx.Type(), ast.Format(y), rx.Type())
	}
	if lx, err = castKey(lx, t); err != nil {
		return nil, nil, positioned(err, pos, sqlerr.TypeMismatch)
	}
	if rx, err = castKey(rx, t); err != nil {
		return nil, nil, positioned(err, pos, sqlerr.TypeMismatch)
	}
	return lx, rx, nil
}

// castKey casts a join key to the keys' common type t (nullability
// aside), so that equal values encode to equal key bytes.
func castKey(x expr.Expr, t types.Type) (expr.Expr, error) {
	if x.Type().Nullable().Same(t.Nullable()) {
		return x, nil
	}
	return expr.Cast(x, t.Nullable(), false)
}

func nullable(cols []column) {
	for i := range cols {
		cols[i].typ = cols[i].typ.Nullable()
	}
}

func joinKind(t ast.JoinType) jobgraph.JoinKind {
	switch t {
	case ast.LeftJoin:
		return jobgraph.LeftJoin
	case ast.RightJoin:
		return jobgraph.RightJoin
	case ast.FullJoin:
		return jobgraph.FullJoin
	}
	return jobgraph.InnerJoin
}
