package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

func viewWithRows(t *testing.T, n int) *resultView {
	t.Helper()
	s := types.NewSchema(types.Field{Name: "k", Type: types.Int}, types.Field{Name: "s", Type: types.String})
	v := newResultView(s, nil, resultTable, "", 8)
	for i := range n {
		v.add(types.Row{Kind: types.Insert, Values: []types.Value{types.NewInt(int64(i + 1)), types.NewString("long-value")}})
	}
	v.snapshot(time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC))
	return v
}

func TestResultViewPages(t *testing.T) {
	v := viewWithRows(t, 60) // pages of 24 on 30 lines
	const h = 30
	require.Equal(t, 3, v.pageCount(h))
	require.Equal(t, 3, v.currentPage(h))
	require.Len(t, v.visible(h), 12)
	for _, step := range []struct {
		key  string
		page int
	}{{"p", 2}, {"P", 1}, {"p", 1}, {"n", 2}, {"l", 3}, {"n", 3}} {
		v.key(step.key, h)
		require.Equal(t, step.page, v.currentPage(h), "after %q", step.key)
	}
	v.key("g", h)
	for _, k := range []string{"9", "backspace", "1", "enter"} {
		v.key(k, h)
	}
	require.Equal(t, 1, v.currentPage(h))
	require.Equal(t, "1", v.visible(h)[0][0])
	// A page that does not exist is not taken.
	v.key("g", h)
	v.key("7", h)
	v.key("enter", h)
	require.Equal(t, 1, v.currentPage(h))

	screen := strings.Join(v.render(100, h), "\n")
	require.Contains(t, screen, "SQL Query Result (Table)")
	require.Contains(t, screen, "Page: 1 of 3")
	require.Contains(t, screen, "Updated: 10:00:00.000")
	require.Contains(t, screen, "long-va~") // max-column-width 8, Flink's '~'

	// Selection, the row view, back, and the changelog mode.
	v.key("s", h)
	v.key("s", h)
	v.key("o", h)
	row := strings.Join(v.render(100, h), "\n")
	require.Contains(t, row, "Row Summary")
	require.Contains(t, row, " k (INT): 2")
	v.key("q", h)
	require.False(t, v.quit)
	v.key("m", h)
	require.Contains(t, strings.Join(v.render(100, h), "\n"), "SQL Query Result (Changelog)")
	v.key("+", h)
	require.Equal(t, "5 s", refreshIntervals[v.refresh].name)
	v.key("esc", h)
	require.True(t, v.quit)
}

func TestParseKeys(t *testing.T) {
	require.Equal(t, []string{"q", "up", "down", "left", "right", "end", "f5", "enter", "esc", "ctrl-c", "backspace"},
		parseKeys([]byte("q\x1b[A\x1b[B\x1b[D\x1b[C\x1b[F\x1b[15~\r\x1b\x03\x7f")))
	require.Equal(t, []string{"esc", "x"}, parseKeys([]byte("\x1bx")))
}

func TestNormalizeColumn(t *testing.T) {
	require.Equal(t, "   ab", normalizeColumn("ab", 5))
	require.Equal(t, "abcd~", normalizeColumn("abcdefgh", 5))
}
