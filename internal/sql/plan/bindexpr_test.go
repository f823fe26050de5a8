package plan

import (
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/parser"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// bindSelect binds the select-list expressions of sql in sc.
func bindSelect(t *testing.T, sql string, sc *scope) []expr.Expr {
	t.Helper()
	st, err := parser.ParseStatement(sql)
	require.NoError(t, err)
	var out []expr.Expr
	for _, it := range st.(*ast.Select).Items {
		x, err := bindExpr(it.Expr, sc)
		require.NoError(t, err, ast.Format(it.Expr))
		out = append(out, x)
	}
	return out
}

// TestBindCurrentTime checks that the current-time functions read the
// clock injected on the scope, once per evaluation.
func TestBindCurrentTime(t *testing.T) {
	now := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC).UnixNano()
	sc := &scope{env: expr.Env{Now: func() int64 { now += int64(time.Second); return now }}}
	xs := bindSelect(t, "SELECT CURRENT_TIMESTAMP, LOCALTIMESTAMP, CURRENT_DATE, CURRENT_TIME, NOW(), UNIX_TIMESTAMP()", sc)
	var got []string
	for _, x := range xs {
		v, err := x.Eval(nil)
		require.NoError(t, err)
		got = append(got, types.Format(v, x.Type()))
	}
	require.Equal(t, []string{"2024-05-06 07:08:10.123", "2024-05-06 07:08:11.123", "2024-05-06",
		"07:08:13", "2024-05-06 07:08:14.123", "1714979295"}, got)
	require.Equal(t, "CURRENT_TIMESTAMP", xs[0].String())
}

// TestBindCurrentTimeDefault checks that without an injected clock the
// functions see one fixed time, the statement's planning time.
func TestBindCurrentTimeDefault(t *testing.T) {
	before := time.Now()
	xs := bindSelect(t, "SELECT CURRENT_TIMESTAMP, CURRENT_TIMESTAMP", &scope{})
	a, err := xs[0].Eval(nil)
	require.NoError(t, err)
	time.Sleep(2 * time.Millisecond)
	b, err := xs[1].Eval(nil)
	require.NoError(t, err)
	require.Equal(t, a.Int(), b.Int(), "the clock does not move during evaluation")
	require.WithinDuration(t, before, time.Unix(0, a.Int()), time.Minute)
}

// TestBindSyntax binds the keyword forms of function calls and checks
// their rendering and results.
func TestBindSyntax(t *testing.T) {
	sc := &scope{cols: []column{{name: "s", typ: types.String}, {name: "ts", typ: types.Timestamp(3)}}}
	row := []types.Value{types.NewString("hello world"), types.NewTimestampMillis(1709214330123)}
	for sql, want := range map[string]string{
		"SELECT POSITION('o' IN s)":                                    "POSITION('o' IN s) = 5",
		"SELECT TRIM(TRAILING 'd' FROM s)":                             "RTRIM(s, 'd') = hello worl",
		"SELECT s IS DISTINCT FROM NULL":                               "s IS DISTINCT FROM NULL = TRUE",
		"SELECT EXTRACT(DOY FROM ts)":                                  "EXTRACT(DOY FROM ts) = 60",
		"SELECT FLOOR(ts TO DAY)":                                      "FLOOR(ts TO DAY) = 2024-02-29 00:00:00.000",
		"SELECT TIMESTAMPADD(WEEK, 1, ts)":                             "TIMESTAMPADD(WEEK, 1, ts) = 2024-03-07 13:45:30.123",
		"SELECT JSON_VALUE('{\"a\": \"2\"}', '$.a' RETURNING INT) + 1": "JSON_VALUE('{\"a\": \"2\"}', '$.a' RETURNING INT) + 1 = 3",
		"SELECT ARRAY[1, 2][2]":                                        "ARRAY[1, 2][2] = 2",
		"SELECT s IS NOT JSON":                                         "s IS NOT JSON VALUE = TRUE",
	} {
		x := bindSelect(t, sql, sc)[0]
		v, err := x.Eval(row)
		require.NoError(t, err, sql)
		require.Equal(t, want, x.String()+" = "+types.Format(v, x.Type()), sql)
	}
}
