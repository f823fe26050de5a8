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

// aggFuncs maps the SQL names of the aggregate functions to the runtime's.
var aggFuncs = map[string]jobgraph.AggFunc{
	"COUNT": jobgraph.AggCount, "SUM": jobgraph.AggSum, "AVG": jobgraph.AggAvg,
	"MIN": jobgraph.AggMin, "MAX": jobgraph.AggMax,
	"FIRST_VALUE": jobgraph.AggFirstValue, "LAST_VALUE": jobgraph.AggLastValue,
	"LISTAGG":    jobgraph.AggListAgg,
	"STDDEV_POP": jobgraph.AggStddevPop, "STDDEV_SAMP": jobgraph.AggStddevSamp, "STDDEV": jobgraph.AggStddevSamp,
	"VAR_POP": jobgraph.AggVarPop, "VAR_SAMP": jobgraph.AggVarSamp, "VARIANCE": jobgraph.AggVarSamp,
	"BOOL_AND": jobgraph.AggBoolAnd, "BOOL_OR": jobgraph.AggBoolOr,
}

// aggCallOf returns the aggregate function an expression calls, if it is
// an aggregate call.
func aggCallOf(e ast.Expr) (*ast.FuncCall, jobgraph.AggFunc, bool) {
	f, ok := e.(*ast.FuncCall)
	if !ok || len(f.Name.Parts) != 1 {
		return nil, "", false
	}
	fn, ok := aggFuncs[strings.ToUpper(f.Name.Last().Name)]
	return f, fn, ok
}

// hasAggregate reports whether an expression contains an aggregate call.
func hasAggregate(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ScalarSubquery, *ast.Exists:
			return false // the subquery's own aggregates
		case *ast.In:
			if x.Query != nil {
				return false
			}
		case ast.Expr:
			if _, _, isAgg := aggCallOf(x); isAgg {
				found = true
			}
		}
		return !found
	})
	return found
}

// isAggregateQuery reports whether a SELECT aggregates: GROUP BY, or an
// aggregate call in the select list or HAVING.
func isAggregateQuery(s *ast.Select) bool {
	if len(s.GroupBy) > 0 || s.Having != nil {
		return true
	}
	for _, it := range s.Items {
		if hasAggregate(it.Expr) {
			return true
		}
	}
	return false
}

