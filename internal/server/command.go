package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/statement"
	"github.com/eddy-sql/eddy/internal/wasm"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/udf"
	"github.com/spf13/cobra"
)

// CommandOptions configure the `eddy server` and `eddy api-key` commands.
type CommandOptions struct {
	// Registry holds the functions statements can bind with CREATE
	// FUNCTION. Default: an empty registry.
	Registry *ptf.Registry
	// UDFs holds the user-defined scalar, table and aggregate functions.
	// Default: none.
	UDFs *udf.Registry
	// DefaultDataDir returns the data directory used without --data-dir
	// (eddy.Run passes cli.DefaultDataDir, so that every command agrees).
	// Default: none, --data-dir is required.
	DefaultDataDir func() (string, error)
	// Signals end `eddy server` gracefully. Default: SIGINT and SIGTERM.
	Signals []os.Signal
	// Artifacts lets `eddy artifact --server URL` manage the artifacts of a
	// running server. Default: nil (the commands only open a data
	// directory).
	Artifacts RemoteArtifacts
	// Remote lets `eddy api-key --server URL` manage the keys of a running
	// server. Default: nil (the commands only open a data directory).
	Remote RemoteAPIKeys
}

func (o CommandOptions) withDefaults() CommandOptions {
	if o.Registry == nil {
		o.Registry = ptf.NewRegistry()
	}
	if o.Signals == nil {
		o.Signals = []os.Signal{os.Interrupt, syscall.SIGTERM}
	}
	return o
}

// Commands returns the `server`, `api-key`, `artifact` and `function`
// commands, for
// cli.Options.Commands.
func Commands(opts CommandOptions) []*cobra.Command {
	opts = opts.withDefaults()
	return []*cobra.Command{newServerCommand(opts), newAPIKeyCommand(opts), newArtifactCommand(opts), newFunctionCommand()}
}

// serverCommand holds the flags of `eddy server`.
type serverCommand struct {
	opts               CommandOptions
	dataDir            string
	listen             string
	logLevel           string
	logFormat          string
	checkpointInterval time.Duration
	insecureNoAuth     bool
	shutdownTimeout    time.Duration
}

func newServerCommand(opts CommandOptions) *cobra.Command {
	c := &serverCommand{opts: opts}
	cmd := &cobra.Command{
		Use:   "server [--data-dir DIR] [--listen ADDR]",
		Short: "Run the engine with its REST API",
		Long: `Run the engine on a data directory and serve the statements REST API
(/v1/statements), /metrics (Prometheus) and /healthz.

Statements that were running when the server stopped (even by kill -9) run
again from their last checkpoint. SIGINT or SIGTERM stops the server
gracefully: it stops accepting requests, lets running requests finish and
stops the statements' jobs without changing their phases, so they resume at
the next start.

Every endpoint but /healthz needs an API key, sent with HTTP Basic auth.
The server refuses to start when the data directory has none: create one
first with 'eddy api-key create' (while the server is not running, since
the server holds the data directory).`,
		Example: `  # Create an API key, then start the server
  eddy api-key create --data-dir /var/lib/eddy
  eddy server --data-dir /var/lib/eddy --listen 127.0.0.1:8080

  # Local development without API keys (never expose this)
  eddy server --data-dir /tmp/eddy --insecure-no-auth`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.run(cmd.Context(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&c.dataDir, "data-dir", "", "data directory (default $EDDY_DATA_DIR, $XDG_DATA_HOME/eddy or ~/.local/share/eddy)")
	f.StringVar(&c.listen, "listen", "127.0.0.1:8080", "`ADDR`ess to serve HTTP on (host:port; port 0 picks a free one)")
	f.StringVar(&c.logLevel, "log-level", "info", "log level: debug (also logs every request), info, warn or error")
	f.StringVar(&c.logFormat, "log-format", "text", "log format: text or json")
	f.DurationVar(&c.checkpointInterval, "checkpoint-interval", time.Second, "default checkpoint interval of statements ('execution.checkpointing.interval' overrides it)")
	f.BoolVar(&c.insecureNoAuth, "insecure-no-auth", false, "serve without API keys, for local development only: anyone who can reach the address controls the engine")
	f.DurationVar(&c.shutdownTimeout, "shutdown-timeout", 15*time.Second, "how long a graceful shutdown waits for running requests")
	return cmd
}

// newLogger builds the server's logger on w.
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	switch strings.ToLower(level) {
	case "debug":
		lv = slog.LevelDebug
	case "info":
		lv = slog.LevelInfo
	case "warn":
		lv = slog.LevelWarn
	case "error":
		lv = slog.LevelError
	default:
		return nil, fmt.Errorf("invalid --log-level %q: use debug, info, warn or error", level)
	}
	ho := &slog.HandlerOptions{Level: lv}
	switch strings.ToLower(format) {
	case "text":
		return slog.New(slog.NewTextHandler(w, ho)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, ho)), nil
	}
	return nil, fmt.Errorf("invalid --log-format %q: use text or json", format)
}

