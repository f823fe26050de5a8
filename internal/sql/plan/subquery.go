package plan

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Subqueries are rewritten to joins, as Flink's planner does: top-level
// conditions of WHERE of the forms x [NOT] IN (query) and [NOT] EXISTS
// (query) become semi and anti joins (correlated EXISTS through the
// equalities between the subquery's WHERE and the outer row); an
// uncorrelated scalar subquery becomes a LEFT JOIN with its one row.

// hasSubquery reports whether e contains a subquery.
func hasSubquery(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Exists, *ast.ScalarSubquery:
			found = true
		case *ast.In:
			found = found || x.Query != nil
		}
		return !found
	})
	return found
}

// planSubqueryConds turns the subquery conjuncts of where into semi and
// anti joins on f and returns the other conjuncts.
func (p *Planner) planSubqueryConds(f *frag, where []ast.Expr) ([]ast.Expr, error) {
	var rest []ast.Expr
	for _, c := range where {
		not := false
		e := c
		if u, ok := e.(*ast.Unary); ok && u.Op == ast.OpNot {
			if _, isExists := u.X.(*ast.Exists); isExists {
				not, e = true, u.X
			}
		}
		switch n := e.(type) {
		case *ast.In:
			if n.Query == nil {
				rest = append(rest, c)
				continue
			}
			if err := p.planInSubquery(f, n); err != nil {
				return nil, err
			}
		case *ast.Exists:
			if err := p.planExists(f, n, not); err != nil {
				return nil, err
			}
		default:
			rest = append(rest, c)
		}
	}
	return rest, nil
}

// semiJoin adds a semi (anti) join of f with r on the key expressions.
// The residual conditions bind against the outer row's columns followed
// by the subquery's.
func semiJoin(f, r *frag, lKeys, rKeys []expr.Expr, residual []ast.Expr, anti bool, pos sqlerr.Pos) error {
	outCols := f.sc.cols
	lPos, lExtra, err := keyColumns(f, lKeys)
	if err != nil {
		return err
	}
	rPos, _, err := keyColumns(r, rKeys)
	if err != nil {
		return err
	}
	kind := jobgraph.SemiJoin
	if anti {
		kind = jobgraph.AntiJoin
	}
	jn := &Join{Left: f.rel, Right: r.rel, Kind: kind, LeftKeys: lPos, RightKeys: rPos, NullSafe: make([]bool, len(lPos)), Subquery: true, Pos: pos}
	if len(residual) > 0 {
		x, err := bindExpr(andAll(residual), &scope{cols: append(append([]column(nil), f.sc.cols...), r.sc.cols...), inner: len(f.sc.cols)})
		if err != nil {
			return err
		}
		if x.Type().ID != types.TypeBoolean && x.Type().ID != types.TypeNull {
			return errAt(residual[0].Pos(), sqlerr.TypeMismatch, "The condition must be BOOLEAN, but %s has type %s", ast.Format(andAll(residual)), x.Type())
		}
		jn.Residual = x
	}
	jn.UID = f.st.joinUID()
	jn.Cols = f.rel.Columns()
	f.rel = windowJoin(jn)
	if lExtra > 0 {
		var proj []expr.Expr
		for i, c := range outCols {
			x, err := expr.Col(i, c.name, c.typ)
			if err != nil {
				return err
			}
			proj = append(proj, x)
		}
		f.sc = &scope{cols: outCols, subst: f.sc.subst}
		f.addCalc(Calc{Project: proj})
	}
	return nil
}

