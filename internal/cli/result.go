package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// ResultModeKey is the session configuration key that selects how SELECT
// results are shown, as in the Flink SQL client.
const ResultModeKey = "sql-client.execution.result-mode"

// resultMode is a value of ResultModeKey.
type resultMode int

const (
	// resultTable materializes the changelog and shows the final table.
	resultTable resultMode = iota
	// resultChangelog shows every change with an op column.
	resultChangelog
	// resultTableau is the Flink SQL client's streaming print mode; Eddy
	// shows it as the changelog mode.
	resultTableau
)

// resultModeOf reads the result mode from the session configuration. The
// older Flink key execution.result-mode is honoured too; anything unknown
// means table.
func resultModeOf(cfg map[string]string) resultMode {
	v, ok := cfg[ResultModeKey]
	if !ok {
		v = cfg["execution.result-mode"]
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "changelog":
		return resultChangelog
	case "tableau":
		return resultTableau
	}
	return resultTable
}

// infoLine renders a statement's message as "[INFO] message".
func infoLine(msg string) string {
	if strings.HasPrefix(msg, "[") { // already tagged by the engine
		return msg
	}
	return "[INFO] " + msg
}

// closeStream releases a row stream; Close is optional.
func closeStream(rs *RowStream) {
	if rs.Close != nil {
		rs.Close()
	}
}

// printResult prints a statement's result as a script does: the message,
// then the rows, read to the end of the (bounded) stream. It closes the
// stream.
func printResult(ctx context.Context, w io.Writer, res *Result, mode resultMode, quiet bool, maxWidth int) error {
	if res == nil {
		return nil
	}
	if res.Message != "" && !quiet {
		fmt.Fprintln(w, infoLine(res.Message))
	}
	if res.Rows == nil {
		return nil
	}
	rs := res.Rows
	defer closeStream(rs)
	switch {
	case rs.Static:
		return printStatic(ctx, w, rs, maxWidth)
	case mode == resultTable:
		m := newMaterializer(rs.Key)
		if err := forEach(ctx, rs, m.Apply); err != nil {
			return err
		}
		return printTableMax(w, rs.Schema, sortRows(m.Rows(), rs.Schema, rs.Order), "", maxWidth)
	default:
		var rows []types.Row
		if err := forEach(ctx, rs, func(r types.Row) { rows = append(rows, r) }); err != nil {
			return err
		}
		return printChangelogMax(w, rs.Schema, rows, maxWidth)
	}
}

// forEach calls f for every row of a bounded stream.
func forEach(ctx context.Context, rs *RowStream, f func(types.Row)) error {
	if rs.Next == nil {
		return nil
	}
	for {
		row, ok, err := rs.Next(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		f(row)
	}
}

// printStatic prints SHOW/DESCRIBE/EXPLAIN output. A single column whose
// values span lines (an EXPLAIN plan) is printed as plain text.
func printStatic(ctx context.Context, w io.Writer, rs *RowStream, maxWidth int) error {
	var rows [][]types.Value
	if err := forEach(ctx, rs, func(r types.Row) { rows = append(rows, r.Values) }); err != nil {
		return err
	}
	if isPlainText(rs.Schema, rows) {
		for _, r := range rows {
			fmt.Fprintln(w, strings.TrimRight(r[0].Str(), "\n"))
		}
		return nil
	}
	return printTableMax(w, rs.Schema, rows, "", maxWidth)
}

func isPlainText(s *types.Schema, rows [][]types.Value) bool {
	if s == nil || s.Len() != 1 {
		return false
	}
	for _, r := range rows {
		if len(r) > 0 && r[0].Kind() == types.KindString && strings.Contains(r[0].Str(), "\n") {
			return true
		}
	}
	return false
}

// printTable prints rows without an op column and the "N rows in set"
// footer, or "Empty set". prefix goes before the footer ("Query terminated, ").
func printTable(w io.Writer, s *types.Schema, rows [][]types.Value, prefix string) error {
	return printTableMax(w, s, rows, prefix, 0)
}

// printTableMax is printTable with columns at most maxWidth wide (0: no
// limit).
func printTableMax(w io.Writer, s *types.Schema, rows [][]types.Value, prefix string, maxWidth int) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, prefix+"Empty set")
		return err
	}
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = formatRow(s, r)
	}
	if err := writeTableMax(w, schemaNames(s), cells, maxWidth); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%s%s in set\n", prefix, rowCount(len(rows)))
	return err
}

// printChangelog prints every change with an op column and the "Received a
// total of N rows" footer, or "Empty set".
func printChangelog(w io.Writer, s *types.Schema, rows []types.Row) error {
	return printChangelogMax(w, s, rows, 0)
}

// printChangelogMax is printChangelog with columns at most maxWidth wide
// (0: no limit).
func printChangelogMax(w io.Writer, s *types.Schema, rows []types.Row, maxWidth int) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "Empty set")
		return err
	}
	cells := make([][]string, len(rows))
	for i, r := range rows {
		cells[i] = changeCells(s, r)
	}
	if err := writeTableMax(w, opHeader(s), cells, maxWidth); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "Received a total of %s\n", rowCount(len(rows)))
	return err
}

// schemaNames returns the column names; a nil schema has none.
func schemaNames(s *types.Schema) []string {
	if s == nil {
		return nil
	}
	return s.Names()
}

func opHeader(s *types.Schema) []string { return append([]string{"op"}, schemaNames(s)...) }

func changeCells(s *types.Schema, r types.Row) []string {
	return append([]string{r.Kind.String()}, formatRow(s, r.Values)...)
}

// formatRow formats the values of a row with the schema's column types.
// Missing values (a key-only delete) show as NULL.
func formatRow(s *types.Schema, values []types.Value) []string {
	n := 0
	if s != nil {
		n = s.Len()
	}
	out := make([]string, n)
	for i := range out {
		v := types.Null
		if i < len(values) {
			v = values[i]
		}
		out[i] = types.Format(v, s.Fields[i].Type)
	}
	return out
}

// MaxColumnWidthKey is the session key of the widest column the shell
// prints, as in the Flink SQL client (default 30). Longer values are cut.
// It applies to streamed results and the result view; tables fitted to
// their rows (scripts, SHOW, DESCRIBE) are cut only when it is set.
const MaxColumnWidthKey = "sql-client.display.max-column-width"

// maxColumnWidthOf returns the session's max column width and whether it
// was set; an unreadable value counts as not set.
func maxColumnWidthOf(cfg map[string]string) (int, bool) {
	if cfg == nil {
		return maxColumnWidth, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(cfg[MaxColumnWidthKey]))
	if err != nil || n < 1 {
		return maxColumnWidth, false
	}
	return n, true
}

// fittedMaxWidth is the column limit of fitted tables: the session's
// max-column-width when set, none otherwise.
func fittedMaxWidth(cfg map[string]string) int {
	if n, set := maxColumnWidthOf(cfg); set {
		return n
	}
	return 0
}
