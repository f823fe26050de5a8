package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/spf13/cobra"
)

// DefaultAwaitTimeout is how long --wait waits when it is given without a
// duration.
const DefaultAwaitTimeout = 15 * time.Minute

// Test hooks: the HTTP transport of the client (nil: the default one) and
// its poll interval.
var (
	statementTransport    http.RoundTripper
	statementPollInterval = client.DefaultPollInterval
)

// statementCmd holds what the statement subcommands share: the connection
// flags, the output format and, once connected, the client.
type statementCmd struct {
	opts     Options
	conn     connFlags
	output   string
	settings Settings
	cl       *client.Client
	// dataDir is --data-dir: the statements of a local data directory;
	// closeLocal closes it after the command.
	dataDir    string
	closeLocal func() error
}

func newStatementCommand(opts Options) *cobra.Command {
	s := &statementCmd{opts: opts}
	cmd := &cobra.Command{
		Use:   "statement",
		Short: "Create and manage statements on an Eddy server",
		Long: `Create, list, inspect, stop, resume and delete statements on an Eddy server
(eddy server). A statement is a named, durable SQL statement that runs on the
server until it completes, fails, is stopped or is deleted.

With --data-dir DIR instead of a server, the commands manage the statements
of a local data directory (through the eddy sql or eddy server that holds
it, if one does; see docs/shell.md).

Every command exits with status 0 on success and 1 on any failure (not
found, authentication failed, a different statement under the same name, a
wait that timed out, a statement that FAILED), so it can drive a CI/CD
pipeline. See docs/deploying.md.

` + settingsHelp,
		Example: `  # Deploy a pipeline idempotently and wait until it runs
  eddy statement create orders-per-region --application-name shop \
      --sql "$(cat orders_per_region.sql)" --on-conflict replace --wait

  # List the application's statements, then stop one and wait for it
  eddy statement list --application-name shop
  eddy statement stop shop-orders-per-region --wait=5m

  # Follow the results of a SELECT
  eddy statement results cli-20260801-101500-3f9a0c2d4e1b --follow`,
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	pf := cmd.PersistentFlags()
	s.conn.add(pf)
	pf.StringVarP(&s.output, "output", "o", "human", "output `FORMAT`: human (also called table), json or yaml")
	if opts.OpenStatements != nil {
		pf.StringVar(&s.dataDir, "data-dir", "", "manage the statements of the local data `DIR`ectory instead of a server's (attaching to the eddy sql or eddy server that holds it, if any)")
	}
	defer func() {
		for _, c := range cmd.Commands() {
			s.closeAfter(c)
		}
	}()
	cmd.AddCommand(
		s.newCreateCommand(),
		s.newListCommand(),
		s.newDescribeCommand(),
		s.newStopCommand(),
		s.newResumeCommand(),
		s.newUpdateCommand(),
		s.newDeleteCommand(),
		s.newExceptionCommand(),
		s.newExceptionsCommand(),
		s.newResultsCommand(),
	)
	return cmd
}

// connect resolves the settings of cmd's flags, the properties file and the
// environment, checks the output format and makes the client.
func (s *statementCmd) connect(cmd *cobra.Command) error {
	switch s.output {
	case "human":
		s.output = "table" // the same thing: Confluent's name for it
	case "table", "json", "yaml":
	default:
		return s.failf("invalid output format %q: use human, json or yaml", s.output)
	}
	if s.dataDir != "" {
		return s.connectLocal(cmd)
	}
	var err error
	s.settings, err = ResolveSettings(SettingSources{
		Flags:     s.conn.given(cmd.Flags()),
		LookupEnv: s.opts.LookupEnv,
	})
	if err != nil {
		return s.failf("%v", err)
	}
	if s.settings.Server == "" && s.opts.OpenStatements != nil {
		return s.failf("no server: give --server URL, server=URL in the properties file (--config FILE or $%s), or $%s; or --data-dir DIR for the statements of a local data directory", ConfigEnv, ServerEnv)
	}
	if s.cl, err = newClient(s.settings, s.opts.Version); err != nil {
		return s.failf("%v", err)
	}
	return nil
}

// newClient makes a client from the settings.
func newClient(st Settings, version string) (*client.Client, error) {
	if st.Server == "" {
		return nil, fmt.Errorf("no server: give --server URL, server=URL in the properties file (--config FILE or $%s), or $%s", ConfigEnv, ServerEnv)
	}
	cl, err := client.New(
		client.Server(st.Server),
		client.APIKey(st.APIKey, st.APISecret),
		client.HTTPClient(&http.Client{Transport: statementTransport}),
		client.UserAgent("eddy-cli/"+version),
		client.PollInterval(statementPollInterval),
	)
	if err != nil {
		return nil, fmt.Errorf("%s (from %s)", strings.TrimPrefix(err.Error(), "client: "), st.Origins["server"])
	}
	return cl, nil
}

// out is where results go; info is where messages go: stdout for tables,
// stderr for json and yaml so that stdout stays one document.
func (s *statementCmd) out() io.Writer { return s.opts.Stdout }

func (s *statementCmd) info() io.Writer {
	if s.output == "table" {
		return s.opts.Stdout
	}
	return s.opts.Stderr
}

// infof prints a message line.
func (s *statementCmd) infof(format string, args ...any) {
	fmt.Fprintf(s.info(), format+"\n", args...)
}

// failf prints "Error: message" and returns the exit status 1.
func (s *statementCmd) failf(format string, args ...any) error {
	fmt.Fprintf(s.opts.Stderr, "Error: "+format+"\n", args...)
	return &ExitError{Code: 1}
}

// fail reports an error of the client about statement name ("" when the
// request was not about one statement) and returns the exit status 1.
func (s *statementCmd) fail(err error, name string) error {
	w := s.opts.Stderr
	ce, isClientErr := errors.AsType[*client.Error](err)
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(w, "Error: interrupted")
	case client.IsUnauthorized(err):
		fmt.Fprintf(w, "Error: authentication failed: check --api-key/--api-secret (or %s/%s)\n", APIKeyEnv, APISecretEnv)
		if o := s.settings.Origins["api.key"]; o != "" {
			fmt.Fprintf(w, "The API key in use came from %s; the server at %s refused it.\n", o, s.settings.Server)
		} else {
			fmt.Fprintf(w, "No API key was given; the server at %s requires one.\n", s.settings.Server)
		}
	case client.IsNotFound(err) && name != "":
		fmt.Fprintf(w, "Error: statement %q not found\n", name)
		if app := s.settings.ApplicationName; app != "" && !strings.HasPrefix(name, app+"-") {
			fmt.Fprintf(w, "Hint: statements are addressed by their full name; with application %q that may be %q.\n", app, app+"-"+name)
		}
	case client.IsConflict(err):
		fmt.Fprintf(w, "Error: statement %q kept changing while it was being updated (409 %s at every attempt); try again\n", name, v1.CodeConflict)
	case isClientErr:
		msg := ce.Message
		if ce.Position != "" {
			msg = "at " + ce.Position + ": " + msg
		}
		if ce.Status == http.StatusForbidden {
			msg = "permission denied: " + msg
		}
		fmt.Fprintf(w, "Error: %s\n", msg)
		if ce.Suggestion != "" {
			fmt.Fprintf(w, "Hint: %s\n", ce.Suggestion)
		}
	case client.IsTransient(err):
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err // without the method and URL
		}
		fmt.Fprintf(w, "Error: cannot reach the server at %s (%s): %v\n", s.settings.Server, s.settings.Origins["server"], err)
	default:
		fmt.Fprintf(w, "Error: %v\n", err)
	}
	return &ExitError{Code: 1}
}

