package plan

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
)

// userFunc is a call's binding to a user-defined function (set on
// ast.FuncCall.Resolved by resolveUserCalls).
type userFunc struct {
	name string // as written in the call
	id   string
	fn   udf.Function
}

// udfContext is the context user-defined functions are called with.
// TODO(udf): pass the statement's context, cancelled when it stops.
var udfContext = context.Background()

// resolveUserCalls binds the function calls of q that name user-defined
// scalar or aggregate functions, so that expression binding finds them.
// Built-in names win over catalog functions for unqualified names, as
// Flink resolves system functions before catalog ones.
func (p *Planner) resolveUserCalls(q ast.Node) error {
	env, err := p.builtinEnv()
	if err != nil {
		return err
	}
	ast.Inspect(q, func(n ast.Node) bool {
		if c, ok := n.(*ast.Cast); ok {
			c.Resolved = env // CAST converts TIMESTAMP_LTZ in the session time zone
		}
		fc, ok := n.(*ast.FuncCall)
		if !ok || err != nil {
			return err == nil
		}
		fc.Resolved = nil
		if len(fc.Name.Parts) == 1 && isBuiltinName(fc.Name.Last().Name) {
			fc.Resolved = env
			return true
		}
		var u *userFunc
		if u, err = p.lookupUserFunc(fc.Name); err != nil || u == nil {
			if err == nil {
				fc.Resolved = p.unknownCall(fc.Name)
			}
			return err == nil
		}
		switch u.fn.Kind() {
		case udf.ScalarKind, udf.AggregateKind:
			fc.Resolved = u
		case udf.TableKind:
			err = errAt(fc.Pos(), sqlerr.InvalidFunction, "'%s' is a table function: call it in FROM", fc.Name).
				WithHint("SELECT ... FROM t, LATERAL TABLE(%s(...))", fc.Name)
		}
		return err == nil
	})
	return err
}

// unknownCall marks a call that names neither a built-in nor a user
// function: binding fails, and the did-you-mean hint looks at the user
// functions of the call's database too.
type unknownCall struct{ users []string }

func (p *Planner) unknownCall(n *ast.ObjectName) *unknownCall {
	cat, db, _, err := p.qualify(n)
	if err != nil {
		return nil
	}
	return &unknownCall{users: p.Catalog.Functions(cat, db)}
}

// unknownFunctionError is the error for a call of an unknown function: a
// did-you-mean among the built-in scalar and aggregate functions and the
// user functions of the database.
func unknownFunctionError(n *ast.FuncCall, err error) error {
	se, ok := sqlerr.As(err)
	if !ok || se.Code != sqlerr.UnknownFunction {
		return err
	}
	var users []string
	if u, ok := n.Resolved.(*unknownCall); ok && u != nil {
		users = u.users
	}
	if s := SuggestFunction(n.Name.Last().Name, users); s != "" {
		return se.WithHint("did you mean %s? SHOW FUNCTIONS lists the functions", s)
	}
	return err
}

// builtinCall is the binding of a built-in function call: the statement
// environment it is built with.
type builtinCall struct{ env expr.Env }

// LocalTimeZoneKey is Flink's option of the session time zone.
const LocalTimeZoneKey = "table.local-time-zone"

// ParseLocalTimeZone resolves a value of 'table.local-time-zone': an IANA
// name ('Europe/Berlin'), 'UTC' or an offset 'GMT+08:00'. 'default' (and
// "") is UTC: Eddy's processes have no configured default zone (Flink's is
// the JVM's).
func ParseLocalTimeZone(v string) (*time.Location, error) {
	if v == "" || strings.EqualFold(v, "default") {
		return time.UTC, nil
	}
	loc, err := expr.LoadZone(v)
	if err != nil || !strings.Contains(v, "/") && !strings.HasPrefix(v, "GMT") && v != "UTC" {
		return nil, fmt.Errorf("The supported Zone ID is either a full name such as 'America/Los_Angeles', or a custom timezone id such as 'GMT-08:00', but configured Zone ID is '%s'.", v)
	}
	return loc, nil
}

