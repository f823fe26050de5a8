package plan

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
)

// positioned attaches pos to an error from package expr, keeping its code.
func positioned(err error, pos sqlerr.Pos, def sqlerr.Code) error {
	if err == nil {
		return nil
	}
	var se *sqlerr.Error
	if errors.As(err, &se) {
		cp := *se
		if !cp.Pos.IsValid() {
			cp.Pos = pos
		}
		if cp.Code == "" || cp.Code == sqlerr.Internal {
			cp.Code = def
		}
		return &cp
	}
	return sqlerr.Newf(def, "%v", err).At(pos)
}

var binaryOps = map[ast.BinaryOp]string{
	ast.OpOr: "OR", ast.OpAnd: "AND", ast.OpEq: "=", ast.OpNe: "<>", ast.OpLt: "<", ast.OpLe: "<=",
	ast.OpGt: ">", ast.OpGe: ">=", ast.OpConcat: "||", ast.OpAdd: "+", ast.OpSub: "-",
	ast.OpMul: "*", ast.OpDiv: "/", ast.OpMod: "%",
	ast.OpIsDistinct: "IS DISTINCT FROM", ast.OpIsNotDistinct: "IS NOT DISTINCT FROM",
}

// isJSONKinds maps the IS JSON predicates to their JSON kind.
var isJSONKinds = map[ast.IsKind]string{
	ast.IsJSON: "VALUE", ast.IsJSONScalar: "SCALAR", ast.IsJSONArray: "ARRAY", ast.IsJSONObject: "OBJECT",
}

// exprEnv returns what function calls need from the statement. A planner
// injects its clock by setting scope.env (for Flink's streaming semantics,
// a clock read per row). Without one, the current-time functions see the
// time the scope first bound one, which is the statement's planning time
// (Flink's batch semantics); evaluation never reads the system clock.
func (s *scope) exprEnv() expr.Env {
	if s.env.Now == nil {
		start := time.Now().UnixNano()
		s.env.Now = func() int64 { return start }
	}
	return s.env
}

