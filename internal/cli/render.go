package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/jedib0t/go-pretty/v6/text"
)

// layout is the shape of a bordered result table in the Flink SQL client's
// tableau style:
//
//	+----+----------+-----------+
//	| op | order_id |    status |
//	+----+----------+-----------+
//	| +I |      101 |   PENDING |
//	+----+----------+-----------+
//
// Every cell, the header included, is right-aligned. Cells wider than their
// column are cut with "..." (only streaming output, whose widths are fixed
// before the values are known, has such cells).
type layout struct {
	widths []int
}

// fitLayout returns the layout whose column widths are the widest of the
// header and the cells.
func fitLayout(header []string, rows [][]string) layout {
	l := layout{widths: make([]int, len(header))}
	for i, h := range header {
		l.widths[i] = cellWidth(h)
	}
	for _, r := range rows {
		for i, c := range r {
			l.widths[i] = max(l.widths[i], cellWidth(c))
		}
	}
	return l
}

// border appends "+----+---+".
func (l layout) border(b *strings.Builder) {
	b.WriteByte('+')
	for _, w := range l.widths {
		b.WriteString(strings.Repeat("-", w+2))
		b.WriteByte('+')
	}
	b.WriteByte('\n')
}

// row appends "| a | b |".
func (l layout) row(b *strings.Builder, cells []string) {
	b.WriteByte('|')
	for i, w := range l.widths {
		c := truncate(cleanCell(cells[i]), w)
		b.WriteByte(' ')
		b.WriteString(strings.Repeat(" ", w-text.StringWidthWithoutEscSequences(c)))
		b.WriteString(c)
		b.WriteString(" |")
	}
	b.WriteByte('\n')
}

// table appends the whole table: border, header, border, rows, border.
func (l layout) table(b *strings.Builder, header []string, rows [][]string) {
	l.border(b)
	l.row(b, header)
	l.border(b)
	for _, r := range rows {
		l.row(b, r)
	}
	l.border(b)
}

// writeTable writes a table fitted to its contents.
func writeTable(w io.Writer, header []string, rows [][]string) error {
	return writeTableMax(w, header, rows, 0)
}

// writeTableMax writes a table fitted to its contents, with columns at most
// maxWidth wide (0: no limit); longer cells are cut with "...".
func writeTableMax(w io.Writer, header []string, rows [][]string, maxWidth int) error {
	var b strings.Builder
	l := fitLayout(header, rows)
	if maxWidth > 0 {
		for i := range l.widths {
			l.widths[i] = min(l.widths[i], max(maxWidth, 4))
		}
	}
	l.table(&b, header, rows)
	_, err := io.WriteString(w, b.String())
	return err
}

// rowCount renders a row count the way the Flink SQL client does:
// "1 row" or "3 rows".
func rowCount(n int) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

func cellWidth(s string) int { return text.StringWidthWithoutEscSequences(cleanCell(s)) }

// cleanCell escapes control characters, which would break the table's
// lines, as Go escapes them ("\n", "\t", "\x1b").
func cleanCell(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !isControl(r) {
			b.WriteRune(r)
			continue
		}
		q := fmt.Sprintf("%q", string(r))
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// truncate cuts s to width w (in terminal cells), ending it with "...".
func truncate(s string, w int) string {
	if text.StringWidthWithoutEscSequences(s) <= w {
		return s
	}
	if w <= 3 {
		return strings.Repeat(".", w)
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		rw := text.RuneWidth(r)
		if used+rw > w-3 {
			break
		}
		b.WriteRune(r)
		used += rw
	}
	b.WriteString("...")
	return b.String()
}
