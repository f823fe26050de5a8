package expr

import (
	"testing"

	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// TestRegexCompiledOncePerCallSite checks that a literal pattern is
// compiled once, when the call is built, and never while rows are
// evaluated; a pattern read from a column is compiled when it changes
// (the one-entry cache of each call site).
func TestRegexCompiledOncePerCallSite(t *testing.T) {
	env := &testEnv{names: []string{"s", "p"}, cols: []types.Type{types.String, types.String}}
	before := regexCompiles.Load()
	var es []Expr
	for _, src := range []string{
		"(REGEXP s '^[a-z]+[0-9]{2}$')",
		"(REGEXP_EXTRACT s '([a-z]+)([0-9]+)' 2)",
		"(REGEXP_REPLACE s '[0-9]' '#')",
		"(STR_TO_MAP s ';' ':')",
	} {
		e, err := env.parse(src)
		require.NoError(t, err, src)
		es = append(es, e)
	}
	built := regexCompiles.Load() - before
	require.Equal(t, int64(5), built, "one compilation per literal pattern")
	for i := range 1000 {
		row := []types.Value{types.NewString("order" + string(rune('0'+i%10)) + "2"), types.NewString("x")}
		for _, e := range es {
			_, err := e.Eval(row)
			require.NoError(t, err)
		}
	}
	require.Equal(t, built, regexCompiles.Load()-before, "evaluation compiles nothing")

	col, err := env.parse("(REGEXP s p)")
	require.NoError(t, err)
	start := regexCompiles.Load()
	for i := range 100 {
		p := "a+"
		if i >= 50 {
			p = "b+"
		}
		_, err := col.Eval([]types.Value{types.NewString("aab"), types.NewString(p)})
		require.NoError(t, err)
	}
	require.Equal(t, int64(2), regexCompiles.Load()-start, "a column pattern is compiled when it changes")
}
