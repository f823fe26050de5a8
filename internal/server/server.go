package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/runtime"
	"github.com/eddy-sql/eddy/internal/statement"
	"github.com/eddy-sql/eddy/internal/store"
	"github.com/prometheus/client_golang/prometheus"
)

// DefaultMaxBodyBytes is the default limit of a request body.
const DefaultMaxBodyBytes = 1 << 20

// Options configure a Server.
type Options struct {
	// Manager owns the statements the API serves. Required.
	Manager *statement.Manager
	// DB is the store of the data directory: API keys live in it, and the
	// state size metric is measured in it. Required.
	DB *store.DB
	// Engine, when set, plans the SQL of a new statement (a dry run)
	// before the statement is created, so that SQL errors are answered
	// with 400 INVALID_SQL and their line:column instead of creating a
	// FAILED statement. Default: nil (no dry run).
	Engine *engine.Engine
	// Logger receives lifecycle logs and, at debug level, one record per
	// request. Default: discard.
	Logger *slog.Logger
	// Clock supplies the time for metrics (watermark lag) and request
	// durations. Default: the system clock.
	Clock runtime.Clock
	// MaxBodyBytes limits request bodies; larger ones get 413
	// REQUEST_TOO_LARGE. Default: DefaultMaxBodyBytes (1 MiB).
	MaxBodyBytes int64
	// MaxArtifactBytes limits uploaded function modules (POST
	// /v1/artifacts...). Default: DefaultMaxArtifactBytes (64 MiB).
	MaxArtifactBytes int64
	// InsecureNoAuth serves every endpoint without an API key. For local
	// development only. Default: false.
	InsecureNoAuth bool
	// JobMetrics supplies the live counters of statements' jobs for
	// /metrics. Default: the Manager, if it implements JobMetrics;
	// otherwise /metrics reports only phases and state sizes.
	JobMetrics JobMetrics
	// SourceLags supplies the records of statements' log inputs not yet
	// covered by their last checkpoint, for /metrics. Default: the
	// Manager, if it implements SourceLags.
	SourceLags SourceLags
	// StateSizeRefresh is how long a measured state size is reused before
	// /metrics measures it again (measuring scans the statement's state).
	// Default: 30s.
	StateSizeRefresh time.Duration
}

// JobMetrics reports the counters of a statement's running job; ok is
// false when the statement has no running job.
type JobMetrics interface {
	JobMetrics(name string) (m runtime.Metrics, ok bool)
}

// SourceLags reports the records of a statement's log table inputs that
// its last checkpoint has not covered; ok is false when the statement has
// no running job reading log tables.
type SourceLags interface {
	SourceLag(name string) (lag int64, ok bool)
}

// Server serves Eddy's REST API. Its Handler is safe for concurrent use.
type Server struct {
	opts   Options
	mgr    *statement.Manager
	keys   *KeyStore
	logger *slog.Logger
	clock  runtime.Clock
	mux    *http.ServeMux

	sizesMu sync.Mutex
	sizes   map[string]stateSize // by statement uid

	keysMu sync.Mutex // serializes key deletions (the last-key check)

	// Metrics (see newMetrics).
	registry       *prometheus.Registry
	metricsHandler http.Handler
	httpInFlight   prometheus.Gauge
	httpRequests   *prometheus.CounterVec
	httpDuration   *prometheus.HistogramVec
	routed         map[string]http.Handler // by route pattern: the instrumented dispatch
}

