package deploy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"time"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/server"
	"github.com/eddy-sql/eddy/internal/statement"
	"github.com/eddy-sql/eddy/ptf"
)

// testServer is an in-process `eddy server` on a fresh data directory with
// one API key, served over httptest, as internal/server's tests build it.
type testServer struct {
	URL, Key, Secret string

	mu   sync.Mutex
	hook hookFunc

	dir string
	eng *engine.Engine
	mgr *statement.Manager
	ts  *httptest.Server
}

// startServer starts a test server; Close stops it and removes its data.
func startServer() (*testServer, error) {
	dir, err := os.MkdirTemp("", "eddy-deploy-test-")
	if err != nil {
		return nil, err
	}
	reg := ptf.NewRegistry()
	if err := examples.Register(reg); err != nil {
		return nil, err
	}
	eng, err := engine.Open(context.Background(), engine.Options{DataDir: dir, Registry: reg})
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	mgr, err := statement.Open(statement.Options{Engine: eng, CheckpointInterval: 50 * time.Millisecond})
	if err != nil {
		_ = eng.Close()
		_ = os.RemoveAll(dir)
		return nil, err
	}
	s := &testServer{dir: dir, eng: eng, mgr: mgr}
	srv, err := server.New(server.Options{Manager: mgr, DB: eng.Env().DB, Engine: eng})
	if err != nil {
		s.Close()
		return nil, err
	}
	key, err := server.NewKeyStore(eng.Env().DB, nil).Create("test")
	if err != nil {
		s.Close()
		return nil, err
	}
	s.Key, s.Secret = key.ID, key.Secret
	s.ts = httptest.NewServer(s.intercept(srv.Handler()))
	s.URL = s.ts.URL
	return s, nil
}

// Close stops the server and removes its data directory.
func (s *testServer) Close() {
	if s.ts != nil {
		s.ts.Close()
	}
	_ = s.mgr.Close()
	_ = s.eng.Close()
	_ = os.RemoveAll(s.dir)
}

// hookFunc rewrites an answer of the server: it gets the request and the
// status and JSON body the server answered (nil for an empty body), and
// returns what to answer instead.
type hookFunc func(r *http.Request, status int, body map[string]any) (int, map[string]any)

// setHook makes the server's answers pass through h (nil: unchanged), to
// make the real server report what it never does by itself: a statement
// stuck STOPPING, a FAILED resume, a carried-over state.
func (s *testServer) setHook(h hookFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = h
}

func (s *testServer) intercept(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		h := s.hook
		s.mu.Unlock()
		if h == nil {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		var body map[string]any
		if rec.Body.Len() > 0 {
			_ = json.Unmarshal(rec.Body.Bytes(), &body)
		}
		status, body := h(r, rec.Code, body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if body != nil {
			_ = json.NewEncoder(w).Encode(body)
		}
	})
}
