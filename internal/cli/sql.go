package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// DataDirEnv is the environment variable that sets the default data
// directory.
const DataDirEnv = "EDDY_DATA_DIR"

// historyFile is the shell history's file name in the data directory.
const historyFile = "sql_history"

// DefaultDataDir returns the data directory used when --data-dir is not
// given: $EDDY_DATA_DIR if set, else $XDG_DATA_HOME/eddy, else
// ~/.local/share/eddy.
func DefaultDataDir(lookupEnv func(string) (string, bool)) (string, error) {
	if d, ok := lookupEnv(DataDirEnv); ok && d != "" {
		return d, nil
	}
	if d, ok := lookupEnv("XDG_DATA_HOME"); ok && d != "" {
		return filepath.Join(d, "eddy"), nil
	}
	home, ok := lookupEnv("HOME")
	if !ok || home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("no data directory: set --data-dir or $%s (%w)", DataDirEnv, err)
		}
	}
	return filepath.Join(home, ".local", "share", "eddy"), nil
}

// sqlCommand holds the flags of `eddy sql`.
type sqlCommand struct {
	opts    Options
	dataDir string
	file    string
	execute string
	init    string
	echo    bool
	// hasExecute is true when -e was given, even as an empty string.
	hasExecute bool
	// conn are the flags of server mode (--server, --config, …); given
	// holds those given on the command line.
	conn  connFlags
	given map[string]string
}

func newSQLCommand(opts Options) *cobra.Command {
	c := &sqlCommand{opts: opts}
	cmd := &cobra.Command{
		Use:   "sql [--data-dir DIR] [-f FILE | -e STATEMENTS] [--init FILE]",
		Short: "Run the SQL shell, or a SQL script",
		Long: `Run the interactive SQL shell, or run the statements of a script (-f) or of
the command line (-e) and exit.

Statements end with ';'. A script runs its statements in order and prints
each result. At the first error it prints FILE:LINE:COL: message (with -e as
the file name for -e) and exits with status 1. In a script every statement
first waits until the statements started before it have caught up with the
data written so far, and a SELECT prints a snapshot of its result.

In the shell a SELECT runs continuously until you leave it. How results are
shown is set per session, as in Flink's SQL client:

  SET 'sql-client.execution.result-mode' = 'table';      materialized table view (default)
  SET 'sql-client.execution.result-mode' = 'changelog';  changelog view, an op column
  SET 'sql-client.execution.result-mode' = 'tableau';    every change printed as it comes
  SET 'sql-client.display.max-column-width' = '30';      widest column shown

On a terminal the table and changelog modes are full-screen views with
Flink's keys: Q quit, R refresh, +/- refresh interval, N/P/L/G pages, W/S
select, A/D scroll, O open the row, M switch table/changelog.

A continuous INSERT INTO ... SELECT or CREATE TABLE ... AS SELECT is a durable
statement: it resumes whenever the data directory is opened again (eddy sql
or eddy server). SHOW JOBS lists them, STOP JOB 'name' stops one, and eddy
statement ... --data-dir DIR manages them. A second eddy sql on a data
directory in use attaches to the process that holds it, through the
directory's socket (DIR/eddy.sock, for the same user only). See docs/shell.md.

The data directory holds the catalog, the tables, all state and the shell
history. It is --data-dir if given, else $EDDY_DATA_DIR, else
$XDG_DATA_HOME/eddy, else ~/.local/share/eddy.

With --server URL (or --config FILE naming a properties file with server=)
the statements run on an Eddy server instead: each SQL statement becomes a
statement on the server (named cli-YYYYMMDD-HHMMSS-<hex>, or by
SET 'client.statement-name' = 'NAME' for the next one), the shell waits
while it is PENDING and shows its result. SET, RESET and USE stay in the
shell; the session properties they set are sent with every statement
(except the shell's own sql-client.* and client.* keys). An INSERT keeps
running on the server; a SELECT is stopped when the shell stops showing it;
the statements of SHOW, DESCRIBE and EXPLAIN are deleted once shown.
In a script, a SELECT that does not complete prints the rows that came
until none came for a few seconds. The data directory then only holds the
shell history. $EDDY_SERVER alone does not switch eddy sql to a server.

` + settingsHelp,
		Example: `  # Start the interactive shell on the default data directory
  eddy sql

  # Run a script on a scratch data directory
  eddy sql --data-dir /tmp/eddy -f pipeline.sql

  # Run statements given on the command line
  eddy sql -e "SHOW TABLES; DESCRIBE orders;"

  # Run a setup script, then start the shell
  eddy sql --init setup.sql

  # Read the script from stdin
  cat pipeline.sql | eddy sql -f -

  # Run the shell against a server, with the API key in the environment
  EDDY_API_KEY=... EDDY_API_SECRET=... eddy sql --server https://eddy.example.com`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c.hasExecute = cmd.Flags().Changed("execute")
			c.given = c.conn.given(cmd.Flags())
			return c.run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.dataDir, "data-dir", "", "data directory (default $EDDY_DATA_DIR, $XDG_DATA_HOME/eddy or ~/.local/share/eddy)")
	f.StringVarP(&c.file, "file", "f", "", "run the statements of `FILE` (- for stdin) and exit")
	f.StringVarP(&c.execute, "execute", "e", "", "run `STATEMENTS` (separated by ';') and exit")
	f.StringVarP(&c.init, "init", "i", "", "run the statements of `FILE` first, without printing messages")
	f.BoolVar(&c.echo, "echo", false, "print each statement of a script before its result")
	c.conn.add(f)
	cmd.MarkFlagsMutuallyExclusive("file", "execute")
	return cmd
}

