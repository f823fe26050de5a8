package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/eddy-sql/eddy/client"
	"github.com/spf13/cobra"
)

// Options configures the eddy command line. The zero value is usable
// except for OpenEngine, which `eddy sql` needs.
type Options struct {
	// Version is the version `eddy version` and `eddy --version` print.
	// Default: the main module's version from the build info, or "devel".
	Version string

	// Stdin, Stdout and Stderr are the command's streams. The shell edits
	// lines (and redraws tables in place) only when Stdin and Stdout are
	// terminals (*os.File). Default: os.Stdin, os.Stdout, os.Stderr.
	Stdin          io.Reader
	Stdout, Stderr io.Writer

	// Logger receives diagnostics (for example a history file that cannot
	// be written). Default: a logger that discards everything.
	Logger *slog.Logger

	// OpenEngine opens the SQL engine on a data directory. It is injected
	// by the caller (the embedded engine in cmd/eddy, a fake in tests) so
	// that package cli does not import the engine. The engine is closed
	// when the command ends.
	OpenEngine func(ctx context.Context, dataDir string) (Engine, error)

	// OpenStatements opens a data directory for `eddy statement …
	// --data-dir` without running its statements: it returns an
	// in-process client of the directory's statements API and the
	// function that closes the directory. When another process holds the
	// directory its error wraps ErrDataDirInUse, and the command attaches
	// to that process through the directory's socket. Default: nil
	// (--data-dir is refused).
	OpenStatements func(ctx context.Context, dataDir string) (*client.Client, func() error, error)

	// LookupEnv reads environment variables (EDDY_DATA_DIR, XDG_DATA_HOME,
	// HOME, and the connection settings EDDY_CONFIG, EDDY_SERVER, …).
	// Default: os.LookupEnv.
	LookupEnv func(key string) (string, bool)

	// Commands are extra subcommands added to the root command as they
	// are, after the built-in ones. This is the hook for commands built
	// outside this package; commands built in this package are listed in
	// NewRootCommand.
	Commands []*cobra.Command
}

// withDefaults returns o with every unset field set to its default.
func (o Options) withDefaults() Options {
	if o.Version == "" {
		o.Version = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			o.Version = bi.Main.Version
		}
	}
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	return o
}

// NewRootCommand returns the `eddy` command with its subcommands:
//
//	eddy sql         the SQL shell and script runner
//	eddy statement   create and manage statements on a server
//	eddy version     print the version
//
// Run it with ExecuteContext and exit with ExitCode(err), or use Run,
// which does both. Errors are printed to Stderr as "Error: ...", except
// those a command has already reported (a failed script), which come back
// as *ExitError.
//
// The interactive shell (eddy sql without -f/-e) handles SIGINT and SIGTERM
// itself: Ctrl-C cancels the running query, twice at an empty prompt it
// exits. It therefore does not end when the context is cancelled; scripts
// do stop when it is.
func NewRootCommand(opts Options) *cobra.Command {
	opts = opts.withDefaults()
	root := &cobra.Command{
		Use:   "eddy",
		Short: "Eddy is a streaming SQL engine with Go process table functions",
		Long: `Eddy is a streaming SQL engine in the Flink SQL dialect. Stateful per-key
functions written in Go (process table functions) are called from SQL.
It runs embedded, with all data in a local data directory.`,
		Example: `  # Start the SQL shell
  eddy sql

  # Run a SQL script and exit
  eddy sql -f pipeline.sql

  # Deploy a statement to a server and wait until it runs
  eddy statement create orders --application-name shop --sql-file orders.sql --wait

  # Show the version
  eddy version`,
		Version:      opts.Version,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	root.SetIn(opts.Stdin)
	root.SetOut(opts.Stdout)
	root.SetErr(opts.Stderr)
	root.SetVersionTemplate("eddy version {{.Version}}\n")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return fmt.Errorf("%w\nRun '%s --help' for usage", err, cmd.CommandPath())
	})

	// Commands built in this package. Add `server` and `api-key` here as
	// they are written (each a newXxxCommand(opts)).
	root.AddCommand(
		newSQLCommand(opts),
		newStatementCommand(opts),
		newVersionCommand(opts),
	)
	root.AddCommand(opts.Commands...)
	silenceReported(root)
	return root
}

// silenceReported makes every command of the tree return an *ExitError
// without cobra printing it: the command has reported the failure itself.
func silenceReported(cmd *cobra.Command) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			err := run(c, args)
			if _, ok := errors.AsType[*ExitError](err); ok {
				c.SilenceErrors = true
			}
			return err
		}
	}
	for _, c := range cmd.Commands() {
		silenceReported(c)
	}
}

// ExitError is returned by a command that has already reported its
// failure; the process should exit with Code without printing more.
type ExitError struct {
	Code int
}

// Error returns "exit status N".
func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitCode returns the process exit status for an error returned by the
// root command: 0 for nil, the code of an *ExitError, 1 otherwise.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	if e, ok := errors.AsType[*ExitError](err); ok {
		return e.Code
	}
	return 1
}

// Run runs the eddy command line with args (without the program name) and
// returns the process exit status. A main function is:
//
//	func main() {
//		ctx := context.Background()
//		os.Exit(cli.Run(ctx, cli.Options{OpenEngine: openEngine}, os.Args[1:]))
//	}
func Run(ctx context.Context, opts Options, args []string) int {
	opts = opts.withDefaults()
	root := NewRootCommand(opts)
	root.SetArgs(args)
	return ExitCode(root.ExecuteContext(ctx))
}
