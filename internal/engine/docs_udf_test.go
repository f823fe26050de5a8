package engine_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/stretchr/testify/require"
)

// TestWritingFunctionsDocUDF runs the SQL examples of the section
// "Scalar, table and aggregate functions" of docs/writing-functions.md in
// one session, with the example functions of the stock binary, and checks
// each statement against the "-- " lines after it: the rows of a query's
// final result ("a | b", NULL for NULL; a note after two spaces and "(" is
// ignored), or "-- error: message" (and "-- hint: ...", a prefix when it
// ends in "...").
func TestWritingFunctionsDocUDF(t *testing.T) {
	raw, err := os.ReadFile("../../docs/writing-functions.md")
	require.NoError(t, err)
	_, sec, ok := strings.Cut(string(raw), "\n## Scalar, table and aggregate functions\n")
	require.True(t, ok, "the section is gone")
	sec, _, _ = strings.Cut(sec, "\n### Registering")
	h := newHarness(t, false)
	checked := 0
	for _, b := range fencedBlocks(sec) {
		if b.info != "sql" {
			continue
		}
		for _, ex := range docExamples(b.text) {
			res, err := h.execute(t, cli.Statement{Text: ex.sql})
			if len(ex.want) > 0 && strings.HasPrefix(ex.want[0], "error: ") {
				require.Error(t, err, ex.sql)
				msg := formatError(err, cli.Statement{}.Pos)
				for _, w := range ex.want {
					w = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(w, "error: "), "hint: "), "...")
					require.Contains(t, msg, w, ex.sql)
				}
				checked++
				continue
			}
			require.NoError(t, err, ex.sql)
			if res.Rows == nil {
				require.Empty(t, ex.want, "%s returns no rows", ex.sql)
				continue
			}
			rows := drain(t, &datadriven.TestData{Pos: "docs/writing-functions.md"}, res.Rows)
			out := formatRows(res.Rows, rows, "table")
			var got []string
			for line := range strings.Lines(out) {
				if strings.HasPrefix(line, "[") {
					v := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "["), "]")
					got = append(got, strings.ReplaceAll(strings.ReplaceAll(v, ", ", " | "), "<NULL>", "NULL"))
				}
			}
			want := slices.Clone(ex.want)
			slices.Sort(got)
			slices.Sort(want)
			require.Equal(t, want, got, "%s\n%s", ex.sql, out)
			checked++
		}
	}
	require.GreaterOrEqual(t, checked, 5, "the examples with results")
}

type docExample struct {
	sql  string
	want []string
}

// docExamples splits a SQL block into statements and the "-- " lines
// that follow each.
func docExamples(text string) []docExample {
	var out []docExample
	var cur strings.Builder
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\n")
		if c, ok := strings.CutPrefix(line, "-- "); ok && cur.Len() == 0 && len(out) > 0 {
			if i := strings.Index(c, "  ("); i >= 0 {
				c = c[:i]
			}
			out[len(out)-1].want = append(out[len(out)-1].want, strings.TrimSpace(c))
			continue
		}
		cur.WriteString(line + "\n")
		if strings.HasSuffix(strings.TrimSpace(line), ";") {
			out = append(out, docExample{sql: strings.TrimSpace(cur.String())})
			cur.Reset()
		}
	}
	return out
}
