package cli

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/sqlerr"
)

func pos(line, col int) sqlerr.Pos { return sqlerr.Pos{Line: line, Col: col} }

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want []Statement
	}{
		{
			name: "empty",
			src:  "",
		},
		{
			name: "blanks and comments only",
			src:  "  \n-- just a comment; really\n/* block; */ ;;\n",
		},
		{
			name: "one statement",
			src:  "SELECT 1;",
			want: []Statement{{"SELECT 1", pos(1, 1), true}},
		},
		{
			name: "unterminated last statement",
			src:  "SELECT 1;\n  SELECT 2  \n",
			want: []Statement{{"SELECT 1", pos(1, 1), true}, {"SELECT 2", pos(2, 3), false}},
		},
		{
			name: "two on a line",
			src:  "SELECT 1; SELECT 2;",
			want: []Statement{{"SELECT 1", pos(1, 1), true}, {"SELECT 2", pos(1, 11), true}},
		},
		{
			name: "leading comments are skipped, inner ones kept",
			src:  "-- header; comment\n/* a\n ; b */  SELECT /* x; */ 1 -- tail;\n;",
			want: []Statement{{"SELECT /* x; */ 1", pos(3, 10), true}},
		},
		{
			name: "semicolons in strings with escaped quotes",
			src:  "INSERT INTO t VALUES ('a;b', 'it''s; fine');\nSELECT ';';",
			want: []Statement{
				{"INSERT INTO t VALUES ('a;b', 'it''s; fine')", pos(1, 1), true},
				{"SELECT ';'", pos(2, 1), true},
			},
		},
		{
			name: "semicolons in identifiers",
			src:  "SELECT `a;b`, `x``;y` FROM t;",
			want: []Statement{{"SELECT `a;b`, `x``;y` FROM t", pos(1, 1), true}},
		},
		{
			name: "multi-line statement",
			src:  "\n\nCREATE TABLE t (\n  a INT\n);\n",
			want: []Statement{{"CREATE TABLE t (\n  a INT\n)", pos(3, 1), true}},
		},
		{
			name: "columns count characters, not bytes",
			src:  "SELECT 'é→'; SELECT 2;",
			want: []Statement{{"SELECT 'é→'", pos(1, 1), true}, {"SELECT 2", pos(1, 14), true}},
		},
		{
			name: "CRLF line ends",
			src:  "SELECT 1;\r\n  SELECT 2;\r\n",
			want: []Statement{{"SELECT 1", pos(1, 1), true}, {"SELECT 2", pos(2, 3), true}},
		},
		{
			name: "minus and slash are operators",
			src:  "SELECT 4-2/1 - -1;",
			want: []Statement{{"SELECT 4-2/1 - -1", pos(1, 1), true}},
		},
		{
			name: "statement set block",
			src: "EXECUTE STATEMENT SET\nBEGIN\n  INSERT INTO a SELECT CASE WHEN x THEN 1 END FROM t;\n" +
				"  INSERT INTO b SELECT * FROM t;\nEND;\nSELECT 1;",
			want: []Statement{
				{"EXECUTE STATEMENT SET\nBEGIN\n  INSERT INTO a SELECT CASE WHEN x THEN 1 END FROM t;\n" +
					"  INSERT INTO b SELECT * FROM t;\nEND", pos(1, 1), true},
				{"SELECT 1", pos(6, 1), true},
			},
		},
		{
			name: "unterminated string runs to the end",
			src:  "SELECT 'abc; SELECT 2;",
			want: []Statement{{"SELECT 'abc; SELECT 2;", pos(1, 1), false}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, Split(tc.src))
		})
	}
}

func TestIsComplete(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"", false},
		{"   ", false},
		{"-- comment;", false},
		{"SELECT 1", false},
		{"SELECT 1;", true},
		{"SELECT 1;  -- done", true},
		{"SELECT 1; SELECT", false},
		{"SELECT 1; /* open", false},
		{"SELECT ';", false},
		{"SELECT `a;", false},
		{"SELECT 1\n  FROM t\n;", true},
		{"EXECUTE STATEMENT SET BEGIN INSERT INTO a VALUES (1);", false},
		{"EXECUTE STATEMENT SET BEGIN INSERT INTO a VALUES (1); END;", true},
		{"EXPLAIN STATEMENT SET BEGIN INSERT INTO a VALUES (1);", false},
		{"EXPLAIN STATEMENT SET BEGIN INSERT INTO a VALUES (1); END;", true},
	} {
		require.Equal(t, tc.want, IsComplete(tc.src), "%q", tc.src)
	}
}

// TestSplitOffset checks that an error position inside a statement maps
// back to the script.
func TestSplitOffset(t *testing.T) {
	src := "SET 'a' = 'b';\n\nSELECT x,\n       nope FROM t; SELECT nope2;"
	stmts := Split(src)
	require.Len(t, stmts, 3)
	// "nope" is at line 2, column 8 of the second statement.
	require.Equal(t, pos(4, 8), sqlerr.Offset(pos(2, 8), stmts[1].Pos))
	// "nope2" is at line 1, column 8 of the third.
	require.Equal(t, pos(4, 28), sqlerr.Offset(pos(1, 8), stmts[2].Pos))
}

func FuzzSplit(f *testing.F) {
	f.Add("SELECT 'a;b' FROM `c;d`; -- e;\n/* f; */ SELECT 2;")
	f.Fuzz(func(t *testing.T, src string) {
		for _, st := range Split(src) {
			if st.Text == "" || !st.Pos.IsValid() {
				t.Fatalf("bad statement %+v", st)
			}
		}
	})
}
