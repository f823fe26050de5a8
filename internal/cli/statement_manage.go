package cli

import (
	"context"
	"fmt"
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
		Use:   "list [--application-name APP] [--name-prefix P] [--label K=V]... [--phase PHASE]",
		Short: "List statements",
		Long: `List the statements on the server, sorted by name.

With an application name (--application-name, application.name in the
properties file, or $EDDY_APPLICATION_NAME) only that application's
statements are listed: those named APP-…; --name-prefix then narrows them to
APP-PREFIX…. --label keeps the statements with all the given labels and
--phase those in a phase (PENDING, RUNNING, COMPLETED, STOPPING, STOPPED,
FAILING, FAILED, DEGRADED, DELETING).

` + settingsHelp,
		Example: `  eddy statement list --application-name shop
  eddy statement list --phase FAILED -o json
  eddy statement list --label team=data --name-prefix orders-`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := c.connect(cmd); err != nil {
				return err
			}
			return c.run(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.appName, "application-name", "", "list the statements of application `APP` (or application.name=, or $EDDY_APPLICATION_NAME)")
	f.StringVar(&c.namePrefix, "name-prefix", "", "list the statements whose names start with `PREFIX`")
	f.StringArrayVar(&c.labels, "label", nil, "list the statements with label `KEY=VALUE` (repeatable)")
	f.StringVar(&c.phase, "phase", "", "list the statements in `PHASE`")
	return cmd
}

var knownPhases = []v1.Phase{v1.Pending, v1.Running, v1.Completed, v1.Stopping, v1.Stopped, v1.Failing, v1.Failed, v1.Degraded, v1.Deleting}

func (c *listCmd) run(ctx context.Context) error {
	labels, err := ParsePairs("--label", c.labels)
	if err != nil {
		return c.failf("%v", err)
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
			return c.failf("invalid --phase %q: use one of %s", c.phase, phaseList(knownPhases))
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
		Use:   "stop NAME [--await[=DURATION]]",
		Short: "Stop a statement, keeping its state",
		Long: `Stop a running statement. The server takes a final checkpoint, so that
resume continues where it stopped. Without --await the command returns as
soon as the server accepted the request (the statement is usually STOPPING);
with it, it waits until the statement is STOPPED (or COMPLETED, when it ended
on its own first).

` + settingsHelp,
		Example: `  eddy statement stop shop-orders-per-region --await`,
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
		Use:   "resume NAME [--await[=DURATION]]",
		Short: "Resume a stopped statement from its last checkpoint",
		Long: `Resume a stopped statement: it runs again from its last checkpoint, with its
state. With --await the command waits until it is RUNNING (or COMPLETED, for
a statement over bounded input), and fails if it FAILED.

` + settingsHelp,
		Example: `  eddy statement resume shop-orders-per-region --await=10m`,
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
}

func (s *statementCmd) newDeleteCommand() *cobra.Command {
	c := &deleteCmd{statementCmd: s}
	cmd := &cobra.Command{
		Use:   "delete NAME... [--await[=DURATION]]",
		Short: "Delete statements and their state",
		Long: `Delete statements: each is stopped, its state is dropped and it goes away.
This cannot be undone; to pause a statement and keep its state use stop.
Without --await the command returns once the server accepted the requests;
with it, it waits until every statement is gone. All the names are tried;
the command fails if any of them failed.

` + settingsHelp,
		Example: `  eddy statement delete shop-orders-per-region shop-orders-per-region-v2 --await`,
		Args:    awaitArgs(cobra.MinimumNArgs(1), &c.await),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := c.connect(cmd); err != nil {
				return err
			}
			return c.run(cmd.Context(), args)
		},
	}
	addAwaitFlag(cmd, &c.await, "the statements are gone")
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

func (s *statementCmd) newExceptionsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "exceptions NAME",
		Short: "List the latest exceptions of a statement",
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
