package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/types"
	"github.com/jedib0t/go-pretty/v6/text"
)

// resultView is the full-screen result view of the shell, as the Flink SQL
// client's CliTableResultView and CliChangelogResultView: a title, a status
// line (refresh interval, page, last update), the column names, a page of
// rows and two lines of key help. It is a plain model: keys change it and
// render draws it for a screen size; viewRun (view_run.go) connects it to
// the terminal and the stream.
//
// Keys, as Flink's (and M from Confluent's shell):
//
//	Q, Esc, Ctrl-C  quit                 R, F5        refresh now
//	W, Up / S, Down select a row         A, Left / D, Right  scroll sideways
//	O, Enter        open the selected row (Q goes back)
//	+ / -           refresh less / more often
//	N / P / L / G   next, previous, last page, go to page (table mode)
//	M               switch between table and changelog mode
type resultView struct {
	schema *types.Schema
	mode   resultMode // resultTable or resultChangelog
	name   string     // the statement shown, on a server ("" embedded)
	// maxWidth is sql-client.display.max-column-width.
	maxWidth int

	table   *materializer // every change applied
	changes []types.Row   // the latest maxChangelogRows changes
	total   int           // changes received
	done    bool          // the stream ended

	// The snapshot shown, taken at the last refresh.
	snapTable   [][]types.Value
	snapChanges []types.Row
	updated     time.Time

	refresh  int // index into refreshIntervals
	page     int // 1-based; lastPage follows the end
	selected int // index into the visible rows; noRow for none
	offsetX  int // horizontal scroll, in cells
	offsetY  int // first changelog row shown
	follow   bool
	open     bool   // the row view is open
	gotoText string // the page number being typed after G
	inGoto   bool
	quit     bool
}

const (
	lastPage = 0
	noRow    = -1
	// maxChangelogRows is how many changes the changelog view keeps, as
	// Flink's DEFAULT_MAX_ROW_COUNT.
	maxChangelogRows = 1000
)

// refreshIntervals are Flink's: the view takes a new snapshot this often.
var refreshIntervals = []struct {
	name  string
	every time.Duration // 0: as fast as possible; -1: never
}{
	{"Fastest", 0}, {"100 ms", 100 * time.Millisecond}, {"500 ms", 500 * time.Millisecond},
	{"1 s", time.Second}, {"5 s", 5 * time.Second}, {"10 s", 10 * time.Second},
	{"1 min", time.Minute}, {"-", -1},
}

func newResultView(s *types.Schema, key []int, mode resultMode, name string, maxWidth int) *resultView {
	v := &resultView{schema: s, mode: mode, name: name, maxWidth: maxWidth, table: newMaterializer(key),
		page: lastPage, selected: noRow, follow: true}
	v.refresh = 3 // 1 s, Flink's table default
	if mode == resultChangelog {
		v.refresh = 0 // as fast as possible, Flink's changelog default
	}
	return v
}

// add applies a change.
func (v *resultView) add(r types.Row) {
	v.table.Apply(r)
	if len(v.changes) == maxChangelogRows {
		copy(v.changes, v.changes[1:])
		v.changes = v.changes[:len(v.changes)-1]
		if v.offsetY > 0 {
			v.offsetY--
		}
	}
	v.changes = append(v.changes, r)
	v.total++
}

// snapshot takes what the view shows from the data received so far.
func (v *resultView) snapshot(now time.Time) {
	v.snapTable = v.table.Rows()
	v.snapChanges = append(v.snapChanges[:0], v.changes...)
	v.updated = now
}

// every returns the refresh interval.
func (v *resultView) every() time.Duration { return refreshIntervals[v.refresh].every }

// mainHeight is the number of row lines on a screen of height h: title,
// status, blank, column names and two help lines take six.
func mainHeight(h int) int { return max(1, h-6) }

// pageCount returns the number of pages of the table for height h.
func (v *resultView) pageCount(h int) int {
	n := len(v.snapTable)
	ps := mainHeight(h)
	return max(1, (n+ps-1)/ps)
}

// currentPage returns the 1-based page shown.
func (v *resultView) currentPage(h int) int {
	if v.page == lastPage || v.page > v.pageCount(h) {
		return v.pageCount(h)
	}
	return v.page
}

// visible returns the cells of the rows shown (op column first in
// changelog mode).
func (v *resultView) visible(h int) [][]string {
	ps := mainHeight(h)
	var out [][]string
	if v.mode == resultTable {
		p := v.currentPage(h)
		lo := min((p-1)*ps, len(v.snapTable))
		hi := min(lo+ps, len(v.snapTable))
		for _, r := range v.snapTable[lo:hi] {
			out = append(out, formatRow(v.schema, r))
		}
		return out
	}
	if v.follow {
		v.offsetY = max(0, len(v.snapChanges)-ps)
	}
	lo := min(v.offsetY, len(v.snapChanges))
	hi := min(lo+ps, len(v.snapChanges))
	for _, r := range v.snapChanges[lo:hi] {
		out = append(out, changeCells(v.schema, r))
	}
	return out
}