func (c *serverCommand) run(ctx context.Context, stderr io.Writer) error {
	logger, err := newLogger(stderr, c.logLevel, c.logFormat)
	if err != nil {
		return err
	}
	if c.checkpointInterval <= 0 {
		return fmt.Errorf("invalid --checkpoint-interval %s: use a positive duration such as 1s", c.checkpointInterval)
	}
	dir, err := dataDir(c.dataDir, c.opts.DefaultDataDir)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, c.opts.Signals...)
	defer stop()

	logger.Info("opening data directory", "data_dir", dir)
	eng, err := engine.Open(ctx, engine.Options{DataDir: dir, Registry: c.opts.Registry, UDFs: c.opts.UDFs, Logger: logger, WasmCacheDir: wasm.CacheDirFromEnv()})
	if err != nil {
		return openError(dir, err)
	}
	defer func() {
		logger.Info("closing data directory", "data_dir", dir)
		if err := eng.Close(); err != nil {
			logger.Error("closing data directory", "err", err)
			return
		}
		logger.Info("server stopped")
	}()
	db := eng.Env().DB
	if c.insecureNoAuth {
		logger.Warn("serving WITHOUT authentication (--insecure-no-auth): anyone who can reach the address controls the engine; use it for local development only")
	} else {
		ok, err := NewKeyStore(db, nil).Any()
		if err != nil {
			return fmt.Errorf("reading API keys: %w", err)
		}
		if !ok {
			return fmt.Errorf("no API key exists in data directory %s, so every request would be refused.\n"+
				"Create one (while the server is stopped) with:\n  eddy api-key create --data-dir %s\n"+
				"or, for local development only, start with --insecure-no-auth", dir, shellQuote(dir))
		}
	}

	logger.Info("starting statements")
	mgr, err := statement.Open(statement.Options{Engine: eng, Logger: logger, CheckpointInterval: c.checkpointInterval})
	if err != nil {
		return fmt.Errorf("opening statements: %w", err)
	}
	defer func() {
		logger.Info("stopping statements; running ones resume at the next start")
		if err := mgr.Close(); err != nil {
			logger.Error("stopping statements", "err", err)
		}
	}()
	logStatements(logger, mgr)

	srv, err := New(Options{Manager: mgr, DB: db, Engine: eng, Logger: logger, InsecureNoAuth: c.insecureNoAuth})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", c.listen, err)
	}
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	if !c.insecureNoAuth && !isLoopback(ln.Addr()) {
		logger.Warn("serving plain HTTP on a non-loopback address: API secrets cross the network unencrypted; put a TLS proxy in front", "addr", ln.Addr().String())
	}
	// Other eddy processes of this user (eddy sql, eddy statement --data-dir)
	// attach through the data directory's socket (socket.go).
	if sock, err := srv.ServeSocket(v1.SocketPath(dir), LocalOwner("eddy server", dir, ln.Addr().String())); err != nil {
		logger.Warn("not serving the data directory's socket: eddy sql and eddy statement --data-dir cannot attach to this server", "err", err)
	} else {
		defer sock.Close()
		logger.Info("serving the data directory's socket to this user", "socket", sock.Path())
	}
	logger.Info("serving the REST API", "addr", ln.Addr().String(), "auth", !c.insecureNoAuth)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		logger.Info("shutting down: no longer accepting requests")
	case err := <-served:
		return fmt.Errorf("serving HTTP: %w", err)
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		logger.Warn("requests still running at shutdown were cut", "err", err)
		_ = hs.Close()
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("serving HTTP", "err", err)
	}
	return nil
}

// logStatements logs how many statements were loaded, by phase.
func logStatements(logger *slog.Logger, mgr *statement.Manager) {
	counts := map[v1.Phase]int{}
	total := 0
	token := ""
	for {
		page, next := mgr.List(statement.Filter{}, maxListPageSize, token)
		for _, st := range page {
			counts[st.Status.Phase]++
			total++
		}
		if next == "" {
			break
		}
		token = next
	}
	attrs := []any{"total", total}
	for _, p := range phases {
		if counts[p] > 0 {
			attrs = append(attrs, strings.ToLower(string(p)), counts[p])
		}
	}
	logger.Info("statements loaded", attrs...)
}

func dataDir(flag string, def func() (string, error)) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if def == nil {
		return "", errors.New("no data directory: set --data-dir")
	}
	return def()
}

// openError explains a data directory that cannot be opened, most often
// because another process (a server, a shell) holds it.
func openError(dir string, err error) error {
	if isLocked(err) {
		return fmt.Errorf("%w\nThe data directory %s is in use by another eddy process (a running server or shell); stop it first", err, dir)
	}
	return err
}

// isLocked reports whether err says the data directory is locked by
// another process.
func isLocked(err error) bool {
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK) || strings.Contains(err.Error(), "lock")
}

func isLoopback(addr net.Addr) bool {
	if ta, ok := addr.(*net.TCPAddr); ok {
		return ta.IP.IsLoopback()
	}
	return false
}

// shellQuote quotes s for a copy-pasted shell command when needed.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r == ':' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
