package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/user"
	"path/filepath"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
)

// Socket serves the API on the Unix socket of a data directory
// (v1.SocketPath) to the other eddy processes of the user running this one:
// a second `eddy sql` or an `eddy statement … --data-dir` attaches through
// it instead of failing on the data directory's lock. The socket file is
// made readable and writable by its owner only, and on Linux every
// connection's peer credentials are checked too: only processes of the
// same user (or root) are served, and they need no API key.
type Socket struct {
	path   string
	ln     net.Listener
	hs     *http.Server
	served chan error
	logger *slog.Logger
}

// localConnKey marks, in a request's context, a connection that came
// through the socket; its value is whether the peer may be served.
type localConnKey struct{}

// isLocal reports whether r came through the socket from a permitted peer.
func isLocal(r *http.Request) bool {
	ok, _ := r.Context().Value(localConnKey{}).(bool)
	return ok
}

// ServeSocket starts serving the API and v1.OwnerPath (which answers
// owner) on the Unix socket at path. A socket file left there by a process
// that ended is replaced; one that still answers is an error. Close stops
// serving and removes the file.
func (s *Server) ServeSocket(path string, owner v1.Owner) (*Socket, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the directory of socket %s: %w", path, err)
	}
	if err := checkSocketDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(path); err == nil {
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return nil, fmt.Errorf("socket %s is served by another process", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("removing the stale socket %s: %w", path, err)
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listening on socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restricting socket %s to its owner: %w", path, err)
	}
	ownerJSON, err := json.Marshal(owner)
	if err != nil {
		ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+v1.OwnerPath, func(w http.ResponseWriter, r *http.Request) {
		if !isLocal(r) {
			s.writeError(w, apiError{status: http.StatusForbidden, code: v1.CodeForbidden, message: "This socket serves only the user that runs the eddy process holding the data directory."})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(append(ownerJSON, '\n'))
	})
	mux.Handle("/", s.Handler())
	sock := &Socket{
		path: path, ln: ln, served: make(chan error, 1), logger: s.logger,
		hs: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
			ConnContext: func(ctx context.Context, c net.Conn) context.Context {
				return context.WithValue(ctx, localConnKey{}, peerPermitted(c, s.logger))
			},
		},
	}
	go func() { sock.served <- sock.hs.Serve(ln) }()
	return sock, nil
}

// Path returns the socket's path.
func (s *Socket) Path() string { return s.path }

// Close stops serving (requests in flight are cut) and removes the socket
// file.
func (s *Socket) Close() error {
	err := s.hs.Close()
	if serr := <-s.served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if rerr := os.Remove(s.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	return err
}

// LocalOwner describes this process as the holder of data directory dir:
// command is "eddy sql" or "eddy server", listen the HTTP address of a
// server ("" for none).
func LocalOwner(command, dir, listen string) v1.Owner {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	o := v1.Owner{Command: command, PID: os.Getpid(), DataDir: abs, Listen: listen, StartedAt: time.Now().UTC()}
	if u, err := user.Current(); err == nil {
		o.User = u.Username
	}
	return o
}

// LocalHandler serves the API to this process itself, without an API key:
// the in-process client of `eddy sql` and `eddy statement --data-dir` (its
// requests never leave the process).
func (s *Server) LocalHandler() http.Handler {
	h := s.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), localConnKey{}, true)))
	})
}