// source is a script and the name its errors are reported with.
type source struct {
	name, text string
}

func (c *sqlCommand) run(ctx context.Context) error {
	var scripts []source // init, then -f/-e
	if c.init != "" {
		s, err := c.read(c.init)
		if err != nil {
			return err
		}
		scripts = append(scripts, s)
	}
	interactive := c.file == "" && !c.hasExecute
	if !interactive {
		s := source{name: "-e", text: c.execute}
		if c.file != "" {
			var err error
			if s, err = c.read(c.file); err != nil {
				return err
			}
		}
		scripts = append(scripts, s)
	}
	dir := c.dataDir
	if dir == "" {
		var err error
		if dir, err = DefaultDataDir(c.opts.LookupEnv); err != nil {
			return err
		}
	}
	if c.serverMode() {
		return c.withServer(ctx, func(eng Engine) error {
			return c.runAll(ctx, eng, dir, scripts, interactive)
		})
	}
	if c.given["api-key"] != "" || c.given["api-secret"] != "" {
		return errors.New("--api-key and --api-secret are for a server: give --server URL or --config FILE too")
	}
	return c.withEngine(ctx, dir, func(eng Engine) error {
		return c.runAll(ctx, eng, dir, scripts, interactive)
	})
}

// read reads a script file; "-" is stdin.
func (c *sqlCommand) read(path string) (source, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(c.opts.Stdin)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return source{}, fmt.Errorf("reading script: %w", err)
	}
	return source{name: path, text: string(b)}, nil
}

// withEngine opens the engine, calls f and closes the engine.
func (c *sqlCommand) withEngine(ctx context.Context, dir string, f func(Engine) error) (err error) {
	if c.opts.OpenEngine == nil {
		return errors.New("eddy sql: no engine is configured (Options.OpenEngine)")
	}
	eng, err := c.opts.OpenEngine(ctx, dir)
	if errors.Is(err, ErrDataDirInUse) {
		return c.attach(ctx, dir, err, f)
	}
	if err != nil {
		return fmt.Errorf("opening data directory %s: %w", dir, err)
	}
	defer func() {
		if cerr := eng.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing data directory %s: %w", dir, cerr)
		}
	}()
	return f(eng)
}

