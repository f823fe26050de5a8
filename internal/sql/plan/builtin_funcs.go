package plan

import (
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// aggregateInfo describes the built-in aggregate functions (aggFuncs) and
// the grouping functions for SHOW FUNCTIONS and DESCRIBE FUNCTION; the
// scalar functions describe themselves in package expr.
// TestAggregateInfo checks that every entry of aggFuncs is described.
var aggregateInfo = []expr.FuncInfo{
	agg("COUNT", "COUNT(*); COUNT([ALL] expression); COUNT(DISTINCT expression1 [, expression2]*)", "The number of rows (COUNT(*)), or of rows where expression is not NULL; BIGINT NOT NULL."),
	agg("SUM", "SUM([ALL | DISTINCT] expression)", "The sum of expression over the rows; NULL when there is no non-NULL value."),
	agg("AVG", "AVG([ALL | DISTINCT] expression)", "The average (arithmetic mean) of expression over the rows, of the argument's type."),
	agg("MIN", "MIN([ALL | DISTINCT] expression)", "The least value of expression over the rows."),
	agg("MAX", "MAX([ALL | DISTINCT] expression)", "The greatest value of expression over the rows."),
	agg("FIRST_VALUE", "FIRST_VALUE(expression)", "The first non-NULL value of expression, in arrival order."),
	agg("LAST_VALUE", "LAST_VALUE(expression)", "The last non-NULL value of expression, in arrival order."),
	agg("LISTAGG", "LISTAGG(expression [, separator])", "The non-NULL values of expression joined with separator (default ','), in arrival order."),
	agg("STDDEV_POP", "STDDEV_POP([ALL | DISTINCT] expression) -> DOUBLE", "The population standard deviation of expression."),
	agg("STDDEV_SAMP", "STDDEV_SAMP([ALL | DISTINCT] expression) -> DOUBLE", "The sample standard deviation of expression; NULL for fewer than two values."),
	agg("STDDEV", "STDDEV([ALL | DISTINCT] expression) -> DOUBLE", "Same as STDDEV_SAMP."),
	agg("VAR_POP", "VAR_POP([ALL | DISTINCT] expression) -> DOUBLE", "The population variance of expression."),
	agg("VAR_SAMP", "VAR_SAMP([ALL | DISTINCT] expression) -> DOUBLE", "The sample variance of expression; NULL for fewer than two values."),
	agg("VARIANCE", "VARIANCE([ALL | DISTINCT] expression) -> DOUBLE", "Same as VAR_SAMP."),
	agg("BOOL_AND", "BOOL_AND(boolean) -> BOOLEAN", "TRUE if every non-NULL value is TRUE."),
	agg("BOOL_OR", "BOOL_OR(boolean) -> BOOLEAN", "TRUE if some non-NULL value is TRUE."),
	agg("COLLECT", "COLLECT([ALL | DISTINCT] expression) -> MULTISET", "The multiset of the non-NULL values of expression."),
	agg("ARRAY_AGG", "ARRAY_AGG([ALL | DISTINCT] expression [RESPECT NULLS | IGNORE NULLS]) -> ARRAY", "The values of expression as an array, in arrival order; NULL when there is no row."),
	agg("JSON_OBJECTAGG", "JSON_OBJECTAGG([KEY] key VALUE value [{NULL | ABSENT} ON NULL]) -> STRING", "A JSON object of the key/value pairs of the rows; a duplicate key fails the statement."),
	agg("JSON_ARRAYAGG", "JSON_ARRAYAGG(items [{NULL | ABSENT} ON NULL]) -> STRING", "A JSON array of the values of the rows, in arrival order."),
	agg("APPROX_COUNT_DISTINCT", "APPROX_COUNT_DISTINCT(expression) -> BIGINT", "The approximate number of distinct non-NULL values (HyperLogLog, relative standard error 0.81%); insert-only input."),
	{Name: "GROUPING", Family: "grouping", Signatures: []string{"GROUPING(expression1 [, expression2]*) -> BIGINT NOT NULL"}, Description: "A bit vector of the grouping expressions: 1 where the expression is aggregated away in the grouping set of the row.", Deterministic: true},
	{Name: "GROUP_ID", Family: "grouping", Signatures: []string{"GROUP_ID() -> BIGINT NOT NULL"}, Description: "Which occurrence of a repeated grouping set the row comes from: 0 for the first, 1 for the second, ...", Deterministic: true},
	{Name: "GROUPING_ID", Family: "grouping", Signatures: []string{"GROUPING_ID(expression1 [, expression2]*) -> BIGINT NOT NULL"}, Description: "Same as GROUPING.", Deterministic: true},
}

func agg(name, sigs, desc string) expr.FuncInfo {
	return expr.FuncInfo{Name: name, Family: "aggregate", Signatures: strings.Split(sigs, "; "), Description: desc, Deterministic: true}
}

// BuiltinFunctions lists the built-in scalar, aggregate and grouping
// functions, sorted by name: what SHOW FUNCTIONS shows before the user
// functions.
func BuiltinFunctions() []expr.FuncInfo {
	out := append(expr.Functions(), aggregateInfo...)
	slices.SortFunc(out, func(a, b expr.FuncInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// LookupBuiltin returns the description of the built-in function name
// (case-insensitive): scalar, aggregate or grouping.
func LookupBuiltin(name string) (expr.FuncInfo, bool) {
	if f, ok := expr.LookupFunction(name); ok {
		return f, true
	}
	up := strings.ToUpper(name)
	for _, f := range aggregateInfo {
		if f.Name == up {
			return f, true
		}
	}
	return expr.FuncInfo{}, false
}

// SuggestFunction returns the function name closest to name among the
// built-in functions and the user functions users (compared without
// regard to case, a user function shown as created), or "" when none is
// close.
func SuggestFunction(name string, users []string) string {
	byUpper := map[string]string{}
	var names []string
	for _, f := range BuiltinFunctions() {
		names = append(names, f.Name)
		byUpper[f.Name] = f.Name
	}
	for _, u := range users {
		up := strings.ToUpper(u)
		if _, dup := byUpper[up]; !dup {
			names = append(names, up)
			byUpper[up] = u
		}
	}
	slices.Sort(names) // deterministic choice between equally close names
	up := strings.ToUpper(name)
	within := 3
	if len(up) <= 4 {
		within = 2
	}
	if s := sqlerr.Closest(up, names, within); s != "" {
		return byUpper[s]
	}
	return ""
}

// withAggSignatures adds the accepted signatures of a built-in aggregate
// to an error about the arguments of its call fc (a wrong count or type),
// as expr does for scalar functions.
func withAggSignatures(err error, fc *ast.FuncCall) error {
	se, ok := sqlerr.As(err)
	if !ok || se.Hint != "" || (se.Code != sqlerr.TypeMismatch && se.Code != sqlerr.InvalidFunction) || len(fc.Name.Parts) != 1 {
		return err
	}
	for _, f := range aggregateInfo {
		if strings.EqualFold(f.Name, fc.Name.Last().Name) {
			cp := *se
			return cp.WithHint("accepted signatures: %s", strings.Join(f.Signatures, "; "))
		}
	}
	return err
}