// bindExpr type-checks an AST expression against sc.
func bindExpr(e ast.Expr, sc *scope) (expr.Expr, error) {
	if sc.subst != nil {
		i, ok := sc.subst[ast.Format(e)]
		if !ok {
			i, ok = sc.groupKey(e)
		}
		if ok {
			c := sc.cols[i]
			x, err := expr.Col(i, c.name, c.typ)
			return x, positioned(err, e.Pos(), sqlerr.Internal)
		}
	}
	switch n := e.(type) {
	case *ast.Exists, *ast.ScalarSubquery:
		return nil, errAt(e.Pos(), sqlerr.Unsupported, "This subquery is not supported here yet: %s", ast.Format(e)).
			WithHint("subqueries work as conditions of WHERE joined by AND (x IN (SELECT ...), EXISTS (SELECT ...)) and as scalar values in the select list and WHERE of a query without GROUP BY")
	case *ast.In:
		if n.Query != nil {
			return nil, errAt(n.InPos, sqlerr.Unsupported, "IN with a subquery is supported only as a condition of WHERE joined by AND yet").
				WithHint("move it to the top level of WHERE, or write the join yourself")
		}
	}
	if fc, _, isAgg := aggCallOf(e); isAgg {
		return nil, errAt(fc.Pos(), sqlerr.InvalidArgument, "Aggregate function %s is not allowed here", strings.ToUpper(fc.Name.Last().Name)).
			WithHint("aggregate functions are allowed in the select list and HAVING of a query, not in WHERE, ON, GROUP BY or function arguments")
	}
	switch n := e.(type) {
	case *ast.ColumnRef:
		i, err := sc.resolve(n)
		if err != nil {
			if x, ferr := bindFieldAccess(n, sc); x != nil || ferr != nil {
				return x, ferr
			}
			if sc.grouped != nil {
				if _, inner := sc.grouped.resolve(n); inner == nil {
					return nil, errAt(n.Pos(), sqlerr.InvalidArgument, "Expression '%s' is not being grouped", ast.Format(n)).
						WithHint("add it to GROUP BY, or aggregate it (MIN, MAX, FIRST_VALUE, ...)")
				}
			}
			return nil, err
		}
		c := sc.cols[i]
		x, err := expr.Col(i, c.name, c.typ)
		return x, positioned(err, n.Pos(), sqlerr.Internal)
	case *ast.NumericLit:
		v, t, err := expr.NumericLiteral(n.Text)
		if err != nil {
			return nil, positioned(err, n.Pos(), sqlerr.Syntax)
		}
		return lit(v, t, n.Pos())
	case *ast.StringLit:
		v, t := expr.StringLiteral(n.Value)
		return lit(v, t, n.Pos())
	case *ast.BoolLit:
		return lit(types.NewBool(n.Value), types.Boolean.NonNull(), n.Pos())
	case *ast.NullLit:
		return lit(types.Null, types.NullType, n.Pos())
	case *ast.TypedLit:
		var v types.Value
		var t types.Type
		var err error
		switch strings.ToUpper(n.Type) {
		case "TIMESTAMP":
			v, t, err = expr.TimestampLiteral(n.Value)
		case "DATE":
			v, t, err = expr.DateLiteral(n.Value)
		case "TIME":
			v, t, err = expr.TimeLiteral(n.Value)
		default:
			return nil, errAt(n.Pos(), sqlerr.Unsupported, "%s literals are not supported", n.Type).
				WithHint("write the value as a string and CAST it, e.g. CAST('...' AS %s)", n.Type)
		}
		if err != nil {
			return nil, positioned(err, n.Pos(), sqlerr.Syntax)
		}
		return lit(v, t, n.Pos())
	case *ast.IntervalLit:
		unit := string(n.Start)
		if n.End != "" {
			unit += " TO " + string(n.End)
		}
		v, t, err := expr.IntervalLiteral(n.Value, unit)
		if err != nil {
			return nil, positioned(err, n.Pos(), sqlerr.Syntax)
		}
		return lit(v, t, n.Pos())
	case *ast.Unary:
		x, err := bindExpr(n.X, sc)
		if err != nil {
			return nil, err
		}
		r, err := expr.Unary(n.Op.String(), x)
		return r, positioned(err, n.Pos(), sqlerr.TypeMismatch)
	case *ast.Binary:
		x, err := bindExpr(n.X, sc)
		if err != nil {
			return nil, err
		}
		y, err := bindExpr(n.Y, sc)
		if err != nil {
			return nil, err
		}
		r, err := expr.Binary(binaryOps[n.Op], x, y)
		return r, positioned(err, n.OpPos, sqlerr.TypeMismatch)
	case *ast.Is:
		x, err := bindExpr(n.X, sc)
		if err != nil {
			return nil, err
		}
		if kind, ok := isJSONKinds[n.What]; ok {
			r, err := expr.IsJSON(x, kind, n.Not)
			return r, positioned(err, n.IsPos, sqlerr.TypeMismatch)
		}
		op := "IS "
		if n.Not {
			op += "NOT "
		}
		r, err := expr.Unary(op+n.What.String(), x)
		return r, positioned(err, n.IsPos, sqlerr.TypeMismatch)
	case *ast.Between:
		x, lo, hi, err := bind3(n.X, n.Lo, n.Hi, sc)
		if err != nil {
			return nil, err
		}
		r, err := expr.Between(x, lo, hi, n.Not)
		return r, positioned(err, n.BetweenPos, sqlerr.TypeMismatch)
	case *ast.In:
		x, err := bindExpr(n.X, sc)
		if err != nil {
			return nil, err
		}
		list, err := bindList(n.List, sc)
		if err != nil {
			return nil, err
		}
		r, err := expr.In(x, list, n.Not)
		return r, positioned(err, n.InPos, sqlerr.TypeMismatch)
	case *ast.Like:
		x, err := bindExpr(n.X, sc)
		if err != nil {
			return nil, err
		}
		p, err := bindExpr(n.Pattern, sc)
		if err != nil {
			return nil, err
		}
		var esc rune
		if n.Escape != nil {
			e, ok := n.Escape.(*ast.StringLit)
			if !ok || utf8.RuneCountInString(e.Value) != 1 {
				return nil, errAt(n.Escape.Pos(), sqlerr.InvalidArgument, "The escape of LIKE must be a single character, not %s", ast.Format(n.Escape)).
					WithHint("write e.g. x LIKE 'a!_%%' ESCAPE '!'")
			}
			esc, _ = utf8.DecodeRuneInString(e.Value)
		}
		if n.Similar {
			r, err := expr.Similar(x, p, n.Not, esc)
			return r, positioned(err, n.LikePos, sqlerr.TypeMismatch)
		}
		r, err := expr.Like(x, p, n.Not, esc)
		return r, positioned(err, n.LikePos, sqlerr.TypeMismatch)
	case *ast.Cast:
		x, err := bindExpr(n.X, sc)
		if err != nil {
			return nil, err
		}
		var zone *time.Location
		if b, ok := n.Resolved.(*builtinCall); ok {
			zone = b.env.Zone
		}
		r, err := expr.CastIn(x, n.Type.Type, n.Try, zone)
		return r, positioned(err, n.Pos(), sqlerr.TypeMismatch)
	case *ast.Case:
		var operand expr.Expr
		var err error
		if n.Operand != nil {
			if operand, err = bindExpr(n.Operand, sc); err != nil {
				return nil, err
			}
		}
		var whens, thens []expr.Expr
		for _, w := range n.Whens {
			c, err := bindExpr(w.Cond, sc)
			if err != nil {
				return nil, err
			}
			r, err := bindExpr(w.Result, sc)
			if err != nil {
				return nil, err
			}
			whens, thens = append(whens, c), append(thens, r)
		}
		var els expr.Expr
		if n.Else != nil {
			if els, err = bindExpr(n.Else, sc); err != nil {
				return nil, err
			}
		}
		r, err := expr.Case(operand, whens, thens, els)
		return r, positioned(err, n.Pos(), sqlerr.TypeMismatch)
	case *ast.FuncCall:
		if n.Over != nil {
			return nil, errAt(n.Pos(), sqlerr.InvalidArgument, "OVER calls are allowed only in the select list").
				WithHint("compute the OVER call in a subquery and refer to its column")
		}
		if u, ok := n.Resolved.(*userFunc); ok && u.fn.Kind() == udf.ScalarKind {
			return bindUserScalar(n, u, sc)
		}
		if len(n.Name.Parts) == 1 && strings.EqualFold(n.Name.Last().Name, "CURRENT_WATERMARK") {
			return bindCurrentWatermark(n, sc)
		}
		if isSourceWatermark(n) {
			return nil, sourceWatermarkMisuse(n)
		}
		if n.Star || n.Distinct {
			return nil, errAt(n.Pos(), sqlerr.Unsupported, "Aggregate function %s is not supported yet", n.Name).
				WithHint("Eddy runs per-row expressions and process table functions; use a PTF with state to aggregate")
		}
		args, err := bindList(n.Args, sc)
		if err != nil {
			return nil, err
		}
		name := strings.ToUpper(n.Name.Last().Name)
		var env expr.Env
		b, _ := n.Resolved.(*builtinCall)
		if b != nil && b.env.Now != nil && sc.env.Now == nil {
			env = b.env // the statement clock, unless the scope has its own
		} else {
			env = sc.exprEnv()
		}
		if b != nil {
			env.Database, env.Zone = b.env.Database, b.env.Zone
		}
		if name == "PROCTIME" && len(n.Name.Parts) == 1 {
			return bindProcTime(n, env)
		}
		r, err := expr.CallEnv(env, name, args...)
		if err != nil {
			return nil, positioned(unknownFunctionError(n, err), n.Pos(), sqlerr.UnknownFunction)
		}
		return r, nil
	case *ast.TimeUnitArg:
		v, t := expr.StringLiteral(string(n.Unit))
		return lit(v, t, n.Pos())
	case *ast.Extract:
		x, err := bindExpr(n.X, sc)
		if err != nil {
			return nil, err
		}
		v, t := expr.StringLiteral(string(n.Unit))
		u, err := lit(v, t, n.Pos())
		if err != nil {
			return nil, err
		}
		r, err := expr.Call("EXTRACT", u, x)
		return r, positioned(err, n.Pos(), sqlerr.TypeMismatch)
	case *ast.Subscript:
		x, err := bindExpr(n.X, sc)
		if err != nil {
			return nil, err
		}
		i, err := bindExpr(n.Index, sc)
		if err != nil {
			return nil, err
		}
		r, err := expr.Subscript(x, i)
		return r, positioned(err, n.Lbrack, sqlerr.TypeMismatch)
	case *ast.JSONCall:
		return bindJSONCall(n, sc)
	case *ast.RowExpr:
		fields, err := bindList(n.Values, sc)
		if err != nil {
			return nil, err
		}
		r, err := expr.Row(fields, nil)
		return r, positioned(err, n.Pos(), sqlerr.TypeMismatch)
	case *ast.ArrayExpr:
		elems, err := bindList(n.Elems, sc)
		if err != nil {
			return nil, err
		}
		r, err := expr.Array(elems)
		return r, positioned(err, n.Pos(), sqlerr.TypeMismatch)
	case *ast.MapExpr:
		kvs, err := bindList(n.Elems, sc)
		if err != nil {
			return nil, err
		}
		r, err := expr.Map(kvs)
		return r, positioned(err, n.Pos(), sqlerr.TypeMismatch)
	case *ast.TableArg, *ast.Descriptor, *ast.Default:
		return nil, errAt(e.Pos(), sqlerr.InvalidArgument, "%s is only allowed as an argument of a table function", ast.Format(e))
	case *ast.Star:
		return nil, errAt(e.Pos(), sqlerr.Syntax, "'*' is only allowed in the select list or in COUNT(*)")
	}
	return nil, errAt(e.Pos(), sqlerr.Unsupported, "Expression %s is not supported yet", ast.Format(e)).
		WithHint("docs/sql.md lists the supported expressions; compute the value with a built-in or user-defined function instead")
}

