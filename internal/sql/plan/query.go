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

// frag is a relation under construction: the rows of endpoint end of the
// job's DAG (a node, or jobgraph.Source(i) for input i).
type frag struct {
	job *jobgraph.Job
	end int
	// input is the job input the rows come from through stateless calcs
	// only (so the input can still be normalized), or -1.
	input int
	// ptf is the function call whose output the relation is (through
	// calcs only), or nil: its exact changelog mode is known.
	ptf       *jobgraph.PTF
	sc        *scope
	mode      jobgraph.Mode
	key       []int
	timeAttrs map[int]bool
}

// addCalc adds a calc after the relation; f.sc must already describe its
// output.
func (f *frag) addCalc(c jobgraph.Calc) {
	f.end = addNode(f.job, jobgraph.Node{
		UID:    fmt.Sprintf("calc/%d", len(f.job.Nodes)),
		Inputs: []jobgraph.Edge{{From: f.end}},
		Op:     &c,
		Out:    f.sc.schema(),
	})
}

// retract makes f a retract changelog for an operator that needs the
// retractions (aggregate, join, set operation): an upsert input is
// normalized at its source, any other upsert relation (a function's upsert
// output) by a changelog normalize keyed by its upsert key.
func (f *frag) retract() {
	f.normalize()
	if f.mode != jobgraph.Upsert || len(f.key) == 0 {
		return
	}
	f.end = addNode(f.job, jobgraph.Node{
		UID:    nextUID[*jobgraph.Normalize](f.job, "normalize/op"),
		Inputs: []jobgraph.Edge{{From: f.end, Exchange: jobgraph.Hash, Keys: f.key}},
		Op:     &jobgraph.Normalize{Key: f.key},
		Out:    f.sc.schema(),
	})
	f.mode, f.ptf = jobgraph.Retract, nil
}

// normalize makes an upsert input deliver a retract changelog with full
// deletes (a changelog normalize keyed by the primary key).
func (f *frag) normalize() {
	if f.input >= 0 && f.mode == jobgraph.Upsert {
		insertNormalize(f.job, f.input, f.job.Inputs[f.input].Key)
		if f.end == jobgraph.Source(f.input) {
			f.end = len(f.job.Nodes) - 1
		}
		f.mode = jobgraph.Retract
	}
}

// PlanSelect plans a query whose rows go back to the client.
func (p *Planner) PlanSelect(q ast.Query) (*QueryPlan, error) {
	p.required = ptf.Retract()
	p.allowLimit = true
	job := &jobgraph.Job{Parallelism: 1}
	f, err := p.planQuery(q, job)
	if err != nil {
		return nil, err
	}
	// Reading an upsert table shows the retract changelog, as Flink's SQL
	// client does (-U/+U pairs and full deletes).
	f.normalize()
	schema := f.sc.schema()
	finish(job, f.end)
	job.Sink = jobgraph.Sink{Kind: jobgraph.CollectSink, Schema: schema}
	job.Mode, job.UpsertKey = f.mode, f.key
	return &QueryPlan{Job: job, Schema: schema, Mode: f.mode, Key: f.key, Changelog: changelogOf(f)}, nil
}

func (p *Planner) planQuery(q ast.Query, job *jobgraph.Job) (*frag, error) {
	if err := p.resolveUserCalls(q); err != nil {
		return nil, err
	}
	switch n := q.(type) {
	case *ast.Select:
		return p.planSelect(n, job)
	case *ast.Values:
		return p.planValues(n, job)
	case *ast.SetOp:
		return p.planSetOp(n, job)
	case *ast.With:
		return p.planWith(n, job)
	}
	return nil, errAt(q.Pos(), sqlerr.Unsupported, "This query is not supported yet")
}

