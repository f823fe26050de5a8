package engine_test

import (
	"fmt"
	"math/big"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// expectedBlock is one "# result:" block of an acceptance .expected file
// (see /work/shared/acceptance/README.md).
type expectedBlock struct {
	mode   string
	keys   []string
	header []string
	rows   [][]string
}

// parseExpected reads the blocks of an .expected file.
func parseExpected(src string) ([]expectedBlock, error) {
	var blocks []expectedBlock
	for line := range strings.Lines(src) {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, "# result:"):
			blocks = append(blocks, expectedBlock{mode: strings.TrimSpace(strings.TrimPrefix(line, "# result:"))})
		case len(blocks) == 0:
			return nil, fmt.Errorf("line %q before the first '# result:'", line)
		case strings.HasPrefix(line, "# keys:"):
			b := &blocks[len(blocks)-1]
			for _, k := range strings.Split(strings.TrimPrefix(line, "# keys:"), ",") {
				b.keys = append(b.keys, strings.TrimSpace(k))
			}
		case strings.HasPrefix(line, "#"):
		default:
			b := &blocks[len(blocks)-1]
			cells := splitCells(line)
			if b.header == nil {
				b.header = cells
			} else {
				b.rows = append(b.rows, cells)
			}
		}
	}
	return blocks, nil
}

func splitCells(line string) []string {
	cells := strings.Split(line, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// checkExpected compares a result with block N of an .expected file; spec
// is "NAME:N".
func checkExpected(spec, mode string, rs *cli.RowStream, rows []types.Row) error {
	name, n, ok := strings.Cut(spec, ":")
	idx, err := strconv.Atoi(n)
	if !ok || err != nil || idx < 1 {
		return fmt.Errorf("expected=%s: want NAME:N", spec)
	}
	src, err := os.ReadFile(expectedPath(name))
	if err != nil {
		return err
	}
	blocks, err := parseExpected(string(src))
	if err != nil {
		return err
	}
	if idx > len(blocks) {
		return fmt.Errorf("%s has only %d blocks", name, len(blocks))
	}
	header, cells := resultCells(rs, rows, mode)
	return compareBlock(blocks[idx-1], mode, header, cells)
}

// resultCells returns the header and rows of a result as an .expected file
// shows them: with an op column in changelog mode, materialized in table
// mode.
func resultCells(rs *cli.RowStream, rows []types.Row, mode string) (header []string, cells [][]string) {
	header = rs.Schema.Names()
	if mode == "changelog" {
		header = append([]string{"op"}, header...)
		for _, r := range rows {
			cells = append(cells, append([]string{r.Kind.String()}, formatCells(rs.Schema, r.Values)...))
		}
		return header, cells
	}
	return header, materialize(rs, rows)
}

// compareBlock compares rows per key: rows of one key in order, keys in
// any order.
func compareBlock(b expectedBlock, mode string, header []string, rows [][]string) error {
	if b.mode != mode {
		return fmt.Errorf("the block is in %s mode, the query ran in %s mode", b.mode, mode)
	}
	if !slices.EqualFunc(b.header, header, strings.EqualFold) {
		return fmt.Errorf("header %v, want %v", header, b.header)
	}
	var keyIdx []int
	for _, k := range b.keys {
		i := slices.IndexFunc(header, func(h string) bool { return strings.EqualFold(h, k) })
		if i < 0 {
			return fmt.Errorf("key column %s is not in the header %v", k, header)
		}
		keyIdx = append(keyIdx, i)
	}
	want, err := groupByKey(b.rows, keyIdx, len(header))
	if err != nil {
		return fmt.Errorf("expected rows: %w", err)
	}
	got, err := groupByKey(rows, keyIdx, len(header))
	if err != nil {
		return fmt.Errorf("result rows: %w", err)
	}
	for k, w := range want {
		if g := got[k]; !slices.Equal(g, w) {
			return fmt.Errorf("key [%s]: got rows %q, want %q", k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			return fmt.Errorf("unexpected key [%s] with rows %q", k, g)
		}
	}
	return nil
}

// groupByKey canonicalizes rows and groups them by their key cells, in
// order within a key.
func groupByKey(rows [][]string, keyIdx []int, width int) (map[string][]string, error) {
	out := map[string][]string{}
	for _, r := range rows {
		if len(r) != width {
			return nil, fmt.Errorf("row %q has %d cells, want %d", r, len(r), width)
		}
		canon := make([]string, len(r))
		for i, c := range r {
			canon[i] = canonical(c)
		}
		var key []string
		for _, i := range keyIdx {
			key = append(key, canon[i])
		}
		k := strings.Join(key, " | ")
		out[k] = append(out[k], strings.Join(canon, " | "))
	}
	return out, nil
}

var timestampRE = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?$`)

// canonical maps equal values to one text: numbers by value, NULL spelled
// one way, booleans upper case, timestamps with a blank and without a zero
// fraction.
func canonical(v string) string {
	v = strings.TrimSpace(v)
	switch up := strings.ToUpper(v); up {
	case "NULL", "<NULL>":
		return "NULL"
	case "TRUE", "FALSE":
		return up
	}
	if m := timestampRE.FindStringSubmatch(v); m != nil {
		frac := strings.TrimRight(m[3], "0")
		if frac == "." {
			frac = ""
		}
		return m[1] + " " + m[2] + frac
	}
	if r, ok := new(big.Rat).SetString(v); ok && !strings.Contains(v, "/") {
		return r.RatString()
	}
	return v
}

// TestCompareBlock checks the comparison rules on their own, so that a
// lenient comparison cannot hide a wrong result.
func TestCompareBlock(t *testing.T) {
	blocks, err := parseExpected(`
# result: changelog
# keys: k
op | k | v | ts
+I | 1 | 1.50 | 2026-08-01 09:00:00.000
+U | 1 | null | 2026-08-01 09:00:01.500
+I | 2 | true | 2026-08-01T09:00:02
`)
	require.NoError(t, err)
	require.Len(t, blocks, 1)
	header := []string{"OP", "K", "V", "TS"}
	same := [][]string{
		{"+I", "2", "TRUE", "2026-08-01 09:00:02.000"},
		{"+I", "1", "1.5", "2026-08-01T09:00:00"},
		{"+U", "1", "<NULL>", "2026-08-01 09:00:01.5"},
	}
	require.NoError(t, compareBlock(blocks[0], "changelog", header, same))

	for name, rows := range map[string][][]string{
		"order within a key": {same[0], same[2], same[1]},
		"missing row":        same[:2],
		"extra key":          append(slices.Clone(same), []string{"+I", "3", "1", "2026-08-01 09:00:00"}),
		"other value":        {same[0], {"+I", "1", "1.51", "2026-08-01 09:00:00"}, same[2]},
		"other kind":         {same[0], {"-U", "1", "1.5", "2026-08-01 09:00:00"}, same[2]},
		"text vs NULL":       {same[0], same[1], {"+U", "1", "", "2026-08-01 09:00:01.5"}},
	} {
		require.Error(t, compareBlock(blocks[0], "changelog", header, rows), name)
	}
	require.Error(t, compareBlock(blocks[0], "table", header, same), "mode")
	require.Error(t, compareBlock(blocks[0], "changelog", []string{"op", "k", "w", "ts"}, same), "header")
}