// builtinEnv returns the environment of built-in calls: the planner's
// clock, read at each evaluation, so the current-time functions
// (CURRENT_TIMESTAMP, NOW(), LOCALTIMESTAMP, ...) see the time of each
// row as in Flink's streaming mode (without a clock, the scope's), the
// session's database and its time zone.
func (p *Planner) builtinEnv() (*builtinCall, error) {
	db, tz := "", ""
	if p.Session != nil {
		db, tz = p.Session.Database, p.Session.Config[LocalTimeZoneKey] // USE and SET change them
	}
	if p.env == nil || p.env.env.Database != db || p.envZone != tz {
		zone, err := ParseLocalTimeZone(tz)
		if err != nil {
			return nil, sqlerr.Newf(sqlerr.InvalidOption, "%v", err).
				WithHint("SET '%s' = 'Europe/Berlin' (or 'UTC', 'GMT+08:00')", LocalTimeZoneKey)
		}
		p.env, p.envZone = &builtinCall{env: expr.Env{Database: db, Zone: zone}}, tz
		if now := p.Now; now != nil {
			p.env.env.Now = func() int64 { return now().UnixNano() }
		}
	}
	return p.env, nil
}

// isBuiltinName reports whether name is a built-in scalar or aggregate
// function.
func isBuiltinName(name string) bool {
	up := strings.ToUpper(name)
	if _, ok := aggFuncs[up]; ok {
		return true
	}
	if up == "GROUPING" || up == "GROUPING_ID" || up == "GROUP_ID" {
		return true
	}
	_, ok := expr.LookupFunction(up)
	return ok
}

// lookupUserFunc returns the user-defined function a catalog function of
// that name is bound to; nil when there is no such catalog function or it
// is a process table function.
func (p *Planner) lookupUserFunc(n *ast.ObjectName) (*userFunc, error) {
	cat, db, name, err := p.qualify(n)
	if err != nil {
		return nil, err
	}
	f, ok := p.Catalog.Function(cat, db, name) // case-insensitive, as in Flink
	if !ok {
		return nil, nil
	}
	if fn, ok := p.UDFs.Lookup(f.ID); ok {
		return &userFunc{name: n.String(), id: f.ID, fn: fn}, nil
	}
	if _, ok := p.Registry.Lookup(f.ID); ok {
		return nil, nil // a PTF: binding reports it
	}
	return nil, errAt(n.Pos(), sqlerr.UnknownFunction, "Function '%s' is bound to '%s', which this eddy binary does not have", name, f.ID).
		WithHint("build a binary with the function compiled in (eddy.Main(eddy.WithUserFunctions(...))) or drop the function")
}

// bindUserArgs binds a call's arguments against the overloads ovs: the
// chosen overload, the arguments cast to its declared types and which of
// them are strict (declared NOT NULL).
func bindUserArgs(pos sqlerr.Pos, argList []ast.Expr, u *userFunc, ovs []udf.OverloadArgs, sc *scope) (udf.Resolved, []expr.Expr, []bool, error) {
	args, err := bindList(argList, sc)
	if err != nil {
		return udf.Resolved{}, nil, nil, err
	}
	argPos := make([]sqlerr.Pos, len(argList))
	for i, a := range argList {
		argPos[i] = a.Pos()
	}
	return resolveUserArgs(pos, argPos, args, u, ovs)
}

