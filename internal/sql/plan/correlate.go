package plan

import (
	"fmt"
	"slices"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
)

// Correlates: LATERAL TABLE(f(...)) of a user-defined table function and
// UNNEST(x) joined with the rows on their left (reference §3.5), planned
// as a stateless Correlate after the left relation.

// isCorrelate reports whether the right side of a join is a correlate: an
// UNNEST, or a table function call that is LATERAL or names a
// user-defined table function.
func (p *Planner) isCorrelate(te ast.TableExpr) bool {
	switch n := te.(type) {
	case *ast.Unnest:
		return true
	case *ast.TableFunc:
		return n.Lateral || p.isUserTableFunc(n)
	}
	return false
}

// isUserTableFunc reports whether tf names a user-defined table function.
func (p *Planner) isUserTableFunc(tf *ast.TableFunc) bool {
	u, err := p.lookupUserFunc(tf.Name)
	return err == nil && u != nil && u.fn.Kind() == udf.TableKind
}

// planCorrelate plans the join j whose right side is a correlate over
// the planned left side l: inner for comma, CROSS JOIN and JOIN (its ON
// condition a filter after), left for LEFT JOIN ... ON TRUE.
func (p *Planner) planCorrelate(l *frag, j *ast.Join) (*frag, error) {
	left := false
	switch j.Type {
	case ast.CommaJoin, ast.CrossJoin, ast.InnerJoin:
	case ast.LeftJoin:
		left = true
		if b, ok := j.On.(*ast.BoolLit); !ok || !b.Value {
			return nil, errAt(j.JoinPos, sqlerr.Unsupported, "LEFT JOIN with a table function or UNNEST needs the condition ON TRUE").
				WithHint("write LEFT JOIN LATERAL TABLE(f(...)) ON TRUE, and filter in WHERE")
		}
	default:
		return nil, errAt(j.JoinPos, sqlerr.Unsupported, "%s with a table function or UNNEST is not supported: use CROSS JOIN or LEFT JOIN ... ON TRUE", j.Type)
	}
	if err := p.addCorrelate(l, j.Right, left); err != nil {
		return nil, err
	}
	if j.Type == ast.InnerJoin && j.On != nil {
		if b, ok := j.On.(*ast.BoolLit); !ok || !b.Value {
			w, err := bindExpr(j.On, l.sc)
			if err != nil {
				return nil, err
			}
			if w.Type().ID != types.TypeBoolean && w.Type().ID != types.TypeNull {
				return nil, errAt(j.On.Pos(), sqlerr.TypeMismatch, "ON needs a BOOLEAN condition, but %s has type %s", ast.Format(j.On), w.Type())
			}
			l.addCalc(Calc{Filter: w, FilterPos: j.On.Pos()})
		}
	}
	return l, nil
}

// planCorrelateAlone plans a correlate without a left side (FROM
// UNNEST(ARRAY[1, 2]), FROM LATERAL TABLE(f('a'))) over one empty row.
func (p *Planner) planCorrelateAlone(te ast.TableExpr, st *stmt) (*frag, error) {
	f := valuesFrag(st, nil, [][]types.Value{{}})
	return f, p.addCorrelate(f, te, false)
}

// addCorrelate adds the correlate te after f: f's rows then show the
// function's columns after their own.
func (p *Planner) addCorrelate(f *frag, te ast.TableExpr, left bool) error {
	// Each input row gives several rows, retracted one by one: changelog
	// inference gives the correlate the retractions of an upsert input.
	spec := &jobgraph.Correlate{Left: left}
	var alias *ast.Alias
	qual := ""
	switch n := te.(type) {
	case *ast.Unnest:
		if err := bindUnnest(n, f.sc, spec); err != nil {
			return err
		}
		alias = n.Alias
	case *ast.TableFunc:
		if err := p.bindTableCall(n, f.sc, spec); err != nil {
			return err
		}
		alias, qual = n.Alias, n.Name.Last().Name
	default:
		return errAt(te.Pos(), sqlerr.Unsupported, "This FROM clause is not supported yet").
			WithHint("LATERAL TABLE and UNNEST join a table, a view, a subquery or a join in FROM")
	}
	cols := make([]column, spec.Columns.Len())
	for i, c := range spec.Columns.Fields {
		t := c.Type
		if left {
			t = t.Nullable()
		}
		cols[i] = column{qualifier: qual, name: c.Name, typ: t}
	}
	if alias != nil {
		if len(alias.Columns) > 0 && len(alias.Columns) != len(cols) {
			return errAt(alias.Pos(), sqlerr.InvalidArgument, "The alias %s lists %d columns, but the function has %d (%v)", alias.Name.Name, len(alias.Columns), len(cols), spec.Columns.Names())
		}
		for i := range cols {
			cols[i].qualifier = alias.Name.Name
			if len(alias.Columns) > 0 {
				cols[i].name = alias.Columns[i].Name
			}
		}
	}
	fields := make([]types.Field, len(cols))
	for i, c := range cols {
		fields[i] = types.Field{Name: c.name, Type: c.typ}
	}
	spec.Columns = types.NewSchema(fields...)
	// The left columns keep their time attributes (a correlate emits its
	// rows as the input row arrives); the function's columns are plain.
	out := slices.Clone(f.rel.Columns())
	for _, c := range cols {
		out = append(out, Column{Name: c.name, Type: c.typ})
	}
	f.sc = &scope{cols: append(slices.Clone(f.sc.cols), cols...)}
	f.rel = &Correlate{In: f.rel, Spec: spec, Cols: out, Pos: te.Pos()}
	return nil
}

