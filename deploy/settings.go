package deploy

import (
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/internal/cli"
)

// Version is the version of Eddy this package belongs to; --version prints
// it after the program's own version. It is kept equal to eddy.Version.
var Version = "0.1.0-dev"

// DefaultTimeout is how long waits last at most: --action.await given
// without a duration, and the waits of an Env unless --action.await gives
// another limit. A statement can legitimately be PENDING for minutes.
const DefaultTimeout = 15 * time.Minute

// MaxStatementNameLength is the longest statement name, the application
// prefix included.
const MaxStatementNameLength = 100

// The environment variables of the settings this package adds to those of
// the eddy command (EDDY_SERVER, EDDY_API_KEY, EDDY_API_SECRET,
// EDDY_APPLICATION_NAME, EDDY_CONFIG).
const (
	StatementNameEnv = "EDDY_STATEMENT_NAME"
	OnConflictEnv    = "EDDY_ON_CONFLICT"
)

// OnConflict says what deploying a statement does when a statement of that
// name exists with another SQL or other properties.
type OnConflict string

// The on-conflict modes.
const (
	// Fail fails the deployment with the difference (the default).
	Fail OnConflict = "fail"
	// Replace deletes the deployed statement, waits until it is gone and
	// creates the new one. It needs an application name.
	Replace OnConflict = "replace"
)

// Action is a lifecycle action, given as the first argument.
type Action string

// The lifecycle actions.
const (
	ActionList     Action = "list"
	ActionDescribe Action = "describe"
	ActionStop     Action = "stop"
	ActionResume   Action = "resume"
	ActionDelete   Action = "delete"
)

// Actions lists the lifecycle actions.
var Actions = []Action{ActionList, ActionDescribe, ActionStop, ActionResume, ActionDelete}

// Settings are the resolved settings of a program that deploys statements.
// FromArgs makes them; a program may change the fields before it calls
// Environment.
type Settings struct {
	// Server is the server's URL; APIKey and APISecret authenticate.
	Server    string
	APIKey    string
	APISecret string
	// ApplicationName prefixes every statement name: APP-NAME.
	ApplicationName string
	// StatementName names the statement of a lifecycle action and, in a
	// deployment, the first statement the program executes unless the
	// program names it with Env.SetStatementName (which then wins, with a
	// warning). Without the application prefix.
	StatementName string
	// OnConflict is what a deployment does when a statement of the same
	// name exists with a different SQL or properties. Default Fail.
	OnConflict OnConflict
	// Await is how long the stop, resume and delete actions wait for the
	// statement to be STOPPED, RUNNING or gone; 0 (--action.await not
	// given) returns as soon as the server accepted the request.
	Await time.Duration
	// Timeout bounds every wait of an Env: ExecuteSQL's wait for the
	// statement to run, the wait for a replaced statement to be gone, and
	// the waits of a Handle. DefaultTimeout, or the duration given to
	// --action.await.
	Timeout time.Duration
	// Properties are sent with every statement as spec.properties
	// (--property KEY=VALUE), for example sql.current-database.
	Properties map[string]string
	// Args are the arguments after "--", left to the program.
	Args []string
	// Origins tells, by properties key ("server", "api.key", "api.secret",
	// "application.name", "statement.name", "on-conflict"), where each set
	// value came from: "--server", "server in FILE" or "$EDDY_SERVER".
	// Messages use it; it never holds a value.
	Origins map[string]string

	cfg *config
}

// Option configures FromArgs (and the Env and actions made from its
// Settings). The options are mostly for tests.
type Option func(*config)

type config struct {
	exit       func(int)
	stdout     io.Writer
	stderr     io.Writer
	lookupEnv  func(string) (string, bool)
	version    string
	program    string
	httpClient *http.Client
	poll       time.Duration
	now        func() time.Time
}

// WithExit replaces os.Exit, called after a lifecycle action, --help and
// --version. When it returns, FromArgs returns an *ExitError.
func WithExit(exit func(code int)) Option { return func(c *config) { c.exit = exit } }

// WithStdout replaces os.Stdout, where actions print their results (the
// list, the JSON of describe), --help and --version.
func WithStdout(w io.Writer) Option { return func(c *config) { c.stdout = w } }

// WithStderr replaces os.Stderr, where errors, warnings and progress
// messages go.
func WithStderr(w io.Writer) Option { return func(c *config) { c.stderr = w } }

// WithLookupEnv replaces os.LookupEnv for the settings from the
// environment.
func WithLookupEnv(lookup func(string) (string, bool)) Option {
	return func(c *config) { c.lookupEnv = lookup }
}

