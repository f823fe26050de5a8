package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// shell is the interactive SQL shell.
type shell struct {
	eng Engine
	out io.Writer
	in  inputReader
	// interrupts delivers SIGINT and SIGTERM; a query running when one
	// arrives is cancelled, and SIGTERM ends the shell.
	interrupts <-chan os.Signal
	terminated atomic.Bool
	// tty is true when out is a terminal: table results are redrawn in
	// place, with size giving the terminal's width and height.
	tty     bool
	size    func() (width, height int)
	version string
	// kb is the terminal the result view reads keys from (raw mode);
	// nil when stdin is not the terminal the shell draws on.
	kb *os.File
	// farewell returns what to say about the statements that run on
	// when the shell ends ("" for nothing); nil: nothing.
	farewell func() string
}

// run reads and executes entries until QUIT, the end of input, or a
// second Ctrl-C at an empty prompt. SIGTERM ends it with an *ExitError
// (status 143).
func (s *shell) run(ctx context.Context) error {
	fmt.Fprint(s.out, banner(s.version))
	interrupted := false // the last thing the user did was Ctrl-C
	for {
		input, err := s.in.Read(ctx)
		if errors.Is(err, errInterrupted) {
			if interrupted {
				s.bye()
				return nil
			}
			interrupted = true
			fmt.Fprintln(s.out, "Press Ctrl-C again to exit, or type QUIT;.")
			continue
		}
		eof := errors.Is(err, io.EOF)
		if errors.Is(err, errTerminated) {
			s.terminated.Store(true)
		} else if err != nil && !eof {
			return err
		}
		interrupted = false
		if entry := strings.TrimSpace(input); entry != "" {
			s.in.AddHistory(entry)
			var quit bool
			quit, interrupted = s.handle(ctx, input)
			if quit && !s.terminated.Load() {
				s.bye()
				return nil
			}
		}
		if s.terminated.Load() {
			s.notice()
			fmt.Fprintln(s.out, "Terminated.")
			return &ExitError{Code: 143}
		}
		if eof {
			s.bye()
			return nil
		}
	}
}

// bye says what keeps running, and goodbye.
func (s *shell) bye() {
	s.notice()
	fmt.Fprintln(s.out, "Bye!")
}

// notice prints the farewell notice.
func (s *shell) notice() {
	if s.farewell != nil {
		fmt.Fprint(s.out, s.farewell())
	}
}

// handle runs one entry: a shell command or statements, in order, up to
// the first error. It reports whether to quit and whether a query was
// interrupted.
func (s *shell) handle(ctx context.Context, input string) (quit, interrupted bool) {
	if cmd, ok := shellCommand(input); ok {
		return s.command(cmd), false
	}
	for _, st := range Split(input) {
		if cmd, ok := shellCommand(st.Text); ok {
			if s.command(cmd) {
				return true, false
			}
			continue
		}
		interrupted, err := s.execute(ctx, st)
		if s.terminated.Load() {
			return true, false
		}
		if err != nil {
			s.printError(input, st, err)
			fmt.Fprintln(s.out)
			return false, interrupted
		}
		if interrupted {
			return false, true
		}
	}
	return false, false
}

func (s *shell) command(cmd shellCmd) (quit bool) {
	if cmd == cmdHelp {
		fmt.Fprint(s.out, shellHelp, "\n")
	}
	return cmd == cmdQuit
}

// execute runs one statement interactively and shows its result. Ctrl-C
// cancels it.
func (s *shell) execute(ctx context.Context, st Statement) (interrupted bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	drain(s.interrupts) // a stray signal from before must not cancel this query
	var hit atomic.Bool
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case sig := <-s.interrupts:
			if sig != os.Interrupt {
				s.terminated.Store(true)
			}
			hit.Store(true)
			cancel()
		case <-stop:
		}
	})
	defer func() {
		close(stop)
		wg.Wait()
		interrupted = hit.Load()
	}()

	res, err := s.eng.Execute(ctx, st.Text, true)
	if err != nil {
		if hit.Load() {
			fmt.Fprintln(s.out, "[INFO] Statement cancelled.")
			return true, nil
		}
		return false, err
	}
	err = s.display(ctx, res)
	fmt.Fprintln(s.out)
	return false, err
}

// display shows a result: messages and static results as in a script,
// continuous results as they arrive.
func (s *shell) display(ctx context.Context, res *Result) error {
	cfg := s.eng.Config()
	if res == nil || res.Rows == nil || res.Rows.Static {
		return printResult(ctx, s.out, res, resultTable, false, fittedMaxWidth(cfg))
	}
	if res.Message != "" {
		fmt.Fprintln(s.out, infoLine(res.Message))
	}
	rs := res.Rows
	defer closeStream(rs)
	mode := resultModeOf(cfg)
	if s.kb != nil && s.tty && mode != resultTableau {
		// Table and changelog modes on a terminal: the result view.
		return s.runView(ctx, rs, mode)
	}
	if rs.Name != "" && s.tty {
		fmt.Fprintf(s.out, "[INFO] Results of statement '%s':\n", rs.Name)
	}
	if mode == resultTable && s.tty {
		return liveTable(ctx, &liveView{w: s.out, size: s.size}, rs)
	}
	// Tableau mode, and the other modes when keys cannot be read: print
	// every change as it comes.
	width, _ := maxColumnWidthOf(cfg)
	return streamChangesWidth(ctx, s.out, rs, s.tty, width)
}

// printError prints "[ERROR] LINE:COL: message", the line of the entry
// with a caret under the column, and the hint.
func (s *shell) printError(input string, st Statement, err error) {
	e, ok := sqlerr.As(err)
	if !ok || !e.Pos.IsValid() {
		msg := err.Error()
		if ok {
			msg = e.Message
		}
		fmt.Fprintf(s.out, "[ERROR] %s\n", msg)
		printHint(s.out, e)
		return
	}
	pos := sqlerr.Offset(e.Pos, st.Pos)
	fmt.Fprintf(s.out, "[ERROR] %s: %s\n", pos, e.Message)
	if line, ok := lineAt(input, pos.Line); ok {
		fmt.Fprintf(s.out, "%s\n%s^\n", line, caretPad(line, pos.Col))
	}
	printHint(s.out, e)
}

func printHint(w io.Writer, e *sqlerr.Error) {
	if e != nil && e.Hint != "" {
		fmt.Fprintf(w, "Hint: %s\n", e.Hint)
	}
}

// lineAt returns the 1-based line n of s.
func lineAt(s string, n int) (string, bool) {
	for line := range strings.Lines(s) {
		if n--; n == 0 {
			return strings.TrimRight(line, "\r\n"), true
		}
	}
	return "", false
}

// caretPad returns the blanks that put a caret under column col of line,
// keeping tabs so that the caret lines up.
func caretPad(line string, col int) string {
	var b strings.Builder
	for _, r := range line {
		if col--; col <= 0 {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// drain empties a signal channel without blocking.
func drain(ch <-chan os.Signal) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}
