package deploy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/internal/cli"
)

// Env deploys a program's statements to the server of its Settings.
// Messages (created, unchanged, replaced, warnings) go to standard error
// (WithStderr). SetStatementName and ExecuteSQL are meant to be called from
// one goroutine; Handles may be used from any.
type Env struct {
	s  Settings
	cl *client.Client

	mu sync.Mutex
	// next names the next statement; nextSet is true when the program set
	// it with SetStatementName.
	next    string
	nextSet bool
	// settingUsed is true once Settings.StatementName was used or
	// overridden: it names the first statement only.
	settingUsed bool
}

// Environment checks the settings, connects to the server and returns an
// Env. It fails when no server is configured, when OnConflict is Replace
// without an application name, and when the server cannot be reached or
// refuses the API key.
func (s *Settings) Environment(ctx context.Context) (*Env, error) {
	if s.OnConflict == "" {
		s.OnConflict = Fail
	}
	switch s.OnConflict {
	case Fail:
	case Replace:
		if s.ApplicationName == "" {
			return nil, fmt.Errorf("on-conflict replace needs an application name (--application-name, application.name or $%s), so that a redeploy replaces only the statements it deployed before", cli.ApplicationNameEnv)
		}
	default:
		return nil, fmt.Errorf("invalid on-conflict %q: use fail or replace", s.OnConflict)
	}
	if s.ApplicationName != "" && !nameRE.MatchString(s.ApplicationName) {
		return nil, fmt.Errorf("invalid application name %q: use lowercase letters, digits and '-', starting and ending with a letter or digit", s.ApplicationName)
	}
	cl, err := s.NewClient()
	if err != nil {
		return nil, err
	}
	// One cheap request, so that a wrong key or URL fails here, before
	// anything is deployed, with a clear message.
	f := client.Filter{}
	if s.ApplicationName != "" {
		f.NamePrefix = s.ApplicationName + "-"
	}
	if _, _, err := cl.ListStatements(ctx, f, 1, ""); err != nil {
		return nil, s.explain(err, "")
	}
	e := &Env{s: *s, cl: cl}
	e.s.Properties = maps.Clone(s.Properties)
	e.s.Origins = maps.Clone(s.Origins)
	e.s.cfg = s.config()
	return e, nil
}

// Settings returns the settings of the Env.
func (e *Env) Settings() Settings { return e.s }

// Client returns the client the Env uses, for what this package does not
// cover.
func (e *Env) Client() *client.Client { return e.cl }

// SetStatementName names the next statement ExecuteSQL creates: its full
// name is APP-NAME. The name applies to that statement only; set one
// before every statement. It replaces Settings.StatementName
// (--statement-name), with a warning when that was set too.
func (e *Env) SetStatementName(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.settingUsed && e.s.StatementName != "" && e.s.StatementName != name {
		fmt.Fprintf(e.stderr(), "Warning: the program names its statement %q, which overrides statement name %q from %s.\n",
			name, e.s.StatementName, e.s.Origins["statement.name"])
	}
	e.settingUsed = true
	e.next, e.nextSet = name, true
}

// takeName returns the name of the statement about to be created and
// resets it: SetStatementName's, else Settings.StatementName for the first
// statement, else "" (a generated name).
func (e *Env) takeName() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	name := e.next
	if !e.nextSet && !e.settingUsed {
		name = e.s.StatementName
	}
	e.next, e.nextSet, e.settingUsed = "", false, true
	return name
}

func (e *Env) stderr() io.Writer { return e.s.config().stderr }

func (e *Env) infof(format string, args ...any) {
	fmt.Fprintf(e.stderr(), format+"\n", args...)
}

// StatementOption adjusts one ExecuteSQL.
type StatementOption func(*statementOptions)

type statementOptions struct {
	noAwait    bool
	phases     []v1.Phase
	properties map[string]string
	labels     map[string]string
	stopped    bool
}

