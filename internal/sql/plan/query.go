package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// frag is a relation under construction: a node of the logical plan and
// the scope naming its columns.
type frag struct {
	st  *stmt
	rel Rel
	sc  *scope
}

// changelog derives the relation's changelog.
func (f *frag) changelog() Changelog { return ChangelogOf(f.rel) }

// timeAttrs returns the positions of the relation's time attributes.
func (f *frag) timeAttrs() map[int]bool {
	out := map[int]bool{}
	for i, c := range f.rel.Columns() {
		if c.Time != NotTime {
			out[i] = true
		}
	}
	return out
}

// addCalc adds a calc after the relation; f.sc must already describe its
// output. It returns the calc, for its positions.
func (f *frag) addCalc(c Calc) *Calc {
	c.In = f.rel
	c.Cols = calcColumns(f.rel.Columns(), c.Project, f.sc)
	f.rel = &c
	return &c
}

// calcColumns names the output of a projection by sc; plain references to
// time attributes stay time attributes.
func calcColumns(in []Column, project []expr.Expr, sc *scope) []Column {
	cols := make([]Column, len(sc.cols))
	for i, c := range sc.cols {
		cols[i] = Column{Name: c.name, Type: c.typ}
		switch {
		case project == nil:
			if i < len(in) {
				cols[i].Time = in[i].Time
			}
		case i < len(project):
			if j, ok := expr.ColumnOf(project[i]); ok && j < len(in) && in[j].Type.Same(c.typ) {
				cols[i].Time = in[j].Time
			}
			if isProcTime(project[i]) {
				cols[i].Time = ProcTime
			}
		}
	}
	return cols
}

// stmt is the state of one statement being bound.
type stmt struct {
	// job collects the statement's inputs (addInput).
	job *jobgraph.Job
	// aggs, joins and singles number the stateful operators in binding
	// order.
	aggs, joins, singles int
	// windows numbers the stateful window operators (windowUID).
	windows int
	// overs numbers the OVER, Top-N, deduplication, interval join,
	// temporal join and temporal sort operators (decision 0026).
	overs int
	// order is the ORDER BY of the outermost SELECT of a query that returns
	// rows, when the client sorts the result table (jobgraph.Sink.OrderBy).
	order []jobgraph.SortKey
	// ptfs are the function calls bound so far.
	ptfs []*jobgraph.PTF
}

func newStmt() *stmt { return &stmt{job: &jobgraph.Job{}} }

func (st *stmt) aggUID() string {
	st.aggs++
	return fmt.Sprintf("agg/%d", st.aggs-1)
}

// singleUID numbers the row-count aggregates of scalar subqueries apart
// from the other aggregates (plan version 2 added them: the aggregates of
// version 1 keep their numbers).
func (st *stmt) singleUID() string {
	st.singles++
	return fmt.Sprintf("single/%d", st.singles-1)
}

func (st *stmt) overUID() string {
	st.overs++
	return fmt.Sprintf("over/%d", st.overs-1)
}

func (st *stmt) joinUID() string {
	st.joins++
	return fmt.Sprintf("join/%d", st.joins-1)
}

// bound finishes the statement with its sink.
func (p *Planner) bound(st *stmt, sink *Sink) (*Bound, error) {
	v := p.Session.PlanVersion
	if v == 0 {
		v = LatestPlan
	}
	ndu := strings.EqualFold(strings.TrimSpace(p.Session.Config["table.optimizer.non-deterministic-update.strategy"]), "TRY_RESOLVE")
	ttl, err := p.stateTTL()
	if err != nil {
		return nil, err
	}
	return &Bound{Root: sink, Inputs: st.job.Inputs, Version: v, TryResolveNDU: ndu, StateTTL: ttl}, nil
}

