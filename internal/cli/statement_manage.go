package cli

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/spf13/cobra"
)

// listCmd holds the flags of `eddy statement list`.
type listCmd struct {
	*statementCmd
	appName    string
	namePrefix string
	labels     []string
	phase      string
}

func (s *statementCmd) newListCommand() *cobra.Command {
	c := &listCmd{statementCmd: s}
	cmd := &cobra.Command{
		Use:   "list [--application-name APP] [--name-prefix P] [--label K=V]... [--status PHASE]",
		Short: "List statements",
		Long: `List the statements on the server, sorted by name.

With an application name (--application-name, application.name in the
properties file, or $EDDY_APPLICATION_NAME) only that application's
statements are listed: those named APP-…; --name-prefix then narrows them to
APP-PREFIX…. --label keeps the statements with all the given labels and
--status (or --phase) those in a phase, in any case: PENDING, RUNNING,
COMPLETED, STOPPING, STOPPED, FAILING, FAILED, DEGRADED, DELETING.

` + settingsHelp,
		Example: `  eddy statement list --application-name shop
  eddy statement list --status failed -o json
  eddy statement list --label team=data --name-prefix orders-`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := c.connect(cmd); err != nil {
				return err
			}
			return c.run(cmd)
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.appName, "application-name", "", "list the statements of application `APP` (or application.name=, or $EDDY_APPLICATION_NAME)")
	f.StringVar(&c.namePrefix, "name-prefix", "", "list the statements whose names start with `PREFIX`")
	f.StringArrayVar(&c.labels, "label", nil, "list the statements with label `KEY=VALUE` (repeatable)")
	f.StringVar(&c.phase, "status", "", "list the statements in `PHASE`")
	f.StringVar(&c.phase, "phase", "", "the same as --status")
	return cmd
}

var knownPhases = []v1.Phase{v1.Pending, v1.Running, v1.Completed, v1.Stopping, v1.Stopped, v1.Failing, v1.Failed, v1.Degraded, v1.Deleting}

func (c *listCmd) run(cmd *cobra.Command) error {
	ctx := cmd.Context()
	labels, err := ParsePairs("--label", c.labels)
	if err != nil {
		return c.failf("%v", err)
	}
	if cmd.Flags().Changed("status") && cmd.Flags().Changed("phase") {
		return c.failf("give --status or --phase, not both: they are the same filter")
	}
	f := client.Filter{NamePrefix: c.namePrefix, Labels: labels}
	if app := c.settings.ApplicationName; app != "" {
		f.NamePrefix = app + "-" + c.namePrefix
	}
	if c.phase != "" {
		f.Phase = v1.Phase(strings.ToUpper(c.phase))
		known := false
		for _, p := range knownPhases {
			known = known || p == f.Phase
		}
		if !known {
			return c.failf("invalid --status %q: use one of %s", c.phase, phaseList(knownPhases))
		}
	}
	list, err := c.cl.ListAll(ctx, f)
	if err != nil {
		return c.fail(err, "")
	}
	if c.output != "table" {
		if list == nil {
			list = []v1.Statement{}
		}
		return c.printValue(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(c.out(), "No statements.")
		return nil
	}
	return writeStatementTable(c.out(), list)
}

func (s *statementCmd) newDescribeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "describe NAME",
		Short: "Show a statement",
		Long: `Show a statement: its spec (SQL, properties, stopped), its status (phase,
detail, warnings, result schema, latest source offsets) and its metadata.
-o json and -o yaml print the whole resource as the REST API returns it.

` + settingsHelp,
		Example: `  eddy statement describe shop-orders-per-region
  eddy statement describe shop-orders-per-region -o json | jq -r .status.phase`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := s.connect(cmd); err != nil {
				return err
			}
			st, err := s.cl.GetStatement(cmd.Context(), args[0])
			if err != nil {
				return s.fail(err, args[0])
			}
			if s.output == "table" {
				return writeStatementDetail(s.out(), st)
			}
			return s.printValue(st)
		},
	}
}

// lifecycleCmd is stop or resume.
type lifecycleCmd struct {
	*statementCmd
	await awaitFlag
}

func (s *statementCmd) newStopCommand() *cobra.Command {
	c := &lifecycleCmd{statementCmd: s}
	cmd := &cobra.Command{
		Use:   "stop NAME [--wait[=DURATION]]",
		Short: "Stop a statement, keeping its state",
		Long: `Stop a running statement. The server takes a final checkpoint, so that
resume continues where it stopped. Without --wait the command returns as
soon as the server accepted the request (the statement is usually STOPPING);
with it, it waits until the statement is STOPPED (or COMPLETED, when it ended
on its own first).

` + settingsHelp,
		Example: `  eddy statement stop shop-orders-per-region --wait`,
		Args:    awaitArgs(cobra.ExactArgs(1), &c.await),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := c.connect(cmd); err != nil {
				return err
			}
			return c.run(cmd.Context(), args[0], true)
		},
	}
	addAwaitFlag(cmd, &c.await, "the statement is STOPPED")
	return cmd
}

