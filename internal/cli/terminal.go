package cli

import (
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// The line editor (bubbline on bubbletea) starts its first prompt by asking
// the terminal for its colors: termenv's default output, with its color
// cache switched on by tea.NewProgram, writes the OSC 10 and OSC 11 queries
// followed by a cursor position request (DSR 6) and waits up to
// termenv.OSCTimeout (5 s) for each answer, in non-canonical mode, reading
// and discarding what the user types meanwhile. A terminal that answers
// neither (TERM=dumb, Emacs shells, terminals driven by programs) stalls
// the shell for 10 s at start-up and loses those keystrokes; lipgloss asks
// once more for the background of its adaptive colors.
//
// The shell needs no colors from the terminal, so it never asks:
// quietTerminal fills termenv's color cache without a query (an output
// built while its environment says CI, which termenv never queries, then
// given the real environment back) and tells lipgloss whether the
// background is dark from $COLORFGBG ("fg;bg", as rxvt, Konsole and others
// set it), dark when it is not set.

var quietOnce sync.Once

// quietTerminal stops termenv and lipgloss from querying the terminal; it
// must run before the first line editor starts. lookupEnv reads the
// environment.
func quietTerminal(lookupEnv func(string) (string, bool)) {
	quietOnce.Do(func() {
		out := termenv.NewOutput(os.Stdout,
			termenv.WithEnvironment(noQueryEnv{}),
			termenv.WithColorCache(true), // the cache is filled now, without a query
			termenv.WithEnvironment(osEnv{}))
		*termenv.DefaultOutput() = *out
		fgbg, _ := lookupEnv("COLORFGBG")
		lipgloss.SetHasDarkBackground(darkBackground(fgbg))
	})
}

// darkBackground reads $COLORFGBG ("15;0", "0;default;15"): the last field
// is the background's ANSI color; 0-6 and 8 are dark. Unset or unreadable:
// dark, the common default.
func darkBackground(colorFGBG string) bool {
	fields := strings.Split(colorFGBG, ";")
	bg, err := strconv.Atoi(fields[len(fields)-1])
	if err != nil || bg < 0 || bg > 15 {
		return true
	}
	return bg <= 6 || bg == 8
}

// noQueryEnv is the environment termenv sees while the color cache is
// filled: CI is set, so termenv treats the output as no terminal and sends
// no query.
type noQueryEnv struct{}

func (noQueryEnv) Environ() []string { return []string{"CI=1"} }
func (noQueryEnv) Getenv(k string) string {
	if k == "CI" {
		return "1"
	}
	return os.Getenv(k)
}

// osEnv is the process environment, termenv's default.
type osEnv struct{}

func (osEnv) Environ() []string      { return os.Environ() }
func (osEnv) Getenv(k string) string { return os.Getenv(k) }

// lineEditing reports whether the terminal can run the line editor: TERM
// names a terminal with cursor movement (not "dumb", not empty). On a dumb
// terminal the shell reads plain lines and prints results as they come.
func lineEditing(lookupEnv func(string) (string, bool)) bool {
	t, _ := lookupEnv("TERM")
	t = strings.TrimSpace(t)
	return t != "" && t != "dumb"
}
