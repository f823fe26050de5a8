package cli

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func diffText(a, b string) string {
	var sb strings.Builder
	writeUnifiedDiff(&sb, "a", "b", splitLines(a), splitLines(b))
	return sb.String()
}

func TestUnifiedDiff(t *testing.T) {
	lines := func(from, to int) string {
		var out []string
		for i := from; i <= to; i++ {
			out = append(out, fmt.Sprintf("l%d", i))
		}
		return strings.Join(out, "\n")
	}
	for _, tc := range []struct {
		name, a, b, want string
	}{{
		name: "equal",
		a:    "x\ny", b: "x\ny",
		want: "--- a\n+++ b\n",
	}, {
		name: "one line changed",
		a:    "SELECT a", b: "SELECT b",
		want: "--- a\n+++ b\n@@ -1 +1 @@\n-SELECT a\n+SELECT b\n",
	}, {
		name: "insertion into empty",
		a:    "", b: "x",
		want: "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n",
	}, {
		name: "context of three lines",
		a:    lines(1, 10),
		b:    strings.Replace(lines(1, 10), "l5", "L5", 1),
		want: "--- a\n+++ b\n@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+L5\n l6\n l7\n l8\n",
	}, {
		name: "two hunks far apart",
		a:    lines(1, 20),
		b:    strings.Replace(strings.Replace(lines(1, 20), "l2\n", "", 1), "l19", "L19", 1),
		want: "--- a\n+++ b\n@@ -1,5 +1,4 @@\n l1\n-l2\n l3\n l4\n l5\n@@ -16,5 +15,5 @@\n l16\n l17\n l18\n-l19\n+L19\n l20\n",
	}, {
		name: "two changes close together make one hunk",
		a:    lines(1, 12),
		b:    strings.Replace(strings.Replace(lines(1, 12), "l3", "L3", 1), "l8", "L8", 1),
		want: "--- a\n+++ b\n@@ -1,11 +1,11 @@\n l1\n l2\n-l3\n+L3\n l4\n l5\n l6\n l7\n-l8\n+L8\n l9\n l10\n l11\n",
	}, {
		name: "lines moved",
		a:    "a\nb\nc", b: "c\na\nb",
		want: "--- a\n+++ b\n@@ -1,3 +1,3 @@\n+c\n a\n b\n-c\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, diffText(tc.a, tc.b))
		})
	}
}

// TestUnifiedDiffLarge checks that a diff too large for the LCS table
// still shows every line once, removed then added.
func TestUnifiedDiffLarge(t *testing.T) {
	var a, b []string
	for i := range 3000 {
		a = append(a, fmt.Sprintf("a%d", i))
		b = append(b, fmt.Sprintf("b%d", i))
	}
	a[0], b[0] = "same", "same"
	edits := lineDiff(a, b)
	var minus, plus, same int
	for _, e := range edits {
		switch e.op {
		case '-':
			minus++
		case '+':
			plus++
		default:
			same++
		}
	}
	require.Equal(t, []int{2999, 2999, 1}, []int{minus, plus, same})
}

func TestWriteSpecDiff(t *testing.T) {
	var sb strings.Builder
	WriteSpecDiff(&sb, "x",
		v1.Spec{Statement: "SELECT 1;", Properties: map[string]string{"a": "1"}},
		v1.Spec{Statement: "SELECT 1", Properties: map[string]string{"a": "1", "b": "2"}})
	require.Equal(t, "--- x properties (deployed)\n+++ x properties (new)\n@@ -1 +1,2 @@\n a=1\n+b=2\n", sb.String())
	require.True(t, sameSpec(v1.Spec{Statement: " SELECT 1 ;\n"}, v1.Spec{Statement: "SELECT 1", Properties: map[string]string{}, Stopped: true}))
	require.False(t, sameSpec(v1.Spec{Statement: "SELECT 1"}, v1.Spec{Statement: "SELECT  1"}))
}

func TestStatementNames(t *testing.T) {
	got, err := fullStatementName("shop", "orders")
	require.NoError(t, err)
	require.Equal(t, "shop-orders", got)
	got, err = fullStatementName("", "orders")
	require.NoError(t, err)
	require.Equal(t, "orders", got)
	_, err = fullStatementName("", "-x")
	require.ErrorContains(t, err, `invalid statement name "-x"`)
	_, err = fullStatementName("", strings.Repeat("a", 101))
	require.ErrorContains(t, err, "is 101 characters long; at most 100 are allowed")

	now := time.Date(2026, 8, 1, 10, 0, 0, 0, time.FixedZone("X", 3600))
	a, b := generateStatementName("", now), generateStatementName("", now)
	require.Regexp(t, `^cli-20260801-090000-[0-9a-f]{12}$`, a)
	require.NotEqual(t, a, b, "two names in the same second differ")
	require.Regexp(t, `^shop-20260801-090000-[0-9a-f]{12}$`, generateStatementName("shop", now))
	require.Regexp(t, statementNameRE, a)
}

func TestParseWaitDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"90s": 90 * time.Second, "10m": 10 * time.Minute, "1h30m": 90 * time.Minute,
		"5min": 5 * time.Minute, "1.5min": 90 * time.Second, " 2s ": 2 * time.Second,
	} {
		got, err := ParseWaitDuration(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "soon", "0", "-1s", "0s", "xmin"} {
		_, err := ParseWaitDuration(in)
		require.Error(t, err, in)
	}
}

