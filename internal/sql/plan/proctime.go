package plan

import (
	"strings"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// PROCTIME() (reference §7.2): a processing-time attribute, TIMESTAMP_LTZ(3)
// NOT NULL. A select list item that is PROCTIME() (and plain references to
// it above) is a time attribute that processing-time windows read from the
// job's clock; where its value is used, it is the statement clock's time,
// as CURRENT_ROW_TIMESTAMP() (Flink materializes it the same way).

// procTimeExpr is the bound PROCTIME() call.
type procTimeExpr struct{ expr.Expr }

// Type implements expr.Expr.
func (p procTimeExpr) Type() types.Type { return types.TimestampLTZ(3).NonNull() }

// Eval implements expr.Expr.
func (p procTimeExpr) Eval(row []types.Value) (types.Value, error) { return p.Expr.Eval(row) }

// String implements expr.Expr.
func (procTimeExpr) String() string { return "PROCTIME()" }

func bindProcTime(n *ast.FuncCall, env expr.Env) (expr.Expr, error) {
	if len(n.Args) != 0 {
		return nil, errAt(n.Pos(), sqlerr.InvalidFunction, "PROCTIME takes no arguments")
	}
	r, err := expr.CallEnv(env, "CURRENT_ROW_TIMESTAMP")
	if err != nil {
		return nil, positioned(err, n.Pos(), sqlerr.UnknownFunction)
	}
	return procTimeExpr{r}, nil
}

// isProcTime reports whether x is PROCTIME().
func isProcTime(x expr.Expr) bool {
	_, ok := x.(procTimeExpr)
	return ok
}

// isProcTimeColumn reports whether the table's column name is a computed
// column `name AS PROCTIME()`: a processing-time attribute when scanned.
func isProcTimeColumn(t *catalog.Table, name string) bool {
	for _, c := range t.Columns {
		if c.Name == name {
			return c.Kind == catalog.Computed && strings.EqualFold(strings.ReplaceAll(c.Expr, " ", ""), "PROCTIME()")
		}
	}
	return false
}