// planInSubquery plans x [NOT] IN (query) as a semi (anti) join on x =
// the query's one column.
func (p *Planner) planInSubquery(f *frag, n *ast.In) error {
	r, err := p.planQuery(n.Query, f.st)
	if se, ok := err.(*sqlerr.Error); ok && se.Code == sqlerr.UnknownColumn {
		if done, cerr := p.planCorrelatedIn(f, n); done || cerr != nil {
			return cerr
		}
		what, hint := "IN", "write it as EXISTS (SELECT ... FROM t WHERE t.k = outer.k AND x = t.y)"
		if n.Not {
			what, hint = "NOT IN", "write it as NOT EXISTS (SELECT ... FROM t WHERE t.k = outer.k AND x = t.y), which differs from NOT IN only when x or t.y is NULL"
		}
		return errAt(n.InPos, sqlerr.Unsupported, "This correlated %s subquery is not supported yet: %s", what, se.Message).WithHint("%s", hint)
	}
	if err != nil {
		return err
	}
	if len(r.sc.cols) != 1 {
		return errAt(n.InPos, sqlerr.InvalidArgument, "The subquery of IN must return one column, but it returns %d", len(r.sc.cols))
	}
	lx, err := bindExpr(n.X, f.sc)
	if err != nil {
		return err
	}
	rx, err := expr.Col(0, r.sc.cols[0].name, r.sc.cols[0].typ)
	if err != nil {
		return err
	}
	t, ok := expr.CommonType(lx.Type(), rx.Type())
	if !ok {
		return errAt(n.InPos, sqlerr.TypeMismatch, "Cannot compare %s of type %s with the subquery's column of type %s", ast.Format(n.X), lx.Type(), rx.Type())
	}
	if lx, err = castKey(lx, t); err != nil {
		return positioned(err, n.InPos, sqlerr.TypeMismatch)
	}
	if rx, err = castKey(rx, t); err != nil {
		return positioned(err, n.InPos, sqlerr.TypeMismatch)
	}
	if n.Not && (!lx.Type().NotNull || !rx.Type().NotNull) {
		return nullAwareAntiJoin(f, r, lx, t, n.InPos)
	}
	return semiJoin(f, r, []expr.Expr{lx}, []expr.Expr{rx}, nil, n.Not, n.InPos)
}

// planExists plans [NOT] EXISTS (query). A correlated subquery must be a
// plain SELECT ... FROM ... WHERE ...: its conditions on its own columns
// filter it, equalities between its columns and the outer row's become
// the join keys, other conditions over both become the join's residual.
func (p *Planner) planExists(f *frag, n *ast.Exists, anti bool) error {
	s, simple := n.Query.(*ast.Select)
	if !simple || s.From == nil || len(s.GroupBy) > 0 || s.Having != nil || s.Limit != nil || isAggregateQuery(s) {
		// Uncorrelated: any row of the query makes EXISTS true.
		r, err := p.planQuery(n.Query, f.st)
		if err != nil {
			return err
		}
		return semiJoin(f, r, nil, nil, nil, anti, n.Pos())
	}
	return p.correlatedSemi(f, s, anti, n.Pos(), nil)
}

// planCorrelatedIn plans x [NOT] IN (SELECT y FROM ... WHERE ...) whose
// WHERE refers to the outer row as [NOT] EXISTS (SELECT ... WHERE ... AND
// x = y), as Flink decorrelates it: a semi (anti) join on x = y and the
// correlation keys. A NOT IN whose x or y may be NULL keeps SQL's
// three-valued logic (Flink's null-aware anti join): x = y is not a key
// but the residual (x = y) IS NOT FALSE, so a row of the correlated set
// whose comparison is UNKNOWN removes the outer row too. It reports false
// when the subquery is not a plain one-column SELECT.
func (p *Planner) planCorrelatedIn(f *frag, n *ast.In) (bool, error) {
	s, simple := n.Query.(*ast.Select)
	if !simple || s.From == nil || len(s.GroupBy) > 0 || s.Having != nil || s.Limit != nil || isAggregateQuery(s) ||
		len(s.Items) != 1 || s.Items[0].Expr == nil || s.Where == nil {
		return false, nil
	}
	if _, star := s.Items[0].Expr.(*ast.Star); star {
		return false, nil
	}
	outer := f.sc
	added := false
	key := func(r *frag) (expr.Expr, expr.Expr, ast.Expr, error) {
		lx, rx, err := bindKeyPair(n.X, f.sc, s.Items[0].Expr, r.sc, n.InPos)
		if err != nil || !n.Not || (lx.Type().NotNull && rx.Type().NotNull) {
			return lx, rx, nil, err
		}
		// Null-aware: both values become columns the residual names.
		l, err := notInColumn(f, lx, "l")
		if err != nil {
			return nil, nil, nil, err
		}
		r2, err := notInColumn(r, rx, "r")
		if err != nil {
			return nil, nil, nil, err
		}
		added = true
		cmp := &ast.Binary{Op: ast.OpEq, X: l, Y: r2, OpPos: n.InPos}
		return nil, nil, &ast.Is{X: cmp, Not: true, What: ast.IsFalse, IsPos: n.InPos}, nil
	}
	if err := p.correlatedSemi(f, s, n.Not, n.InPos, key); err != nil {
		return true, err
	}
	if added {
		// Drop the value column added to the outer row.
		var proj []expr.Expr
		for i, c := range outer.cols {
			x, err := expr.Col(i, c.name, c.typ)
			if err != nil {
				return true, err
			}
			proj = append(proj, x)
		}
		f.sc = &scope{cols: f.sc.cols[:len(outer.cols)]}
		f.addCalc(Calc{Project: proj})
		f.sc = outer
	}
	return true, nil
}