// WithVersion sets the program's version, which --version prints. Default:
// the main module's version from the build information.
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// WithProgramName sets the program's name in --help. Default: the base
// name of os.Args[0].
func WithProgramName(name string) Option { return func(c *config) { c.program = name } }

// WithHTTPClient sets the HTTP client of the server requests.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithPollInterval sets the first interval between two polls of a wait
// (default client.DefaultPollInterval).
func WithPollInterval(d time.Duration) Option { return func(c *config) { c.poll = d } }

// ExitError is returned by FromArgs when it handled the command line itself
// (a lifecycle action, --help, --version, an unknown action) and the exit
// function given with WithExit returned instead of ending the process.
type ExitError struct {
	// Code is the exit status: 0 success, 1 failure.
	Code int
}

func (e *ExitError) Error() string {
	return "deploy: the command line was handled (exit status " + strconv.Itoa(e.Code) + ")"
}

// propertiesKeys are the keys of the properties file: the eddy command's,
// then this package's.
var (
	cliKeys        = []string{"server", "api.key", "api.secret", "application.name"}
	propertiesKeys = append(slices.Clone(cliKeys), "statement.name", "on-conflict")
)

var nameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// FromArgs parses a program's command-line arguments (os.Args[1:]) and
// resolves its settings, each from the first of: a flag, the properties
// file (--config FILE, or $EDDY_CONFIG), the environment.
//
// When the first argument is a lifecycle action (list, describe, stop,
// resume, delete), FromArgs runs it against the server and exits the
// process with status 0 on success and 1 on failure, so the program's own
// logic does not run. --help (or -h) prints the arguments and the actions
// and exits with 0; --version prints the version and exits with 0. Any
// other first argument that is not a flag is an unknown action: FromArgs
// says so and exits with 1.
//
// Without an action it returns the settings, or an error for invalid
// arguments or settings.
func FromArgs(args []string, opts ...Option) (*Settings, error) {
	c := &config{exit: os.Exit, stdout: os.Stdout, stderr: os.Stderr, lookupEnv: os.LookupEnv, now: time.Now}
	for _, o := range opts {
		o(c)
	}
	if c.program == "" {
		c.program = programName()
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		switch a {
		case "-h", "-help", "--help":
			writeHelp(c.stdout, c.program)
			return nil, c.exitWith(0)
		case "--version", "-version":
			writeVersion(c.stdout, c.version)
			return nil, c.exitWith(0)
		}
	}
	var action Action
	if len(args) > 0 && args[0] != "--" && !strings.HasPrefix(args[0], "-") {
		action = Action(args[0])
		if !slices.Contains(Actions, action) {
			fmt.Fprintf(c.stderr, "Error: unknown action %q: the actions are %s (see --help)\n", args[0], actionList())
			return nil, c.exitWith(1)
		}
		args = args[1:]
	}
	s, err := resolve(args, c)
	if action == "" {
		return s, err
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "Error: %v\n", err)
		return nil, c.exitWith(1)
	}
	return nil, c.exitWith(s.runAction(action))
}

// exitWith calls the exit function and returns the error FromArgs returns
// when it comes back.
func (c *config) exitWith(code int) error {
	c.exit(code)
	return &ExitError{Code: code}
}

func programName() string {
	if len(os.Args) == 0 {
		return "program"
	}
	name := os.Args[0]
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return name
}

func actionList() string {
	parts := make([]string, len(Actions))
	for i, a := range Actions {
		parts[i] = string(a)
	}
	return strings.Join(parts, ", ")
}

// flagValues are the flags given on the command line.
type flagValues struct {
	// given holds the last value of each flag, by flag name.
	given      map[string]string
	properties []string
	await      bool
}

// stringFlags are the flags that take a value.
var stringFlags = []string{"server", "api-key", "api-secret", "config", "application-name", "statement-name", "on-conflict", "property"}

// parseFlags parses the flags. A flag is --name VALUE or --name=VALUE (one
// dash works too); --action.await takes an optional duration, as
// --action.await=10m or --action.await 10m. Arguments after "--" are left
// to the program.
func parseFlags(args []string) (flagValues, []string, error) {
	fv := flagValues{given: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return fv, slices.Clone(args[i+1:]), nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return fv, nil, fmt.Errorf("unexpected argument %q: an action must come first, and the program's own arguments after --", a)
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case name == "action.await":
			fv.await = true
			if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				if _, err := cli.ParseWaitDuration(args[i+1]); err == nil {
					value, hasValue = args[i+1], true
					i++
				}
			}
			if hasValue {
				fv.given[name] = value
			}
		case slices.Contains(stringFlags, name):
			if !hasValue {
				if i+1 == len(args) {
					return fv, nil, fmt.Errorf("flag --%s needs a value", name)
				}
				i++
				value = args[i]
			}
			if name == "property" {
				fv.properties = append(fv.properties, value)
			} else {
				fv.given[name] = value
			}
		default:
			return fv, nil, fmt.Errorf("unknown flag %q (see --help)", a)
		}
	}
	return fv, nil, nil
}