func lit(v types.Value, t types.Type, pos sqlerr.Pos) (expr.Expr, error) {
	x, err := expr.Lit(v, t)
	return x, positioned(err, pos, sqlerr.Internal)
}

func bind3(a, b, c ast.Expr, sc *scope) (x, y, z expr.Expr, err error) {
	if x, err = bindExpr(a, sc); err != nil {
		return
	}
	if y, err = bindExpr(b, sc); err != nil {
		return
	}
	z, err = bindExpr(c, sc)
	return
}

func bindList(list []ast.Expr, sc *scope) ([]expr.Expr, error) {
	out := make([]expr.Expr, 0, len(list))
	for _, e := range list {
		x, err := bindExpr(e, sc)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// castTo converts e to t when they differ, with an implicit cast only.
func castTo(e expr.Expr, t types.Type, pos sqlerr.Pos, what string) (expr.Expr, error) {
	if e.Type().Same(t) {
		return e, nil
	}
	if !expr.CanCastImplicitly(e.Type(), t) {
		return nil, errAt(pos, sqlerr.TypeMismatch, "Cannot assign a value of type %s to %s of type %s", e.Type(), what, t).
			WithHint("CAST(... AS %s) converts it explicitly", t.Nullable())
	}
	r, err := expr.Cast(e, t, false)
	return r, positioned(err, pos, sqlerr.TypeMismatch)
}

// bindJSONCall binds JSON_VALUE, JSON_OBJECT and JSON_ARRAY with their
// clauses.
func bindJSONCall(n *ast.JSONCall, sc *scope) (expr.Expr, error) {
	args, err := bindList(n.Args, sc)
	if err != nil {
		return nil, err
	}
	var r expr.Expr
	switch n.Func {
	case "JSON_OBJECT":
		r, err = expr.JSONObject(args, n.OnNull == "ABSENT")
	case "JSON_ARRAY":
		r, err = expr.JSONArray(args, n.OnNull != "NULL")
	case "JSON_EXISTS":
		onError := ""
		if n.OnError != nil {
			onError = n.OnError.Kind
		}
		r, err = expr.JSONExists(args[0], args[1], onError)
	case "JSON_QUERY":
		opts := &expr.JSONQueryOptions{Wrapper: strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(n.Wrapper, "WITH "), "WITHOUT"), " ARRAY")}
		if n.Returning != nil {
			t := n.Returning.Type
			opts.Returning = &t
		}
		if n.OnEmpty != nil {
			opts.OnEmpty = n.OnEmpty.Kind
		}
		if n.OnError != nil {
			opts.OnError = n.OnError.Kind
		}
		r, err = expr.JSONQuery(args[0], args[1], opts)
	default:
		opts := &expr.JSONValueOptions{}
		if n.Returning != nil {
			t := n.Returning.Type
			opts.Returning = &t
		}
		for _, on := range []struct {
			in  *ast.JSONOn
			out *expr.JSONOnClause
		}{{n.OnEmpty, &opts.OnEmpty}, {n.OnError, &opts.OnError}} {
			if on.in == nil {
				continue
			}
			on.out.Error = on.in.Kind == "ERROR"
			if on.in.Default != nil {
				if on.out.Default, err = bindExpr(on.in.Default, sc); err != nil {
					return nil, err
				}
			}
		}
		r, err = expr.JSONValue(args[0], args[1], opts)
	}
	return r, positioned(err, n.Pos(), sqlerr.TypeMismatch)
}

// bindFieldAccess binds col.field, t.col.field and deeper paths into ROW
// columns: the longest prefix of the name that is a column, then one field
// per remaining part. It returns nil, nil when no prefix is a ROW column.
func bindFieldAccess(n *ast.ColumnRef, sc *scope) (expr.Expr, error) {
	for k := len(n.Parts) - 1; k >= 1; k-- {
		prefix := &ast.ColumnRef{Parts: n.Parts[:k]}
		i, err := sc.resolve(prefix)
		if err != nil || sc.cols[i].typ.ID != types.TypeRow {
			continue
		}
		c := sc.cols[i]
		x, err := expr.Col(i, c.name, c.typ)
		if err != nil {
			return nil, positioned(err, n.Pos(), sqlerr.Internal)
		}
		for _, part := range n.Parts[k:] {
			if x, err = expr.Field(x, part.Name); err != nil {
				return nil, positioned(err, part.Pos(), sqlerr.UnknownColumn)
			}
		}
		return x, nil
	}
	return nil, nil
}
