package deploy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/internal/cli"
)

// runAction runs a lifecycle action and returns the exit status. Results
// go to stdout, messages and errors to stderr.
func (s *Settings) runAction(action Action) int {
	ctx := context.Background()
	c := s.config()
	fail := func(err error) int {
		fmt.Fprintf(c.stderr, "Error: %s\n", strings.ReplaceAll(err.Error(), "\n", "\n  "))
		return 1
	}
	cl, err := s.NewClient()
	if err != nil {
		return fail(err)
	}
	name := ""
	if s.StatementName != "" {
		if name, err = s.FullName(s.StatementName); err != nil {
			return fail(err)
		}
	} else if action != ActionList {
		return fail(fmt.Errorf("%s needs a statement: give --statement-name NAME, statement.name=NAME in the properties file, or $%s", action, StatementNameEnv))
	}
	switch action {
	case ActionList:
		err = s.list(ctx, cl, name)
	case ActionDescribe:
		var st *v1.Statement
		if st, err = cl.GetStatement(ctx, name); err == nil {
			enc := json.NewEncoder(c.stdout)
			enc.SetIndent("", "  ")
			err = enc.Encode(st)
		}
	case ActionStop, ActionResume:
		err = s.stopOrResume(ctx, cl, name, action == ActionStop)
	case ActionDelete:
		if err = cl.DeleteStatement(ctx, name); err == nil {
			fmt.Fprintf(c.stderr, "Requested to delete statement %q.\n", name)
			if s.Await > 0 {
				err = awaitGone(ctx, cl, name, s.Await, c.stderr)
			}
		}
	}
	if err != nil {
		return fail(s.explain(err, name))
	}
	return 0
}