// notInColumn adds x as a column named $notin_<side> to f and returns a
// reference to it by that name.
func notInColumn(f *frag, x expr.Expr, side string) (ast.Expr, error) {
	name := "$notin_" + side
	var all []expr.Expr
	for i, c := range f.sc.cols {
		cx, err := expr.Col(i, c.name, c.typ)
		if err != nil {
			return nil, err
		}
		all = append(all, cx)
	}
	cols := append(append([]column(nil), f.sc.cols...), column{name: name, typ: x.Type()})
	f.sc = &scope{cols: cols}
	f.addCalc(Calc{Project: append(all, x), Prepares: true})
	return &ast.ColumnRef{Parts: []*ast.Ident{{Name: name}}}, nil
}

// correlatedSemi plans the semi (anti) join of a correlated EXISTS over
// s; key, when set, adds a key pair bound against the outer row and the
// subquery's FROM (IN's x = y), or a residual condition instead (NOT IN's
// null-aware comparison).
func (p *Planner) correlatedSemi(f *frag, s *ast.Select, anti bool, pos sqlerr.Pos, key func(r *frag) (expr.Expr, expr.Expr, ast.Expr, error)) error {
	var r *frag
	var err error
	var conds []ast.Expr
	if j, isJoin := s.From.(*ast.Join); isJoin {
		r, conds, err = p.planJoin(j, f.st, conjuncts(s.Where))
	} else {
		r, err = p.planFrom(s.From, f.st)
		conds = conjuncts(s.Where)
	}
	if err != nil {
		return err
	}
	combined := &scope{cols: append(append([]column(nil), f.sc.cols...), r.sc.cols...), inner: len(f.sc.cols)}
	var inner, residual []ast.Expr
	var lKeys, rKeys []expr.Expr
	for _, c := range conds {
		if refsWithin(c, r.sc, false) {
			inner = append(inner, c)
			continue
		}
		if b, ok := c.(*ast.Binary); ok && b.Op == ast.OpEq {
			x, y := b.X, b.Y
			if refsWithin(x, r.sc, true) && refsWithin(y, f.sc, true) {
				x, y = y, x
			}
			if refsWithin(x, f.sc, true) && refsWithin(y, r.sc, true) && !refsWithin(x, r.sc, true) {
				lx, rx, err := bindKeyPair(x, f.sc, y, r.sc, b.OpPos)
				if err != nil {
					return err
				}
				lKeys, rKeys = append(lKeys, lx), append(rKeys, rx)
				continue
			}
		}
		if !refsWithin(c, combined, false) {
			// Let binding report the unknown column.
			if _, err := bindExpr(c, combined); err != nil {
				return err
			}
		}
		residual = append(residual, c)
	}
	if len(inner) > 0 {
		w, err := bindExpr(andAll(inner), r.sc)
		if err != nil {
			return err
		}
		if w.Type().ID != types.TypeBoolean && w.Type().ID != types.TypeNull {
			return errAt(inner[0].Pos(), sqlerr.TypeMismatch, "WHERE needs a BOOLEAN condition, but %s has type %s", ast.Format(andAll(inner)), w.Type())
		}
		r.addCalc(Calc{Filter: w, FilterPos: inner[0].Pos(), Prepares: true})
	}
	if key != nil {
		lx, rx, res, err := key(r)
		if err != nil {
			return err
		}
		if res != nil {
			residual = append(residual, res)
		} else {
			lKeys, rKeys = append(lKeys, lx), append(rKeys, rx)
		}
	}
	return semiJoin(f, r, lKeys, rKeys, residual, anti, pos)
}