// BindSelect binds a query whose rows go back to the client.
func (p *Planner) BindSelect(q ast.Query) (*Bound, error) {
	p.required = ptf.Retract()
	p.allowLimit = true
	st := newStmt()
	f, err := p.planQuery(q, st)
	if err != nil {
		return nil, err
	}
	sink := &Sink{In: f.rel, Spec: jobgraph.Sink{Kind: jobgraph.CollectSink, Schema: f.sc.schema(), OrderBy: st.order}, Pos: q.Pos()}
	return p.bound(st, sink)
}

func (p *Planner) planQuery(q ast.Query, st *stmt) (*frag, error) {
	if err := p.resolveUserCalls(q); err != nil {
		return nil, err
	}
	switch n := q.(type) {
	case *ast.Select:
		return p.planHintedSelect(n, st)
	case *ast.Values:
		return p.planValues(n, st)
	case *ast.SetOp:
		return p.planSetOp(n, st)
	case *ast.With:
		return p.planWith(n, st)
	}
	return nil, errAt(q.Pos(), sqlerr.Unsupported, "This query is not supported yet").
		WithHint("queries are SELECT, VALUES, WITH and set operations of them (docs/sql.md)")
}

func (p *Planner) planSelect(s *ast.Select, st *stmt) (*frag, error) {
	// Only the outermost SELECT of a query sent to the client may have a
	// LIMIT: the job applies it to the rows the client receives.
	allowLimit := p.allowLimit
	p.allowLimit = false
	var f *frag
	var err error
	where := s.Where
	if s.From == nil {
		// SELECT without FROM reads one empty row.
		f = valuesFrag(st, nil, [][]types.Value{{}})
	} else if j, isJoin := s.From.(*ast.Join); isJoin {
		var rest []ast.Expr
		if f, rest, err = p.planJoin(j, st, conjuncts(s.Where)); err != nil {
			return nil, err
		}
		where = andAll(rest)
	} else if f, err = p.planFrom(s.From, st); err != nil {
		return nil, err
	}
	if where != nil && hasSubquery(where) {
		rest, err := p.planSubqueryConds(f, conjuncts(where))
		if err != nil {
			return nil, err
		}
		where = andAll(rest)
	}
	scalarIn := []ast.Expr{where}
	for _, it := range s.Items {
		scalarIn = append(scalarIn, it.Expr)
	}
	if err := p.planScalarSubqueries(f, scalarIn...); err != nil {
		return nil, err
	}
	var calc Calc
	withTimes(f)
	if where != nil {
		w, err := bindExpr(where, f.sc)
		if err != nil {
			return nil, err
		}
		if w.Type().ID != types.TypeBoolean && w.Type().ID != types.TypeNull {
			return nil, errAt(where.Pos(), sqlerr.TypeMismatch, "WHERE needs a BOOLEAN condition, but %s has type %s", ast.Format(where), w.Type())
		}
		calc.Filter, calc.FilterPos = w, where.Pos()
	}
	if isAggregateQuery(s) {
		if !calc.IsIdentity() {
			f.addCalc(calc)
			calc = Calc{}
		}
		if err := p.planAggregate(s, f, false); err != nil {
			return nil, err
		}
		if s.Having != nil {
			h, err := bindExpr(s.Having, f.sc)
			if err != nil {
				return nil, err
			}
			if h.Type().ID != types.TypeBoolean && h.Type().ID != types.TypeNull {
				return nil, errAt(s.Having.Pos(), sqlerr.TypeMismatch, "HAVING needs a BOOLEAN condition, but %s has type %s", ast.Format(s.Having), h.Type())
			}
			calc.Filter, calc.FilterPos = h, s.Having.Pos()
		}
	}
	qs, qualifyExtras, err := withQualifyItems(s)
	if err != nil {
		return nil, err
	}
	if len(qs.Windows) > 0 || hasOverItem(qs) {
		if !calc.IsIdentity() {
			f.addCalc(calc)
			calc = Calc{}
		}
		if err := p.planOver(qs, f); err != nil {
			return nil, err
		}
	}
	calc.Pos = s.Pos()
	withTimes(f)
	proj, orderExtras, err := p.withOrderColumns(qs, f)
	if err != nil {
		return nil, err
	}
	if err := p.project(proj, f, &calc); err != nil {
		return nil, err
	}
	if !calc.IsIdentity() {
		f.addCalc(calc)
	}
	if s.Qualify != nil {
		if err := planQualify(s, f, qualifyExtras, orderExtras); err != nil {
			return nil, err
		}
	}
	if s.Distinct {
		if err := p.planDistinct(s, f); err != nil {
			return nil, err
		}
	}
	if len(s.OrderBy) > 0 {
		return f, p.planOrderBy(s, f, orderExtras, allowLimit)
	}
	if s.Offset != nil {
		return nil, errAt(s.Offset.Pos(), sqlerr.Unsupported, "OFFSET needs ORDER BY on a stream").
			WithHint("write ORDER BY ... LIMIT n OFFSET m")
	}
	if s.Limit != nil {
		if !allowLimit {
			return nil, errAt(s.Limit.Pos(), sqlerr.Unsupported, "LIMIT is supported only on the outermost SELECT of a query that returns rows yet, not in subqueries, table arguments or INSERT").
				WithHint("filter the rows with WHERE instead")
		}
		return f, planLimit(f, s.Limit)
	}
	return f, nil
}