// resolve parses the flags and resolves the settings.
func resolve(args []string, c *config) (*Settings, error) {
	fv, rest, err := parseFlags(args)
	if err != nil {
		return nil, err
	}
	// The properties file: read it here for this package's keys, and hand
	// ResolveSettings a copy with only its keys.
	path, pathOrigin := fv.given["config"], "--config"
	if path == "" {
		path, _ = c.lookupEnv(cli.ConfigEnv)
		pathOrigin = "$" + cli.ConfigEnv
	}
	var file map[string]string
	var filtered []byte
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading the properties file of %s: %w", pathOrigin, err)
		}
		if file, err = cli.ParseProperties(path, string(b), propertiesKeys); err != nil {
			return nil, err
		}
		filtered = formatProperties(file, cliKeys)
	}
	cliFlags := map[string]string{}
	for _, f := range []string{"server", "api-key", "api-secret", "config", "application-name"} {
		if v, ok := fv.given[f]; ok && v != "" {
			cliFlags[f] = v
		}
	}
	cs, err := cli.ResolveSettings(cli.SettingSources{
		Flags:     cliFlags,
		LookupEnv: c.lookupEnv,
		ReadFile: func(p string) ([]byte, error) {
			if p == path {
				return filtered, nil
			}
			return os.ReadFile(p)
		},
	})
	if err != nil {
		return nil, err
	}
	s := &Settings{
		Server: cs.Server, APIKey: cs.APIKey, APISecret: cs.APISecret,
		ApplicationName: cs.ApplicationName,
		OnConflict:      Fail,
		Timeout:         DefaultTimeout,
		Args:            rest,
		Origins:         maps.Clone(cs.Origins),
		cfg:             c,
	}
	// This package's settings, with the same precedence.
	pick := func(flag, key, env string) string {
		if v := strings.TrimSpace(fv.given[flag]); v != "" {
			s.Origins[key] = "--" + flag
			return v
		}
		if v := strings.TrimSpace(file[key]); v != "" {
			s.Origins[key] = key + " in " + path
			return v
		}
		if v, _ := c.lookupEnv(env); strings.TrimSpace(v) != "" {
			s.Origins[key] = "$" + env
			return strings.TrimSpace(v)
		}
		return ""
	}
	s.StatementName = pick("statement-name", "statement.name", StatementNameEnv)
	if oc := pick("on-conflict", "on-conflict", OnConflictEnv); oc != "" {
		s.OnConflict = OnConflict(oc)
	}
	if s.OnConflict != Fail && s.OnConflict != Replace {
		return nil, fmt.Errorf("invalid on-conflict %q (%s): use fail or replace", s.OnConflict, s.Origins["on-conflict"])
	}
	if fv.await {
		s.Await = DefaultTimeout
		if v, ok := fv.given["action.await"]; ok {
			d, err := cli.ParseWaitDuration(v)
			if err != nil {
				return nil, fmt.Errorf("--action.await: %v", err)
			}
			s.Await, s.Timeout = d, d
		}
	}
	if s.Properties, err = cli.ParsePairs("--property", fv.properties); err != nil {
		return nil, err
	}
	if app := s.ApplicationName; app != "" && !nameRE.MatchString(app) {
		return nil, fmt.Errorf("invalid application name %q (%s): use lowercase letters, digits and '-', starting and ending with a letter or digit", app, s.Origins["application.name"])
	}
	if s.StatementName != "" {
		if _, err := s.FullName(s.StatementName); err != nil {
			return nil, fmt.Errorf("%v (%s)", err, s.Origins["statement.name"])
		}
	}
	return s, nil
}

// FullName returns the full name of a statement: APP-NAME with an
// application name, NAME without. It checks the name: lowercase letters,
// digits and '-', starting and ending with a letter or digit, at most
// MaxStatementNameLength characters with the prefix.
func (s *Settings) FullName(name string) (string, error) {
	if !nameRE.MatchString(name) {
		return "", fmt.Errorf("invalid statement name %q: use lowercase letters, digits and '-', starting and ending with a letter or digit", name)
	}
	full := name
	if s.ApplicationName != "" {
		full = s.ApplicationName + "-" + name
	}
	if n := len(full); n > MaxStatementNameLength {
		if s.ApplicationName != "" {
			return "", fmt.Errorf("statement name %q is %d characters long; at most %d are allowed, the application prefix %q included", full, n, MaxStatementNameLength, s.ApplicationName+"-")
		}
		return "", fmt.Errorf("statement name %q is %d characters long; at most %d are allowed", full, n, MaxStatementNameLength)
	}
	return full, nil
}

