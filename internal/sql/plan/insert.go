package plan

import (
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// InsertOptions are the clauses of an INSERT besides its rows: OVERWRITE
// and PARTITION (col = value, ...).
type InsertOptions struct {
	Overwrite bool
	Partition []*ast.PartitionValue
	// OnConflict is the ON CONFLICT strategy, at OnConflictPos.
	OnConflict    ast.OnConflict
	OnConflictPos sqlerr.Pos
	// CreateTableAs is set for the insert of CREATE TABLE AS SELECT,
	// which is not asked for ON CONFLICT.
	CreateTableAs bool
}

// InsertOptionsOf returns the options of an INSERT statement.
func InsertOptionsOf(s *ast.Insert) InsertOptions {
	return InsertOptions{Overwrite: s.Overwrite, Partition: s.Partition, OnConflict: s.OnConflict, OnConflictPos: s.OnConflictPos}
}

// staticPartition binds the options of an INSERT: the value of each
// static partition column (PARTITION (col = value)) by its position in
// writable(t), and what the sink is asked for.
func (p *Planner) staticPartition(t *catalog.Table, o InsertOptions, pos sqlerr.Pos) (map[int]types.Value, connector.SinkOptions, error) {
	opts := connector.SinkOptions{Overwrite: o.Overwrite}
	if t.Connector() == "" && (o.Overwrite || o.Partition != nil) {
		what := "INSERT OVERWRITE"
		if !o.Overwrite {
			what = "INSERT ... PARTITION"
		}
		return nil, opts, errAt(pos, sqlerr.Unsupported, "%s is not supported for Eddy log tables: '%s' is an append-only log", what, t.Name).
			WithHint("write with INSERT INTO; a 'filesystem' table supports OVERWRITE and PARTITION")
	}
	if o.Partition == nil {
		return nil, opts, nil
	}
	if len(t.PartitionKeys) == 0 {
		return nil, opts, errAt(o.Partition[0].Pos(), sqlerr.InvalidArgument, "Table '%s' is not partitioned, so INSERT ... PARTITION cannot write into it", t.Name).
			WithHint("remove the PARTITION clause, or create the table with PARTITIONED BY (col)")
	}
	phys := writable(t)
	static := map[int]types.Value{}
	opts.Static = map[string]types.Value{}
	for _, pv := range o.Partition {
		name := pv.Name.Name
		if !slices.Contains(t.PartitionKeys, name) {
			return nil, opts, errAt(pv.Pos(), sqlerr.UnknownColumn, "Column '%s' of the PARTITION clause is not a partition column of '%s'. Partition columns: [%s]", name, t.Name, strings.Join(t.PartitionKeys, ", "))
		}
		i := phys.Index(name)
		if _, dup := static[i]; dup {
			return nil, opts, errAt(pv.Pos(), sqlerr.InvalidArgument, "Partition column '%s' is given twice", name)
		}
		f := phys.Fields[i]
		x, err := bindExpr(pv.Value, &scope{})
		if err != nil {
			return nil, opts, err
		}
		if x, err = sinkValue(x, f, pv.Value.Pos()); err != nil {
			return nil, opts, err
		}
		val, err := x.Eval(nil)
		if err != nil {
			return nil, opts, errAt(pv.Value.Pos(), sqlerr.InvalidArgument, "Cannot evaluate the value of partition column '%s': %v", name, err)
		}
		if val.IsNull() && f.Type.NotNull {
			return nil, opts, errAt(pv.Value.Pos(), sqlerr.InvalidArgument, "Partition column '%s' is NOT NULL", name)
		}
		static[i] = val
		opts.Static[name] = val
	}
	return static, opts, nil
}

// InsertSinkOptions returns what the sink of an INSERT is asked for (INSERT
// ... VALUES into a connector table).
func (p *Planner) InsertSinkOptions(t *catalog.Table, o InsertOptions, pos sqlerr.Pos) (connector.SinkOptions, error) {
	_, opts, err := p.staticPartition(t, o, pos)
	return opts, err
}

// targetColumns maps an INSERT column list to positions in the target's
// writable columns (all of them, in order, without a list), leaving out
// the static partition columns.
func targetColumns(t *catalog.Table, cols []*ast.Ident, static map[int]types.Value) ([]int, error) {
	phys := writable(t)
	if len(cols) == 0 {
		out := make([]int, 0, phys.Len())
		for i := 0; i < phys.Len(); i++ {
			if _, ok := static[i]; !ok {
				out = append(out, i)
			}
		}
		return out, nil
	}
	var out []int
	for _, c := range cols {
		i := phys.Index(c.Name)
		if i < 0 {
			return nil, errAt(c.Pos(), sqlerr.UnknownColumn, "Unknown target column '%s' of %s. Writable columns are: [%s]", c.Name, t.Name, strings.Join(phys.Names(), ", "))
		}
		if slices.Contains(out, i) {
			return nil, errAt(c.Pos(), sqlerr.InvalidArgument, "Target column '%s' is listed twice", c.Name)
		}
		if _, ok := static[i]; ok {
			return nil, errAt(c.Pos(), sqlerr.InvalidArgument, "Column '%s' gets its value from the PARTITION clause", c.Name).
				WithHint("remove it from the column list")
		}
		out = append(out, i)
	}
	return out, nil
}

// PlanValues evaluates INSERT INTO t VALUES rows into stored rows. The sink
// enforcers of the session apply: a row with a NULL in a NOT NULL column is
// dropped or fails the statement, and values are fitted to the column
// lengths (sinkEnforcers).
func (p *Planner) PlanValues(t *catalog.Table, cols []*ast.Ident, v *ast.Values) ([]types.Row, error) {
	return p.PlanValuesWith(t, cols, v, InsertOptions{}, v.Pos())
}

// PlanValuesWith is PlanValues with the options of the INSERT (static
// partition values fill their columns).
func (p *Planner) PlanValuesWith(t *catalog.Table, cols []*ast.Ident, v *ast.Values, o InsertOptions, pos sqlerr.Pos) ([]types.Row, error) {
	static, _, err := p.staticPartition(t, o, pos)
	if err != nil {
		return nil, err
	}
	target, err := targetColumns(t, cols, static)
	if err != nil {
		return nil, err
	}
	length, notNull, err := p.sinkEnforcers()
	if err != nil {
		return nil, err
	}
	phys := writable(t)
	rows := make([]types.Row, 0, len(v.Rows))
rows:
	for _, r := range v.Rows {
		if len(r.Values) != len(target) {
			return nil, errAt(r.Pos(), sqlerr.InvalidArgument, "Column count mismatch: the row has %d values, but %d columns are written (%s)",
				len(r.Values), len(target), strings.Join(pick(phys.Names(), target), ", "))
		}
		vals := make([]types.Value, phys.Len())
		set := make([]bool, phys.Len())
		for i, val := range static {
			vals[i], set[i] = val, true
		}
		for i, e := range r.Values {
			f := phys.Fields[target[i]]
			x, err := bindExpr(e, &scope{})
			if err != nil {
				return nil, err
			}
			if x, err = sinkValue(x, f, e.Pos()); err != nil {
				return nil, err
			}
			val, err := x.Eval(nil)
			if err != nil {
				return nil, errAt(e.Pos(), sqlerr.InvalidArgument, "Cannot evaluate the value of column '%s': %v", f.Name, err)
			}
			if _, bad := expr.NotNullViolation(val, f.Type, f.Name); bad && notNull == expr.NotNullDrop {
				continue rows
			}
			lit, err := expr.Lit(val, x.Type())
			if err != nil {
				return nil, err
			}
			if val, err = expr.SinkColumn(lit, f.Name, f.Type, length, notNull).Eval(nil); err != nil {
				return nil, positioned(err, e.Pos(), sqlerr.Runtime)
			}
			vals[target[i]], set[target[i]] = val, true
		}
		for i, f := range phys.Fields {
			if !set[i] && f.Type.NotNull {
				return nil, errAt(r.Pos(), sqlerr.InvalidArgument, "Column '%s' is NOT NULL and has no value", f.Name)
			}
		}
		rows = append(rows, types.Row{Kind: types.Insert, Values: reorder(vals, sinkOrder(t))})
	}
	return rows, nil
}

// sinkEnforcers reads 'table.exec.sink.type-length-enforcer' and
// 'table.exec.sink.not-null-enforcer' from the session.
func (p *Planner) sinkEnforcers() (expr.LengthEnforcer, expr.NotNullEnforcer, error) {
	ls := p.Session.Config[expr.TypeLengthEnforcerKey]
	length, ok := expr.ParseLengthEnforcer(ls)
	if !ok {
		return 0, 0, sqlerr.Newf(sqlerr.InvalidOption, "Invalid '%s' = '%s'", expr.TypeLengthEnforcerKey, ls).
			WithHint("use 'IGNORE', 'TRIM_PAD' or 'ERROR'")
	}
	ns := p.Session.Config[expr.NotNullEnforcerKey]
	notNull, ok := expr.ParseNotNullEnforcer(ns)
	if !ok {
		return 0, 0, sqlerr.Newf(sqlerr.InvalidOption, "Invalid '%s' = '%s'", expr.NotNullEnforcerKey, ns).
			WithHint("use 'ERROR' or 'DROP'")
	}
	return length, notNull, nil
}

// sinkValue converts x for sink column f without cutting or padding
// anything (expr.SinkValueType); the enforcers do that.
func sinkValue(x expr.Expr, f types.Field, pos sqlerr.Pos) (expr.Expr, error) {
	to := expr.SinkValueType(f.Type)
	if !expr.CanCastImplicitly(x.Type(), to) {
		return nil, errAt(pos, sqlerr.TypeMismatch, "Cannot assign a value of type %s to column '%s' of type %s", x.Type(), f.Name, f.Type).
			WithHint("CAST(... AS %s) converts it explicitly", f.Type.Nullable())
	}
	return castTo(x, to, pos, "column '"+f.Name+"'")
}

func pick(names []string, idx []int) []string {
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = names[j]
	}
	return out
}

