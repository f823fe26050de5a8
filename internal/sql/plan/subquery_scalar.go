package plan

import (
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// planCorrelatedScalar rewrites a correlated scalar subquery
// (SELECT agg(...) FROM t WHERE t.k = outer.k AND <conditions on t>) into
// a join with an aggregate, as Flink's decorrelation does: the subquery is
// grouped by its correlated columns, and the outer rows are LEFT joined
// with the groups on the correlation keys, so each outer row reads its
// group's value (NULL without one; 0 for a COUNT, as a COUNT over no rows
// is). A subquery without an aggregate (SELECT x FROM t WHERE t.k =
// outer.k) reads the one row of its group the same way, and fails the
// statement when a group has several, as Flink's SINGLE_VALUE. It reports
// false when the subquery does not have that form.
func (p *Planner) planCorrelatedScalar(f *frag, sq *ast.ScalarSubquery) (bool, error) {
	s, ok := sq.Query.(*ast.Select)
	if !ok || s.From == nil || len(s.GroupBy) > 0 || s.Having != nil || s.Limit != nil || s.Distinct ||
		len(s.Items) != 1 || s.Where == nil {
		return false, nil
	}
	// Without an aggregate each outer row reads the one row of its
	// group, or fails when the group has several (Flink's SINGLE_VALUE).
	single := !hasAggregate(s.Items[0].Expr)
	if _, isJoin := s.From.(*ast.Join); isJoin {
		return false, nil
	}
	count := false
	call, isCall := s.Items[0].Expr.(*ast.FuncCall)
	if single {
		// No aggregate, so no COUNT either.
	} else if isCall && len(call.Name.Parts) == 1 && strings.EqualFold(call.Name.Parts[0].Name, "COUNT") {
		count = true
	} else if hasCount(s.Items[0].Expr) {
		return false, nil // COUNT inside an expression: no value for no rows
	}
	inner, err := p.planFrom(s.From, f.st)
	if err != nil {
		return false, err
	}
	var local []ast.Expr
	var outerKeys []expr.Expr
	var innerKeys []ast.Expr
	for _, c := range conjuncts(s.Where) {
		if refsWithin(c, inner.sc, false) {
			local = append(local, c)
			continue
		}
		b, isEq := c.(*ast.Binary)
		if !isEq || b.Op != ast.OpEq {
			return false, nil
		}
		x, y := b.X, b.Y
		if refsWithin(x, inner.sc, true) && refsWithin(y, f.sc, true) {
			x, y = y, x
		}
		if !refsWithin(x, f.sc, true) || !refsWithin(y, inner.sc, true) || refsWithin(x, inner.sc, true) {
			return false, nil
		}
		lx, _, err := bindKeyPair(x, f.sc, y, inner.sc, b.OpPos)
		if err != nil {
			return true, err
		}
		outerKeys = append(outerKeys, lx)
		innerKeys = append(innerKeys, y)
	}
	if len(outerKeys) == 0 {
		return false, nil
	}
	// SELECT y1, ..., agg FROM t WHERE local GROUP BY y1, ...
	grouped := &ast.Select{Loc: s.Loc, From: s.From, Where: andAll(local), GroupBy: innerKeys}
	for i, y := range innerKeys {
		grouped.Items = append(grouped.Items, &ast.SelectItem{Expr: y, Alias: &ast.Ident{Name: fmt.Sprintf("$ck%d", i)}})
	}
	value := s.Items[0].Expr
	if single {
		star := &ast.FuncCall{Name: &ast.ObjectName{Parts: []*ast.Ident{{Loc: ast.Loc{Start: sq.Pos()}, Name: "COUNT"}}}, Star: true}
		grouped.Items = append(grouped.Items, &ast.SelectItem{Expr: star, Alias: &ast.Ident{Name: "$cn"}})
		value = &ast.FuncCall{Name: &ast.ObjectName{Parts: []*ast.Ident{{Loc: ast.Loc{Start: sq.Pos()}, Name: "LAST_VALUE"}}}, Args: []ast.Expr{value}}
	}
	grouped.Items = append(grouped.Items, &ast.SelectItem{Expr: value, Alias: &ast.Ident{Name: "$cv"}})
	r, err := p.planQuery(grouped, f.st)
	if err != nil {
		return true, err
	}
	n := len(outerKeys)
	if single {
		if err := singleValuePerKey(r, n, sq.Pos()); err != nil {
			return true, err
		}
	}
	// The group keys take the outer keys' types.
	cast := make([]column, len(r.sc.cols))
	copy(cast, r.sc.cols)
	for i := range n {
		cast[i].typ = outerKeys[i].Type()
	}
	if err := castFrag(r, cast, sq.Pos()); err != nil {
		return true, err
	}
	orig := f.sc
	outCols := f.sc.cols
	lPos, _, err := keyColumns(f, outerKeys)
	if err != nil {
		return true, err
	}
	rPos := make([]int, n)
	for i := range rPos {
		rPos[i] = i
	}
	joined := append(append([]column(nil), f.sc.cols...), r.sc.cols...)
	for i := len(f.sc.cols); i < len(joined); i++ {
		joined[i].typ = joined[i].typ.Nullable()
	}
	jsc := &scope{cols: joined}
	f.rel = &Join{Left: f.rel, Right: r.rel, Kind: jobgraph.LeftJoin, LeftKeys: lPos, RightKeys: rPos, NullSafe: make([]bool, n),
		UID: f.st.joinUID(), Cols: plainColumns(jsc), Subquery: true, Pos: sq.Pos()}
	// The outer row's columns, then the value.
	var proj []expr.Expr
	for i, c := range outCols {
		x, err := expr.Col(i, c.name, c.typ)
		if err != nil {
			return true, err
		}
		proj = append(proj, x)
	}
	vi := len(joined) - 1
	v, err := expr.Col(vi, joined[vi].name, joined[vi].typ)
	if err != nil {
		return true, err
	}
	if count {
		zero, err := expr.Lit(types.NewInt(0), types.BigInt.NonNull())
		if err != nil {
			return true, err
		}
		if v, err = expr.Call("COALESCE", v, zero); err != nil {
			return true, positioned(err, sq.Pos(), sqlerr.Internal)
		}
	}
	proj = append(proj, v)
	cols := append(append([]column(nil), outCols...), column{name: fmt.Sprintf("$scalar%d", len(outCols)), typ: v.Type()})
	subst := map[string]int{}
	for k, i := range orig.subst {
		subst[k] = i
	}
	subst[ast.Format(sq)] = len(cols) - 1
	f.sc = &scope{cols: cols}
	f.addCalc(Calc{Project: proj})
	f.sc = &scope{cols: cols, subst: subst, grouped: orig.grouped, groupKeys: orig.groupKeys, env: orig.env}
	return true, nil
}

// singleValuePerKey turns the rows of r, n group keys followed by the
// group's row count and last value, into the keys followed by the value,
// failing when a group has several rows (Flink's SINGLE_VALUE).
func singleValuePerKey(r *frag, n int, pos sqlerr.Pos) error {
	var proj []expr.Expr
	var cols []column
	for i, c := range r.sc.cols[:n] {
		x, err := expr.Col(i, c.name, c.typ)
		if err != nil {
			return err
		}
		proj = append(proj, x)
		cols = append(cols, c)
	}
	cn, cv := r.sc.cols[n], r.sc.cols[n+1]
	count, err := expr.Col(n, cn.name, cn.typ)
	if err != nil {
		return err
	}
	value, err := expr.Col(n+1, cv.name, cv.typ)
	if err != nil {
		return err
	}
	x, err := expr.SingleValue(count, value, fmt.Sprintf("at %d:%d", pos.Line, pos.Col))
	if err != nil {
		return positioned(err, pos, sqlerr.Internal)
	}
	proj = append(proj, x)
	cols = append(cols, column{name: cv.name, typ: x.Type()})
	r.sc = &scope{cols: cols}
	r.rel = &Calc{In: r.rel, Project: proj, Cols: plainColumns(r.sc), Pos: pos}
	return nil
}

// hasCount reports whether x calls COUNT.
func hasCount(x ast.Expr) bool {
	found := false
	ast.Inspect(x, func(n ast.Node) bool {
		if c, ok := n.(*ast.FuncCall); ok && len(c.Name.Parts) == 1 && strings.EqualFold(c.Name.Parts[0].Name, "COUNT") {
			found = true
		}
		return !found
	})
	return found
}
