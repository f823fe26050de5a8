package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/knz/bubbline"
)

// The shell's prompts.
const (
	prompt     = "Eddy SQL> "
	contPrompt = "       > "
)

// errInterrupted is returned by an inputReader when the user pressed
// Ctrl-C at an empty prompt.
var errInterrupted = errors.New("cli: interrupted")

// errTerminated is returned by an inputReader on SIGTERM.
var errTerminated = errors.New("cli: terminated")

// signalError maps a signal received while reading to errInterrupted
// (SIGINT) or errTerminated (anything else: SIGTERM).
func signalError(sig os.Signal) error {
	if sig == os.Interrupt {
		return errInterrupted
	}
	return errTerminated
}

// inputReader reads the shell's input one complete entry at a time: one or
// more statements ending with ';', or a shell command.
type inputReader interface {
	// Read returns the next entry. At the end of input it returns what was
	// typed so far with io.EOF; at Ctrl-C on an empty entry it returns
	// errInterrupted (Ctrl-C on a non-empty entry discards it and keeps
	// reading); on SIGTERM it returns errTerminated.
	Read(ctx context.Context) (string, error)
	// AddHistory records an entry in the history.
	AddHistory(entry string)
	// Close releases the reader.
	Close() error
}

// entryComplete reports whether the shell has a whole entry: statements
// ending with ';' or a bare shell command.
func entryComplete(input string) bool {
	_, ok := shellCommand(input)
	return ok || IsComplete(input)
}

// editorReader reads from a terminal with line editing and a history file
// (github.com/knz/bubbline, the editor of the cockroach sql shell). It
// drives os.Stdin and os.Stdout directly.
type editorReader struct {
	ed  *bubbline.Editor
	log *slog.Logger
}

func newEditorReader(historyFile string, log *slog.Logger) *editorReader {
	ed := bubbline.New()
	ed.Prompt = prompt
	ed.NextPrompt = contPrompt
	ed.MaxHistorySize = 1000
	ed.DedupHistory = true
	ed.CheckInputComplete = func(input [][]rune, line, _ int) bool {
		// Enter on an inner line of a multi-line entry inserts a newline.
		if line < len(input)-1 {
			return false
		}
		lines := make([]string, len(input))
		for i, l := range input {
			lines[i] = string(l)
		}
		return entryComplete(strings.Join(lines, "\n"))
	}
	if historyFile != "" {
		if err := ed.LoadHistory(historyFile); err != nil {
			log.Warn("cannot load the shell history", "file", historyFile, "err", err)
		}
		ed.SetAutoSaveHistory(historyFile, true)
	}
	return &editorReader{ed: ed, log: log}
}

func (r *editorReader) Read(context.Context) (string, error) {
	s, err := r.ed.GetLine()
	switch {
	case errors.Is(err, bubbline.ErrInterrupted):
		return "", errInterrupted
	case errors.Is(err, bubbline.ErrTerminated):
		return "", errTerminated
	}
	return s, err
}

func (r *editorReader) AddHistory(entry string) {
	if err := r.ed.AddHistory(entry); err != nil {
		r.log.Warn("cannot save the shell history", "err", err)
	}
}

func (r *editorReader) Close() error {
	r.ed.Close()
	return nil
}

// plainReader reads lines from any reader (a pipe, a file, a test). It
// prints prompts only when asked to (stdin is a terminal without line
// editing). Ctrl-C and SIGTERM arrive as signals on interrupts.
//
// A goroutine reads one line per request, so that Read can return on an
// interrupt while the read is blocked. It ends at the end of input or when
// Close is called between reads; a read blocked at Close ends with the
// process.
type plainReader struct {
	out        io.Writer
	prompts    bool
	interrupts <-chan os.Signal

	req     chan struct{}
	lines   chan lineResult
	waiting bool  // a request is outstanding
	err     error // the sticky end of input
}

type lineResult struct {
	text string
	err  error
}

func newPlainReader(in io.Reader, out io.Writer, prompts bool, interrupts <-chan os.Signal) *plainReader {
	r := &plainReader{
		out:        out,
		prompts:    prompts,
		interrupts: interrupts,
		req:        make(chan struct{}, 1),
		lines:      make(chan lineResult, 1),
	}
	go func(br *bufio.Reader) {
		for range r.req {
			s, err := br.ReadString('\n')
			r.lines <- lineResult{s, err}
			if err != nil {
				return
			}
		}
	}(bufio.NewReader(in))
	return r
}

func (r *plainReader) Read(ctx context.Context) (string, error) {
	var buf strings.Builder
	p := prompt
	for {
		if r.prompts {
			fmt.Fprint(r.out, p)
		}
		line, err := r.line(ctx)
		if errors.Is(err, errInterrupted) {
			if r.prompts {
				fmt.Fprintln(r.out, "^C")
			}
			if strings.TrimSpace(buf.String()) == "" {
				return "", errInterrupted
			}
			buf.Reset()
			p = prompt
			continue
		}
		buf.WriteString(line)
		if err != nil {
			return buf.String(), err
		}
		if entryComplete(buf.String()) {
			return strings.TrimSuffix(buf.String(), "\n"), nil
		}
		p = contPrompt
	}
}

// line returns the next line, or the error for a signal.
func (r *plainReader) line(ctx context.Context) (string, error) {
	if r.err != nil {
		return "", r.err
	}
	if !r.waiting {
		r.req <- struct{}{}
		r.waiting = true
	}
	select {
	case l := <-r.lines:
		r.waiting = false
		r.err = l.err
		return l.text, l.err
	case sig := <-r.interrupts:
		return "", signalError(sig)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (r *plainReader) AddHistory(string) {}

func (r *plainReader) Close() error {
	close(r.req)
	return nil
}