// NoAwait makes ExecuteSQL return as soon as the server accepted the
// statement, without waiting for it to run.
func NoAwait() StatementOption { return func(o *statementOptions) { o.noAwait = true } }

// AwaitPhases sets the phases ExecuteSQL waits for; default RUNNING or
// COMPLETED (STOPPED with Stopped).
func AwaitPhases(phases ...v1.Phase) StatementOption {
	return func(o *statementOptions) { o.phases = phases }
}

// Property adds a property to the statement's spec.properties, on top of
// Settings.Properties.
func Property(key, value string) StatementOption {
	return func(o *statementOptions) {
		if o.properties == nil {
			o.properties = map[string]string{}
		}
		o.properties[key] = value
	}
}

// Label adds a label to the statement. Labels are set when a statement is
// created and are not part of its identity.
func Label(key, value string) StatementOption {
	return func(o *statementOptions) {
		if o.labels == nil {
			o.labels = map[string]string{}
		}
		o.labels[key] = value
	}
}

// Stopped creates the statement stopped (a staged go-live): it runs once it
// is resumed. It is not part of the statement's identity: an unchanged
// statement keeps its state.
func Stopped() StatementOption { return func(o *statementOptions) { o.stopped = true } }

// Outcome says what ExecuteSQL did.
type Outcome int

// The outcomes.
const (
	// Existing is a Handle from Env.Handle, of a statement the Env did
	// not deploy.
	Existing Outcome = iota
	// Created: the statement did not exist and was created.
	Created
	// Unchanged: the statement existed with the same SQL and properties
	// and was left alone.
	Unchanged
	// Replaced: the statement existed with another SQL or properties and
	// was deleted and created again (on-conflict replace).
	Replaced
)

func (o Outcome) String() string {
	switch o {
	case Created:
		return "created"
	case Unchanged:
		return "unchanged"
	case Replaced:
		return "replaced"
	}
	return "existing"
}

// ConflictError is the error of ExecuteSQL under on-conflict fail when the
// statement exists with another SQL or other properties.
type ConflictError struct {
	// Name is the statement's full name.
	Name string
	// Deployed is the spec of the statement on the server; New the spec
	// ExecuteSQL was given.
	Deployed, New v1.Spec
}

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "statement %q already exists with a different spec (on-conflict fail):\n", e.Name)
	cli.WriteSpecDiff(&b, e.Name, e.Deployed, e.New)
	b.WriteString("Hint: to replace it, run with --on-conflict replace (it then starts fresh unless the server carries its state over); to keep both, give the new statement another name.")
	return b.String()
}

// Diff returns the difference between the deployed spec and the new one as
// a unified diff.
func (e *ConflictError) Diff() string {
	var b strings.Builder
	cli.WriteSpecDiff(&b, e.Name, e.Deployed, e.New)
	return b.String()
}

