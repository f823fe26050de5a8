package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/eddy-sql/eddy"
	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/server"
	"github.com/eddy-sql/eddy/internal/statement"
	"github.com/eddy-sql/eddy/internal/wasm/wasmtest"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines, and lets the test binary act as
// the eddy command (eddy.Run, the real command line with the built-in
// functions) inside the testscript scripts of TestScript.
func TestMain(m *testing.M) {
	testscript.Main(leakCheckedM{m}, map[string]func(){
		"eddy": func() { os.Exit(eddy.Run()) },
	})
}

// leakCheckedM runs the tests and then fails if goroutines leaked, as
// goleak.VerifyTestMain does.
type leakCheckedM struct{ m *testing.M }

func (l leakCheckedM) Run() int {
	code := l.m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			return 1
		}
	}
	return code
}

// waitTimeout bounds every wait for a phase or for results.
const waitTimeout = 30 * time.Second

// client calls a server's REST API as a test.
type client struct {
	t           *testing.T
	url         string
	key, secret string
	hc          *http.Client
}

// env is a server on a fresh data directory with one API key.
type env struct {
	*client
	eng  *engine.Engine
	mgr  *statement.Manager
	srv  *server.Server
	ts   *httptest.Server
	logs *syncBuffer
}

// envOptions adjust the server of an env.
type envOptions struct {
	noDryRun bool
	server   func(*server.Options)
}

// syncBuffer is a bytes.Buffer safe for concurrent writers (the logger).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func newEnv(t *testing.T, eo ...envOptions) *env {
	t.Helper()
	var o envOptions
	if len(eo) > 0 {
		o = eo[0]
	}
	reg := ptf.NewRegistry()
	require.NoError(t, examples.Register(reg))
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	eng, err := engine.Open(context.Background(), engine.Options{DataDir: t.TempDir(), Registry: reg, WasmCacheDir: wasmtest.CacheDir()})
	require.NoError(t, err)
	mgr, err := statement.Open(statement.Options{Engine: eng, CheckpointInterval: 50 * time.Millisecond})
	if err != nil {
		_ = eng.Close()
		t.Fatal(err)
	}
	opts := server.Options{Manager: mgr, DB: eng.Env().DB, Engine: eng, Logger: logger}
	if o.noDryRun {
		opts.Engine = nil
	}
	if o.server != nil {
		o.server(&opts)
	}
	srv, err := server.New(opts)
	require.NoError(t, err)
	key, err := server.NewKeyStore(eng.Env().DB, nil).Create("test")
	require.NoError(t, err)
	ts := httptest.NewServer(srv.Handler())
	e := &env{
		client: &client{t: t, url: ts.URL, key: key.ID, secret: key.Secret, hc: ts.Client()},
		eng:    eng, mgr: mgr, srv: srv, ts: ts, logs: logs,
	}
	t.Cleanup(func() {
		e.ts.Close()
		require.NoError(t, mgr.Close())
		require.NoError(t, eng.Close())
	})
	return e
}

// response is an HTTP answer with its body read.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(r.body, v), "body: %s", r.body)
}

func (r response) errorBody(t *testing.T) v1.ErrorResponse {
	t.Helper()
	var er v1.ErrorResponse
	r.decode(t, &er)
	require.Equal(t, r.status, er.Status)
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	return er
}

// req is an HTTP request of a test.
type req struct {
	method, path string
	body         any // marshalled to JSON unless a string or []byte
	noAuth       bool
	key, secret  string // other credentials
	rawAuth      string // an Authorization header as it is
	contentType  string
}

func (e *client) do(r req) response {
	e.t.Helper()
	var body io.Reader
	switch b := r.body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		require.NoError(e.t, err)
		body = bytes.NewReader(j)
	}
	hr, err := http.NewRequest(r.method, e.url+r.path, body)
	require.NoError(e.t, err)
	if body != nil {
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		hr.Header.Set("Content-Type", ct)
	}
	switch {
	case r.rawAuth != "":
		hr.Header.Set("Authorization", r.rawAuth)
	case r.key != "" || r.secret != "":
		hr.SetBasicAuth(r.key, r.secret)
	case !r.noAuth:
		hr.SetBasicAuth(e.key, e.secret)
	}
	resp, err := e.hc.Do(hr)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(e.t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// create creates a statement and returns it; the request must succeed.
func (e *client) create(name, sql string) v1.Statement {
	e.t.Helper()
	r := e.do(req{method: "POST", path: "/v1/statements", body: v1.Statement{Name: name, Spec: v1.Spec{Statement: sql}}})
	require.Equal(e.t, http.StatusCreated, r.status, "body: %s", r.body)
	var st v1.Statement
	r.decode(e.t, &st)
	return st
}

// run creates a statement and waits until it is COMPLETED.
func (e *client) run(name, sql string) {
	e.t.Helper()
	e.create(name, sql)
	e.waitPhase(name, v1.Completed)
}

func (e *client) get(name string) v1.Statement {
	e.t.Helper()
	r := e.do(req{method: "GET", path: "/v1/statements/" + name})
	require.Equal(e.t, http.StatusOK, r.status, "body: %s", r.body)
	var st v1.Statement
	r.decode(e.t, &st)
	return st
}

// waitPhase polls the statement until it reaches phase.
func (e *client) waitPhase(name string, phase v1.Phase) v1.Statement {
	e.t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		st := e.get(name)
		if st.Status.Phase == phase {
			return st
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("statement %s is %s (%s), want %s", name, st.Status.Phase, st.Status.Detail, phase)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// update PUTs spec.stopped with the statement's current resource version.
func (e *client) update(name string, stopped bool) v1.Statement {
	e.t.Helper()
	cur := e.get(name)
	r := e.do(req{method: "PUT", path: "/v1/statements/" + name, body: v1.UpdateRequest{
		Name: name, Metadata: v1.Metadata{ResourceVersion: cur.Metadata.ResourceVersion}, Spec: v1.Spec{Stopped: stopped},
	}})
	require.Equal(e.t, http.StatusAccepted, r.status, "body: %s", r.body)
	var st v1.Statement
	r.decode(e.t, &st)
	return st
}

// results follows a statement's result pages from the first and returns
// the rows once there are at least n and no more arrive for a while (or
// the results are complete).
func (e *client) results(name string, n int) []v1.ResultRow {
	e.t.Helper()
	var rows []v1.ResultRow
	path := "/v1/statements/" + name + "/results"
	deadline := time.Now().Add(waitTimeout)
	quiet := 0
	for {
		r := e.do(req{method: "GET", path: path})
		require.Equal(e.t, http.StatusOK, r.status, "body: %s", r.body)
		var page v1.ResultPage
		r.decode(e.t, &page)
		rows = append(rows, page.Results.Data...)
		if page.Metadata.Next == "" {
			return rows
		}
		path = page.Metadata.Next
		if len(page.Results.Data) > 0 {
			quiet = 0
		} else if len(rows) >= n {
			// Enough rows, and nothing new for a few checkpoint intervals:
			// any duplicate would have shown up.
			if quiet++; quiet >= 10 {
				return rows
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("statement %s returned %d result rows, want %d: %v", name, len(rows), n, rows)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// rowStrings renders result rows as "op:v1,v2" for comparisons.
func rowStrings(rows []v1.ResultRow) []string {
	var out []string
	for _, r := range rows {
		var vals []string
		for _, v := range r.Row {
			b, _ := json.Marshal(v)
			vals = append(vals, strings.Trim(string(b), `"`))
		}
		out = append(out, strings.Join(vals, ","))
	}
	return out
}