// planLimit binds LIMIT n (a non-negative integer literal) and applies it.
func planLimit(f *frag, e ast.Expr) error {
	v, err := bindExpr(e, &scope{})
	if err == nil && v.Type().IsInteger() {
		var lv types.Value
		if lv, err = v.Eval(nil); err == nil && lv.Int() >= 0 {
			f.rel = &Limit{In: f.rel, N: lv.Int(), Pos: e.Pos()}
			return nil
		}
	}
	return errAt(e.Pos(), sqlerr.InvalidArgument, "LIMIT needs a non-negative integer literal")
}

// project binds the select list; calc.Project stays nil for an identity.
func (p *Planner) project(s *ast.Select, f *frag, calc *Calc) error {
	var exprs []expr.Expr
	var cols []column
	var srcCol []int // input column for plain references, else -1
	for i, item := range s.Items {
		if st, ok := item.Expr.(*ast.Star); ok {
			matched := false
			for ci, c := range f.sc.cols {
				if c.hidden || st.Qualifier != nil && !strings.EqualFold(c.qualifier, st.Qualifier.Last().Name) {
					continue
				}
				matched = true
				x, err := expr.Col(ci, c.name, c.typ)
				if err != nil {
					return err
				}
				exprs, cols, srcCol = append(exprs, x), append(cols, column{name: c.name, typ: c.typ}), append(srcCol, ci)
			}
			if !matched && st.Qualifier != nil {
				return errAt(st.Pos(), sqlerr.UnknownTable, "Table '%s' of %s.* is not in FROM", st.Qualifier, st.Qualifier).
					WithHint("use the name or alias of a table of the FROM clause")
			}
			continue
		}
		x, err := bindExpr(item.Expr, f.sc)
		if err != nil {
			return err
		}
		name := fmt.Sprintf("EXPR$%d", i)
		src := -1
		if ref, ok := item.Expr.(*ast.ColumnRef); ok {
			name = ref.Parts[len(ref.Parts)-1].Name
			src, _ = f.sc.resolve(ref)
		}
		if item.Alias != nil {
			name = item.Alias.Name
		}
		exprs, cols, srcCol = append(exprs, x), append(cols, column{name: name, typ: x.Type()}), append(srcCol, src)
	}
	identity := len(exprs) == len(f.sc.cols)
	for i := range exprs {
		if srcCol[i] != i || cols[i].name != f.sc.cols[i].name {
			identity = false
		}
	}
	if identity {
		return nil
	}
	calc.Project = exprs
	f.sc = &scope{cols: cols}
	return nil
}