// ExecuteSQL deploys one SQL statement as a statement on the server, named
// APP-NAME after the name set with SetStatementName (which it then
// resets), or after Settings.StatementName for the program's first
// statement. Without a name it generates one (APP-YYYYMMDD-HHMMSS-<hex>)
// and warns when the statement keeps running in the background: a redeploy
// would create another one.
//
// When a statement of that name exists:
//   - with the same SQL and properties, it is left alone (Outcome
//     Unchanged): redeploying an unchanged program is a no-op;
//   - otherwise, under on-conflict fail, ExecuteSQL returns a
//     *ConflictError with the difference;
//   - under on-conflict replace, the existing statement is deleted,
//     ExecuteSQL waits until it is gone and creates the new one, which
//     starts fresh unless the server reports status.state_carried_from.
//
// Then it waits (at most Settings.Timeout) until the statement is RUNNING
// or COMPLETED, or in the phases of AwaitPhases; a statement whose spec is
// stopped (Stopped, or an unchanged statement someone stopped) until it is
// STOPPED. NoAwait skips the wait. When the statement FAILED or the time
// ran out it returns the Handle and a *StatementError with the statement's
// detail and latest exception.
func (e *Env) ExecuteSQL(ctx context.Context, sql string, opts ...StatementOption) (*Handle, error) {
	var o statementOptions
	for _, opt := range opts {
		opt(&o)
	}
	short := e.takeName()
	sql = normalizeSQL(sql)
	if sql == "" {
		return nil, errors.New("no SQL to deploy")
	}
	var name string
	generated := short == ""
	if generated {
		name = generateName(e.s.ApplicationName, e.s.config().now())
		if len(name) > MaxStatementNameLength {
			return nil, fmt.Errorf("application name %q is too long for a generated statement name (%d characters, at most %d): name the statement with SetStatementName", e.s.ApplicationName, len(name), MaxStatementNameLength)
		}
	} else {
		var err error
		if name, err = e.s.FullName(short); err != nil {
			return nil, err
		}
	}
	props := maps.Clone(e.s.Properties)
	if len(o.properties) > 0 {
		if props == nil {
			props = map[string]string{}
		}
		maps.Copy(props, o.properties)
	}
	want := v1.Statement{
		Name:     name,
		Metadata: v1.Metadata{Labels: o.labels},
		Spec:     v1.Spec{Statement: sql, Properties: props, Stopped: o.stopped},
	}
	st, outcome, err := e.deploy(ctx, want)
	if err != nil {
		return nil, err
	}
	h := &Handle{env: e, name: name, outcome: outcome, deployed: st}
	if !o.noAwait {
		targets := o.phases
		switch {
		case len(targets) > 0:
		case st.Spec.Stopped:
			targets = []v1.Phase{v1.Stopped, v1.Completed}
		default:
			targets = []v1.Phase{v1.Running, v1.Completed}
		}
		// Await even when the statement is already there: it may have
		// FAILED since.
		w := e.stderr()
		if slices.Contains(targets, st.Status.Phase) {
			w = io.Discard
		}
		got, err := awaitPhase(ctx, e.cl, name, e.s.timeout(), w, targets...)
		if got != nil {
			h.deployed = got
		}
		if err != nil {
			return h, e.s.explain(err, name)
		}
	}
	if generated && h.deployed.Status.Phase != v1.Completed {
		fmt.Fprintf(e.stderr(), "Warning: background statement %q got a generated name: a redeploy creates another statement instead of updating this one. Name it with Env.SetStatementName (or --statement-name).\n", name)
	}
	return h, nil
}

// deploy creates the statement or, when it exists, applies the on-conflict
// rule.
func (e *Env) deploy(ctx context.Context, want v1.Statement) (*v1.Statement, Outcome, error) {
	name := want.Name
	st, err := e.cl.CreateStatement(ctx, want)
	if err == nil {
		e.infof("Statement %q created (phase %s).", name, st.Status.Phase)
		return st, Created, nil
	}
	if !client.IsExists(err) {
		return nil, 0, e.s.explain(err, name)
	}
	old, err := e.cl.GetStatement(ctx, name)
	if client.IsNotFound(err) { // deleted in between: create it after all
		if st, err = e.cl.CreateStatement(ctx, want); err == nil {
			e.infof("Statement %q created (phase %s).", name, st.Status.Phase)
			return st, Created, nil
		}
	}
	if err != nil {
		return nil, 0, e.s.explain(err, name)
	}
	if sameSpec(old.Spec, want.Spec) {
		e.infof("Statement %q is unchanged (phase %s): it already exists with the same SQL and properties.", name, old.Status.Phase)
		if len(want.Metadata.Labels) > 0 && !maps.Equal(old.Metadata.Labels, want.Metadata.Labels) {
			e.infof("Note: its labels differ; labels are set only when a statement is created.")
		}
		if old.Spec.Stopped && !want.Spec.Stopped {
			e.infof("Note: it is stopped and stays so; resume it with the resume action.")
		}
		return old, Unchanged, nil
	}
	if e.s.OnConflict != Replace {
		return nil, 0, &ConflictError{Name: name, Deployed: old.Spec, New: want.Spec}
	}
	return e.replace(ctx, old, want)
}