func (s *statementCmd) newResumeCommand() *cobra.Command {
	c := &lifecycleCmd{statementCmd: s}
	cmd := &cobra.Command{
		Use:   "resume NAME [--wait[=DURATION]]",
		Short: "Resume a stopped statement from its last checkpoint",
		Long: `Resume a stopped statement: it runs again from its last checkpoint, with its
state. With --wait the command waits until it is RUNNING (or COMPLETED, for
a statement over bounded input), and fails if it FAILED.

` + settingsHelp,
		Example: `  eddy statement resume shop-orders-per-region --wait=10m`,
		Args:    awaitArgs(cobra.ExactArgs(1), &c.await),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := c.connect(cmd); err != nil {
				return err
			}
			return c.run(cmd.Context(), args[0], false)
		},
	}
	addAwaitFlag(cmd, &c.await, "the statement is RUNNING")
	return cmd
}

func (c *lifecycleCmd) run(ctx context.Context, name string, stop bool) error {
	verb, update := "resume", c.cl.ResumeStatement
	targets := []v1.Phase{v1.Running, v1.Completed}
	if stop {
		verb, update = "stop", c.cl.StopStatement
		targets = []v1.Phase{v1.Stopped, v1.Completed}
	}
	st, err := update(ctx, name)
	if err != nil {
		return c.fail(err, name)
	}
	c.infof("Requested to %s statement %q (phase %s).", verb, name, st.Status.Phase)
	if c.await.set {
		if st, err = c.awaitPhase(ctx, st, c.await.d, targets...); err != nil {
			return err
		}
	}
	return c.printStatement(st)
}

// deleteCmd holds the flags of `eddy statement delete`.
type deleteCmd struct {
	*statementCmd
	await awaitFlag
	force bool
}

func (s *statementCmd) newDeleteCommand() *cobra.Command {
	c := &deleteCmd{statementCmd: s}
	cmd := &cobra.Command{
		Use:   "delete NAME... [--force] [--wait[=DURATION]]",
		Short: "Delete statements and their state",
		Long: `Delete statements: each is stopped, its state is dropped and it goes away.
This cannot be undone; to pause a statement and keep its state use stop.

Without --force the command first checks that the statements exist, then
asks for confirmation on the terminal ("y" or "yes" deletes). When stdin is
not a terminal (a script, a CI job) there is nobody to ask: the command
refuses and exits with status 1 unless --force is given.

Without --wait the command returns once the server accepted the requests;
with it, it waits until every statement is gone. All the names are tried;
the command fails if any of them failed.

` + settingsHelp,
		Example: `  eddy statement delete shop-orders-per-region
  eddy statement delete shop-orders-per-region shop-orders-per-region-v2 --force --wait`,
		Args: awaitArgs(cobra.MinimumNArgs(1), &c.await),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := c.connect(cmd); err != nil {
				return err
			}
			return c.run(cmd.Context(), args)
		},
	}
	addAwaitFlag(cmd, &c.await, "the statements are gone")
	cmd.Flags().BoolVar(&c.force, "force", false, "delete without asking for confirmation (needed when stdin is not a terminal)")
	return cmd
}

// deleted is the json/yaml output of delete, one per name.
type deleted struct {
	Name   string `json:"name"`
	Status string `json:"status"` // deleting, deleted, failed
	Error  string `json:"error,omitempty"`
}