// NewClient returns a client of the server with the settings' API key.
func (s *Settings) NewClient() (*client.Client, error) {
	c := s.config()
	if s.Server == "" {
		return nil, fmt.Errorf("no server: give --server URL, server=URL in the properties file (--config FILE or $%s), or $%s", cli.ConfigEnv, cli.ServerEnv)
	}
	opts := []client.Option{
		client.Server(s.Server),
		client.APIKey(s.APIKey, s.APISecret),
		client.UserAgent("eddy-deploy/" + Version),
	}
	if c.httpClient != nil {
		opts = append(opts, client.HTTPClient(c.httpClient))
	}
	if c.poll > 0 {
		opts = append(opts, client.PollInterval(c.poll))
	}
	cl, err := client.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("%s (from %s)", strings.TrimPrefix(err.Error(), "client: "), s.Origins["server"])
	}
	return cl, nil
}

// config returns the options the settings were made with (the defaults
// for Settings not made by FromArgs).
func (s *Settings) config() *config {
	if s.cfg == nil {
		s.cfg = &config{exit: os.Exit, stdout: os.Stdout, stderr: os.Stderr, lookupEnv: os.LookupEnv, now: time.Now, program: programName()}
	}
	return s.cfg
}

// timeout returns Timeout, or DefaultTimeout when it is not positive.
func (s *Settings) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

// writeVersion prints the program's version and Eddy's.
func writeVersion(w io.Writer, version string) {
	if version == "" {
		version = "devel"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version = bi.Main.Version
		}
	}
	fmt.Fprintf(w, "%s (eddy %s, %s %s/%s)\n", version, eddyVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// eddyVersion is the version of the Eddy module the program was built
// with, when it is a dependency, or Version.
func eddyVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/eddy-sql/eddy" && d.Version != "" && d.Version != "(devel)" {
				return d.Version
			}
		}
	}
	return Version
}

const helpText = `Usage:
  %[1]s [FLAGS]                deploy the program's statements
  %[1]s ACTION [FLAGS]         manage a statement the program deployed, then exit

Without an action the program runs: it deploys its statements to the server,
idempotently (an unchanged statement is left alone). With an action it does
only that and exits with status 0 on success and 1 on failure.

Actions:
  list       list the application's statements (every statement without an
             application name; only --statement-name's with one)
  describe   print a statement as JSON, as the REST API returns it
  stop       stop a statement, keeping its state; with --action.await wait
             until it is STOPPED
  resume     resume a stopped statement from its last checkpoint; with
             --action.await wait until it is RUNNING
  delete     delete a statement and its state; with --action.await wait until
             it is gone
describe, stop, resume and delete need --statement-name; the application
name is prefixed to it (APP-NAME).

Flags:
  --server URL                 the server (server=, or $EDDY_SERVER)
  --api-key KEY                the API key (api.key=, or $EDDY_API_KEY)
  --api-secret SECRET          the API secret (api.secret=, or $EDDY_API_SECRET)
  --config FILE                properties file with the settings (default $EDDY_CONFIG)
  --application-name APP       prefix of every statement name
                               (application.name=, or $EDDY_APPLICATION_NAME)
  --statement-name NAME        the statement of an action; in a deployment, the
                               name of the first statement unless the program
                               names it (statement.name=, or $EDDY_STATEMENT_NAME)
  --on-conflict MODE           fail (default) or replace: what a deployment does
                               when a statement exists with another SQL or
                               properties; replace deletes it and creates the
                               new one, which starts fresh, and needs an
                               application name (on-conflict=, or $EDDY_ON_CONFLICT)
  --action.await[=DURATION]    make stop, resume and delete wait until done, at
                               most DURATION (default 15m; 90s, 10m, 10min, 1h);
                               a DURATION also bounds the deployment's waits
  --property KEY=VALUE         a property of every statement, for example
                               sql.current-database=shop (repeatable)
  -h, --help                   print this help and exit
  --version                    print the version and exit
  -- ARGS                      leave ARGS to the program

Each setting is taken from the first of: the flag; the properties file given
by --config FILE or $EDDY_CONFIG (Java properties: "key=value" lines, '#'
comments); the environment.

Exit status: 0 on success, including an unchanged deployment; 1 on any
failure: invalid arguments, missing configuration, authentication failed
(401), statement not found, a different statement under the same name with
--on-conflict fail, a statement that FAILED, a wait that timed out.
`

func writeHelp(w io.Writer, program string) {
	fmt.Fprintf(w, helpText, program)
}
