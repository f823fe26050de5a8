package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/types"
)

// maxColumnWidth is the width of columns whose values have no natural
// bound (strings, floats, nested types) in streaming output, as the Flink
// SQL client's sql-client.display.max-column-width.
const maxColumnWidth = 30

// typeWidth returns the column width the Flink SQL client reserves for a
// type in streaming output, where widths are fixed before the first row.
func typeWidth(t types.Type) int { return typeWidthMax(t, maxColumnWidth) }

// typeWidthMax is typeWidth with sql-client.display.max-column-width =
// maxWidth: the width of types without a natural bound.
func typeWidthMax(t types.Type, maxWidth int) int {
	switch t.ID {
	case types.TypeTinyInt:
		return 4
	case types.TypeSmallInt:
		return 6
	case types.TypeInt:
		return 11
	case types.TypeBigInt:
		return 20
	case types.TypeDecimal:
		return t.Precision + 2 // sign and point
	case types.TypeBoolean:
		return 5
	case types.TypeDate:
		return 10
	case types.TypeTime:
		return clockWidth(8, t.Precision)
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		return clockWidth(19, t.Precision)
	case types.TypeChar, types.TypeVarChar:
		if t.Length > 0 && t.Length < maxWidth {
			return t.Length
		}
	}
	return maxWidth
}

func clockWidth(base, precision int) int {
	if precision > 0 {
		return base + 1 + precision
	}
	return base
}

// streamLayout is the layout of a changelog streamed as it arrives: an op
// column and one column per field, each as wide as its name, its type's
// width and "<NULL>".
func streamLayout(s *types.Schema, maxWidth int) layout {
	l := layout{widths: []int{2}}
	if s == nil {
		return l
	}
	for _, f := range s.Fields {
		l.widths = append(l.widths, max(cellWidth(f.Name), min(typeWidthMax(f.Type, maxWidth), maxWidth), len("<NULL>")))
	}
	return l
}

// streamChanges prints the changes of a stream as they arrive, Flink
// tableau style: the header before the first row, one line per change, and
// a footer at the end. When ctx is cancelled (Ctrl-C) it ends the table
// with "Query terminated, received a total of N rows". An empty stream
// prints "Empty set". On a terminal (tty) the end starts with a carriage
// return, to write over the "^C" that the terminal echoed.
func streamChanges(ctx context.Context, w io.Writer, rs *RowStream, tty bool) error {
	return streamChangesWidth(ctx, w, rs, tty, maxColumnWidth)
}

// streamChangesWidth is streamChanges with columns at most maxWidth wide
// (sql-client.display.max-column-width).
func streamChangesWidth(ctx context.Context, w io.Writer, rs *RowStream, tty bool, maxWidth int) error {
	l := streamLayout(rs.Schema, maxWidth)
	n := 0
	err := forEach(ctx, rs, func(r types.Row) {
		var b strings.Builder
		if n == 0 {
			l.border(&b)
			l.row(&b, opHeader(rs.Schema))
			l.border(&b)
		}
		l.row(&b, changeCells(rs.Schema, r))
		io.WriteString(w, b.String())
		n++
	})
	if err != nil && ctx.Err() == nil {
		return err
	}
	var b strings.Builder
	if tty && ctx.Err() != nil {
		b.WriteByte('\r')
	}
	if n > 0 {
		l.border(&b)
	}
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(&b, "Query terminated, received a total of %s\n", rowCount(n))
	case n == 0:
		b.WriteString("Empty set\n")
	default:
		fmt.Fprintf(&b, "Received a total of %s\n", rowCount(n))
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// liveView redraws a block of text in place on a terminal. It remembers
// how many screen lines it drew last and moves the cursor back over them.
type liveView struct {
	w     io.Writer
	size  func() (width, height int)
	lines int
}

// draw replaces what the view drew last with content (lines ending in
// "\n").
func (v *liveView) draw(content string) {
	width, _ := v.size()
	var b strings.Builder
	v.erase(&b)
	b.WriteString(content)
	io.WriteString(v.w, b.String())
	v.lines = screenLines(content, width)
}

// clear erases what the view drew last.
func (v *liveView) clear() {
	var b strings.Builder
	v.erase(&b)
	io.WriteString(v.w, b.String())
	v.lines = 0
}

func (v *liveView) erase(b *strings.Builder) {
	if v.lines > 0 {
		fmt.Fprintf(b, "\x1b[%dF", v.lines) // to the start of the first line drawn
	}
	b.WriteString("\x1b[J") // clear to the end of the screen
}

// screenLines counts the terminal lines content takes, wrapped lines
// included.
func screenLines(content string, width int) int {
	n := 0
	for line := range strings.Lines(content) {
		w := cellWidth(strings.TrimSuffix(line, "\n"))
		if width <= 0 || w <= width {
			n++
		} else {
			n += (w + width - 1) / width
		}
	}
	return n
}

// refreshInterval is how often a live table is redrawn while rows arrive.
const refreshInterval = 100 * time.Millisecond

// liveTable materializes a stream and redraws the table in place as rows
// arrive (the table result mode on a terminal). When the stream ends or ctx
// is cancelled it leaves the final table, in full, on the screen.
func liveTable(ctx context.Context, v *liveView, rs *RowStream) error {
	m := newMaterializer(rs.Key)
	changes := pull(ctx, rs)
	tick := time.NewTicker(refreshInterval)
	defer tick.Stop()
	dirty := true
	var err error
	for done := false; !done; {
		select {
		case c, ok := <-changes:
			switch {
			case !ok:
				done = true
			case c.err != nil:
				err = c.err
			default:
				m.Apply(c.row)
				dirty = true
			}
		case <-tick.C:
			if dirty {
				v.draw(liveContent(rs.Schema, m, v.size))
				dirty = false
			}
		}
	}
	v.clear()
	if err != nil && ctx.Err() == nil {
		return err
	}
	prefix := ""
	if ctx.Err() != nil {
		prefix = "Query terminated, "
	}
	return printTable(v.w, rs.Schema, sortRows(m.Rows(), rs.Schema, rs.Order), prefix)
}

// liveContent renders the table for a redraw, cut to the terminal height.
func liveContent(s *types.Schema, m *materializer, size func() (int, int)) string {
	_, height := size()
	rows := m.Rows()
	shown := rows
	if room := height - 6; room >= 1 && len(rows) > room { // borders, header, status
		shown = rows[:room]
	}
	cells := make([][]string, len(shown))
	for i, r := range shown {
		cells[i] = formatRow(s, r)
	}
	var b strings.Builder
	fitLayout(schemaNames(s), cells).table(&b, schemaNames(s), cells)
	status := rowCount(len(rows))
	if len(shown) < len(rows) {
		status += fmt.Sprintf(" (%d not shown)", len(rows)-len(shown))
	}
	fmt.Fprintf(&b, "%s, updating. Press Ctrl-C to stop.\n", status)
	return b.String()
}

// change is one item pulled from a stream.
type change struct {
	row types.Row
	err error
}

// pull reads a stream in a goroutine and sends its changes, then closes
// the channel. The goroutine ends at the end of the stream, at the first
// error or when ctx is done (Next returns when ctx is done); the caller owns
// it by reading the channel until it is closed.
func pull(ctx context.Context, rs *RowStream) <-chan change {
	out := make(chan change, 64)
	go func() {
		defer close(out)
		if rs.Next == nil {
			return
		}
		for {
			row, ok, err := rs.Next(ctx)
			if !ok && err == nil {
				return
			}
			select {
			case out <- change{row: row, err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out
}