// New returns a server for opts.
func New(opts Options) (*Server, error) {
	if opts.Manager == nil {
		return nil, errors.New("server: Options.Manager is required")
	}
	if opts.DB == nil {
		return nil, errors.New("server: Options.DB is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Clock == nil {
		opts.Clock = runtime.SystemClock{}
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxArtifactBytes <= 0 {
		opts.MaxArtifactBytes = DefaultMaxArtifactBytes
	}
	if opts.StateSizeRefresh <= 0 {
		opts.StateSizeRefresh = 30 * time.Second
	}
	if opts.JobMetrics == nil {
		if jm, ok := any(opts.Manager).(JobMetrics); ok {
			opts.JobMetrics = jm
		}
	}
	if opts.SourceLags == nil {
		if sl, ok := any(opts.Manager).(SourceLags); ok {
			opts.SourceLags = sl
		}
	}
	s := &Server{
		opts: opts, mgr: opts.Manager, keys: NewKeyStore(opts.DB, opts.Clock),
		logger: opts.Logger.With("component", "server"), clock: opts.Clock,
		mux: http.NewServeMux(), sizes: map[string]stateSize{}, routed: map[string]http.Handler{},
	}
	s.newMetrics()
	s.routes()
	return s, nil
}

func (s *Server) routes() {
	s.handle("GET /healthz", s.healthz)
	s.handle("GET /metrics", s.metrics)
	s.handle("POST /v1/statements", s.createStatement)
	s.handle("GET /v1/statements", s.listStatements)
	s.handle("GET /v1/statements/{name}", s.getStatement)
	s.handle("PUT /v1/statements/{name}", s.updateStatement)
	s.handle("DELETE /v1/statements/{name}", s.deleteStatement)
	s.handle("POST /v1/statements/{name}/replace", s.replaceStatement)
	s.handle("GET /v1/statements/{name}/exceptions", s.statementExceptions)
	s.handle("GET /v1/statements/{name}/results", s.statementResults)
	s.handle("GET /v1/api-keys", s.listAPIKeys)
	s.handle("POST /v1/api-keys", s.createAPIKey)
	s.handle("DELETE /v1/api-keys/{id}", s.deleteAPIKey)
	s.handle("POST /v1/artifacts", s.createArtifact)
	s.handle("GET /v1/artifacts", s.listArtifacts)
	s.handle("GET /v1/artifacts/{id}", s.getArtifact)
	s.handle("DELETE /v1/artifacts/{id}", s.deleteArtifact)
	s.handle("POST /v1/artifacts/{id}/versions", s.addArtifactVersion)
	// Requests no route matches (404, 405) share one label: unknown paths
	// must not grow the label set.
	s.routed[""] = s.instrument("other", http.HandlerFunc(s.dispatch))
}

// handle routes pattern to fn, and prepares the instrumented dispatch of
// the requests to it.
func (s *Server) handle(pattern string, fn http.HandlerFunc) {
	s.mux.HandleFunc(pattern, fn)
	s.routed[pattern] = s.instrument(pattern, http.HandlerFunc(s.dispatch))
}

// route returns the instrumented dispatch of requests to route pattern.
func (s *Server) route(pattern string) http.Handler {
	if h, ok := s.routed[pattern]; ok {
		return h
	}
	return s.routed[""]
}

// Handler returns the HTTP handler of the API: request logging, panic
// recovery, authentication (every path but /healthz), body limits and
// routing with JSON 404 and 405 answers.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serve) }

// requestContextKey carries the request's *request in its context.
type requestContextKey struct{}

// requestKeyID returns the id of the API key r was authenticated with ("-"
// without authentication).
func requestKeyID(r *http.Request) string {
	if req, ok := r.Context().Value(requestContextKey{}).(*request); ok && req.keyID != "" {
		return req.keyID
	}
	return "-"
}

// request is the per-request bookkeeping of the middleware.
type request struct {
	id    string
	keyID string
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	start := s.clock.Now()
	req := &request{id: newRequestID()}
	rw := &responseWriter{ResponseWriter: w}
	rw.Header().Set("X-Request-Id", req.id)
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.logger.Error("panic serving a request", "request_id", req.id, "method", r.Method,
				"path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if !rw.wrote {
				s.writeError(rw, apiError{status: http.StatusInternalServerError, code: v1.CodeInternal,
					message: "Internal error.", suggestion: "See the server log for request " + req.id + "."})
			}
		}
		if s.logger.Enabled(r.Context(), slog.LevelDebug) {
			s.logger.LogAttrs(r.Context(), slog.LevelDebug, "request",
				slog.String("request_id", req.id), slog.String("method", r.Method),
				slog.String("path", r.URL.Path), slog.Int("status", rw.status()),
				slog.Duration("duration", s.clock.Now().Sub(start)), slog.String("key_id", req.keyID))
		}
	}()
	r = r.WithContext(context.WithValue(r.Context(), requestContextKey{}, req))
	_, pattern := s.mux.Handler(r)
	s.route(pattern).ServeHTTP(rw, r)
}

// dispatch authenticates a request (every path but /healthz), limits its
// body and routes it, with JSON 404 and 405 answers.
func (s *Server) dispatch(rw http.ResponseWriter, r *http.Request) {
	req := r.Context().Value(requestContextKey{}).(*request)
	if r.URL.Path != "/healthz" && !s.authenticate(rw, r, req) {
		return
	}
	if r.Body != nil {
		limit := s.opts.MaxBodyBytes
		if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/artifacts") {
			limit = s.opts.MaxArtifactBytes // function modules are megabytes
		}
		r.Body = http.MaxBytesReader(rw, r.Body, limit)
	}
	h, pattern := s.mux.Handler(r)
	if pattern == "" {
		s.notRouted(rw, r, h)
		return
	}
	s.mux.ServeHTTP(rw, r)
}

// notRouted answers a request no pattern matches: 405 when the path exists
// with other methods, 404 otherwise, as JSON. The mux's own fallback
// handler runs into a recorder only to learn which case it is.
func (s *Server) notRouted(w http.ResponseWriter, r *http.Request, fallback http.Handler) {
	rec := &recorder{header: http.Header{}}
	fallback.ServeHTTP(rec, r)
	if rec.code == http.StatusMethodNotAllowed {
		allow := rec.header.Get("Allow")
		w.Header().Set("Allow", allow)
		s.writeError(w, apiError{status: http.StatusMethodNotAllowed, code: v1.CodeMethodNotAllowed,
			message:    fmt.Sprintf("Method %s is not allowed on %s.", r.Method, r.URL.Path),
			suggestion: "Use one of: " + allow + "."})
		return
	}
	s.writeError(w, apiError{status: http.StatusNotFound, code: v1.CodeNotFound,
		message:    fmt.Sprintf("No endpoint %s %s.", r.Method, r.URL.Path),
		suggestion: "The API is under /v1/statements; see docs/operating.md for the endpoints."})
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
}

func newRequestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// responseWriter remembers the status for the request log.
type responseWriter struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (w *responseWriter) WriteHeader(code int) {
	if !w.wrote {
		w.code, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.code, w.wrote = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

func (w *responseWriter) status() int {
	if !w.wrote {
		return http.StatusOK
	}
	return w.code
}

// Unwrap lets http.ResponseController reach the connection.
func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// recorder captures what the mux's fallback handler answers.
type recorder struct {
	header http.Header
	code   int
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return len(b), nil
}
