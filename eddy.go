// Package eddy builds the eddy command. A custom distribution with your own
// process table functions compiled in is a main package of a few lines:
//
//	func main() {
//		eddy.Main(eddy.WithFunctions(map[string]*ptf.Definition{
//			"acme.Dedup": dedup.Definition,
//		}))
//	}
//
// The result is the full eddy CLI (sql shell, scripts, and later server
// and statement commands) with acme.Dedup available to
// CREATE FUNCTION Dedup AS 'acme.Dedup'. User-defined scalar, table and
// aggregate functions (package udf) are added with WithUserFunctions. The
// built-in examples stay registered under examples.<Name> unless
// WithoutExamples is given.
package eddy

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/devkafka"
	"github.com/eddy-sql/eddy/internal/local"
	"github.com/eddy-sql/eddy/internal/nexmark"
	"github.com/eddy-sql/eddy/internal/server"
	"github.com/eddy-sql/eddy/internal/wasm"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/udf"
	"github.com/spf13/pflag"
)

// Version is the version printed by `eddy version`.
var Version = "0.1.0-dev"

// Option configures Main.
type Option func(*config)

type config struct {
	funcs    map[string]*ptf.Definition
	udfs     map[string]udf.Function
	examples bool
	args     []string
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
}

// WithFunctions registers functions by id (for example "acme.Dedup").
func WithFunctions(funcs map[string]*ptf.Definition) Option {
	return func(c *config) {
		for id, d := range funcs {
			c.funcs[id] = d
		}
	}
}

// WithUserFunctions registers user-defined scalar, table and aggregate
// functions (package udf) by id, for example "acme.Slugify"; SQL binds
// them with CREATE FUNCTION Slugify AS 'acme.Slugify'. Ids are shared with
// the process table functions of WithFunctions and must be distinct.
func WithUserFunctions(funcs map[string]udf.Function) Option {
	return func(c *config) {
		for id, f := range funcs {
			c.udfs[id] = f
		}
	}
}

// WithoutExamples leaves the built-in examples.* functions out.
func WithoutExamples() Option { return func(c *config) { c.examples = false } }

// WithArgs replaces os.Args[1:] (for tests).
func WithArgs(args ...string) Option { return func(c *config) { c.args = args } }

// WithIO replaces standard input and output (for tests).
func WithIO(in io.Reader, out, errOut io.Writer) Option {
	return func(c *config) { c.stdin, c.stdout, c.stderr = in, out, errOut }
}

// Run runs the eddy command with the options and returns its exit code.
func Run(opts ...Option) int {
	c := &config{
		funcs: map[string]*ptf.Definition{}, udfs: map[string]udf.Function{}, examples: true,
		args: os.Args[1:], stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
	}
	for _, o := range opts {
		o(c)
	}
	reg, udfs, err := c.registries()
	if err != nil {
		fmt.Fprintln(c.stderr, "eddy:", err)
		return 1
	}
	// The CLI handles SIGINT itself (Ctrl-C cancels a query, not the shell).
	cliOpts := cli.Options{
		Version: Version,
		Stdin:   c.stdin, Stdout: c.stdout, Stderr: c.stderr,
		// The shell's session: the engine with durable statements, and the
		// data directory's socket (package local).
		OpenEngine: func(ctx context.Context, dataDir string) (cli.Engine, error) {
			return local.Open(ctx, local.Options{DataDir: dataDir, Registry: reg, UDFs: udfs, WasmCacheDir: wasm.CacheDirFromEnv(), Command: "eddy sql", Stdout: c.stdout, Stderr: c.stderr})
		},
		OpenStatements: func(ctx context.Context, dataDir string) (*client.Client, func() error, error) {
			s, err := local.Open(ctx, local.Options{DataDir: dataDir, Registry: reg, UDFs: udfs, WasmCacheDir: wasm.CacheDirFromEnv(), Command: "eddy statement", Passive: true})
			if err != nil {
				return nil, nil, err
			}
			return s.Client(), s.Close, nil
		},
	}
	cliOpts.Commands = append(server.Commands(server.CommandOptions{
		Registry:       reg,
		UDFs:           udfs,
		DefaultDataDir: func() (string, error) { return cli.DefaultDataDir(os.LookupEnv) },
		Remote:         remoteKeys{cli.NewAPIKeyRemote(cliOpts)},
		Artifacts:      remoteArtifacts{cli.NewArtifactRemote(cliOpts)},
	}), devkafka.Command(c.stdout, c.stderr), nexmark.Command(c.stdout, c.stderr))
	return cli.Run(context.Background(), cliOpts, c.args)
}

// registries builds the registries of the process table functions and
// the user-defined functions: the examples (unless left out), then the
// functions of the options. An id may be registered once, in either.
func (c *config) registries() (*ptf.Registry, *udf.Registry, error) {
	reg, udfs := ptf.NewRegistry(), udf.NewRegistry()
	if c.examples {
		if err := examples.Register(reg); err != nil {
			return nil, nil, err
		}
		if err := examples.RegisterUserFunctions(udfs); err != nil {
			return nil, nil, err
		}
	}
	for id, d := range c.funcs {
		if _, dup := udfs.Lookup(id); dup {
			return nil, nil, fmt.Errorf("registering function %q: already registered", id)
		}
		if err := reg.Register(id, d); err != nil {
			return nil, nil, err
		}
	}
	for id, f := range c.udfs {
		if _, dup := reg.Lookup(id); dup {
			return nil, nil, fmt.Errorf("registering function %q: already registered", id)
		}
		if err := udfs.Register(id, f); err != nil {
			return nil, nil, err
		}
	}
	return reg, udfs, nil
}

// remoteKeys adapts the CLI's remote API key management to the server's
// `eddy api-key` command (neither package imports the other).
type remoteKeys struct{ *cli.APIKeyRemote }

func (r remoteKeys) Connect(fs *pflag.FlagSet) (server.KeyManager, string, error) {
	k, url, err := r.APIKeyRemote.Connect(fs)
	if err != nil {
		return nil, "", err
	}
	return k, url, nil
}

// remoteArtifacts adapts the CLI's remote artifact management to the
// server's `eddy artifact` command.
type remoteArtifacts struct{ *cli.ArtifactRemote }

func (r remoteArtifacts) Connect(fs *pflag.FlagSet) (server.ArtifactManager, string, error) {
	a, url, err := r.ArtifactRemote.Connect(fs)
	if err != nil {
		return nil, "", err
	}
	return a, url, nil
}

// Main runs the eddy command and exits with its exit code.
func Main(opts ...Option) { os.Exit(Run(opts...)) }
