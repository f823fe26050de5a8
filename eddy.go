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
// CREATE FUNCTION Dedup AS 'acme.Dedup'. The built-in examples stay
// registered under examples.<Name> unless WithoutExamples is given.
package eddy

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/devkafka"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/server"
	"github.com/eddy-sql/eddy/internal/wasm"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/spf13/pflag"
)

// Version is the version printed by `eddy version`.
var Version = "0.1.0-dev"

// Option configures Main.
type Option func(*config)

type config struct {
	funcs    map[string]*ptf.Definition
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
		funcs: map[string]*ptf.Definition{}, examples: true,
		args: os.Args[1:], stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
	}
	for _, o := range opts {
		o(c)
	}
	reg := ptf.NewRegistry()
	if c.examples {
		if err := examples.Register(reg); err != nil {
			fmt.Fprintln(c.stderr, "eddy:", err)
			return 1
		}
	}
	for id, d := range c.funcs {
		if err := reg.Register(id, d); err != nil {
			fmt.Fprintln(c.stderr, "eddy:", err)
			return 1
		}
	}
	// The CLI handles SIGINT itself (Ctrl-C cancels a query, not the shell).
	cliOpts := cli.Options{
		Version: Version,
		Stdin:   c.stdin, Stdout: c.stdout, Stderr: c.stderr,
		OpenEngine: func(ctx context.Context, dataDir string) (cli.Engine, error) {
			return engine.Open(ctx, engine.Options{DataDir: dataDir, Registry: reg, WasmCacheDir: wasm.CacheDirFromEnv()})
		},
	}
	cliOpts.Commands = append(server.Commands(server.CommandOptions{
		Registry:       reg,
		DefaultDataDir: func() (string, error) { return cli.DefaultDataDir(os.LookupEnv) },
		Remote:         remoteKeys{cli.NewAPIKeyRemote(cliOpts)},
		Artifacts:      remoteArtifacts{cli.NewArtifactRemote(cliOpts)},
	}), devkafka.Command(c.stdout, c.stderr))
	return cli.Run(context.Background(), cliOpts, c.args)
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
