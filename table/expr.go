package table

import (
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/types"
)

// Expr is an expression of the Table API: a column, a literal, a call, or
// SQL text. It renders to SQL, and the planner types and checks it as it
// does in a SQL statement, so that errors and results are those of SQL.
//
// In Select and GroupBy, As names the result column; as an argument of
// Process or FromCall, AsArgument (or As) names the argument, as Flink's
// lit(3).asArgument("numTrailing").
type Expr struct {
	sql  string
	name string
}

// Col is a column reference, Flink's $("name"). A dotted name
// ("o.amount") refers to a column of a join side.
func Col(name string) Expr {
	parts := strings.Split(name, ".")
	for i, p := range parts {
		parts[i] = ast.QuoteIdent(p)
	}
	return Expr{sql: strings.Join(parts, ".")}
}

// Lit returns a literal of a Go value: int, int64, float64, string, bool,
// nil (NULL), or a types.Value (rendered with its own type).
func Lit(v any) Expr {
	switch x := v.(type) {
	case nil:
		return Expr{sql: "NULL"}
	case int:
		return Expr{sql: fmt.Sprint(x)}
	case int32:
		return Expr{sql: fmt.Sprint(x)}
	case int64:
		return Expr{sql: fmt.Sprintf("CAST(%d AS BIGINT)", x)}
	case float64:
		return Expr{sql: fmt.Sprintf("CAST(%v AS DOUBLE)", x)}
	case string:
		return Expr{sql: ast.QuoteString(x)}
	case bool:
		return Expr{sql: strings.ToUpper(fmt.Sprint(x))}
	case types.Value:
		return Expr{sql: types.FormatSQL(x, x.InferType())}
	}
	return Expr{sql: ast.QuoteString(fmt.Sprint(v))}
}

// SQL is an expression written in SQL ("amount * 2", "COUNT(DISTINCT u)",
// "TUMBLE_START(ts, INTERVAL '1' MINUTE)"), for what the helpers here do
// not cover.
func SQL(expr string) Expr { return Expr{sql: expr} }

// Descriptor is DESCRIPTOR(cols...), for a descriptor argument such as
// on_time: table.Descriptor("ts").AsArgument("on_time").
func Descriptor(cols ...string) Expr {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = ast.QuoteIdent(c)
	}
	return Expr{sql: "DESCRIPTOR(" + strings.Join(q, ", ") + ")"}
}

// Default is DEFAULT: a positional argument left at its default.
func Default() Expr { return Expr{sql: "DEFAULT"} }

// As names the expression: the column name in Select, the argument name
// in a function call.
func (e Expr) As(name string) Expr { e.name = name; return e }

// AsArgument names the argument of a function call, as Flink's
// asArgument.
func (e Expr) AsArgument(name string) Expr { return e.As(name) }

// String returns the expression's SQL.
func (e Expr) String() string {
	if e.name == "" {
		return e.sql
	}
	return e.sql + " AS " + ast.QuoteIdent(e.name)
}

func bin(a Expr, op string, b any) Expr {
	return Expr{sql: "(" + a.sql + " " + op + " " + operand(b).sql + ")"}
}

// operand turns a Go value into a literal; an Expr stays as it is.
func operand(v any) Expr {
	if e, ok := v.(Expr); ok {
		return e
	}
	return Lit(v)
}

// Eq is e = v (v is an Expr or a Go value, as for every operator).
func (e Expr) Eq(v any) Expr { return bin(e, "=", v) }

// Ne is e <> v.
func (e Expr) Ne(v any) Expr { return bin(e, "<>", v) }

// Gt is e > v.
func (e Expr) Gt(v any) Expr { return bin(e, ">", v) }

// Ge is e >= v.
func (e Expr) Ge(v any) Expr { return bin(e, ">=", v) }

// Lt is e < v.
func (e Expr) Lt(v any) Expr { return bin(e, "<", v) }

// Le is e <= v.
func (e Expr) Le(v any) Expr { return bin(e, "<=", v) }

// And is e AND v.
func (e Expr) And(v any) Expr { return bin(e, "AND", v) }

// Or is e OR v.
func (e Expr) Or(v any) Expr { return bin(e, "OR", v) }

// Plus is e + v.
func (e Expr) Plus(v any) Expr { return bin(e, "+", v) }

// Minus is e - v.
func (e Expr) Minus(v any) Expr { return bin(e, "-", v) }

// Times is e * v.
func (e Expr) Times(v any) Expr { return bin(e, "*", v) }

// Div is e / v.
func (e Expr) Div(v any) Expr { return bin(e, "/", v) }

// Not is NOT e.
func (e Expr) Not() Expr { return Expr{sql: "(NOT " + e.sql + ")"} }

// IsNull is e IS NULL.
func (e Expr) IsNull() Expr { return Expr{sql: "(" + e.sql + " IS NULL)"} }

// IsNotNull is e IS NOT NULL.
func (e Expr) IsNotNull() Expr { return Expr{sql: "(" + e.sql + " IS NOT NULL)"} }

// Cast is CAST(e AS typ).
func (e Expr) Cast(typ string) Expr { return Expr{sql: "CAST(" + e.sql + " AS " + typ + ")"} }

// Asc orders ascending, for OrderBy.
func (e Expr) Asc() Expr { return Expr{sql: e.sql + " ASC"} }

// Desc orders descending, for OrderBy.
func (e Expr) Desc() Expr { return Expr{sql: e.sql + " DESC"} }

// Count is COUNT(e).
func (e Expr) Count() Expr { return Expr{sql: "COUNT(" + e.sql + ")"} }

// Sum is SUM(e).
func (e Expr) Sum() Expr { return Expr{sql: "SUM(" + e.sql + ")"} }

// Min is MIN(e).
func (e Expr) Min() Expr { return Expr{sql: "MIN(" + e.sql + ")"} }

// Max is MAX(e).
func (e Expr) Max() Expr { return Expr{sql: "MAX(" + e.sql + ")"} }

// Avg is AVG(e).
func (e Expr) Avg() Expr { return Expr{sql: "AVG(" + e.sql + ")"} }

// CountStar is COUNT(*).
func CountStar() Expr { return Expr{sql: "COUNT(*)"} }

// Call calls a SQL function by name: table.Call("UPPER", table.Col("name")).
func Call(name string, args ...any) Expr {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = operand(a).sql
	}
	return Expr{sql: name + "(" + strings.Join(q, ", ") + ")"}
}

func exprList(es []Expr) string {
	q := make([]string, len(es))
	for i, e := range es {
		q[i] = e.String()
	}
	return strings.Join(q, ", ")
}
