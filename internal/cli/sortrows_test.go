package cli

import (
	"testing"

	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func TestSortRows(t *testing.T) {
	row := func(k string, v types.Value) []types.Value { return []types.Value{types.NewString(k), v} }
	rows := [][]types.Value{row("a", types.NewInt(2)), row("b", types.Null), row("c", types.NewInt(1)), row("d", types.NewInt(2))}
	names := func(rs [][]types.Value) string {
		s := ""
		for _, r := range rs {
			s += r[0].Str()
		}
		return s
	}
	require.Equal(t, "abcd", names(sortRows(rows, nil, nil)))
	require.Equal(t, "bcad", names(sortRows(rows, nil, []SortKey{{Col: 1, NullsFirst: true}})), "ties keep their order")
	require.Equal(t, "adcb", names(sortRows(rows, nil, []SortKey{{Col: 1, Desc: true}})))
	require.Equal(t, "dacb", names(sortRows(rows, nil, []SortKey{{Col: 1, Desc: true}, {Col: 0, Desc: true}})))
	require.Equal(t, "abcd", names(rows), "the input is not changed")
}
