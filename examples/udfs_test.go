package examples_test

import (
	"testing"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
	"github.com/eddy-sql/eddy/udf/udftest"
	"github.com/stretchr/testify/require"
)

func TestRegisterUserFunctions(t *testing.T) {
	r := udf.NewRegistry()
	require.NoError(t, examples.RegisterUserFunctions(r))
	require.Equal(t, []string{"com.github.nexmark.flink.udf.CountChar", "examples.CountChar", "examples.Head", "examples.Slugify", "examples.SplitWords", "examples.WeightedAvg"}, r.IDs())
	for name, f := range examples.UserFunctions() {
		require.NotEmpty(t, f.Description(), name)
	}
	require.ErrorContains(t, examples.RegisterUserFunctions(r), "already registered")
}

func TestCountChar(t *testing.T) {
	for _, c := range []struct {
		args []any
		want string
	}{
		{[]any{"abcabcc", "c"}, "3 : BIGINT NOT NULL"},
		{[]any{"abc", "cz"}, "1 : BIGINT NOT NULL"},
		{[]any{"", "c"}, "0 : BIGINT NOT NULL"},
		{[]any{"ééa", "é"}, "2 : BIGINT NOT NULL"},
		{[]any{udftest.Typed("STRING", nil), "c"}, "0 : BIGINT NOT NULL"},
	} {
		r, err := udftest.Call(examples.CountChar, c.args...)
		require.NoError(t, err)
		require.Equal(t, c.want, r.String(), "%v", c.args)
	}
	_, err := udftest.Call(examples.CountChar, "abc", "")
	require.ErrorContains(t, err, "empty")
	_, err = udftest.Call(examples.CountChar, "abc", udftest.Typed("STRING", nil))
	require.ErrorContains(t, err, "NULL")
}

func TestSlugify(t *testing.T) {
	for _, c := range []struct {
		args []any
		want string
	}{
		{[]any{"Hello, World!"}, "hello-world : STRING NOT NULL"},
		{[]any{"  Ünïcode   Straße 42 "}, "ünïcode-straße-42 : STRING NOT NULL"},
		{[]any{"a b", "_"}, "a_b : STRING NOT NULL"},
		{[]any{"!!!"}, " : STRING NOT NULL"},
		{[]any{udftest.Typed("STRING", nil)}, "<NULL> : STRING"},
	} {
		r, err := udftest.Call(examples.Slugify, c.args...)
		require.NoError(t, err)
		require.Equal(t, c.want, r.String(), "%v", c.args)
	}
}

func TestHead(t *testing.T) {
	arr := udftest.Typed("ARRAY<DOUBLE>", types.NewArray([]types.Value{types.NewFloat(1.5), types.NewFloat(2)}))
	r, err := udftest.Call(examples.Head, arr)
	require.NoError(t, err)
	require.Equal(t, "1.5 : DOUBLE", r.String())
	r, err = udftest.Call(examples.Head, udftest.Typed("ARRAY<INT>", types.NewArray([]types.Value{})))
	require.NoError(t, err)
	require.Equal(t, "<NULL> : INT", r.String())
	_, err = udftest.Call(examples.Head, "x")
	require.ErrorContains(t, err, "must be an ARRAY")
}

func TestSplitWords(t *testing.T) {
	rows, err := udftest.CallTable(examples.SplitWords, "Go, go GO!")
	require.NoError(t, err)
	require.Equal(t, "[Go, 1]\n[go, 2]\n[GO, 3]\n", rows.String())
	rows, err = udftest.CallTable(examples.SplitWords, "")
	require.NoError(t, err)
	require.Empty(t, rows.Rows)
}

func TestWeightedAvg(t *testing.T) {
	g, err := udftest.NewAggregate(examples.WeightedAvg, "DOUBLE", "BIGINT")
	require.NoError(t, err)
	require.NoError(t, g.Add(4.0, int64(10)))
	require.NoError(t, g.Add(1.0, int64(30)))
	require.NoError(t, g.Add(9.0, nil)) // a NULL weight does not count
	v, err := g.Value()
	require.NoError(t, err)
	require.Equal(t, types.NewFloat(1.75), v)
	require.NoError(t, g.Restore())
	require.NoError(t, g.Retract(1.0, int64(30)))
	v, err = g.Value()
	require.NoError(t, err)
	require.Equal(t, types.NewFloat(4), v)
	require.NoError(t, g.Retract(4.0, int64(10)))
	v, err = g.Value()
	require.NoError(t, err)
	require.True(t, v.IsNull())
}