// awaitFlag is the value of --wait[=DURATION] (or --await): whether to wait, and how
// long at most.
type awaitFlag struct {
	set bool
	d   time.Duration
}

func (a *awaitFlag) String() string {
	if !a.set {
		return ""
	}
	return a.d.String()
}

func (a *awaitFlag) Set(s string) error {
	d, err := ParseWaitDuration(s)
	if err != nil {
		return err
	}
	a.set, a.d = true, d
	return nil
}

func (a *awaitFlag) Type() string { return "duration" }

// addAwaitFlag registers --wait[=DURATION] on cmd, and --await as its
// other name (Confluent's CLI says --wait, its Table API plugin said
// --action.await; Eddy had --await first); what says what it waits for.
func addAwaitFlag(cmd *cobra.Command, a *awaitFlag, what string) {
	cmd.Flags().Var(a, "wait", "wait until "+what+", at most `DURATION` (default 15m when given without one; give it as --wait=10m)")
	cmd.Flags().Lookup("wait").NoOptDefVal = DefaultAwaitTimeout.String()
	cmd.Flags().Var(a, "await", "the same as --wait")
	cmd.Flags().Lookup("await").NoOptDefVal = DefaultAwaitTimeout.String()
}

// awaitArgs checks the arguments with check, after catching a duration
// given to --wait or --await with a blank ("--wait 10m"), which the flag cannot take
// (its value is optional) and which would otherwise be read as a name.
func awaitArgs(check cobra.PositionalArgs, a *awaitFlag) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if a.set && a.d == DefaultAwaitTimeout {
			for _, arg := range args {
				if _, err := time.ParseDuration(arg); err == nil {
					flag := "wait"
					if !cmd.Flags().Changed("wait") {
						flag = "await"
					}
					return fmt.Errorf("%q looks like a duration for --%s: write it as --%s=%s", arg, flag, flag, arg)
				}
			}
		}
		return check(cmd, args)
	}
}