// resolveUserArgs picks the overload of ovs for the bound arguments args
// (at positions argPos) and casts them to its declared types.
func resolveUserArgs(pos sqlerr.Pos, argPos []sqlerr.Pos, args []expr.Expr, u *userFunc, ovs []udf.OverloadArgs) (udf.Resolved, []expr.Expr, []bool, error) {
	var err error
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	r, ok := udf.Resolve(ovs, ts, expr.CanCastImplicitly)
	if !ok {
		names := make([]string, len(ts))
		for i, t := range ts {
			names[i] = t.String()
		}
		return r, nil, nil, errAt(pos, sqlerr.TypeMismatch, "No signature of function '%s' accepts the arguments (%s)", u.name, strings.Join(names, ", ")).
			WithHint("signatures of %s ('%s'): %s", u.name, u.id, strings.Join(u.fn.Signatures(), "; "))
	}
	strict := make([]bool, len(args))
	for i, d := range r.Args {
		if d.Any {
			continue
		}
		strict[i] = d.Type.NotNull
		want := d.Type
		want.NotNull = args[i].Type().NotNull
		if !args[i].Type().Same(want) || args[i].Type().ID == types.TypeNull {
			if args[i], err = expr.Cast(args[i], want, false); err != nil {
				return r, nil, nil, positioned(err, argPos[i], sqlerr.TypeMismatch)
			}
		}
	}
	return r, args, strict, nil
}

// bindUserScalar binds a call of a user-defined scalar function.
func bindUserScalar(fc *ast.FuncCall, u *userFunc, sc *scope) (expr.Expr, error) {
	args, err := bindList(fc.Args, sc)
	if err != nil {
		return nil, err
	}
	argPos := make([]sqlerr.Pos, len(fc.Args))
	for i, a := range fc.Args {
		argPos[i] = a.Pos()
	}
	return userScalarCall(fc.Pos(), argPos, args, u)
}

// UserScalarCall binds a call of the scalar function f, named name, with
// the bound arguments args, as SQL binds it: overload resolution,
// implicit casts, NULL handling of arguments declared NOT NULL. For
// package udftest.
func UserScalarCall(name string, f *udf.Scalar, args []expr.Expr) (expr.Expr, error) {
	return userScalarCall(sqlerr.Pos{}, make([]sqlerr.Pos, len(args)), args, &userFunc{name: name, id: name, fn: f})
}

func userScalarCall(pos sqlerr.Pos, argPos []sqlerr.Pos, args []expr.Expr, u *userFunc) (expr.Expr, error) {
	s := u.fn.(*udf.Scalar)
	r, args, strict, err := resolveUserArgs(pos, argPos, args, u, s.ArgTypes())
	if err != nil {
		return nil, err
	}
	ov := s.Overloads[r.Index]
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	t, err := ov.ResultType(r.Args, ts)
	if err != nil {
		return nil, errAt(pos, sqlerr.TypeMismatch, "Function '%s' cannot be called with (%s): %v", u.name, typeList(ts), err)
	}
	eval := ov.Eval
	x, err := expr.External(u.name, args, strict, t, func(vals []types.Value) (types.Value, error) {
		v, err := eval(udfContext, vals)
		if err != nil || v.IsNull() {
			return v, err
		}
		return udf.Coerce(v, t)
	})
	return x, positioned(err, pos, sqlerr.Internal)
}

func typeList(ts []types.Type) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.String()
	}
	return strings.Join(names, ", ")
}

// userAggOf returns the user-defined aggregate function fc calls, if any.
func userAggOf(fc *ast.FuncCall) (*userFunc, udf.AggregateFunction, bool) {
	u, ok := fc.Resolved.(*userFunc)
	if !ok {
		return nil, nil, false
	}
	a, ok := u.fn.(udf.AggregateFunction)
	return u, a, ok
}