// header returns the column names shown.
func (v *resultView) header() []string {
	if v.mode == resultChangelog {
		return opHeader(v.schema)
	}
	return schemaNames(v.schema)
}

// widths returns the column widths, fixed by the column types as Flink's
// views do (names and "<NULL>" fit; strings and floats get maxWidth).
func (v *resultView) widths() []int {
	var out []int
	if v.mode == resultChangelog {
		out = append(out, 2)
	}
	if v.schema != nil {
		for _, f := range v.schema.Fields {
			out = append(out, max(cellWidth(f.Name), min(typeWidthMax(f.Type, v.maxWidth), v.maxWidth), len("<NULL>")))
		}
	}
	return out
}

// key applies one key press; k is a key name from parseKeys ("q", "up",
// "enter", "esc", "ctrl-c", "f5", "end", ...). h is the screen height.
func (v *resultView) key(k string, h int) {
	if v.inGoto {
		switch {
		case k == "enter":
			if n, err := strconv.Atoi(v.gotoText); err == nil && n >= 1 && n <= v.pageCount(h) {
				v.page, v.selected = n, noRow
			}
			v.inGoto, v.gotoText = false, ""
		case k == "esc" || k == "ctrl-c":
			v.inGoto, v.gotoText = false, ""
		case k == "backspace":
			if v.gotoText != "" {
				v.gotoText = v.gotoText[:len(v.gotoText)-1]
			}
		case len(k) == 1 && k[0] >= '0' && k[0] <= '9' && len(v.gotoText) < 9:
			v.gotoText += k
		}
		return
	}
	if v.open {
		if k == "q" || k == "Q" || k == "esc" || k == "ctrl-c" || k == "enter" {
			v.open = false
		}
		return
	}
	rows := len(v.visible(h))
	switch k {
	case "q", "Q", "esc", "ctrl-c":
		v.quit = true
	case "r", "R", "f5":
		v.updated = time.Time{} // the caller takes a snapshot now
	case "w", "W", "up":
		switch {
		case v.selected == noRow:
			v.selected = rows - 1
		case v.selected > 0:
			v.selected--
		case v.mode == resultChangelog && v.offsetY > 0:
			v.offsetY--
			v.follow = false
		}
	case "s", "S", "down":
		switch {
		case v.selected == noRow:
			v.selected = min(0, rows-1)
		case v.selected < rows-1:
			v.selected++
		case v.mode == resultChangelog && v.offsetY+rows < len(v.snapChanges):
			v.offsetY++
		}
	case "a", "A", "left":
		v.offsetX = max(0, v.offsetX-4)
	case "d", "D", "right":
		v.offsetX += 4
	case "o", "O", "enter":
		if v.selected != noRow && v.selected < rows {
			v.open = true
		}
	case "+":
		v.refresh = min(len(refreshIntervals)-1, v.refresh+1)
	case "-":
		v.refresh = max(0, v.refresh-1)
	case "m", "M":
		if v.mode == resultTable {
			v.mode = resultChangelog
		} else {
			v.mode = resultTable
		}
		v.selected, v.offsetX, v.follow = noRow, 0, true
	}
	if v.mode != resultTable {
		return
	}
	switch k {
	case "n", "N":
		if p := v.currentPage(h); p < v.pageCount(h) {
			v.page, v.selected = p+1, noRow
		}
	case "p", "P":
		if p := v.currentPage(h); p > 1 {
			v.page, v.selected = p-1, noRow
		}
	case "l", "L", "end":
		v.page, v.selected = lastPage, noRow
	case "g", "G":
		v.inGoto, v.gotoText = true, ""
	}
}

// Terminal attributes.
const (
	sgrInverse   = "\x1b[7m"
	sgrUnderline = "\x1b[4m"
	sgrReset     = "\x1b[0m"
)

// render draws the whole screen (w columns, h lines) as lines without line
// ends.
func (v *resultView) render(w, h int) []string {
	if v.open {
		return v.renderRow(w, h)
	}
	title := "SQL Query Result (Table)"
	if v.mode == resultChangelog {
		title = "SQL Query Result (Changelog)"
	}
	if v.name != "" {
		title += " - statement " + v.name
	}
	lines := []string{sgrInverse + center(title, w) + sgrReset}
	left := " Refresh: " + refreshIntervals[v.refresh].name
	if v.done {
		left = " Table program finished."
	}
	middle := ""
	if v.mode == resultTable {
		p := "Last"
		if v.page != lastPage && v.page <= v.pageCount(h) {
			p = strconv.Itoa(v.page)
		}
		middle = fmt.Sprintf("Page: %s of %d", p, v.pageCount(h))
	}
	right := "Updated: " + v.updated.Format("15:04:05.000") + " "
	if v.updated.IsZero() {
		right = "Updated: Unknown "
	}
	lines = append(lines, sgrInverse+spread(left, middle, right, w)+sgrReset, "")
	widths := v.widths()
	var hb strings.Builder
	for i, name := range v.header() {
		hb.WriteByte(' ')
		hb.WriteString(normalizeColumn(name, widths[i]))
	}
	lines = append(lines, sgrUnderline+cutLine(hb.String(), v.offsetX, w)+sgrReset)
	rows := v.visible(h)
	for i, r := range rows {
		var b strings.Builder
		for j, c := range r {
			b.WriteByte(' ')
			b.WriteString(normalizeColumn(cleanCell(c), widths[j]))
		}
		line := cutLine(b.String(), v.offsetX, w)
		if i == v.selected {
			line = sgrInverse + line + strings.Repeat(" ", max(0, w-text.StringWidthWithoutEscSequences(line))) + sgrReset
		}
		lines = append(lines, line)
	}
	for len(lines) < h-2 {
		lines = append(lines, "")
	}
	lines = lines[:max(0, h-2)]
	if v.inGoto {
		n := v.pageCount(h)
		return append(lines, fmt.Sprintf(" Enter page number [1 to %d]: %s", n, v.gotoText), " Press Enter to go there, Esc to cancel.")
	}
	return append(lines, v.help(w)...)
}