func (c *deleteCmd) run(ctx context.Context, names []string) error {
	var results []deleted
	failed := false
	if !c.force {
		var existing []string
		for _, name := range names {
			if _, err := c.cl.GetStatement(ctx, name); err != nil {
				_ = c.fail(err, name)
				results = append(results, deleted{Name: name, Status: "failed", Error: err.Error()})
				failed = true
				continue
			}
			existing = append(existing, name)
		}
		if len(existing) > 0 {
			ok, err := c.confirm(existing)
			if err != nil {
				return err
			}
			if !ok {
				fmt.Fprintln(c.opts.Stderr, "Nothing deleted.")
				return &ExitError{Code: 1}
			}
		}
		names = existing
	}
	for _, name := range names {
		if err := c.cl.DeleteStatement(ctx, name); err != nil {
			_ = c.fail(err, name) // reported; go on with the other names
			results = append(results, deleted{Name: name, Status: "failed", Error: err.Error()})
			failed = true
			continue
		}
		c.infof("Requested to delete statement %q.", name)
		results = append(results, deleted{Name: name, Status: "deleting"})
	}
	if c.await.set {
		deadline := time.Now().Add(c.await.d)
		for i := range results {
			if results[i].Status != "deleting" {
				continue
			}
			if err := c.awaitGone(ctx, results[i].Name, max(time.Until(deadline), time.Millisecond)); err != nil {
				results[i].Status, failed = "failed", true
				results[i].Error = "not deleted in time"
				continue
			}
			results[i].Status = "deleted"
		}
	}
	if c.output != "table" {
		if err := c.printValue(results); err != nil {
			return err
		}
	}
	if failed {
		return &ExitError{Code: 1}
	}
	return nil
}

// confirm asks on the terminal whether to delete names. It refuses at once
// when stdin is not a terminal, rather than wait for an answer that may
// never come (or take one from a pipe that was not meant as one).
func (c *deleteCmd) confirm(names []string) (bool, error) {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	what, its := "statement "+quoted[0], "its"
	if len(names) > 1 {
		what, its = "statements "+strings.Join(quoted, ", "), "their"
	}
	if _, tty := terminalFd(c.opts.Stdin); !tty {
		return false, c.failf("refusing to delete %s without confirmation: stdin is not a terminal; give --force to delete without asking", what)
	}
	fmt.Fprintf(c.opts.Stderr, "Delete %s and %s state? This cannot be undone. (y/n): ", what, its)
	line, err := bufio.NewReader(c.opts.Stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(c.opts.Stderr)
		return false, nil // end of input: no
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// updateCmd holds the flags of `eddy statement update`.
type updateCmd struct {
	*lifecycleCmd
	stopped bool
}

func (s *statementCmd) newUpdateCommand() *cobra.Command {
	c := &updateCmd{lifecycleCmd: &lifecycleCmd{statementCmd: s}}
	cmd := &cobra.Command{
		Use:   "update NAME --stopped=true|false [--wait[=DURATION]]",
		Short: "Update a statement: stop or resume it",
		Long: `Update the desired state of a statement, as Confluent's
"statement update": --stopped=true stops it (as eddy statement stop),
--stopped=false resumes it (as eddy statement resume). A statement's SQL and
properties cannot be updated; deploy a new version with eddy statement create
--on-conflict replace. With --wait the command waits until the statement is
STOPPED (or COMPLETED), or RUNNING (or COMPLETED).

` + settingsHelp,
		Example: `  eddy statement update shop-orders-per-region --stopped=true --wait
  eddy statement update shop-orders-per-region --stopped=false`,
		Args: awaitArgs(cobra.ExactArgs(1), &c.await),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("stopped") {
				return c.failf("nothing to update: give --stopped=true (stop) or --stopped=false (resume)")
			}
			if err := c.connect(cmd); err != nil {
				return err
			}
			return c.run(cmd.Context(), args[0], c.stopped)
		},
	}
	cmd.Flags().BoolVar(&c.stopped, "stopped", false, "true to stop the statement, false to resume it")
	addAwaitFlag(cmd, &c.await, "the statement is STOPPED or RUNNING")
	return cmd
}

// newExceptionCommand is "exception list NAME", Confluent's spelling of
// "exceptions NAME".
func (s *statementCmd) newExceptionCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "exception",
		Short: "Inspect the exceptions of a statement",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	list := s.newExceptionsCommand()
	list.Use = "list NAME"
	list.Example = `  eddy statement exception list shop-orders-per-region -o json`
	cmd.AddCommand(list)
	return cmd
}

func (s *statementCmd) newExceptionsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "exceptions NAME",
		Short: "List the latest exceptions of a statement (also: exception list NAME)",
		Long: `List the latest exceptions of a statement (at most 10, newest first): the
errors that failed it, or that it recovered from.

` + settingsHelp,
		Example: `  eddy statement exceptions shop-orders-per-region`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := s.connect(cmd); err != nil {
				return err
			}
			exs, err := s.cl.Exceptions(cmd.Context(), args[0])
			if err != nil {
				return s.fail(err, args[0])
			}
			if s.output != "table" {
				if exs == nil {
					exs = []v1.Exception{}
				}
				return s.printValue(exs)
			}
			if len(exs) == 0 {
				fmt.Fprintf(s.out(), "Statement %q has no exceptions.\n", args[0])
				return nil
			}
			return writeExceptionTable(s.out(), exs)
		},
	}
}