// bindUserAggCall binds a call of a user-defined aggregate function: its
// arguments (cast to the declared types) and FILTER go to the
// pre-projection through add.
func (p *Planner) bindUserAggCall(fc *ast.FuncCall, u *userFunc, a udf.AggregateFunction, in *scope, add func(expr.Expr, column) int) (jobgraph.AggCall, column, error) {
	call := jobgraph.AggCall{Func: jobgraph.AggFunc(u.name), Distinct: fc.Distinct, Filter: -1}
	if fc.Star {
		return call, column{}, errAt(fc.Pos(), sqlerr.InvalidArgument, "%s(*) is not allowed: only COUNT takes *", u.name)
	}
	for _, x := range fc.Args {
		if hasAggregate(x) {
			return call, column{}, errAt(x.Pos(), sqlerr.InvalidArgument, "Aggregate function calls cannot be nested")
		}
	}
	bound, err := bindList(fc.Args, in)
	if err != nil {
		return call, column{}, err
	}
	argPos := make([]sqlerr.Pos, len(fc.Args))
	for i, x := range fc.Args {
		argPos[i] = x.Pos()
	}
	ua, args, t, err := userAggregateCall(fc.Pos(), argPos, bound, u)
	if err != nil {
		return call, column{}, err
	}
	for i, x := range args {
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
	call.Type = t
	call.KeepNulls = true
	call.User = ua
	return call, column{name: "EXPR$" + ast.Format(fc), typ: t}, nil
}

// UserAggregateCall binds a call of the aggregate function f, named name,
// with the bound arguments args, as SQL binds it: the function as the
// runtime calls it, the arguments cast to the declared types and the
// result type. For package udftest.
func UserAggregateCall(name string, f udf.AggregateFunction, args []expr.Expr) (jobgraph.UserAggregate, []expr.Expr, types.Type, error) {
	return userAggregateCall(sqlerr.Pos{}, make([]sqlerr.Pos, len(args)), args, &userFunc{name: name, id: name, fn: f})
}

func userAggregateCall(pos sqlerr.Pos, argPos []sqlerr.Pos, args []expr.Expr, u *userFunc) (jobgraph.UserAggregate, []expr.Expr, types.Type, error) {
	a := u.fn.(udf.AggregateFunction)
	r, args, strict, err := resolveUserArgs(pos, argPos, args, u, []udf.OverloadArgs{a.ArgTypes()})
	if err != nil {
		return nil, nil, types.Type{}, err
	}
	ts := make([]types.Type, len(args))
	for i, x := range args {
		ts[i] = x.Type()
	}
	t, err := a.ResultType(r.Args, ts)
	if err != nil {
		return nil, nil, t, errAt(pos, sqlerr.TypeMismatch, "Function '%s' cannot be called with (%s): %v", u.name, typeList(ts), err)
	}
	return &userAggregate{name: u.name, fn: a, strict: strict, t: t}, args, t, nil
}

// userAggregate adapts a udf.AggregateFunction to the runtime: rows whose
// strict argument is NULL are skipped, results are checked against the
// call's type.
type userAggregate struct {
	name   string
	fn     udf.AggregateFunction
	strict []bool
	t      types.Type
}

func (a *userAggregate) skip(args []types.Value) bool {
	for i, v := range args {
		if v.IsNull() && a.strict[i] {
			return true
		}
	}
	return false
}

func (a *userAggregate) CreateAccumulator() (any, error) { return a.fn.CreateAccumulator() }

func (a *userAggregate) Accumulate(acc any, args []types.Value) error {
	if a.skip(args) {
		return nil
	}
	return a.fn.AccumulateAny(udfContext, acc, args)
}

func (a *userAggregate) Retract(acc any, args []types.Value) error {
	if a.skip(args) {
		return nil
	}
	return a.fn.RetractAny(udfContext, acc, args)
}

func (a *userAggregate) Merge(acc, other any) error {
	return a.fn.MergeAny(udfContext, acc, other)
}

func (a *userAggregate) Value(acc any) (types.Value, error) {
	v, err := a.fn.ValueAny(udfContext, acc)
	if err != nil {
		return v, err
	}
	if v.IsNull() && a.t.NotNull {
		return v, fmt.Errorf("it returned NULL for its result type %s", a.t)
	}
	return udf.Coerce(v, a.t)
}

func (a *userAggregate) EncodeAccumulator(acc any) ([]byte, error) {
	return a.fn.EncodeAccumulator(acc)
}

func (a *userAggregate) DecodeAccumulator(b []byte) (any, error) { return a.fn.DecodeAccumulator(b) }
