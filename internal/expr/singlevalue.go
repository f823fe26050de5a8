package expr

import "github.com/eddy-sql/eddy/types"

// SingleValue is the value of a scalar subquery: value when the subquery
// has at most one row (count, a BIGINT, is its number of rows), else a
// runtime error with Flink's message, as Flink's SINGLE_VALUE aggregate
// fails, followed by what happened to which subquery (where names it,
// e.g. "at 1:11").
func SingleValue(count, value Expr, where string) (Expr, error) {
	if !count.Type().IsInteger() {
		return nil, typeErrorf("SINGLE_VALUE needs an integer row count, not %s", typeString(count.Type()))
	}
	return &singleValueExpr{count: count, value: value, t: value.Type().Nullable(), where: where}, nil
}

type singleValueExpr struct {
	count, value Expr
	t            types.Type
	where        string
}

func (s *singleValueExpr) Type() types.Type { return s.t }

func (s *singleValueExpr) String() string {
	return "SINGLE_VALUE(" + s.value.String() + ", " + s.count.String() + ")"
}

func (s *singleValueExpr) Eval(row []types.Value) (types.Value, error) {
	n, err := s.count.Eval(row)
	if err != nil {
		return types.Null, err
	}
	if !n.IsNull() && n.Int() > 1 {
		return types.Null, runtimeErrorf("SingleValueAggFunction received more than one element. The scalar subquery %s returned %d rows; a scalar subquery may return at most one.", s.where, n.Int())
	}
	return s.value.Eval(row)
}
