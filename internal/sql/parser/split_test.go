package parser_test

import (
	"testing"

	"github.com/eddy-sql/eddy/internal/sql/parser"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/stretchr/testify/require"
)

func TestSplitPositions(t *testing.T) {
	src := "  SELECT 1;\n\t-- c\n   SELECT\n  2 ;  ünï ; "
	segs := parser.Split(src)
	require.Equal(t, []parser.Segment{
		{Text: "SELECT 1", Pos: sqlerr.Pos{Line: 1, Col: 3}},
		{Text: "SELECT\n  2", Pos: sqlerr.Pos{Line: 3, Col: 4}},
		{Text: "ünï", Pos: sqlerr.Pos{Line: 4, Col: 8}},
	}, segs)
	require.Empty(t, parser.Split(" ; -- x\n /* y */ ;"))
}

// TestSplitThenParse checks the shell's path: errors in a segment, shifted
// with sqlerr.Offset, point at the same place as errors from ParseScript.
func TestSplitThenParse(t *testing.T) {
	src := "SELECT 1;\n  SELECT a\n    FORM t;\nSELECT 3"
	_, scriptErr := parser.ParseScript(src)
	want, ok := sqlerr.As(scriptErr)
	require.True(t, ok)
	require.Equal(t, sqlerr.Pos{Line: 3, Col: 5}, want.Pos)

	segs := parser.Split(src)
	require.Len(t, segs, 3)
	_, err := parser.ParseStatement(segs[1].Text)
	got, ok := sqlerr.As(err)
	require.True(t, ok)
	require.Equal(t, sqlerr.Syntax, got.Code)
	require.Equal(t, want.Pos, sqlerr.Offset(got.Pos, segs[1].Pos))
	require.Equal(t, want.Message, got.Message)
}