// list prints the application's statements (all without an application
// name), or only the named one.
func (s *Settings) list(ctx context.Context, cl *client.Client, name string) error {
	var list []v1.Statement
	if name != "" {
		st, err := cl.GetStatement(ctx, name)
		if err != nil {
			return err
		}
		list = []v1.Statement{*st}
	} else {
		f := client.Filter{}
		if s.ApplicationName != "" {
			f.NamePrefix = s.ApplicationName + "-"
		}
		var err error
		if list, err = cl.ListAll(ctx, f); err != nil {
			return err
		}
	}
	w := s.config().stdout
	if len(list) == 0 {
		if s.ApplicationName != "" {
			fmt.Fprintf(w, "No statements of application %q.\n", s.ApplicationName)
		} else {
			fmt.Fprintln(w, "No statements.")
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPHASE\tCREATED\tSTATEMENT")
	for _, st := range list {
		created := ""
		if !st.Metadata.CreatedAt.IsZero() {
			created = st.Metadata.CreatedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", st.Name, st.Status.Phase, created, oneLine(st.Spec.Statement, 60))
	}
	return tw.Flush()
}

// stopOrResume requests the change and, with Await, waits for it.
func (s *Settings) stopOrResume(ctx context.Context, cl *client.Client, name string, stop bool) error {
	w := s.config().stderr
	verb, update := "resume", cl.ResumeStatement
	targets := []v1.Phase{v1.Running, v1.Completed}
	if stop {
		verb, update = "stop", cl.StopStatement
		targets = []v1.Phase{v1.Stopped, v1.Completed}
	}
	st, err := update(ctx, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Requested to %s statement %q (phase %s).\n", verb, name, st.Status.Phase)
	if s.Await <= 0 {
		return nil
	}
	_, err = awaitPhase(ctx, cl, name, s.Await, w, targets...)
	return err
}

// awaitPhase waits for a statement to reach one of targets, for at most
// limit, telling w. It returns a *StatementError when the statement FAILED
// or the time ran out.
func awaitPhase(ctx context.Context, cl *client.Client, name string, limit time.Duration, w io.Writer, targets ...v1.Phase) (*v1.Statement, error) {
	want := phaseList(targets)
	fmt.Fprintf(w, "Waiting up to %s for statement %q to be %s...\n", durationText(limit), name, want)
	st, err := cl.Await(ctx, name, client.PhaseIn(targets...), limit)
	switch {
	case err == nil:
		fmt.Fprintf(w, "Statement %q is %s.\n", name, st.Status.Phase)
		return st, nil
	case errors.Is(err, client.ErrFailed), errors.Is(err, client.ErrTimeout):
		se := &StatementError{Name: name, Statement: st, Want: targets, Timeout: limit, Err: err}
		se.Exception = latestException(ctx, cl, name)
		return st, se
	}
	return st, err
}

// awaitGone waits until a statement is deleted.
func awaitGone(ctx context.Context, cl *client.Client, name string, limit time.Duration, w io.Writer) error {
	fmt.Fprintf(w, "Waiting up to %s for statement %q to be deleted...\n", durationText(limit), name)
	err := cl.AwaitDeleted(ctx, name, limit)
	if err == nil {
		fmt.Fprintf(w, "Statement %q is deleted.\n", name)
		return nil
	}
	if errors.Is(err, client.ErrTimeout) {
		se := &StatementError{Name: name, Deleted: true, Timeout: limit, Err: err}
		if st, gerr := cl.GetStatement(context.WithoutCancel(ctx), name); gerr == nil {
			se.Statement = st
		}
		return se
	}
	return err
}

// latestException returns the newest exception of a statement, if it can
// be had.
func latestException(ctx context.Context, cl *client.Client, name string) *v1.Exception {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	exs, err := cl.Exceptions(ctx, name)
	if err != nil || len(exs) == 0 {
		return nil
	}
	return &exs[0]
}

// StatementError is the error of a wait that failed: the statement FAILED,
// or it did not get where it was awaited in time. errors.Is(err,
// client.ErrFailed) and errors.Is(err, client.ErrTimeout) tell which.
type StatementError struct {
	// Name is the statement's full name.
	Name string
	// Statement is the statement as last seen (nil if never seen).
	Statement *v1.Statement
	// Exception is its latest exception, if any.
	Exception *v1.Exception
	// Want are the phases awaited; Deleted is true when its deletion was
	// awaited instead.
	Want    []v1.Phase
	Deleted bool
	// Timeout is how long the wait was allowed to take.
	Timeout time.Duration
	// Err is the error of the client: client.ErrFailed or a
	// *client.TimeoutError.
	Err error
}

func (e *StatementError) Error() string {
	var b strings.Builder
	switch {
	case errors.Is(e.Err, client.ErrFailed):
		detail := ""
		if e.Statement != nil {
			detail = e.Statement.Status.Detail
		}
		fmt.Fprintf(&b, "statement %q FAILED: %s", e.Name, detail)
	case e.Deleted:
		fmt.Fprintf(&b, "timed out after %s waiting for statement %q to be deleted", durationText(e.Timeout), e.Name)
	default:
		fmt.Fprintf(&b, "timed out after %s waiting for statement %q to be %s", durationText(e.Timeout), e.Name, phaseList(e.Want))
	}
	if e.Statement != nil && !errors.Is(e.Err, client.ErrFailed) {
		fmt.Fprintf(&b, "\nLast seen: %s: %s", e.Statement.Status.Phase, e.Statement.Status.Detail)
	}
	if te, ok := errors.AsType[*client.TimeoutError](e.Err); ok && te.LastErr != nil {
		fmt.Fprintf(&b, "\nLast error: %v", te.LastErr)
	}
	if x := e.Exception; x != nil {
		fmt.Fprintf(&b, "\nLatest exception (%s): %s: %s", x.Timestamp.UTC().Format(time.RFC3339), x.Name, x.Message)
	}
	return b.String()
}

func (e *StatementError) Unwrap() error { return e.Err }

// explain turns an error of the client about statement name ("" when not
// about one) into one that says what to do: authentication failures name
// where the key came from, a statement not found suggests the prefixed
// name, an unreachable server names where its URL came from. The client's
// error stays in the chain.
func (s *Settings) explain(err error, name string) error {
	ce, isClientErr := errors.AsType[*client.Error](err)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted: %w", err)
	case client.IsUnauthorized(err):
		msg := fmt.Sprintf("authentication failed: the server at %s refused ", s.Server)
		if o := s.Origins["api.key"]; o != "" {
			msg += "the API key from " + o
		} else {
			msg += "the request: it needs an API key"
		}
		msg += fmt.Sprintf("; check --api-key/--api-secret, api.key/api.secret in the properties file, or $%s/$%s", cli.APIKeyEnv, cli.APISecretEnv)
		return &explainedError{msg: msg, err: err}
	case client.IsNotFound(err) && name != "":
		msg := fmt.Sprintf("statement %q not found", name)
		if s.ApplicationName == "" {
			msg += " (no application name is set: the name is used as it is)"
		}
		return &explainedError{msg: msg, err: err}
	case client.IsConflict(err):
		return &explainedError{msg: fmt.Sprintf("statement %q kept changing while it was being updated (409 %s at every attempt); try again", name, v1.CodeConflict), err: err}
	case isClientErr:
		msg := ce.Message
		if ce.Position != "" {
			msg = "at " + ce.Position + ": " + msg
		}
		if ce.Status == http.StatusForbidden {
			msg = "permission denied: " + msg
		}
		if ce.Suggestion != "" {
			msg += "\nHint: " + ce.Suggestion
		}
		return &explainedError{msg: msg, err: err}
	case client.IsTransient(err):
		inner := err
		if ue, ok := errors.AsType[*url.Error](err); ok {
			inner = ue.Err // without the method and URL
		}
		return &explainedError{msg: fmt.Sprintf("cannot reach the server at %s (%s): %v", s.Server, s.Origins["server"], inner), err: err}
	}
	return err
}

// explainedError is an error with a message for people and the original
// error in its chain.
type explainedError struct {
	msg string
	err error
}

func (e *explainedError) Error() string { return e.msg }
func (e *explainedError) Unwrap() error { return e.err }

// oneLine squeezes the blanks and newlines of a SQL text and cuts it to n
// characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
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