// replace deletes the deployed statement, waits until it is gone and
// creates the new one.
func (e *Env) replace(ctx context.Context, old *v1.Statement, want v1.Statement) (*v1.Statement, Outcome, error) {
	name := want.Name
	if e.s.ApplicationName == "" {
		return nil, 0, fmt.Errorf("statement %q exists with a different spec, and on-conflict replace needs an application name", name)
	}
	var b strings.Builder
	cli.WriteSpecDiff(&b, name, old.Spec, want.Spec)
	e.infof("Statement %q exists with a different spec; replacing it (on-conflict replace):\n%s", name, strings.TrimSuffix(b.String(), "\n"))
	// The server replaces in one step and carries state over when it can.
	res, err := e.cl.ReplaceStatement(ctx, want)
	if err == nil {
		if res.StateCarried {
			e.infof("Statement %q replaced; its state and source positions were carried over (%s).", name, res.Statement.Status.StateCarriedFrom)
		} else {
			e.infof("Statement %q replaced; it starts fresh because %s.", name, res.Reason)
		}
		return &res.Statement, Replaced, nil
	}
	if !client.IsNotFound(err) {
		return nil, 0, e.s.explain(err, name)
	}
	// A server without the replace endpoint: delete, then create.
	if err := e.cl.DeleteStatement(ctx, name); err != nil && !client.IsNotFound(err) {
		return nil, 0, e.s.explain(err, name)
	}
	if err := awaitGone(ctx, e.cl, name, e.s.timeout(), e.stderr()); err != nil {
		return nil, 0, e.s.explain(err, name)
	}
	st, err := e.cl.CreateStatement(ctx, want)
	if err != nil {
		return nil, 0, e.s.explain(err, name)
	}
	e.infof("Statement %q created (phase %s), replacing the previous one (uid %s).", name, st.Status.Phase, old.Metadata.UID)
	if from := st.Status.StateCarriedFrom; from != "" {
		e.infof("Its state and source positions were carried over from %s.", from)
	} else {
		e.infof("It starts fresh: the server did not carry over the state and source positions of the replaced statement, so it reads its sources from their configured start positions and rebuilds any state by reprocessing them.")
	}
	return st, Replaced, nil
}

// Handle returns a Handle of the statement APP-NAME, which need not exist.
func (e *Env) Handle(name string) (*Handle, error) {
	full, err := e.s.FullName(name)
	if err != nil {
		return nil, err
	}
	return &Handle{env: e, name: full, outcome: Existing}, nil
}

// sameSpec reports whether two specs have the same statement and
// properties (spec.stopped is the desired state, not part of the identity).
func sameSpec(a, b v1.Spec) bool {
	return normalizeSQL(a.Statement) == normalizeSQL(b.Statement) && maps.Equal(a.Properties, b.Properties)
}

// normalizeSQL drops surrounding blanks and one final ';', so that the same
// statement written with or without it is the same spec.
func normalizeSQL(sql string) string {
	sql = strings.TrimSpace(sql)
	sql = strings.TrimSuffix(sql, ";")
	return strings.TrimSpace(sql)
}

// sortedPairs renders a map as sorted "k=v" strings.
func sortedPairs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}

// generateName returns PREFIX-YYYYMMDD-HHMMSS-<12 hex digits>, the prefix
// being the application name or "deploy". The random suffix keeps two
// names generated in the same second apart.
func generateName(app string, now time.Time) string {
	if app == "" {
		app = "deploy"
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%s-%s", app, now.UTC().Format("20060102-150405"), hex.EncodeToString(b))
}
