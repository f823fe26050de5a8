package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/server"
	"github.com/eddy-sql/eddy/internal/statement"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/udf"
)

// Options configure Open.
type Options struct {
	// DataDir is the data directory; "" keeps everything in memory (the
	// Go Table API's default) and serves no socket.
	DataDir string
	// Registry holds the functions CREATE FUNCTION can bind.
	Registry *ptf.Registry
	// UDFs holds the user-defined scalar, table and aggregate functions.
	UDFs *udf.Registry
	// WasmCacheDir caches compiled WebAssembly modules (engine.Options).
	WasmCacheDir string
	// Logger receives diagnostics. Default: discard.
	Logger *slog.Logger
	// Command names the process for clients that attach ("eddy sql").
	Command string
	// Passive opens the data directory only to manage its statements
	// (`eddy statement … --data-dir`): statements that were running are
	// not started (a resume starts one until the session closes), no
	// socket is served, and a data directory that does not exist is an
	// error instead of being created.
	Passive bool
	// CheckpointInterval is the default checkpoint interval of the
	// statements. Default: 1s.
	CheckpointInterval time.Duration
	// Stdout and Stderr are where 'print' tables print. Default: the
	// process's.
	Stdout, Stderr io.Writer
}

// Session is an open data directory: the engine's SQL session, the durable
// statements, the socket and an in-process API client. It implements
// cli.Engine. It is not safe for concurrent use, except for the API, which
// serves other processes concurrently.
type Session struct {
	dir    string
	eng    *engine.Engine
	mgr    *statement.Manager
	srv    *server.Server
	sock   *server.Socket
	mem    *memListener
	hs     *http.Server
	served chan error
	cl     *client.Client
	// resumed are the statements that started again when the session
	// opened.
	resumed []v1.Statement
}

var _ cli.Engine = (*Session)(nil)

// Open opens the data directory. When another process holds it, the error
// wraps cli.ErrDataDirInUse, so that the command line attaches to that
// process through its socket instead.
func Open(ctx context.Context, opts Options) (_ *Session, err error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Command == "" {
		opts.Command = "eddy"
	}
	if opts.Passive {
		if _, err := os.Stat(opts.DataDir); err != nil {
			return nil, fmt.Errorf("data directory %s: %w", opts.DataDir, err)
		}
	}
	eng, err := engine.Open(ctx, engine.Options{DataDir: opts.DataDir, Registry: opts.Registry, UDFs: opts.UDFs, WasmCacheDir: opts.WasmCacheDir, Logger: opts.Logger, Stdout: opts.Stdout, Stderr: opts.Stderr})
	if err != nil {
		if isLocked(err) {
			return nil, fmt.Errorf("%w: %w", cli.ErrDataDirInUse, err)
		}
		return nil, err
	}
	s := &Session{dir: opts.DataDir, eng: eng}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	s.mgr, err = statement.Open(statement.Options{Engine: eng, Logger: opts.Logger, CheckpointInterval: opts.CheckpointInterval, NoRestart: opts.Passive})
	if err != nil {
		return nil, fmt.Errorf("opening statements: %w", err)
	}
	if !opts.Passive {
		s.resumed = s.mgr.Background()
	}
	eng.SyncAlso(s.mgr.RunningJobs)
	s.srv, err = server.New(server.Options{Manager: s.mgr, DB: eng.Env().DB, Engine: eng, Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	s.mem = newMemListener()
	s.hs = &http.Server{Handler: s.srv.LocalHandler(), ReadHeaderTimeout: 10 * time.Second}
	s.served = make(chan error, 1)
	go func() { s.served <- s.hs.Serve(s.mem) }()
	s.cl, err = client.New(client.Server("http://eddy-in-process"),
		client.HTTPClient(&http.Client{Transport: &http.Transport{DialContext: s.mem.dial}}),
		client.UserAgent("eddy-in-process"), client.PollInterval(100*time.Millisecond))
	if err != nil {
		return nil, err
	}
	if !opts.Passive && opts.DataDir != "" {
		sock, err := s.srv.ServeSocket(v1.SocketPath(opts.DataDir), server.LocalOwner(opts.Command, opts.DataDir, ""))
		if err != nil {
			opts.Logger.Warn("not serving the data directory's socket: other eddy processes cannot attach", "err", err)
		} else {
			s.sock = sock
		}
	}
	return s, nil
}

// isLocked reports whether err says that another process holds the data
// directory (Pebble's lock file).
func isLocked(err error) bool {
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK) || strings.Contains(err.Error(), "resource temporarily unavailable")
}

// Engine returns the session's engine (the Go Table API runs its
// non-background statements and its functions through it).
func (s *Session) Engine() *engine.Engine { return s.eng }

// DataDir returns the data directory.
func (s *Session) DataDir() string { return s.dir }

// Client returns a client of the session's statements API that works
// within the process (no API key, no network).
func (s *Session) Client() *client.Client { return s.cl }

// StatementClient implements the command line's access to the statements
// (SHOW JOBS, STOP JOB, eddy statement --data-dir).
func (s *Session) StatementClient() *client.Client { return s.cl }

// Config returns the session configuration.
func (s *Session) Config() map[string]string { return s.eng.Config() }

// Close stops serving the socket and the API, stops the statements' jobs
// (their phases stay, so they resume at the next Open), and closes the
// engine and the data directory.
func (s *Session) Close() error {
	var errs []error
	if s.sock != nil {
		errs = append(errs, s.sock.Close())
	}
	if s.hs != nil {
		errs = append(errs, s.hs.Close())
		if err := <-s.served; err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	if s.mgr != nil {
		errs = append(errs, s.mgr.Close())
	}
	errs = append(errs, s.eng.Close())
	return errors.Join(errs...)
}