func (p *Planner) planSelect(s *ast.Select, job *jobgraph.Job) (*frag, error) {
	// Only the outermost SELECT of a query sent to the client may have a
	// LIMIT: the job applies it to the rows the client receives.
	allowLimit := p.allowLimit
	p.allowLimit = false
	switch {
	case len(s.OrderBy) > 0:
		return nil, errAt(s.OrderBy[0].Pos(), sqlerr.Unsupported, "ORDER BY is not supported yet")
	}
	var f *frag
	var err error
	where := s.Where
	if s.From == nil {
		// SELECT without FROM reads one empty row.
		f = valuesFrag(job, nil, [][]types.Value{{}})
	} else if j, isJoin := s.From.(*ast.Join); isJoin {
		var rest []ast.Expr
		if f, rest, err = p.planJoin(j, job, conjuncts(s.Where)); err != nil {
			return nil, err
		}
		where = andAll(rest)
	} else if f, err = p.planFrom(s.From, job); err != nil {
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
	var calc jobgraph.Calc
	if where != nil {
		w, err := bindExpr(where, f.sc)
		if err != nil {
			return nil, err
		}
		if w.Type().ID != types.TypeBoolean && w.Type().ID != types.TypeNull {
			return nil, errAt(where.Pos(), sqlerr.TypeMismatch, "WHERE needs a BOOLEAN condition, but %s has type %s", ast.Format(where), w.Type())
		}
		if f.mode == jobgraph.Upsert {
			if f.input < 0 {
				cl := changelogOf(f)
				return nil, errAt(where.Pos(), sqlerr.ChangelogMismatch,
					"There is a changelog mismatch: WHERE over the output of function '%s' needs a retract changelog (UPDATE_BEFORE rows, to retract rows that stop matching), but the function produces an upsert changelog (%s: %s) keyed by (%s)",
					ptfName(f), cl.Name(), cl, keyNames(f)).
					WithHint("filter inside the function, or let it answer a required UPDATE_BEFORE (ChangelogContext.Required) with a retract changelog")
			}
			f.normalize()
		}
		calc.Filter = w
	}
	if isAggregateQuery(s) {
		if !calc.IsIdentity() {
			f.addCalc(calc)
			calc = jobgraph.Calc{}
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
			calc.Filter = h
		}
	}
	if err := p.project(s, f, &calc); err != nil {
		return nil, err
	}
	if !calc.IsIdentity() {
		f.addCalc(calc)
	}
	if s.Distinct {
		if err := p.planDistinct(s, f); err != nil {
			return nil, err
		}
	}
	if s.Limit != nil {
		if !allowLimit {
			return nil, errAt(s.Limit.Pos(), sqlerr.Unsupported, "LIMIT is supported only on the outermost SELECT of a query that returns rows yet, not in subqueries, table arguments or INSERT").
				WithHint("filter the rows with WHERE instead")
		}
		return f, planLimit(f, job, s.Limit)
	}
	return f, nil
}

// planLimit binds LIMIT n (a non-negative integer literal) and applies it.
func planLimit(f *frag, job *jobgraph.Job, e ast.Expr) error {
	v, err := bindExpr(e, &scope{})
	if err == nil && v.Type().IsInteger() {
		var lv types.Value
		if lv, err = v.Eval(nil); err == nil && lv.Int() >= 0 {
			return limit(f, job, lv.Int(), e.Pos())
		}
	}
	return errAt(e.Pos(), sqlerr.InvalidArgument, "LIMIT needs a non-negative integer literal")
}

// limit stops the result after n rows. The job's Limit of 0 means no
// limit, so LIMIT 0 filters every row out instead.
func limit(f *frag, job *jobgraph.Job, n int64, pos sqlerr.Pos) error {
	if f.mode != jobgraph.Append && f.input < 0 {
		// Reading a table keeps the earlier behaviour (the first n changes
		// of its changelog); an updating result of an operator would be
		// cut in the middle of its updates.
		return errAt(pos, sqlerr.Unsupported, "LIMIT on an updating result (an aggregate, an outer join) is not supported yet: it would cut the changelog, not the result")
	}
	if n > 0 {
		job.Limit = int(n)
		return nil
	}
	none, err := expr.Lit(types.NewBool(false), types.Boolean.NonNull())
	if err != nil {
		return err
	}
	f.addCalc(jobgraph.Calc{Filter: none})
	return nil
}

// project binds the select list; calc.Project stays nil for an identity.
func (p *Planner) project(s *ast.Select, f *frag, calc *jobgraph.Calc) error {
	var exprs []expr.Expr
	var cols []column
	var srcCol []int // input column for plain references, else -1
	for i, item := range s.Items {
		if st, ok := item.Expr.(*ast.Star); ok {
			matched := false
			for ci, c := range f.sc.cols {
				if st.Qualifier != nil && !strings.EqualFold(c.qualifier, st.Qualifier.Last().Name) {
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
	// Remap the key and time attributes through the projection.
	var key []int
	for _, k := range f.key {
		if j := slices.Index(srcCol, k); j >= 0 {
			key = append(key, j)
		} else {
			key = nil
			break
		}
	}
	if key == nil && f.mode == jobgraph.Upsert {
		if f.input < 0 {
			return errAt(s.Pos(), sqlerr.ChangelogMismatch, "The select list drops the upsert key of the table function's output").
				WithHint("keep the key column(s) %s in the select list", keyNames(f))
		}
		f.normalize()
	}
	ta := map[int]bool{}
	for j, src := range srcCol {
		if src >= 0 && f.timeAttrs[src] {
			ta[j] = true
		}
	}
	f.key, f.timeAttrs = key, ta
	f.sc = &scope{cols: cols}
	return nil
}

func (p *Planner) planFrom(te ast.TableExpr, job *jobgraph.Job) (*frag, error) {
	switch n := te.(type) {
	case *ast.TableName:
		if i, ok := p.lookupCTE(n.Name); ok {
			return p.planCTE(i, n.Alias, job)
		}
		t, err := p.ResolveTable(n.Name)
		if err != nil {
			return nil, err
		}
		if t.View != "" {
			return p.planView(t, n, job)
		}
		i, err := p.addInput(job, t, n.Pos())
		if err != nil {
			return nil, err
		}
		qual := t.Name
		if n.Alias != nil {
			qual = n.Alias.Name.Name
		}
		in := job.Inputs[i]
		f := &frag{job: job, end: jobgraph.Source(i), input: i, sc: scopeOf(in.Schema, qual), mode: in.Mode, key: in.Key, timeAttrs: map[int]bool{}}
		if in.Watermark != nil {
			f.timeAttrs[in.Watermark.Column] = true
		}
		return f, applyAlias(f, n.Alias)
	case *ast.Subquery:
		f, err := p.planQuery(n.Query, job)
		if err != nil {
			return nil, err
		}
		return f, applyAlias(f, n.Alias)
	case *ast.Unnest:
		return p.planCorrelateAlone(n, job)
	case *ast.TableFunc:
		if p.isUserTableFunc(n) {
			return p.planCorrelateAlone(n, job)
		}
		f, err := p.planTableFunc(n, job)
		if err != nil {
			return nil, err
		}
		return f, applyAlias(f, n.Alias)
	case *ast.Join:
		f, _, err := p.planJoin(n, job, nil)
		return f, err
	}
	return nil, errAt(te.Pos(), sqlerr.Unsupported, "This FROM clause is not supported yet")
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
func (p *Planner) planTableFunc(tf *ast.TableFunc, job *jobgraph.Job) (*frag, error) {
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
				f, err = p.planFrom(&ast.TableName{Name: v.Name}, job)
			} else {
				f, err = p.planQuery(v.Query, job)
			}
			if err != nil {
				return nil, err
			}
			if f.input < 0 && countTableArgs(tf) > 1 {
				return nil, errAt(v.Pos(), sqlerr.Unsupported, "A function whose table argument is another function's output can take only that one table yet")
			}
			port := len(frags)
			frags = append(frags, f)
			tv := &tableArgValue{
				rel: &rel{input: port, schema: f.sc.schema(), mode: f.mode, upsertKey: f.key, timeAttrs: f.timeAttrs, kinds: changelogOf(f)},
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
	if err := checkUniqueUID(job, node, tf.Name.Pos()); err != nil {
		return nil, err
	}
	// Deliver the changelog each table argument asked for.
	edges := make([]jobgraph.Edge, len(frags))
	for _, t := range node.Tables {
		f := frags[t.Input]
		needsBefore := t.Delivered.Contains(types.UpdateBefore)
		needsFull := !t.Delivered.KeyOnlyDeletes() && t.Delivered.Contains(types.Delete)
		if !t.Delivered.IsInsertOnly() && f.mode == jobgraph.Upsert && f.input < 0 && needsBefore {
			return nil, errAt(tf.Pos(), sqlerr.ChangelogMismatch, "Can't generate a valid execution plan for the given query because of a changelog mismatch: function '%s' needs a retract changelog (with UPDATE_BEFORE), but its input is the upsert output of another function", node.Name).
				WithHint("declare the argument without REQUIRE_UPDATE_BEFORE, or let the first function emit a retract changelog")
		}
		if f.mode == jobgraph.Upsert && f.input >= 0 && (needsBefore || needsFull) {
			nz := insertNormalize(job, f.input, job.Inputs[f.input].Key)
			nz.DropUpdateBefore = !needsBefore
			if f.end == jobgraph.Source(f.input) {
				f.end = len(job.Nodes) - 1
			}
		}
		e := jobgraph.Edge{From: f.end}
		if t.SetSemantic {
			e.Exchange, e.Keys = jobgraph.Hash, t.Keys
		}
		edges[t.Input] = e
	}
	idx := addNode(job, jobgraph.Node{UID: "ptf/" + node.UID, Inputs: edges, Op: node, Out: node.Out})
	f := ptfFrag(job, node, tf)
	f.end = idx
	return f, nil
}

// ptfFrag is the relation of a call's output.
func ptfFrag(job *jobgraph.Job, node *jobgraph.PTF, tf *ast.TableFunc) *frag {
	f := &frag{job: job, input: -1, ptf: node, sc: scopeOf(node.Out, tf.Name.Last().Name), timeAttrs: map[int]bool{}}
	switch {
	case node.Produced.IsInsertOnly():
		f.mode = jobgraph.Append
	case node.Produced.IsUpsert():
		f.mode = jobgraph.Upsert
		if len(node.Tables) > 0 {
			for i := range node.Tables[0].Keys {
				f.key = append(f.key, i)
			}
		}
	default:
		f.mode = jobgraph.Retract
	}
	if node.EmitRowtime {
		f.timeAttrs[node.Out.Len()-1] = true
	}
	return f
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
func checkUniqueUID(job *jobgraph.Job, node *jobgraph.PTF, pos sqlerr.Pos) error {
	if node.UID == "" {
		return nil
	}
	var uids []string
	for _, f := range job.PTFs() {
		uids = append(uids, f.UID)
	}
	if slices.Contains(uids, node.UID) {
		return errAt(pos, sqlerr.InvalidFunction, "Duplicate unique identifier '%s' detected among process table functions. Make sure that all PTF calls have an identifier defined that is globally unique.", node.UID).
			WithHint("give each call its own uid => '...'")
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
