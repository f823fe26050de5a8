package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/muesli/cancelreader"
	"golang.org/x/term"
)

// viewTick is how often the view looks whether a refresh is due (and the
// fastest it redraws, as Flink's 100 ms display limit).
const viewTick = 100 * time.Millisecond

// runView shows a continuous result in the full-screen result view until
// the user quits it (the stream is then closed, which stops the query) or
// an error ends the stream. The terminal is in raw mode on the alternate
// screen meanwhile; afterwards the page that was shown is printed as a
// table, so that it stays on the screen.
func (s *shell) runView(ctx context.Context, rs *RowStream, mode resultMode) error {
	width, _ := maxColumnWidthOf(s.eng.Config())
	v := newResultView(rs.Schema, rs.Key, mode, rs.Name, width)
	fd := int(s.kb.Fd())
	state, err := term.MakeRaw(fd)
	if err != nil {
		return streamChangesWidth(ctx, s.out, rs, s.tty, width)
	}
	cr, err := cancelreader.NewReader(s.kb)
	if err != nil {
		_ = term.Restore(fd, state)
		return streamChangesWidth(ctx, s.out, rs, s.tty, width)
	}
	keys := make(chan []byte)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		buf := make([]byte, 256)
		for {
			n, err := cr.Read(buf)
			if err != nil {
				return
			}
			select {
			case keys <- append([]byte(nil), buf[:n]...):
			case <-stop:
				return
			}
		}
	})
	io.WriteString(s.out, "\x1b[?1049h\x1b[?25l") // alternate screen, no cursor
	ctx, cancel := context.WithCancel(ctx)
	pulled := pull(ctx, rs)
	changes := pulled // nil once the stream ended
	draw := func() {
		w, h := s.size()
		io.WriteString(s.out, "\x1b[H"+strings.Join(v.render(w, h), "\x1b[K\r\n")+"\x1b[K\x1b[J")
	}
	v.snapshot(time.Now())
	draw()
	tick := time.NewTicker(viewTick)
	var streamErr error
	dirty := false
	for !v.quit {
		select {
		case c, ok := <-changes:
			switch {
			case !ok && ctx.Err() != nil:
				v.quit = true // SIGTERM: the shell ends
			case !ok:
				changes = nil
				v.done = true
				v.snapshot(time.Now())
				draw()
			case c.err != nil:
				streamErr, v.quit = c.err, true
			default:
				v.add(c.row)
				dirty = true
			}
		case b := <-keys:
			_, h := s.size()
			for _, k := range parseKeys(b) {
				v.key(k, h)
			}
			if v.updated.IsZero() || v.done {
				v.snapshot(time.Now())
				dirty = false
			}
			draw()
		case now := <-tick.C:
			if every := v.every(); dirty && !v.done && every >= 0 && now.Sub(v.updated) >= every {
				v.snapshot(now)
				dirty = false
				draw()
			}
		}
	}
	tick.Stop()
	cancel()
	for range pulled { // the stream ends with ctx
	}
	cr.Cancel()
	close(stop)
	wg.Wait()
	cr.Close()
	io.WriteString(s.out, "\x1b[?25h\x1b[?1049l")
	_ = term.Restore(fd, state)
	if streamErr != nil && ctx.Err() == nil {
		return streamErr
	}
	return v.printShown(s.out)
}

// printShown prints the page the view showed last as a table, with how
// much of the result it was.
func (v *resultView) printShown(w io.Writer) error {
	prefix := ""
	if !v.done {
		prefix = "Query terminated, "
	}
	if v.mode == resultChangelog {
		if len(v.snapChanges) == 0 {
			_, err := fmt.Fprintln(w, prefix+"Empty set")
			return err
		}
		shown := v.snapChanges
		if len(shown) > 50 {
			shown = shown[len(shown)-50:]
		}
		cells := make([][]string, len(shown))
		for i, r := range shown {
			cells[i] = changeCells(v.schema, r)
		}
		if err := writeTableMax(w, opHeader(v.schema), cells, v.maxWidth); err != nil {
			return err
		}
		note := ""
		if len(shown) < v.total {
			note = fmt.Sprintf(" (the last %d shown)", len(shown))
		}
		_, err := fmt.Fprintf(w, "%s%s%s\n", prefix, receivedText(prefix, v.total), note)
		return err
	}
	rows := v.snapTable
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, prefix+"Empty set")
		return err
	}
	shown, note := rows, ""
	if len(rows) > 50 {
		shown = rows[len(rows)-50:]
		note = fmt.Sprintf(" (the last %d shown)", len(shown))
	}
	cells := make([][]string, len(shown))
	for i, r := range shown {
		cells[i] = formatRow(v.schema, r)
	}
	if err := writeTableMax(w, schemaNames(v.schema), cells, v.maxWidth); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%s%s in set%s\n", prefix, rowCount(len(rows)), note)
	return err
}

// parseKeys turns the bytes of key presses into key names: printable
// characters as themselves, and "enter", "esc", "ctrl-c", "backspace",
// "up", "down", "left", "right", "end", "home", "f5".
func parseKeys(b []byte) []string {
	var out []string
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == 0x1b:
			if i+1 >= len(b) || (b[i+1] != '[' && b[i+1] != 'O') {
				out = append(out, "esc")
				continue
			}
			j := i + 2
			for j < len(b) && (b[j] < 0x40 || b[j] > 0x7e) {
				j++
			}
			if j >= len(b) {
				return out
			}
			switch seq := string(b[i+2 : j+1]); seq {
			case "A":
				out = append(out, "up")
			case "B":
				out = append(out, "down")
			case "C":
				out = append(out, "right")
			case "D":
				out = append(out, "left")
			case "F", "4~", "8~":
				out = append(out, "end")
			case "H", "1~", "7~":
				out = append(out, "home")
			case "15~":
				out = append(out, "f5")
			}
			i = j
		case c == 0x03:
			out = append(out, "ctrl-c")
		case c == '\r' || c == '\n':
			out = append(out, "enter")
		case c == 0x7f || c == 0x08:
			out = append(out, "backspace")
		case c >= 0x20 && c < 0x7f:
			out = append(out, string(rune(c)))
		}
	}
	return out
}

// receivedText is "Received a total of N rows", lower-cased after a
// prefix.
func receivedText(prefix string, n int) string {
	if prefix != "" {
		return "received a total of " + rowCount(n)
	}
	return "Received a total of " + rowCount(n)
}