func (c *sqlCommand) runAll(ctx context.Context, eng Engine, dir string, scripts []source, interactive bool) (err error) {
	eng = withJobs(eng)
	// What runs in the background: in the shell on its output, for a
	// script on stderr (its output is its results).
	notes := c.opts.Stderr
	if interactive {
		notes = c.opts.Stdout
	}
	var farewell func() string
	if n, ok := eng.(noticer); ok {
		fmt.Fprint(notes, n.OpenNotice())
		farewell = n.ExitNotice
		if !interactive {
			defer func() { fmt.Fprint(notes, n.ExitNotice()) }()
		}
	}
	sctx, stop := signal.NotifyContext(ctx, os.Interrupt) // Ctrl-C stops a script
	for i, s := range scripts {
		isInit := c.init != "" && i == 0
		r := &script{eng: eng, out: c.opts.Stdout, errOut: c.opts.Stderr, quiet: isInit, echo: c.echo}
		if err := r.run(sctx, s.name, s.text); err != nil {
			stop()
			return err
		}
	}
	stop()
	if !interactive {
		return nil
	}
	return c.shell(ctx, eng, dir, farewell)
}

// attach runs f on the process that holds data directory dir, through
// its socket, after saying so; openErr is why the directory could not be
// opened.
func (c *sqlCommand) attach(ctx context.Context, dir string, openErr error, f func(Engine) error) error {
	cl, owner, err := dialLocal(ctx, dir, c.opts.Version)
	if err != nil {
		return fmt.Errorf("opening data directory %s: %w\n%v; stop the process that holds it, or run eddy sql with another --data-dir", dir, openErr, err)
	}
	w := c.opts.Stderr
	if c.file == "" && !c.hasExecute {
		w = c.opts.Stdout
	}
	fmt.Fprint(w, attachedMessage(owner, dir))
	eng := newRemoteEngine(cl)
	eng.where = "in " + ownerText(owner)
	eng.manage = "--data-dir " + shellQuote(dir)
	eng.tidy = true
	return f(eng)
}

// shell runs the interactive shell: with line editing and a history file
// when stdin and stdout are the process's terminal, reading plain lines
// otherwise.
func (c *sqlCommand) shell(ctx context.Context, eng Engine, dir string, farewell func() string) error {
	inFd, inTTY := terminalFd(c.opts.Stdin)
	outFd, outTTY := terminalFd(c.opts.Stdout)
	// The shell owns SIGINT (cancel the query; twice at the prompt: exit)
	// and SIGTERM, so it does not end when ctx is cancelled: a caller
	// that cancels ctx on SIGINT would otherwise end the session at the
	// first Ctrl-C.
	ctx = context.WithoutCancel(ctx)
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(interrupts)

	// A terminal that says it is dumb gets plain line reading and results
	// printed as they come: it cannot move the cursor.
	capable := lineEditing(c.opts.LookupEnv)
	var in inputReader
	var kb *os.File
	if inTTY && outTTY && capable && inFd == os.Stdin.Fd() && outFd == os.Stdout.Fd() {
		kb = os.Stdin
		quietTerminal(c.opts.LookupEnv)
		hist := ""
		if err := os.MkdirAll(dir, 0o755); err != nil {
			c.opts.Logger.Warn("no shell history", "err", err)
		} else {
			hist = filepath.Join(dir, historyFile)
		}
		in = newEditorReader(hist, c.opts.Logger)
	} else {
		in = newPlainReader(c.opts.Stdin, c.opts.Stdout, inTTY, interrupts)
	}
	defer in.Close()
	sh := &shell{
		eng:        eng,
		out:        c.opts.Stdout,
		in:         in,
		interrupts: interrupts,
		tty:        outTTY && capable,
		size:       func() (int, int) { return terminalSize(outFd) },
		version:    c.opts.Version,
		farewell:   farewell,
		kb:         kb,
	}
	return sh.run(ctx)
}

// terminalFd returns the descriptor of v and whether it is a terminal.
func terminalFd(v any) (uintptr, bool) {
	f, ok := v.(*os.File)
	if !ok {
		return 0, false
	}
	return f.Fd(), term.IsTerminal(int(f.Fd()))
}

// terminalSize returns the terminal's width and height, 80x24 if unknown.
func terminalSize(fd uintptr) (int, int) {
	w, h, err := term.GetSize(int(fd))
	if err != nil || w <= 0 || h <= 0 {
		return 80, 24
	}
	return w, h
}

// shellQuote quotes s for a copy-pasted shell command when needed.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r == ':' || r == '=' || r == '+' || r == ',' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
