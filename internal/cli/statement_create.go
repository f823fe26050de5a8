package cli

import (
	"context"
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/spf13/cobra"
)

// MaxStatementNameLength is the longest statement name, application prefix
// included.
const MaxStatementNameLength = 100

var statementNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// statementNow is the clock of generated names (a test hook).
var statementNow = time.Now

// createCmd holds the flags of `eddy statement create`.
type createCmd struct {
	*statementCmd
	sql, sqlFile string
	appName      string
	onConflict   string
	stopped      bool
	properties   []string
	labels       []string
	await        awaitFlag
}

func (s *statementCmd) newCreateCommand() *cobra.Command {
	c := &createCmd{statementCmd: s}
	cmd := &cobra.Command{
		Use:   "create [NAME] (--sql SQL | --sql-file FILE) [flags]",
		Short: "Create (deploy) a statement",
		Long: `Create a statement on the server, idempotently.

Its full name is APP-NAME when an application name is set (--application-name,
application.name in the properties file, or $EDDY_APPLICATION_NAME), NAME
otherwise: lowercase letters, digits and '-', starting and ending with a letter
or digit, at most 100 characters in all. Without NAME a name that cannot
collide is generated: APP-YYYYMMDD-HHMMSS-<12 hex digits> (cli-… without an
application), so running the command again creates another statement.

When a statement of that name exists already:
  - with the same SQL and properties, nothing is done: it is "unchanged" and
    the command succeeds (a redeploy of an unchanged pipeline is a no-op);
  - with a different SQL or properties and --on-conflict fail (the default),
    the command prints the difference and exits with status 1;
  - with --on-conflict replace (which needs an application name), the old
    statement is deleted, the command waits until it is gone, and the new
    one is created. Its state and source positions are carried over only if
    the server reports it (status.state_carried_from); otherwise the new
    statement starts fresh and reprocesses its sources.

--stopped creates the statement without starting it; resume it later.
--wait (or --await) waits until the statement is RUNNING or COMPLETED (STOPPED with
--stopped); it fails if the statement FAILED or the time ran out, printing
its detail and latest exception.

` + settingsHelp,
		Example: `  # Deploy from a file, replacing a changed version, and wait until it runs
  eddy statement create orders-per-region --application-name shop \
      --sql-file orders_per_region.sql --on-conflict replace --wait=10m

  # Create a statement stopped, with a property and a label
  eddy statement create nightly --sql 'INSERT INTO totals SELECT ...' \
      --property sql.current-database=shop --label team=data --stopped`,
		Args: awaitArgs(cobra.MaximumNArgs(1), &c.await),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := c.connect(cmd); err != nil {
				return err
			}
			return c.run(cmd.Context(), args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.sql, "sql", "", "the statement's `SQL`")
	f.StringVar(&c.sqlFile, "sql-file", "", "read the statement's SQL from `FILE` (- for stdin)")
	f.StringVar(&c.appName, "application-name", "", "application `NAME`, the prefix of the statement's name (or application.name=, or $EDDY_APPLICATION_NAME)")
	f.StringVar(&c.onConflict, "on-conflict", "fail", "`MODE` fail or replace: what to do when the statement exists with another SQL or properties")
	f.BoolVar(&c.stopped, "stopped", false, "create the statement stopped")
	f.StringArrayVar(&c.properties, "property", nil, "statement properties `KEY=VALUE[,KEY=VALUE...]` (repeatable)")
	f.StringArrayVar(&c.labels, "label", nil, "labels `KEY=VALUE[,KEY=VALUE...]` (repeatable)")
	addAwaitFlag(cmd, &c.await, "the statement is RUNNING or COMPLETED")
	cmd.MarkFlagsMutuallyExclusive("sql", "sql-file")
	return cmd
}

func (c *createCmd) run(ctx context.Context, args []string) error {
	if c.onConflict != "fail" && c.onConflict != "replace" {
		return c.failf("invalid --on-conflict %q: use fail or replace", c.onConflict)
	}
	sql, err := c.readSQL()
	if err != nil {
		return c.failf("%v", err)
	}
	props, err := ParsePairs("--property", c.properties)
	if err != nil {
		return c.failf("%v", err)
	}
	labels, err := ParsePairs("--label", c.labels)
	if err != nil {
		return c.failf("%v", err)
	}
	app := c.settings.ApplicationName
	if app != "" && !statementNameRE.MatchString(app) {
		return c.failf("invalid application name %q (%s): use lowercase letters, digits and '-', starting and ending with a letter or digit", app, c.settings.Origins["application.name"])
	}
	if c.onConflict == "replace" && app == "" {
		return c.failf("--on-conflict replace needs an application name (--application-name, application.name or $%s), so that a redeploy replaces the statement it deployed before and nothing else", ApplicationNameEnv)
	}
	name, generated := "", len(args) == 0
	if generated {
		name = generateStatementName(app, statementNow())
		if len(name) > MaxStatementNameLength {
			return c.failf("application name %q is too long for a generated statement name (%d characters, at most %d): give a NAME", app, len(name), MaxStatementNameLength)
		}
	} else if name, err = fullStatementName(app, args[0]); err != nil {
		return c.failf("%v", err)
	}
	if !generated && app != "" && strings.HasPrefix(args[0], app+"-") {
		c.infof("Note: NAME already starts with the application prefix %q; the statement is named %q.", app+"-", name)
	}
	if generated {
		c.infof("No NAME given: the statement is named %q. Give a NAME to make redeploys idempotent.", name)
	}
	want := v1.Statement{
		Name:     name,
		Metadata: v1.Metadata{Labels: labels},
		Spec:     v1.Spec{Statement: sql, Properties: props, Stopped: c.stopped},
	}
	st, err := c.deploy(ctx, want)
	if err != nil {
		return err
	}
	if c.await.set {
		targets := []v1.Phase{v1.Running, v1.Completed}
		if st.Spec.Stopped {
			targets = []v1.Phase{v1.Stopped}
		}
		if st, err = c.awaitPhase(ctx, st, c.await.d, targets...); err != nil {
			return err
		}
	}
	return c.printStatement(st)
}

// readSQL returns the SQL of --sql or --sql-file, without surrounding
// blanks and a final ';'.
func (c *createCmd) readSQL() (string, error) {
	sql := c.sql
	switch c.sqlFile {
	case "":
	case "-":
		b, err := io.ReadAll(c.opts.Stdin)
		if err != nil {
			return "", fmt.Errorf("reading the SQL from stdin: %w", err)
		}
		sql = string(b)
	default:
		b, err := os.ReadFile(c.sqlFile)
		if err != nil {
			return "", fmt.Errorf("reading the SQL: %w", err)
		}
		sql = string(b)
	}
	sql = normalizeSQL(sql)
	if sql == "" {
		return "", fmt.Errorf("no SQL: give the statement with --sql SQL or --sql-file FILE")
	}
	return sql, nil
}

// normalizeSQL drops surrounding blanks and one final ';', so that the same
// statement written with or without it is the same spec.
func normalizeSQL(sql string) string {
	sql = strings.TrimSpace(sql)
	sql = strings.TrimSuffix(sql, ";")
	return strings.TrimSpace(sql)
}

// deploy creates the statement or, when it exists, applies the
// --on-conflict rule.
func (c *createCmd) deploy(ctx context.Context, want v1.Statement) (*v1.Statement, error) {
	name := want.Name
	st, err := c.cl.CreateStatement(ctx, want)
	if err == nil {
		c.infof("Statement %q created (phase %s).", name, st.Status.Phase)
		return st, nil
	}
	if !client.IsExists(err) {
		return nil, c.fail(err, name)
	}
	old, err := c.cl.GetStatement(ctx, name)
	if client.IsNotFound(err) { // deleted in between: create it after all
		if st, err = c.cl.CreateStatement(ctx, want); err == nil {
			c.infof("Statement %q created (phase %s).", name, st.Status.Phase)
			return st, nil
		}
	}
	if err != nil {
		return nil, c.fail(err, name)
	}
	if sameSpec(old.Spec, want.Spec) {
		c.infof("Statement %q is unchanged (phase %s): it already exists with the same SQL and properties.", name, old.Status.Phase)
		if !maps.Equal(old.Metadata.Labels, want.Metadata.Labels) && len(want.Metadata.Labels) > 0 {
			c.infof("Note: its labels differ from --label; labels are set only when a statement is created.")
		}
		if old.Spec.Stopped != want.Spec.Stopped {
			c.infof("Note: it is %s; --stopped applies only when a statement is created (use eddy statement stop or resume).", stoppedWord(old.Spec.Stopped))
		}
		return old, nil
	}
	if c.onConflict == "fail" {
		fmt.Fprintf(c.opts.Stderr, "Error: statement %q already exists with a different spec (--on-conflict fail):\n", name)
		WriteSpecDiff(c.opts.Stderr, name, old.Spec, want.Spec)
		fmt.Fprintln(c.opts.Stderr, "Hint: to replace it, run again with --on-conflict replace (its state is not carried over unless the server says so); to keep both, give the new statement another name.")
		return nil, &ExitError{Code: 1}
	}
	return c.replace(ctx, old, want)
}

// replace deletes the deployed statement, waits until it is gone and
// creates the new one.
func (c *createCmd) replace(ctx context.Context, old *v1.Statement, want v1.Statement) (*v1.Statement, error) {
	name := want.Name
	c.infof("Statement %q exists with a different spec; replacing it (--on-conflict replace):", name)
	WriteSpecDiff(c.info(), name, old.Spec, want.Spec)
	// The server replaces in one step and carries state over when it can.
	res, err := c.cl.ReplaceStatement(ctx, want)
	switch {
	case err == nil:
		c.infof("Statement %q replaced (phase %s).", name, res.Statement.Status.Phase)
		if res.StateCarried {
			c.infof("Its state and source positions were carried over (%s): every stateful function kept its uid and state types and it reads the same tables.", res.Statement.Status.StateCarriedFrom)
		} else {
			c.infof("It starts fresh, because %s: it reads its sources from their configured start positions and rebuilds its state by reprocessing them.", res.Reason)
		}
		return &res.Statement, nil
	case !client.IsNotFound(err):
		return nil, c.fail(err, name)
	}
	// A server without the replace endpoint: delete, then create.
	if err := c.cl.DeleteStatement(ctx, name); err != nil && !client.IsNotFound(err) {
		return nil, c.fail(err, name)
	}
	limit := DefaultAwaitTimeout
	if c.await.set {
		limit = c.await.d
	}
	if err := c.awaitGone(ctx, name, limit); err != nil {
		return nil, err
	}
	st, err := c.cl.CreateStatement(ctx, want)
	if err != nil {
		return nil, c.fail(err, name)
	}
	c.infof("Statement %q created (phase %s), replacing the previous one (uid %s).", name, st.Status.Phase, old.Metadata.UID)
	if from := st.Status.StateCarriedFrom; from != "" {
		c.infof("Its state and source positions were carried over from %s.", from)
	} else {
		c.infof("It starts fresh: the server did not carry over the state and source positions of the replaced statement, so it reads its sources from their configured start positions and rebuilds any state (aggregates, joins, PTF state) by reprocessing them.")
	}
	return st, nil
}

func stoppedWord(stopped bool) string {
	if stopped {
		return "stopped"
	}
	return "not stopped"
}

// sameSpec reports whether two specs have the same statement and
// properties (spec.stopped is the desired state, not part of the identity).
func sameSpec(a, b v1.Spec) bool {
	return normalizeSQL(a.Statement) == normalizeSQL(b.Statement) && maps.Equal(a.Properties, b.Properties)
}

// fullStatementName returns APP-NAME (or NAME) and checks it.
func fullStatementName(app, name string) (string, error) {
	full := name
	if app != "" {
		full = app + "-" + name
	}
	if !statementNameRE.MatchString(name) {
		return "", fmt.Errorf("invalid statement name %q: use lowercase letters, digits and '-', starting and ending with a letter or digit", name)
	}
	if n := len(full); n > MaxStatementNameLength {
		if app != "" {
			return "", fmt.Errorf("statement name %q is %d characters long; at most %d are allowed, the application prefix %q included", full, n, MaxStatementNameLength, app+"-")
		}
		return "", fmt.Errorf("statement name %q is %d characters long; at most %d are allowed", full, n, MaxStatementNameLength)
	}
	return full, nil
}

// generateStatementName returns PREFIX-YYYYMMDD-HHMMSS-<12 hex digits>, the
// prefix being the application name or "cli". The random suffix keeps two
// names generated in the same second apart.
func generateStatementName(app string, now time.Time) string {
	if app == "" {
		app = "cli"
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s-%s-%s", app, now.UTC().Format("20060102-150405"), hex.EncodeToString(b))
}

// ParsePairs parses KEY=VALUE flag values. Each value may hold several
// pairs separated by commas, as Confluent's --property takes them
// (k1=v1,k2=v2): it is split as a CSV record, so a pair in double quotes
// keeps its commas ("k=a,b=c"), and a piece without '=' continues the value
// before it (k=a,b is k="a,b").
func ParsePairs(flag string, values []string) (map[string]string, error) {
	if len(values) == 0 {
		return nil, nil
	}
	var pairs []string
	for _, value := range values {
		pieces, err := splitCSV(value)
		if err != nil {
			return nil, fmt.Errorf("invalid %s %q: %v", flag, value, err)
		}
		for _, p := range pieces {
			if n := len(pairs); n > 0 && !strings.Contains(p, "=") {
				pairs[n-1] += "," + p
				continue
			}
			pairs = append(pairs, p)
		}
	}
	out := map[string]string{}
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("invalid %s %q: use KEY=VALUE", flag, kv)
		}
		if old, dup := out[k]; dup && old != v {
			return nil, fmt.Errorf("%s %s is given twice, as %q and %q", flag, k, old, v)
		}
		out[k] = v
	}
	return out, nil
}

// splitCSV splits one flag value as a CSV record (as pflag's StringSlice
// does), with lenient quotes so that a quote inside a value is kept.
func splitCSV(s string) ([]string, error) {
	if s == "" || strings.ContainsAny(s, "\r\n") {
		return []string{s}, nil // one line only: a value with a line break is one pair
	}
	r := csv.NewReader(strings.NewReader(s))
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	return r.Read()
}

// sortedPairs renders a map as sorted "k=v" strings.
func sortedPairs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}