// ParseWaitDuration parses a positive duration: Go syntax (90s, 5m, 1h30m)
// or a number of minutes written "5min".
func ParseWaitDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	if err != nil {
		if n, ok := strings.CutSuffix(s, "min"); ok {
			if m, perr := strconv.ParseFloat(n, 64); perr == nil {
				d, err = time.Duration(m*float64(time.Minute)), nil
			}
		}
	}
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: use for example 90s, 10m or 1h", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("invalid duration %q: it must be positive", s)
	}
	return d, nil
}

// awaitPhase waits for statement known to reach a phase in targets, for
// at most limit. It reports success, or prints why not (FAILED with the
// detail and the latest exception, a timeout with the last phase seen) and
// returns the exit status 1.
func (s *statementCmd) awaitPhase(ctx context.Context, known *v1.Statement, limit time.Duration, targets ...v1.Phase) (*v1.Statement, error) {
	name, want := known.Name, phaseList(targets)
	s.infof("Waiting up to %s for statement %q to be %s...", durationText(limit), name, want)
	st, err := s.cl.Await(ctx, name, client.PhaseIn(targets...), limit)
	if st == nil {
		st = known
	}
	switch {
	case err == nil:
		s.infof("Statement %q is %s.", name, st.Status.Phase)
		return st, nil
	case errors.Is(err, client.ErrFailed):
		fmt.Fprintf(s.opts.Stderr, "Error: statement %q FAILED: %s\n", name, st.Status.Detail)
		s.printLatestException(ctx, name)
		return st, &ExitError{Code: 1}
	case errors.Is(err, client.ErrTimeout):
		fmt.Fprintf(s.opts.Stderr, "Error: timed out after %s waiting for statement %q to be %s\n", durationText(limit), name, want)
		if st != nil {
			fmt.Fprintf(s.opts.Stderr, "Last seen: %s: %s\n", st.Status.Phase, st.Status.Detail)
		}
		if te, ok := errors.AsType[*client.TimeoutError](err); ok && te.LastErr != nil {
			fmt.Fprintf(s.opts.Stderr, "Last error: %v\n", te.LastErr)
		}
		s.printLatestException(ctx, name)
		return st, &ExitError{Code: 1}
	}
	return st, s.fail(err, name)
}

// awaitGone waits for statements to be deleted.
func (s *statementCmd) awaitGone(ctx context.Context, name string, limit time.Duration) error {
	s.infof("Waiting up to %s for statement %q to be deleted...", durationText(limit), name)
	err := s.cl.AwaitDeleted(ctx, name, limit)
	switch {
	case err == nil:
		s.infof("Statement %q is deleted.", name)
		return nil
	case errors.Is(err, client.ErrTimeout):
		fmt.Fprintf(s.opts.Stderr, "Error: timed out after %s waiting for statement %q to be deleted\n", durationText(limit), name)
		if st, gerr := s.cl.GetStatement(context.WithoutCancel(ctx), name); gerr == nil {
			fmt.Fprintf(s.opts.Stderr, "Last seen: %s: %s\n", st.Status.Phase, st.Status.Detail)
		}
		return &ExitError{Code: 1}
	}
	return s.fail(err, name)
}

// printLatestException prints the newest exception of a statement, if it
// can be had.
func (s *statementCmd) printLatestException(ctx context.Context, name string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	exs, err := s.cl.Exceptions(ctx, name)
	if err != nil || len(exs) == 0 {
		return
	}
	e := exs[0]
	fmt.Fprintf(s.opts.Stderr, "Latest exception (%s): %s: %s\n", e.Timestamp.UTC().Format(time.RFC3339), e.Name, e.Message)
}

// durationText renders a wait limit rounded to the second (to the
// millisecond below one second).
func durationText(d time.Duration) string {
	if d >= time.Second {
		return d.Round(time.Second).String()
	}
	return d.Round(time.Millisecond).String()
}

// phaseList renders phases as "RUNNING or COMPLETED".
func phaseList(ps []v1.Phase) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = string(p)
	}
	return strings.Join(parts, " or ")
}
