package parser_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/parser"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/stretchr/testify/require"
)

// TestParse runs the datadriven files in testdata/parse. Commands:
//
//	parse       ParseScript; prints each statement formatted, or the error
//	parse-stmt  ParseStatement; the same
//	ast         ParseScript; prints the tree with positions (Inspect)
//	split       Split; prints each segment's position and quoted text
//
// parse and parse-stmt also check that the output re-parses to itself and
// that every node has a position.
func TestParse(t *testing.T) {
	datadriven.Walk(t, "testdata/parse", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "parse":
				stmts, err := parser.ParseScript(d.Input)
				if err != nil {
					return formatError(t, err)
				}
				return formatStmts(t, stmts)
			case "parse-stmt":
				stmt, err := parser.ParseStatement(d.Input)
				if err != nil {
					return formatError(t, err)
				}
				return formatStmts(t, []ast.Statement{stmt})
			case "ast":
				stmts, err := parser.ParseScript(d.Input)
				if err != nil {
					return formatError(t, err)
				}
				var b strings.Builder
				for _, s := range stmts {
					dump(&b, s)
				}
				return b.String()
			case "split":
				var b strings.Builder
				for _, s := range parser.Split(d.Input) {
					fmt.Fprintf(&b, "%s: %q\n", s.Pos, s.Text)
				}
				return b.String()
			}
			d.Fatalf(t, "unknown command %q", d.Cmd)
			return ""
		})
	})
}

func formatError(t *testing.T, err error) string {
	e, ok := sqlerr.As(err)
	require.True(t, ok, "error is not a *sqlerr.Error: %v", err)
	require.True(t, e.Pos.IsValid(), "error without position: %v", err)
	code := ""
	if e.Code != sqlerr.Syntax {
		code = fmt.Sprintf(" (%s)", e.Code)
	}
	s := fmt.Sprintf("error%s at %s: %s\n", code, e.Pos, e.Message)
	if e.Hint != "" {
		s += "hint: " + e.Hint + "\n"
	}
	return s
}

func formatStmts(t *testing.T, stmts []ast.Statement) string {
	var b strings.Builder
	for _, s := range stmts {
		out := ast.Format(s)
		checkRoundTrip(t, out)
		checkPositions(t, s)
		b.WriteString(out)
		b.WriteString("\n")
	}
	return b.String()
}

// checkRoundTrip checks that formatted SQL parses and formats to itself.
func checkRoundTrip(t testing.TB, out string) {
	t.Helper()
	again, err := parser.ParseStatement(out)
	require.NoError(t, err, "formatted statement does not parse: %s", out)
	require.Equal(t, out, ast.Format(again), "format is not stable")
}

func checkPositions(t testing.TB, n ast.Node) {
	t.Helper()
	ast.Inspect(n, func(n ast.Node) bool {
		if n != nil {
			require.True(t, n.Pos().IsValid(), "%T has no position", n)
		}
		return true
	})
}

// dump prints a tree, one node per line, indented by depth.
func dump(b *strings.Builder, root ast.Node) {
	depth := 0
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			depth--
			return false
		}
		name := strings.TrimPrefix(fmt.Sprintf("%T", n), "*ast.")
		fmt.Fprintf(b, "%s%s %s%s\n", strings.Repeat("  ", depth), name, n.Pos(), detail(n))
		depth++
		return true
	})
}

func detail(n ast.Node) string {
	switch n := n.(type) {
	case *ast.Ident:
		return " " + n.Name
	case *ast.StringLit:
		return " " + ast.QuoteString(n.Value)
	case *ast.NumericLit:
		return " " + n.Text
	case *ast.TypeName:
		return " " + n.Text
	case *ast.Binary:
		return fmt.Sprintf(" %s (op at %s)", n.Op, n.OpPos)
	case *ast.Unary:
		return " " + n.Op.String()
	case *ast.ColumnDef:
		return " " + n.Kind.String()
	case *ast.Join:
		return fmt.Sprintf(" %s (at %s)", n.Type, n.JoinPos)
	case *ast.Distribution:
		if n.Buckets > 0 {
			return fmt.Sprintf(" %d buckets (at %s)", n.Buckets, n.BucketsPos)
		}
	}
	return ""
}

func TestSeedFiles(t *testing.T) {
	// Every file in testdata/parse is a datadriven file; make sure the
	// glob used for fuzz seeds finds them.
	files, err := filepath.Glob("testdata/parse/*")
	require.NoError(t, err)
	require.NotEmpty(t, files)
}