// planAggregate plans the GROUP BY of s (or its global aggregate) over f:
// a calc computing the group keys and the aggregate arguments, then a
// GroupAggregate hashed by the keys. Afterwards f's scope shows the keys
// and the aggregate results; expressions of the select list and HAVING
// bind against it, each group expression and aggregate call becoming a
// column reference (scope.subst).
func (p *Planner) planAggregate(s *ast.Select, f *frag, distinct bool) error {
	in := f.sc
	var pre []expr.Expr
	var preCols []column
	subst := map[string]int{}
	var keyCols []column
	addPre := func(x expr.Expr, c column) int {
		pre, preCols = append(pre, x), append(preCols, c)
		return len(pre) - 1
	}
	groupExprs := s.GroupBy
	if distinct {
		// SELECT DISTINCT: group by the select list.
		groupExprs = nil
		for _, it := range s.Items {
			if st, ok := it.Expr.(*ast.Star); ok {
				for _, c := range in.cols {
					if st.Qualifier == nil || c.qualifier == st.Qualifier.Last().Name {
						groupExprs = append(groupExprs, &ast.ColumnRef{Parts: []*ast.Ident{{Name: c.name}}})
					}
				}
				continue
			}
			groupExprs = append(groupExprs, it.Expr)
		}
	}
	for i, g := range groupExprs {
		if hasAggregate(g) {
			return errAt(g.Pos(), sqlerr.InvalidArgument, "Aggregate functions are not allowed in GROUP BY")
		}
		x, err := bindExpr(g, in)
		if err != nil {
			return err
		}
		c := column{name: fmt.Sprintf("EXPR$%d", i), typ: x.Type()}
		if ref, ok := g.(*ast.ColumnRef); ok {
			ci, _ := in.resolve(ref)
			c = in.cols[ci]
		}
		key := ast.Format(g)
		if _, dup := subst[key]; dup {
			continue
		}
		subst[key] = addPre(x, c)
		keyCols = append(keyCols, c)
	}
	nKeys := len(pre)
	// The aggregate calls of the select list and HAVING, each once.
	var calls []jobgraph.AggCall
	var callCols []column
	var bindErr error
	collect := func(e ast.Expr) {
		ast.Inspect(e, func(n ast.Node) bool {
			x, isExpr := n.(ast.Expr)
			if !isExpr || bindErr != nil {
				return false
			}
			switch q := x.(type) {
			case *ast.ScalarSubquery, *ast.Exists:
				return false
			case *ast.In:
				if q.Query != nil {
					return false
				}
			}
			fc, fn, ok := aggCallOf(x)
			if !ok {
				return true
			}
			key := ast.Format(fc)
			if _, done := subst[key]; done {
				return false
			}
			call, col, err := p.bindAggCall(fc, fn, in, addPre)
			if err != nil {
				bindErr = err
				return false
			}
			subst[key] = nKeys + len(calls)
			calls, callCols = append(calls, call), append(callCols, col)
			return false
		})
	}
	if !distinct {
		for _, it := range s.Items {
			collect(it.Expr)
		}
		if s.Having != nil {
			collect(s.Having)
		}
	}
	if bindErr != nil {
		return bindErr
	}
	// Pre-projection: keys, then arguments and filters.
	if f.mode == jobgraph.Upsert {
		f.normalize()
		if f.mode == jobgraph.Upsert {
			return errAt(s.Pos(), sqlerr.Unsupported, "Aggregating the upsert output of a table function is not supported yet").
				WithHint("let the function emit a retract changelog (with UPDATE_BEFORE)")
		}
	}
	f.sc = &scope{cols: preCols}
	f.addCalc(jobgraph.Calc{Project: pre})
	keys := make([]int, nKeys)
	for i := range keys {
		keys[i] = i
	}
	ttl, err := p.stateTTL()
	if err != nil {
		return err
	}
	out := &scope{cols: append(append([]column(nil), keyCols...), callCols...), subst: subst, grouped: in}
	n := 0
	for _, nd := range f.job.Nodes {
		if _, ok := nd.Op.(*jobgraph.Aggregate); ok {
			n++
		}
	}
	f.end = addNode(f.job, jobgraph.Node{
		UID:    fmt.Sprintf("agg/%d", n),
		Inputs: []jobgraph.Edge{{From: f.end, Exchange: jobgraph.Hash, Keys: keys}},
		Op:     &jobgraph.Aggregate{Keys: keys, Calls: calls, StateTTL: ttl},
		Out:    out.schema(),
	})
	f.sc, f.mode, f.key, f.input, f.timeAttrs, f.ptf = out, jobgraph.Retract, keys, -1, map[int]bool{}, nil
	return nil
}

