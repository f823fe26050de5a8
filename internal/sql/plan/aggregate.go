package plan

import (
	"fmt"
	"slices"
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
	"COLLECT": jobgraph.AggCollect, "ARRAY_AGG": jobgraph.AggArrayAgg,
	"JSON_OBJECTAGG": jobgraph.AggJSONObjectAgg, "JSON_ARRAYAGG": jobgraph.AggJSONArrayAgg,
	"APPROX_COUNT_DISTINCT": jobgraph.AggApproxCountDistinct,
}

// aggCallOf returns the aggregate function an expression calls, if it is
// an aggregate call.
func aggCallOf(e ast.Expr) (*ast.FuncCall, jobgraph.AggFunc, bool) {
	f, ok := e.(*ast.FuncCall)
	if !ok || f.Over != nil {
		return nil, "", false
	}
	if u, _, isUser := userAggOf(f); isUser {
		return f, jobgraph.AggFunc(u.name), true
	}
	if len(f.Name.Parts) != 1 {
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
	groupKeys := map[string]int{}
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
	groupExprs, setsOf, err := expandGrouping(groupExprs)
	if err != nil {
		return err
	}
	groupExprs, gw, err := p.takeGroupWindow(groupExprs, setsOf, f)
	if err != nil {
		return err
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
		canon, known := expr.Canonical(x)
		if j, dup := groupKeys[canon]; known && dup {
			subst[key] = j // another spelling of a group expression
			continue
		}
		subst[key] = addPre(x, c)
		if known {
			groupKeys[canon] = subst[key]
		}
		keyCols = append(keyCols, c)
	}
	nKeys := len(pre)
	// GROUPING(...) and GROUPING_ID(...) calls: a constant per grouping set.
	var groupingCalls []*ast.FuncCall
	// The aggregate calls of the select list and HAVING, each once.
	var calls []jobgraph.AggCall
	var callCols []column
	var bindErr error
	var approx *ast.FuncCall    // the first APPROX_COUNT_DISTINCT call
	var noRetract *ast.FuncCall // the first user aggregate without Retract
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
			if gc, isGrouping := groupingCallOf(x); isGrouping {
				if _, done := subst[ast.Format(gc)]; !done {
					subst[ast.Format(gc)] = -1 // numbered below
					groupingCalls = append(groupingCalls, gc)
				}
				return false
			}
			fc, fn, ok := aggCallOf(x)
			if !ok {
				return true
			}
			if fn == jobgraph.AggApproxCountDistinct && approx == nil && len(fc.Args) == 1 {
				approx = fc
			}
			if _, a, isUser := userAggOf(fc); isUser && !a.CanRetract() && noRetract == nil {
				noRetract = fc
			}
			key := ast.Format(fc)
			if _, done := subst[key]; done {
				return false
			}
			call, col, err := p.bindAggCall(fc, fn, in, addPre)
			if err != nil {
				bindErr = withAggSignatures(err, fc)
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
	if approx != nil && f.changelog().Mode != jobgraph.Append {
		return errAt(approx.Pos(), sqlerr.Unsupported, "APPROX_COUNT_DISTINCT cannot aggregate an updating input: a HyperLogLog sketch cannot retract a row").
			WithHint("use COUNT(DISTINCT %s), which retracts, or aggregate an insert-only table", ast.Format(approx.Args[0]))
	}
	if noRetract != nil && f.changelog().Mode != jobgraph.Append {
		u, _, _ := userAggOf(noRetract)
		return errAt(noRetract.Pos(), sqlerr.Unsupported, "Function '%s' ('%s') cannot aggregate an updating input: it has no Retract", u.name, u.id).
			WithHint("implement Retract in the function, or aggregate an insert-only table")
	}
	if gw != nil {
		if len(groupingCalls) > 0 {
			return errAt(groupingCalls[0].Pos(), sqlerr.Unsupported, "GROUPING() with a group window function is not supported yet")
		}
		return p.planGroupWindow(f, gw, pre, preCols, keyCols, callCols, calls, subst, groupKeys, in, s.Pos())
	}
	// Pre-projection: keys, then arguments and filters.
	f.sc = &scope{cols: preCols}
	f.addCalc(Calc{Project: pre, Prepares: true})
	keys := make([]int, nKeys)
	for i := range keys {
		keys[i] = i
	}
	ttl, err := p.stateTTL()
	if err != nil {
		return err
	}
	if h, ok := p.hintedTTL(in); ok {
		ttl = h
	}
	mb, err := p.miniBatch(s.Pos())
	if err != nil {
		return err
	}
	if setsOf != nil || len(groupingCalls) > 0 {
		return p.planGroupingSets(f, keyCols, callCols, calls, setsOf, groupingCalls, subst, groupKeys, in, ttl, mb, s.Pos())
	}
	out := &scope{cols: append(append([]column(nil), keyCols...), callCols...), subst: subst, grouped: in, groupKeys: groupKeys}
	f.rel = windowize(&Aggregate{In: f.rel, Keys: keys, Calls: calls, StateTTL: ttl, MiniBatch: mb, UID: f.st.aggUID(), Cols: plainColumns(out), Pos: s.Pos()})
	f.sc = out
	return nil
}

// plainColumns returns the columns of a scope, none a time attribute.
func plainColumns(sc *scope) []Column {
	cols := make([]Column, len(sc.cols))
	for i, c := range sc.cols {
		cols[i] = Column{Name: c.name, Type: c.typ}
	}
	return cols
}

// bindAggCall binds one aggregate call: its arguments (and FILTER) are
// added to the pre-projection with add.
func (p *Planner) bindAggCall(fc *ast.FuncCall, fn jobgraph.AggFunc, in *scope, add func(expr.Expr, column) int) (jobgraph.AggCall, column, error) {
	if u, a, isUser := userAggOf(fc); isUser {
		return p.bindUserAggCall(fc, u, a, in, add)
	}
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
	if fn == jobgraph.AggListAgg || fn == jobgraph.AggJSONObjectAgg {
		maxArgs = 2
	}
	if len(fc.Args) > maxArgs {
		if fn == jobgraph.AggCount {
			return call, column{}, errAt(fc.Pos(), sqlerr.Unsupported, "We now only support the count of one field.").
				WithHint("count a ROW: COUNT(ROW(a, b)), or a concatenation")
		}
		return call, column{}, errAt(fc.Pos(), sqlerr.InvalidFunction, "%s takes %d argument(s), but %d were given", name, maxArgs, len(fc.Args))
	}
	switch fn {
	case jobgraph.AggArrayAgg:
		call.KeepNulls = fc.Nulls != "IGNORE" // RESPECT NULLS is the default
	case jobgraph.AggJSONArrayAgg:
		call.KeepNulls = fc.OnNull == "NULL" // ABSENT ON NULL is the default
	case jobgraph.AggJSONObjectAgg:
		call.KeepNulls = true // a NULL key fails; NULL ON NULL is the default
		if fc.OnNull == "ABSENT" {
			call.Func = jobgraph.AggJSONObjectAggAbsent
		}
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
		isJSONValue := fn == jobgraph.AggJSONArrayAgg || fn == jobgraph.AggJSONObjectAgg && i == 1
		if fn == jobgraph.AggJSONObjectAgg && i == 0 && !x.Type().IsString() && x.Type().ID != types.TypeNull {
			return call, column{}, errAt(a.Pos(), sqlerr.TypeMismatch, "The key of JSON_OBJECTAGG must be a character string, but %s has type %s", ast.Format(a), x.Type()).
				WithHint("CAST(%s AS STRING)", ast.Format(a))
		}
		if isJSONValue {
			// Flink aggregates the values' JSON text (WrapJsonAggFunctionArgumentsRule).
			if x, err = expr.JSONText(x); err != nil {
				return call, column{}, positioned(err, a.Pos(), sqlerr.TypeMismatch)
			}
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
	case jobgraph.AggCollect:
		return types.MultisetOf(t).NonNull(), nil
	case jobgraph.AggArrayAgg:
		return types.ArrayOf(t), nil
	case jobgraph.AggJSONObjectAgg, jobgraph.AggJSONObjectAggAbsent, jobgraph.AggJSONArrayAgg:
		return types.String.NonNull(), nil
	case jobgraph.AggApproxCountDistinct:
		return types.BigInt.NonNull(), nil
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

// groupingCallOf reports whether e is GROUPING(...) or GROUPING_ID(...).
func groupingCallOf(e ast.Expr) (*ast.FuncCall, bool) {
	f, ok := e.(*ast.FuncCall)
	if !ok || len(f.Name.Parts) != 1 {
		return nil, false
	}
	switch strings.ToUpper(f.Name.Last().Name) {
	case "GROUPING", "GROUPING_ID", "GROUP_ID":
		return f, true
	}
	return nil, false
}

// isGroupID reports whether a grouping call is GROUP_ID(): which
// occurrence of a duplicated grouping set a row comes from (0 for the
// first), as Calcite numbers them.
func isGroupID(gc *ast.FuncCall) bool { return strings.EqualFold(gc.Name.Last().Name, "GROUP_ID") }

// expandGrouping flattens GROUP BY items into the distinct group
// expressions and, when GROUPING SETS, ROLLUP or CUBE occur, the grouping
// sets as lists of indexes into them (the cross product of the items, as
// SQL defines it); sets is nil for a plain GROUP BY.
func expandGrouping(items []ast.Expr) (exprs []ast.Expr, sets [][]int, err error) {
	index := map[string]int{}
	idx := func(e ast.Expr) int {
		k := ast.Format(e)
		if i, ok := index[k]; ok {
			return i
		}
		index[k] = len(exprs)
		exprs = append(exprs, e)
		return len(exprs) - 1
	}
	product := [][]int{{}}
	grouping := false
	for _, it := range items {
		var alts [][]int
		g, ok := it.(*ast.Grouping)
		switch {
		case !ok:
			alts = [][]int{{idx(it)}}
		case g.Kind == ast.GroupingSets:
			for _, set := range g.Sets {
				var alt []int
				for _, e := range set {
					alt = append(alt, idx(e))
				}
				alts = append(alts, alt)
			}
		case g.Kind == ast.Rollup:
			cols := g.Sets[0]
			for n := len(cols); n >= 0; n-- {
				var alt []int
				for _, e := range cols[:n] {
					alt = append(alt, idx(e))
				}
				alts = append(alts, alt)
			}
		default: // CUBE: every subset, the full set first
			cols := g.Sets[0]
			if len(cols) > 12 {
				return nil, nil, errAt(g.Pos(), sqlerr.InvalidArgument, "CUBE of %d columns makes %d grouping sets; at most 12 columns are allowed", len(cols), 1<<len(cols))
			}
			for mask := (1 << len(cols)) - 1; mask >= 0; mask-- {
				var alt []int
				for i, e := range cols {
					if mask&(1<<(len(cols)-1-i)) != 0 {
						alt = append(alt, idx(e))
					}
				}
				alts = append(alts, alt)
			}
		}
		grouping = grouping || ok
		var next [][]int
		for _, pfx := range product {
			for _, alt := range alts {
				next = append(next, append(append([]int(nil), pfx...), alt...))
			}
		}
		product = next
	}
	if !grouping {
		return exprs, nil, nil
	}
	return exprs, product, nil
}

// planGroupingSets plans GROUPING SETS (ROLLUP, CUBE): one GroupAggregate
// per set over the shared pre-projection, each padded to every group
// column (NULL where the set does not group) and tagged with the values of
// the GROUPING() calls, then a union of them. Each set is a group of its
// own in state, as in Flink.
func (p *Planner) planGroupingSets(f *frag, keyCols, callCols []column, calls []jobgraph.AggCall, sets [][]int,
	groupingCalls []*ast.FuncCall, subst, groupKeys map[string]int, in *scope, ttl int64, mb jobgraph.MiniBatch, pos sqlerr.Pos) error {
	if sets == nil {
		all := make([]int, len(keyCols))
		for i := range all {
			all[i] = i
		}
		sets = [][]int{all}
	}
	// The argument positions of the GROUPING calls.
	gargs := make([][]int, len(groupingCalls))
	for gi, gc := range groupingCalls {
		if isGroupID(gc) {
			if len(gc.Args) > 0 {
				return errAt(gc.Pos(), sqlerr.InvalidFunction, "GROUP_ID takes no arguments").WithHint("write GROUP_ID()")
			}
			continue
		}
		if len(gc.Args) == 0 {
			return errAt(gc.Pos(), sqlerr.InvalidFunction, "%s needs at least one argument", strings.ToUpper(gc.Name.Last().Name))
		}
		for _, a := range gc.Args {
			i, ok := subst[ast.Format(a)]
			if !ok || i < 0 || i >= len(keyCols) {
				return errAt(a.Pos(), sqlerr.InvalidArgument, "The argument %s of GROUPING must be an expression of GROUP BY", ast.Format(a))
			}
			gargs[gi] = append(gargs[gi], i)
		}
	}
	outCols := make([]column, 0, len(keyCols)+len(callCols)+len(groupingCalls))
	keepNotNull := windowKeysInEverySet(f.rel, len(keyCols), sets)
	for k, c := range keyCols {
		t := c.typ.Nullable()
		if keepNotNull[k] {
			t = c.typ
		}
		outCols = append(outCols, column{qualifier: c.qualifier, name: c.name, typ: t})
	}
	outCols = append(outCols, callCols...)
	for gi, gc := range groupingCalls {
		subst[ast.Format(gc)] = len(outCols)
		outCols = append(outCols, column{name: fmt.Sprintf("$grouping%d", gi), typ: types.BigInt.NonNull()})
	}
	pre := f.rel
	var edges []Rel
	seen := map[string]int64{} // a grouping set's columns -> how often it came before (GROUP_ID)
	for _, set := range sets {
		setKey := fmt.Sprint(slices.Compact(slices.Sorted(slices.Values(set))))
		groupID := seen[setKey]
		seen[setKey]++
		inSet := map[int]int{} // group column -> position in the set's output
		var keys []int
		for _, k := range set {
			if _, dup := inSet[k]; !dup {
				inSet[k] = len(keys)
				keys = append(keys, k)
			}
		}
		aggOut := make([]column, 0, len(keys)+len(callCols))
		for _, k := range keys {
			aggOut = append(aggOut, keyCols[k])
		}
		aggOut = append(aggOut, callCols...)
		agg := &Aggregate{In: pre, Keys: keys, Calls: calls, StateTTL: ttl, MiniBatch: mb, UID: f.st.aggUID(), Cols: plainColumns(&scope{cols: aggOut}), Pos: pos}
		var proj []expr.Expr
		for k, c := range keyCols {
			var x expr.Expr
			var err error
			if pos, ok := inSet[k]; ok {
				x, err = expr.Col(pos, c.name, c.typ)
				if out := outCols[k].typ; err == nil && !out.Same(c.typ) {
					x, err = expr.Cast(x, out, false)
				}
			} else {
				x, err = expr.Lit(types.Null, c.typ.Nullable())
			}
			if err != nil {
				return err
			}
			proj = append(proj, x)
		}
		for ci, c := range callCols {
			x, err := expr.Col(len(keys)+ci, c.name, c.typ)
			if err != nil {
				return err
			}
			proj = append(proj, x)
		}
		for gi, args := range gargs {
			if isGroupID(groupingCalls[gi]) {
				x, err := expr.Lit(types.NewInt(groupID), types.BigInt.NonNull())
				if err != nil {
					return err
				}
				proj = append(proj, x)
				continue
			}
			var bits int64
			for _, a := range args {
				bits <<= 1
				if _, grouped := inSet[a]; !grouped {
					bits |= 1
				}
			}
			x, err := expr.Lit(types.NewInt(bits), types.BigInt.NonNull())
			if err != nil {
				return err
			}
			proj = append(proj, x)
		}
		edges = append(edges, &Calc{In: windowize(agg), Project: proj, Cols: plainColumns(&scope{cols: outCols})})
	}
	out := &scope{cols: outCols, subst: subst, grouped: in, groupKeys: groupKeys}
	if len(edges) == 1 {
		f.rel = edges[0]
	} else {
		f.rel = &Union{Ins: edges, Cols: plainColumns(out)}
	}
	f.sc = out
	return nil
}
