package ast_test

import (
	"testing"

	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/stretchr/testify/require"
)

func TestQuoteIdent(t *testing.T) {
	for in, want := range map[string]string{
		"a":        "a",
		"MyCol":    "MyCol",
		"_x1":      "_x1",
		"value":    "`value`",
		"Select":   "`Select`",
		"map":      "`map`",
		"a b":      "`a b`",
		"1a":       "`1a`",
		"back`tik": "`back``tik`",
		"$rowtime": "`$rowtime`",
		"日本":       "`日本`",
		"status":   "status",
	} {
		require.Equal(t, want, ast.QuoteIdent(in), in)
	}
	require.Equal(t, "'it''s'", ast.QuoteString("it's"))
	require.True(t, ast.IsReserved("from"))
	require.False(t, ast.IsReserved("watermark"))
	require.True(t, ast.IsReservedFunc("count"))
	require.True(t, ast.IsNiladicFunc("current_timestamp"))
}

func id(name string, col int) *ast.Ident {
	return &ast.Ident{Loc: ast.Loc{Start: sqlerr.Pos{Line: 1, Col: col}}, Name: name}
}

// TestFormatBuilt formats a tree built by hand, as the planner might when
// it rewrites statements.
func TestFormatBuilt(t *testing.T) {
	sum := &ast.Binary{Op: ast.OpAdd, X: &ast.ColumnRef{Parts: []*ast.Ident{id("a", 8)}},
		Y: &ast.NumericLit{Text: "1"}}
	sel := &ast.Select{
		Items: []*ast.SelectItem{
			{Expr: &ast.Binary{Op: ast.OpMul, X: sum, Y: &ast.NumericLit{Text: "-2"}}, Alias: id("from", 20)},
			{Expr: &ast.Star{}},
		},
		From: &ast.TableName{Name: &ast.ObjectName{Parts: []*ast.Ident{id("db", 1), id("t", 4)}}},
		Where: &ast.Unary{Op: ast.OpNot, X: &ast.Binary{Op: ast.OpOr,
			X: &ast.BoolLit{Value: true}, Y: &ast.NullLit{}}},
	}
	require.Equal(t, "SELECT (a + 1) * -2 AS `from`, * FROM db.t WHERE NOT (TRUE OR NULL)", ast.Format(sel))
	require.Equal(t, "a + 1", ast.Format(sum))
}

func TestInspect(t *testing.T) {
	x := &ast.ColumnRef{Parts: []*ast.Ident{id("a", 1), id("b", 3)}}
	call := &ast.FuncCall{Name: &ast.ObjectName{Parts: []*ast.Ident{id("f", 5)}}, Args: []ast.Expr{x}}
	var seen []string
	ast.Inspect(call, func(n ast.Node) bool {
		switch n := n.(type) {
		case nil:
			seen = append(seen, "end")
		case *ast.Ident:
			seen = append(seen, n.Name)
		case *ast.ColumnRef:
			seen = append(seen, "ref")
			return false // skip the parts
		default:
			seen = append(seen, ast.Format(n))
		}
		return true
	})
	require.Equal(t, []string{"f(a.b)", "f", "f", "end", "end", "ref", "end"}, seen)
}