// help renders the key help in two lines, as Flink's
// formatTwoLineHelpOptions.
func (v *resultView) help(w int) []string {
	opts := [][2]string{{"Q", "Quit"}, {"R", "Refresh"}, {"+", "Inc Refresh"}, {"-", "Dec Refresh"}}
	if v.mode == resultTable {
		opts = append(opts, [2]string{"G", "Goto Page"}, [2]string{"L", "Last Page"}, [2]string{"N", "Next Page"}, [2]string{"P", "Prev Page"})
	}
	opts = append(opts, [2]string{"O", "Open Row"})
	if v.mode == resultTable {
		opts = append(opts, [2]string{"M", "Changelog"})
	} else {
		opts = append(opts, [2]string{"M", "Table"})
	}
	cols := (len(opts) + 1) / 2
	space := max(1, (w-1-cols*13)/cols)
	var l1, l2 strings.Builder
	for i := 0; i < len(opts); i += 2 {
		fmt.Fprintf(&l1, "%s%s%s %-11s%s", sgrInverse, opts[i][0], sgrReset, opts[i][1], strings.Repeat(" ", space))
		if i+1 < len(opts) {
			fmt.Fprintf(&l2, "%s%s%s %-11s%s", sgrInverse, opts[i+1][0], sgrReset, opts[i+1][1], strings.Repeat(" ", space))
		}
	}
	return []string{l1.String(), l2.String()}
}

// renderRow draws the row view: every column of the selected row with its
// type, as Flink's CliRowView.
func (v *resultView) renderRow(w, h int) []string {
	lines := []string{sgrInverse + center("Row Summary", w) + sgrReset, ""}
	rows := v.visible(h)
	if v.selected >= 0 && v.selected < len(rows) {
		r := rows[v.selected]
		names := v.header()
		for i, c := range r {
			typ := "STRING"
			if j := i - (len(names) - v.schema.Len()); j >= 0 {
				typ = v.schema.Fields[j].Type.String()
			}
			lines = append(lines, cutLine(fmt.Sprintf(" %s (%s): %s", names[i], typ, cleanCell(c)), 0, w))
		}
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	lines = lines[:max(0, h-1)]
	return append(lines, " Press "+sgrInverse+"Q"+sgrReset+" to go back.")
}

// normalizeColumn right-aligns s in width cells and cuts a longer s to
// width-1 cells followed by '~', as Flink's CliUtils.normalizeColumn.
func normalizeColumn(s string, width int) string {
	sw := text.StringWidthWithoutEscSequences(s)
	if sw <= width {
		return strings.Repeat(" ", width-sw) + s
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		rw := text.RuneWidth(r)
		if used+rw > width-1 {
			break
		}
		b.WriteRune(r)
		used += rw
	}
	return b.String() + strings.Repeat(" ", max(0, width-1-used)) + "~"
}

// cutLine returns the cells [from, from+w) of a line without escapes.
func cutLine(s string, from, w int) string {
	var b strings.Builder
	pos := 0
	for _, r := range s {
		rw := text.RuneWidth(r)
		if pos >= from && pos+rw <= from+w {
			b.WriteRune(r)
		}
		pos += rw
	}
	return b.String()
}

// center centers s in w cells.
func center(s string, w int) string {
	sw := text.StringWidthWithoutEscSequences(s)
	if sw >= w {
		return cutLine(s, 0, w)
	}
	l := (w - sw) / 2
	return strings.Repeat(" ", l) + s + strings.Repeat(" ", w-sw-l)
}

// spread puts left at the start, middle in the middle and right at the end
// of w cells.
func spread(left, middle, right string, w int) string {
	lw, mw, rw := len(left), len(middle), len(right)
	if lw+mw+rw+2 > w {
		return cutLine(left+" "+middle+" "+right, 0, w)
	}
	gap1 := max(1, (w-mw)/2-lw)
	gap2 := max(1, w-lw-gap1-mw-rw)
	return left + strings.Repeat(" ", gap1) + middle + strings.Repeat(" ", gap2) + right
}
