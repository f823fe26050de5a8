package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// script runs SQL scripts (eddy sql -f/-e/--init) against an engine.
type script struct {
	eng    Engine
	out    io.Writer // results
	errOut io.Writer // errors
	// quiet suppresses "[INFO]" messages (init scripts).
	quiet bool
	// echo prints each statement, after the prompt, before its result.
	echo bool
}

// run executes the statements of src in order and prints their results.
// At the first error it prints "NAME:LINE:COL: message" and the hint to
// errOut and returns an *ExitError with status 1. QUIT; ends the script
// early.
func (s *script) run(ctx context.Context, name, src string) error {
	for _, st := range Split(src) {
		if cmd, ok := shellCommand(st.Text); ok {
			if cmd == cmdQuit {
				return nil
			}
			fmt.Fprint(s.out, shellHelp)
			continue
		}
		if s.echo {
			fmt.Fprintf(s.out, "%s%s;\n", prompt, st.Text)
		}
		res, err := s.eng.Execute(ctx, st.Text, false)
		if err == nil {
			err = printResult(ctx, s.out, res, resultModeOf(s.eng.Config()), s.quiet, fittedMaxWidth(s.eng.Config()))
		}
		if err != nil {
			if ctx.Err() != nil {
				fmt.Fprintf(s.errOut, "%s:%s: interrupted\n", name, st.Pos)
				return &ExitError{Code: 130}
			}
			reportScriptError(s.errOut, name, st, err)
			return &ExitError{Code: 1}
		}
		if !s.quiet || (res != nil && res.Rows != nil) {
			fmt.Fprintln(s.out)
		}
	}
	return nil
}

// reportScriptError prints "NAME:LINE:COL: message" and, if there is one,
// "Hint: ..." on the next line. The position is the error's, shifted from
// the statement to the script, or the statement's start when the error
// has none.
func reportScriptError(w io.Writer, name string, st Statement, err error) {
	pos, msg := st.Pos, err.Error()
	e, ok := sqlerr.As(err)
	if ok {
		msg = e.Message
		if e.Pos.IsValid() {
			pos = sqlerr.Offset(e.Pos, st.Pos)
		}
	}
	fmt.Fprintf(w, "%s:%s: %s\n", name, pos, msg)
	if ok {
		printHint(w, e)
	}
}