func TestResultValues(t *testing.T) {
	schema := resultSchema(&v1.Traits{Schema: &v1.Schema{Columns: []v1.Column{
		{Name: "id", Type: "BIGINT"},
		{Name: "tags", Type: "ARRAY<STRING>"},
		{Name: "attrs", Type: "MAP<STRING, INT>"},
		{Name: "addr", Type: "ROW<city STRING, zip INT>"},
		{Name: "odd", Type: "NOT A TYPE"},
	}}})
	require.Equal(t, []string{"id", "tags", "attrs", "addr", "odd"}, schema.Names())
	require.Equal(t, types.String, schema.Fields[4].Type)

	row := resultRow(schema, v1.ResultRow{Op: 2, Row: []any{
		"7", []any{"a", nil}, []any{[]any{"k", "1"}, []any{"n", nil}}, []any{"Paris", "75001"}, nil, "extra",
	}})
	require.Equal(t, types.UpdateAfter, row.Kind)
	require.Equal(t, []string{"7", "[a, NULL]", "{k=1, n=NULL}", "(Paris, 75001)", "<NULL>", "extra"}, formatRow(schema, row.Values))
	require.Equal(t, "EXPR$5", schema.Fields[5].Name)

	require.Equal(t, types.Insert, resultRow(schema, v1.ResultRow{Op: 9}).Kind)
}

func TestRemoteLocalStatements(t *testing.T) {
	e := newRemoteEngine(nil)
	run := func(sql string) (*Result, bool, error) { return e.local(sql) }

	res, ok, err := run("SET 'table.exec.state.ttl' = '1 h'")
	require.True(t, ok)
	require.NoError(t, err)
	require.Equal(t, "Session property has been set.", res.Message)
	_, _, err = run("set x.y = it''s")
	require.NoError(t, err)
	_, _, err = run("SET 'q' = 'it''s'")
	require.NoError(t, err)
	_, _, err = run("SET 'sql-client.execution.result-mode' = 'CHANGELOG'")
	require.NoError(t, err)
	_, _, err = run("USE CATALOG `my cat`")
	require.NoError(t, err)
	_, _, err = run("use db1")
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"table.exec.state.ttl": "1 h", "x.y": "it''s", "q": "it's",
		"sql-client.execution.result-mode": "changelog",
		"sql.current-catalog":              "my cat", "sql.current-database": "db1",
	}, e.Config())
	require.Equal(t, map[string]string{
		"table.exec.state.ttl": "1 h", "x.y": "it''s", "q": "it's",
		"sql.current-catalog": "my cat", "sql.current-database": "db1",
	}, e.properties())

	_, _, err = run("USE other.db2")
	require.NoError(t, err)
	require.Equal(t, "other", e.cfg["sql.current-catalog"])
	require.Equal(t, "db2", e.cfg["sql.current-database"])
	_, _, err = run("USE CATALOG c2")
	require.NoError(t, err)
	require.NotContains(t, e.cfg, "sql.current-database", "USE CATALOG resets the database")

	_, _, err = run("SET 'sql-client.execution.result-mode' = 'fancy'")
	se, ok := sqlerr.As(err)
	require.True(t, ok)
	require.Equal(t, sqlerr.InvalidOption, se.Code)

	_, _, err = run("RESET 'q'")
	require.NoError(t, err)
	require.NotContains(t, e.cfg, "q")
	_, _, err = run("RESET")
	require.NoError(t, err)
	require.Empty(t, e.cfg)
	require.Nil(t, e.properties())

	for _, sql := range []string{"SELECT 1", "SET x", "USE CATALOG", "SHOW TABLES", "RESET a b"} {
		_, ok, _ := run(sql)
		require.False(t, ok, sql)
	}
}

func TestRemoteErrors(t *testing.T) {
	err := failedStatementError(&v1.Statement{Name: "s", Status: v1.Status{Phase: v1.Failed,
		Detail: "at 2:8: Table 'nope' not found.\nHint: Run SHOW TABLES; to list the tables."}})
	se, ok := sqlerr.As(err)
	require.True(t, ok)
	require.Equal(t, sqlerr.Pos{Line: 2, Col: 8}, se.Pos)
	require.Equal(t, "Table 'nope' not found.", se.Message)
	require.Equal(t, "Run SHOW TABLES; to list the tables.", se.Hint)

	se, _ = sqlerr.As(failedStatementError(&v1.Statement{Name: "s", Status: v1.Status{Detail: "Function Boom failed."}}))
	require.False(t, se.Pos.IsValid())
	require.Equal(t, "Function Boom failed.", se.Message)
	require.Equal(t, "See eddy statement exceptions s.", se.Hint)

	se, _ = sqlerr.As(remoteError(&client.Error{Status: 400, Code: v1.CodeInvalidSQL, Message: "bad", Position: "1:5", Suggestion: "fix it"}))
	require.Equal(t, sqlerr.Code(v1.CodeInvalidSQL), se.Code)
	require.Equal(t, sqlerr.Pos{Line: 1, Col: 5}, se.Pos)
	require.Equal(t, "fix it", se.Hint)

	se, _ = sqlerr.As(remoteError(&client.Error{Status: 401, Code: v1.CodeUnauthorized, Message: "no"}))
	require.Contains(t, se.Message, "authentication failed")

	plain := errors.New("x")
	require.Equal(t, plain, remoteError(plain))
	require.Equal(t, sqlerr.Pos{}, parsePos("0:1"))
	require.Equal(t, sqlerr.Pos{}, parsePos("a:b"))
}