// planScalarSubqueries joins f with each uncorrelated scalar subquery of
// es (a LEFT JOIN with the subquery's one row, NULL when it has none) and
// makes the subquery's text stand for its column in f's scope.
func (p *Planner) planScalarSubqueries(f *frag, es ...ast.Expr) error {
	var subs []*ast.ScalarSubquery
	seen := map[string]bool{}
	for _, e := range es {
		if e == nil {
			continue
		}
		ast.Inspect(e, func(n ast.Node) bool {
			if sq, ok := n.(*ast.ScalarSubquery); ok {
				if k := ast.Format(sq); !seen[k] {
					seen[k] = true
					subs = append(subs, sq)
				}
				return false
			}
			return true
		})
	}
	for _, sq := range subs {
		r, err := p.planQuery(sq.Query, f.st)
		if err != nil {
			if se, ok := err.(*sqlerr.Error); ok && se.Code == sqlerr.UnknownColumn {
				if done, cerr := p.planCorrelatedScalar(f, sq); done || cerr != nil {
					if cerr != nil {
						return cerr
					}
					continue
				}
				return errAt(sq.Pos(), sqlerr.Unsupported, "This correlated scalar subquery is not supported yet: %s", se.Message).
					WithHint("Eddy decorrelates SELECT x FROM t WHERE t.k = outer.k [AND conditions on t], x an expression or an aggregate; otherwise join the table and aggregate")
			}
			return err
		}
		if len(r.sc.cols) != 1 {
			return errAt(sq.Pos(), sqlerr.InvalidArgument, "A scalar subquery must return one column, but it returns %d", len(r.sc.cols))
		}
		if v := p.Session.PlanVersion; (v == 0 || v >= PlanV2) && !atMostOneRow(r.rel) {
			if err := singleValue(r, sq.Pos()); err != nil {
				return err
			}
		}
		cols := append(append([]column(nil), f.sc.cols...), column{name: fmt.Sprintf("$scalar%d", len(f.sc.cols)), typ: r.sc.cols[0].typ.Nullable()})
		subst := map[string]int{}
		for k, v := range f.sc.subst {
			subst[k] = v
		}
		subst[ast.Format(sq)] = len(cols) - 1
		sc := &scope{cols: cols, subst: subst, grouped: f.sc.grouped, groupKeys: f.sc.groupKeys, env: f.sc.env}
		f.rel = &Join{Left: f.rel, Right: r.rel, Kind: jobgraph.LeftJoin, UID: f.st.joinUID(), Cols: plainColumns(sc), Subquery: true, Pos: sq.Pos()}
		f.sc = sc
	}
	return nil
}

// singleValue makes a scalar subquery that may return several rows fail
// when it does, as Flink's SINGLE_VALUE aggregate fails: a global
// aggregate counts its rows and keeps the last value, and a calc returns
// the value, or fails when more than one row is alive.
func singleValue(r *frag, pos sqlerr.Pos) error {
	c := r.sc.cols[0]
	t := c.typ.Nullable()
	agg := &Aggregate{In: r.rel, Keys: []int{}, Calls: []jobgraph.AggCall{
		{Func: jobgraph.AggCountStar, Filter: -1, Type: types.BigInt.NonNull()},
		{Func: jobgraph.AggLastValue, Args: []int{0}, Filter: -1, Type: t},
	}, UID: r.st.singleUID(), Pos: pos,
		Cols: []Column{{Name: "$count", Type: types.BigInt.NonNull()}, {Name: "$value", Type: t}}}
	n, err := expr.Col(0, "$count", types.BigInt.NonNull())
	if err != nil {
		return err
	}
	v, err := expr.Col(1, "$value", t)
	if err != nil {
		return err
	}
	x, err := expr.SingleValue(n, v, fmt.Sprintf("at %d:%d", pos.Line, pos.Col))
	if err != nil {
		return positioned(err, pos, sqlerr.Internal)
	}
	r.sc = &scope{cols: []column{{name: c.name, typ: t}}}
	r.rel = &Calc{In: agg, Project: []expr.Expr{x}, Cols: []Column{{Name: c.name, Type: t}}, Pos: pos}
	return nil
}

// atMostOneRow reports whether a relation never has more than one row
// alive: a global aggregate (filtered or projected) or VALUES of one row.
func atMostOneRow(r Rel) bool {
	switch n := r.(type) {
	case *Calc:
		return atMostOneRow(n.In)
	case *Aggregate:
		return len(n.Keys) == 0
	case *Values:
		return len(n.Rows) <= 1
	}
	return false
}