// bindUnnest binds UNNEST(x) over sc into spec.
func bindUnnest(n *ast.Unnest, sc *scope, spec *jobgraph.Correlate) error {
	if len(n.Args) != 1 {
		return errAt(n.Pos(), sqlerr.Unsupported, "UNNEST of %d collections is not supported yet", len(n.Args)).
			WithHint("UNNEST one collection per CROSS JOIN")
	}
	x, err := bindExpr(n.Args[0], sc)
	if err != nil {
		return err
	}
	t := x.Type()
	var fields []types.Field
	switch t.ID {
	case types.TypeArray:
		if e := *t.Elem; e.ID == types.TypeRow {
			for _, fd := range e.Fields {
				fields = append(fields, types.Field{Name: fd.Name, Type: fd.Type.Nullable()})
			}
		} else {
			fields = []types.Field{{Name: "EXPR$0", Type: e}}
		}
	case types.TypeMap:
		fields = []types.Field{{Name: "KEY", Type: *t.Elem}, {Name: "VALUE", Type: *t.Val}}
	case types.TypeMultiset:
		fields = []types.Field{{Name: "EXPR$0", Type: *t.Elem}}
	default:
		return errAt(n.Args[0].Pos(), sqlerr.TypeMismatch, "UNNEST needs an ARRAY, MAP or MULTISET, but %s has type %s", ast.Format(n.Args[0]), t)
	}
	if n.Ordinality {
		fields = append(fields, types.Field{Name: "ORDINALITY", Type: types.Int.NonNull()})
	}
	spec.Name, spec.Unnest, spec.Args, spec.Columns = "UNNEST", &jobgraph.Unnest{Of: t, Ordinality: n.Ordinality}, []expr.Expr{x}, types.NewSchema(fields...)
	return nil
}

// bindTableCall binds a call of a user-defined table function over sc
// into spec.
func (p *Planner) bindTableCall(tf *ast.TableFunc, sc *scope, spec *jobgraph.Correlate) error {
	u, err := p.lookupUserFunc(tf.Name)
	if err != nil {
		return err
	}
	if u == nil || u.fn.Kind() != udf.TableKind {
		if _, _, perr := p.ResolveFunction(tf.Name); perr != nil {
			return perr
		}
		return errAt(tf.Pos(), sqlerr.Unsupported, "LATERAL TABLE(%s(...)) is not supported: '%s' is a process table function", tf.Name, tf.Name).
			WithHint("call it in FROM with its table argument: FROM %s(input => TABLE t ...)", tf.Name)
	}
	var args []ast.Expr
	for _, a := range tf.Args {
		if a.Name != nil {
			return errAt(a.Pos(), sqlerr.Unsupported, "Named arguments of table function '%s' are not supported", tf.Name).
				WithHint("pass the arguments by position")
		}
		switch a.Value.(type) {
		case *ast.TableArg, *ast.Descriptor, *ast.Default:
			return errAt(a.Pos(), sqlerr.InvalidArgument, "Table function '%s' takes scalar arguments only", tf.Name)
		}
		args = append(args, a.Value)
	}
	bound, err := bindList(args, sc)
	if err != nil {
		return err
	}
	argPos := make([]sqlerr.Pos, len(args))
	for i, a := range args {
		argPos[i] = a.Pos()
	}
	fn, xs, cols, err := userTableCall(tf.Name.Pos(), argPos, bound, u)
	if err != nil {
		return err
	}
	spec.Name, spec.Func, spec.Args, spec.Columns = u.name, fn, xs, cols
	return nil
}

// UserTableCall binds a call of the table function f, named name, with
// the bound arguments args, as SQL binds it: the function as the runtime
// calls it, the arguments cast to the declared types and the output
// columns. For package udftest.
func UserTableCall(name string, f *udf.Table, args []expr.Expr) (jobgraph.TableFunc, []expr.Expr, *types.Schema, error) {
	return userTableCall(sqlerr.Pos{}, make([]sqlerr.Pos, len(args)), args, &userFunc{name: name, id: name, fn: f})
}

func userTableCall(pos sqlerr.Pos, argPos []sqlerr.Pos, args []expr.Expr, u *userFunc) (jobgraph.TableFunc, []expr.Expr, *types.Schema, error) {
	t := u.fn.(*udf.Table)
	r, xs, strict, err := resolveUserArgs(pos, argPos, args, u, t.ArgTypes())
	if err != nil {
		return nil, nil, nil, err
	}
	cols, err := t.Columns()
	if err != nil {
		return nil, nil, nil, errAt(pos, sqlerr.Internal, "Table function '%s': %v", u.name, err)
	}
	return &userTableFunc{name: u.name, ov: t.Overloads[r.Index], strict: strict, cols: cols}, xs, cols, nil
}

// userTableFunc adapts an overload of a udf.Table to the runtime: a NULL
// strict argument emits nothing; errors name the function.
type userTableFunc struct {
	name   string
	ov     udf.TableOverload
	strict []bool
	cols   *types.Schema
}

func (f *userTableFunc) Eval(args []types.Value, emit func([]types.Value) error) error {
	for i, v := range args {
		if v.IsNull() && f.strict[i] {
			return nil
		}
	}
	if err := f.ov.Eval(udfContext, udf.NewCollector(f.cols, emit), args); err != nil {
		return fmt.Errorf("table function %s: %w", f.name, err)
	}
	return nil
}