func (p *Planner) planFrom(te ast.TableExpr, st *stmt) (*frag, error) {
	switch n := te.(type) {
	case *ast.TableName:
		if i, ok := p.lookupCTE(n.Name); ok {
			return p.planCTE(i, n.Alias, st)
		}
		t, err := p.ResolveTable(n.Name)
		if err != nil {
			return nil, err
		}
		if t.View != "" {
			return p.planView(t, n, st)
		}
		i, err := p.addInput(st.job, t, n.Pos())
		if err != nil {
			return nil, err
		}
		qual := t.Name
		if n.Alias != nil {
			qual = n.Alias.Name.Name
		}
		in := st.job.Inputs[i]
		scan := &Scan{Input: i, Table: in.Table, Mode: in.Mode, Key: in.Key}
		for k, fl := range in.Schema.Fields {
			c := Column{Name: fl.Name, Type: fl.Type}
			if in.Watermark != nil && in.Watermark.Column == k {
				c.Time = RowTime
			}
			if isProcTimeColumn(t, fl.Name) {
				c.Time = ProcTime
			}
			scan.Cols = append(scan.Cols, c)
		}
		f := &frag{st: st, rel: scan, sc: scopeOf(in.Schema, qual)}
		return f, applyAlias(f, n.Alias)
	case *ast.Subquery:
		f, err := p.planQuery(n.Query, st)
		if err != nil {
			return nil, err
		}
		return f, applyAlias(f, n.Alias)
	case *ast.Unnest:
		return p.planCorrelateAlone(n, st)
	case *ast.TableFunc:
		if kind, isWindow := windowTVFKind(n); isWindow {
			f, err := p.planWindowTVF(n, kind, st)
			if err != nil {
				return nil, err
			}
			return f, applyAlias(f, n.Alias)
		}
		if p.isUserTableFunc(n) {
			return p.planCorrelateAlone(n, st)
		}
		f, err := p.planTableFunc(n, st)
		if err != nil {
			return nil, err
		}
		return f, applyAlias(f, n.Alias)
	case *ast.Join:
		f, _, err := p.planJoin(n, st, nil)
		return f, err
	}
	return nil, errAt(te.Pos(), sqlerr.Unsupported, "This FROM clause is not supported yet").
		WithHint("FROM takes tables, views, subqueries, joins, UNNEST, LATERAL TABLE and process table function calls (docs/sql.md)")
}

func applyAlias(f *frag, a *ast.Alias) error {
	if a == nil {
		return nil
	}
	cols := slices.Clone(f.sc.cols)
	if len(a.Columns) > 0 && len(a.Columns) != len(cols) {
		return errAt(a.Pos(), sqlerr.InvalidArgument, "The alias %s lists %d columns, but the relation has %d", a.Name.Name, len(a.Columns), len(cols))
	}
	for i := range cols {
		cols[i].qualifier = a.Name.Name
		if len(a.Columns) > 0 {
			cols[i].name = a.Columns[i].Name
		}
	}
	f.sc = &scope{cols: cols}
	return nil
}

