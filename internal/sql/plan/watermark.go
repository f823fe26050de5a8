package plan

import (
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// CURRENT_WATERMARK(rowtime) (reference §7.1, decision 0030): the current
// watermark of the calc operator evaluating it, of the rowtime column's
// type (nullable), NULL before the first watermark. The argument must be a
// rowtime attribute of the relation the expression reads.

// withTimes records the time kinds of f's columns in its scope, when the
// scope and the relation line up (CURRENT_WATERMARK checks its argument
// with them).
func withTimes(f *frag) {
	if f.rel == nil || f.sc == nil {
		return
	}
	cols := f.rel.Columns()
	if len(cols) != len(f.sc.cols) {
		return
	}
	times := make([]TimeKind, len(cols))
	for i, c := range cols {
		times[i] = c.Time
	}
	f.sc.times = times
}

func bindCurrentWatermark(n *ast.FuncCall, sc *scope) (expr.Expr, error) {
	if len(n.Args) != 1 || n.Star || n.Distinct {
		return nil, errAt(n.Pos(), sqlerr.InvalidFunction, "Invalid number of arguments to function 'CURRENT_WATERMARK'. Was expecting 1 arguments").
			WithHint("write CURRENT_WATERMARK(ts) with ts a rowtime attribute (a column with a WATERMARK)")
	}
	arg := n.Args[0]
	x, err := bindExpr(arg, sc)
	if err != nil {
		return nil, err
	}
	ref, isRef := arg.(*ast.ColumnRef)
	rowtime := false
	if isRef {
		if i, err := sc.resolve(ref); err == nil && i < len(sc.times) && sc.times[i] == RowTime {
			rowtime = true
		}
	}
	if !rowtime {
		return nil, errAt(arg.Pos(), sqlerr.InvalidArgument, "The argument of CURRENT_WATERMARK() must be a rowtime attribute, but was '%s'.", x.Type()).
			WithHint("pass a column with a WATERMARK (a rowtime attribute) as it reaches this query; aggregates, joins and expressions turn it into a plain timestamp")
	}
	return expr.CurrentWatermark(x.Type(), x.String()), nil
}

// WATERMARK FOR ts AS SOURCE_WATERMARK() (reference §7.1, decision 0030):
// the source's own watermark. Every Eddy source provides one: the largest
// value of ts seen, per partition (a Kafka partition, a bucket of an
// embedded table, the one split of a generated table), combined over the
// partitions as any watermark (minimum of the non-idle ones). It is stored
// as written and bound as the column itself.

// sourceWatermarkText is how the catalog stores the strategy.
const sourceWatermarkText = "SOURCE_WATERMARK()"

// isSourceWatermark reports whether e is a SOURCE_WATERMARK() call.
func isSourceWatermark(e ast.Expr) bool {
	fc, ok := e.(*ast.FuncCall)
	return ok && len(fc.Name.Parts) == 1 && strings.EqualFold(fc.Name.Last().Name, "SOURCE_WATERMARK") && fc.Over == nil
}

// sourceWatermarkOf is the expression a SOURCE_WATERMARK() strategy of
// column col evaluates on every row.
func sourceWatermarkOf(col string) ast.Expr {
	return &ast.ColumnRef{Parts: []*ast.Ident{{Name: col}}}
}

// sourceWatermarkMisuse is the error of SOURCE_WATERMARK() anywhere but as
// the whole expression of a WATERMARK FOR clause, or with arguments.
func sourceWatermarkMisuse(n *ast.FuncCall) error {
	if len(n.Args) > 0 {
		return errAt(n.Pos(), sqlerr.InvalidFunction, "SOURCE_WATERMARK takes no arguments").
			WithHint("write WATERMARK FOR ts AS SOURCE_WATERMARK()")
	}
	return errAt(n.Pos(), sqlerr.InvalidArgument, "SOURCE_WATERMARK() is a declarative function and doesn't have concrete implementation. It should only be used in WATERMARK FOR clause of a CREATE TABLE statement.").
		WithHint("write WATERMARK FOR ts AS SOURCE_WATERMARK() in CREATE TABLE; in a query, CURRENT_WATERMARK(ts) reads the watermark")
}
