package cli

import (
	"testing"

	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// TestRenderResultValue: results API values render as the shell prints
// them: ARRAY [a, b], MAP and MULTISET {k=v}, ROW (a, b).
func TestRenderResultValue(t *testing.T) {
	for _, c := range []struct {
		v    any
		typ  string
		want string
	}{
		{[]any{"1", nil}, "ARRAY<INT>", "[1, NULL]"},
		{[]any{[]any{"a", "1"}, []any{"b", nil}}, "MAP<STRING, INT>", "{a=1, b=NULL}"},
		{[]any{[]any{"x", "2"}, []any{"y", "1"}}, "MULTISET<STRING>", "{x=2, y=1}"},
		{[]any{"1", []any{"p"}}, "ROW<a INT, b ARRAY<STRING>>", "(1, [p])"},
		{nil, "INT", "NULL"},
	} {
		require.Equal(t, c.want, renderResultValue(c.v, types.MustParseType(c.typ)), c.typ)
	}
}