// planTableFunc plans a PTF call in FROM: a PTF node whose ports are its
// table arguments in the order of the call.
func (p *Planner) planTableFunc(tf *ast.TableFunc, st *stmt) (*frag, error) {
	id, def, isBuiltin := builtinPTF(tf.Name.Last().Name)
	var err error
	if !isBuiltin || len(tf.Name.Names()) > 1 {
		if id, def, err = p.ResolveFunction(tf.Name); err != nil {
			return nil, err
		}
	}
	ttl, err := p.stateTTL()
	if err != nil {
		return nil, err
	}
	call := &ptfCall{name: tf.Name.Last().Name, pos: tf.Name.Pos(), id: id, def: def, required: p.required, stateTTL: ttl}
	var frags []*frag // by port
	for _, a := range tf.Args {
		ca := callArg{pos: a.Pos(), valuePos: a.Value.Pos()}
		if a.Name != nil {
			ca.name = a.Name.Name
		}
		switch v := a.Value.(type) {
		case *ast.TableArg:
			var f *frag
			if v.Name != nil {
				f, err = p.planFrom(&ast.TableName{Name: v.Name}, st)
			} else {
				f, err = p.planQuery(v.Query, st)
			}
			if err != nil {
				return nil, err
			}
			cl := f.changelog()
			if cl.Source < 0 && countTableArgs(tf) > 1 {
				return nil, errAt(v.Pos(), sqlerr.Unsupported, "A function whose table argument is another function's output can take only that one table yet")
			}
			port := len(frags)
			frags = append(frags, f)
			tv := &tableArgValue{
				rel: &rel{input: port, schema: f.sc.schema(), mode: cl.Mode, upsertKey: cl.Key, timeAttrs: f.timeAttrs(), kinds: cl.Exact()},
				pos: v.Pos(), hasPartition: len(v.PartitionBy) > 0,
			}
			for _, id := range v.PartitionBy {
				tv.partitionBy = append(tv.partitionBy, ident{name: id.Name, pos: id.Pos()})
			}
			for _, o := range v.OrderBy {
				tv.orderBy = append(tv.orderBy, orderItemOf(o))
			}
			ca.table = tv
		case *ast.Descriptor:
			ca.isDesc = true
			for _, c := range v.Columns {
				ca.desc = append(ca.desc, ident{name: c.Name, pos: c.Pos()})
			}
		case *ast.Default:
			ca.isDef = true
		default:
			x, err := bindExpr(v, &scope{})
			if err != nil {
				return nil, err
			}
			ca.scalar = x
		}
		call.args = append(call.args, ca)
	}
	node, err := call.planPTF()
	if err != nil {
		return nil, err
	}
	if err := checkUniqueUID(st, node, tf.Name.Pos()); err != nil {
		return nil, err
	}
	st.ptfs = append(st.ptfs, node)
	ins := make([]Rel, len(frags))
	for i, f := range frags {
		ins[i] = f.rel
	}
	n := &PTFCall{Ins: ins, Spec: node, Pos: tf.Pos()}
	for i, fl := range node.Out.Fields {
		c := Column{Name: fl.Name, Type: fl.Type}
		if node.EmitRowtime && i == node.Out.Len()-1 {
			c.Time = RowTime
		}
		n.Cols = append(n.Cols, c)
	}
	return &frag{st: st, rel: n, sc: scopeOf(node.Out, tf.Name.Last().Name)}, nil
}

func countTableArgs(tf *ast.TableFunc) int {
	n := 0
	for _, a := range tf.Args {
		if _, ok := a.Value.(*ast.TableArg); ok {
			n++
		}
	}
	return n
}

// checkUniqueUID rejects two stateful calls with one uid in a statement.
func checkUniqueUID(st *stmt, node *jobgraph.PTF, pos sqlerr.Pos) error {
	if node.UID == "" {
		return nil
	}
	for _, f := range st.ptfs {
		if f.UID == node.UID {
			return errAt(pos, sqlerr.InvalidFunction, "Duplicate unique identifier '%s' detected among process table functions. Make sure that all PTF calls have an identifier defined that is globally unique.", node.UID).
				WithHint("give each call its own uid => '...'")
		}
	}
	return nil
}

// orderItemOf converts an ORDER BY item of a table argument. Flink's
// defaults: ASC sorts NULLs last, DESC first.
func orderItemOf(o *ast.OrderItem) orderItem {
	it := orderItem{pos: o.Pos(), desc: o.Desc, nullsFirst: o.Desc}
	switch o.Nulls {
	case ast.NullsFirst:
		it.nullsFirst = true
	case ast.NullsLast:
		it.nullsFirst = false
	}
	if ref, ok := o.Expr.(*ast.ColumnRef); ok && len(ref.Parts) == 1 {
		it.name = ref.Parts[0].Name
	}
	return it
}