// bindAggCall binds one aggregate call: its arguments (and FILTER) are
// added to the pre-projection with add.
func (p *Planner) bindAggCall(fc *ast.FuncCall, fn jobgraph.AggFunc, in *scope, add func(expr.Expr, column) int) (jobgraph.AggCall, column, error) {
	call := jobgraph.AggCall{Func: fn, Distinct: fc.Distinct, Filter: -1}
	name := strings.ToUpper(fc.Name.Last().Name)
	switch {
	case fc.Star && fn == jobgraph.AggCount:
		call.Func = jobgraph.AggCountStar
	case fc.Star:
		return call, column{}, errAt(fc.Pos(), sqlerr.InvalidArgument, "%s(*) is not allowed: only COUNT takes *", name)
	case len(fc.Args) == 0:
		return call, column{}, errAt(fc.Pos(), sqlerr.InvalidFunction, "%s needs an argument", name)
	}
	maxArgs := 1
	if fn == jobgraph.AggListAgg {
		maxArgs = 2
	}
	if len(fc.Args) > maxArgs {
		if fn == jobgraph.AggCount {
			return call, column{}, errAt(fc.Pos(), sqlerr.Unsupported, "We now only support the count of one field.").
				WithHint("count a ROW: COUNT(ROW(a, b)), or a concatenation")
		}
		return call, column{}, errAt(fc.Pos(), sqlerr.InvalidFunction, "%s takes %d argument(s), but %d were given", name, maxArgs, len(fc.Args))
	}
	var argT types.Type
	for i, a := range fc.Args {
		if hasAggregate(a) {
			return call, column{}, errAt(a.Pos(), sqlerr.InvalidArgument, "Aggregate function calls cannot be nested")
		}
		x, err := bindExpr(a, in)
		if err != nil {
			return call, column{}, err
		}
		if i == 0 {
			argT = x.Type()
		}
		call.Args = append(call.Args, add(x, column{name: fmt.Sprintf("$arg%d", i), typ: x.Type()}))
	}
	if fc.Filter != nil {
		if hasAggregate(fc.Filter) {
			return call, column{}, errAt(fc.Filter.Pos(), sqlerr.InvalidArgument, "Aggregate functions are not allowed in FILTER")
		}
		x, err := bindExpr(fc.Filter, in)
		if err != nil {
			return call, column{}, err
		}
		if x.Type().ID != types.TypeBoolean {
			return call, column{}, errAt(fc.Filter.Pos(), sqlerr.TypeMismatch, "FILTER needs a BOOLEAN condition, but %s has type %s", ast.Format(fc.Filter), x.Type())
		}
		call.Filter = add(x, column{name: "$filter", typ: x.Type()})
	}
	t, err := aggResultType(call.Func, argT)
	if err != nil {
		return call, column{}, errAt(fc.Pos(), sqlerr.TypeMismatch, "%s cannot be applied to %s: %v", name, argT, err)
	}
	call.Type = t
	return call, column{name: "EXPR$" + ast.Format(fc), typ: t}, nil
}

// aggResultType is Flink's result type of an aggregate over argument type
// t (reference §2.3).
func aggResultType(fn jobgraph.AggFunc, t types.Type) (types.Type, error) {
	switch fn {
	case jobgraph.AggCountStar, jobgraph.AggCount:
		return types.BigInt.NonNull(), nil
	case jobgraph.AggSum, jobgraph.AggAvg:
		if !t.IsNumeric() {
			return t, fmt.Errorf("a numeric argument is needed")
		}
		if t.ID == types.TypeDecimal {
			if fn == jobgraph.AggSum {
				return types.Decimal(38, t.Scale), nil
			}
			return types.Decimal(38, max(6, t.Scale)), nil
		}
		return t.Nullable(), nil
	case jobgraph.AggStddevPop, jobgraph.AggStddevSamp, jobgraph.AggVarPop, jobgraph.AggVarSamp:
		if !t.IsNumeric() {
			return t, fmt.Errorf("a numeric argument is needed")
		}
		if t.ID == types.TypeDecimal {
			return types.Double, nil
		}
		return t.Nullable(), nil
	case jobgraph.AggListAgg:
		if t.ID != types.TypeVarChar && t.ID != types.TypeChar {
			return t, fmt.Errorf("a string argument is needed")
		}
		return types.String, nil
	case jobgraph.AggBoolAnd, jobgraph.AggBoolOr:
		if t.ID != types.TypeBoolean {
			return t, fmt.Errorf("a BOOLEAN argument is needed")
		}
		return types.Boolean, nil
	}
	return t.Nullable(), nil
}

// planDistinct plans SELECT DISTINCT over the projected rows of f: a
// GroupAggregate keyed by every column, without calls.
func (p *Planner) planDistinct(s *ast.Select, f *frag) error {
	cols := f.sc.cols
	d := &ast.Select{Loc: s.Loc}
	// Group by position: the select list may repeat a name.
	unique := make([]column, len(cols))
	for i, c := range cols {
		unique[i] = column{name: fmt.Sprintf("$distinct%d", i), typ: c.typ}
		d.Items = append(d.Items, &ast.SelectItem{Expr: &ast.ColumnRef{Parts: []*ast.Ident{{Name: unique[i].name}}}})
	}
	f.sc = &scope{cols: unique}
	if err := p.planAggregate(d, f, true); err != nil {
		return err
	}
	f.sc = &scope{cols: cols}
	return nil
}