// requiredFor returns what a sink table accepts.
func (p *Planner) requiredFor(t *catalog.Table) ptf.ChangelogMode {
	switch p.TableMode(t) {
	case jobgraph.Upsert:
		return ptf.Upsert()
	case jobgraph.Retract:
		return ptf.Retract()
	}
	return ptf.InsertOnly()
}

// BindInsert binds INSERT INTO t [(cols)] query (also the insert of
// CREATE TABLE AS SELECT).
func (p *Planner) BindInsert(t *catalog.Table, cols []*ast.Ident, q ast.Query, pos sqlerr.Pos) (*Bound, error) {
	return p.BindInsertWith(t, cols, q, pos, InsertOptions{})
}

// BindInsertWith is BindInsert with the options of the INSERT: OVERWRITE,
// and static partition values, which fill their columns.
func (p *Planner) BindInsertWith(t *catalog.Table, cols []*ast.Ident, q ast.Query, pos sqlerr.Pos, o InsertOptions) (*Bound, error) {
	static, sinkOpts, err := p.staticPartition(t, o, pos)
	if err != nil {
		return nil, err
	}
	var ext connector.Sink
	if t.Connector() != "" {
		s, err := p.Sink(t, sinkOpts, pos)
		if err != nil {
			return nil, err
		}
		ext = s
	}
	target, err := targetColumns(t, cols, static)
	if err != nil {
		return nil, err
	}
	p.required = p.requiredFor(t)
	p.allowLimit = false
	st := newStmt()
	f, err := p.planQuery(q, st)
	if err != nil {
		return nil, err
	}
	phys := writable(t)
	if len(f.sc.cols) != len(target) {
		return nil, errAt(q.Pos(), sqlerr.InvalidArgument, "Column count mismatch: the query returns %d columns (%s), but %d are written into %s (%s)",
			len(f.sc.cols), strings.Join(f.sc.names(), ", "), len(target), t.Name, strings.Join(pick(phys.Names(), target), ", "))
	}
	sinkMode := p.TableMode(t)
	var pk []int
	for _, k := range t.PrimaryKey {
		pk = append(pk, phys.Index(k))
	}
	sink := &Sink{In: f.rel, Name: t.Name, Target: target, PK: slices.Clone(pk), PKNames: t.PrimaryKey, Pos: q.Pos()}
	if err := p.bindOnConflict(sink, t, o); err != nil {
		return nil, err
	}
	length, notNull, err := p.sinkEnforcers()
	if err != nil {
		return nil, err
	}
	if sink.StateTTL, err = p.stateTTL(); err != nil {
		return nil, err
	}
	proj := make([]expr.Expr, phys.Len())
	identity := len(target) == phys.Len()
	var checked []expr.Expr // with DROP: the values to check for NULLs
	var checkedTypes []types.Type
	for i, ti := range target {
		c, col := f.sc.cols[i], phys.Fields[ti]
		in, err := expr.Col(i, c.name, c.typ)
		if err != nil {
			return nil, err
		}
		x, err := sinkValue(in, col, itemPos(q, i))
		if err != nil {
			return nil, err
		}
		if notNull == expr.NotNullDrop {
			checked, checkedTypes = append(checked, x), append(checkedTypes, col.Type)
		}
		proj[ti] = expr.SinkColumn(x, col.Name, col.Type, length, notNull)
		if ti != i || proj[ti] != in {
			identity = false
		}
	}
	filter := expr.SinkFilter(checked, checkedTypes)
	for i, val := range static {
		lit, err := expr.Lit(val, phys.Fields[i].Type)
		if err != nil {
			return nil, err
		}
		proj[i], identity = lit, false
	}
	for i, x := range proj {
		if x == nil {
			if phys.Fields[i].Type.NotNull {
				return nil, errAt(q.Pos(), sqlerr.InvalidArgument, "Column '%s' of %s is NOT NULL, but the INSERT gives it no value", phys.Fields[i].Name, t.Name)
			}
			proj[i], _ = expr.Lit(types.Null, phys.Fields[i].Type)
		}
	}
	// A connector sink takes its physical columns first, then the
	// persisted metadata columns; the target list is in declaration order.
	if order := sinkOrder(t); order != nil {
		proj, identity = reorder(proj, order), false
		phys = types.NewSchema(reorder(phys.Fields, order)...)
		for i, k := range pk {
			for j, w := range order {
				if w == k {
					pk[i] = j
				}
			}
		}
	}
	sink.EnforceFilter = filter
	if !identity {
		sink.EnforceProject = proj
	}
	var bucket []int
	for _, k := range t.BucketKey() {
		bucket = append(bucket, phys.Index(k))
	}
	sink.Spec = jobgraph.Sink{
		Kind: jobgraph.LogSink, Table: t.FullName(), Log: t.Log, Partitions: t.Buckets(),
		Mode: sinkMode, Key: pk, Bucket: bucket, Schema: phys,
	}
	if ext != nil {
		sink.Spec.Kind, sink.Spec.Log, sink.Spec.External = jobgraph.ExternalSink, "", ext
	}
	return p.bound(st, sink)
}

// itemPos returns the position of the expression of the i-th column of q,
// or the position of q when its columns do not map to select items one to
// one (a star before it, or not a SELECT).
func itemPos(q ast.Query, i int) sqlerr.Pos {
	s, ok := q.(*ast.Select)
	if !ok || i >= len(s.Items) {
		return q.Pos()
	}
	for _, it := range s.Items[:i+1] {
		if _, star := it.Expr.(*ast.Star); star {
			return q.Pos()
		}
	}
	return s.Items[i].Expr.Pos()
}
