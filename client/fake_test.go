package client_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
)

// fake is an in-memory Eddy server with the REST contract of
// internal/server, and knobs for tests: scripted phases, injected errors,
// results that arrive over time.
type fake struct {
	mu       sync.Mutex
	stmts    map[string]*v1.Statement
	phases   map[string][]v1.Phase // reported by the next GETs; the last stays
	excs     map[string][]v1.Exception
	rows     map[string][]v1.ResultRow
	complete map[string]bool // results complete
	gone     map[string]int  // GETs of a deleted statement before 404
	failNext []int           // statuses answered to the next requests
	conflict int             // PUTs answered 409 before one succeeds
	pageSize int
	requests []string
	bodies   []string
	auth     []string
	agents   []string
}

const (
	fakeKey    = "key"
	fakeSecret = "secret"
)

// newFake starts a fake server, closed at the end of the test.
func newFake(t testing.TB) (*fake, *httptest.Server) {
	f, srv := startFake()
	t.Cleanup(srv.Close)
	return f, srv
}

// startFake starts a fake server.
func startFake() (*fake, *httptest.Server) {
	f := &fake{
		stmts: map[string]*v1.Statement{}, phases: map[string][]v1.Phase{}, excs: map[string][]v1.Exception{},
		rows: map[string][]v1.ResultRow{}, complete: map[string]bool{}, gone: map[string]int{}, pageSize: 100,
	}
	return f, httptest.NewServer(f)
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
	f.agents = append(f.agents, r.UserAgent())
	var body []byte
	if r.Body != nil {
		body, _ = readAll(r)
		f.bodies = append(f.bodies, string(body))
	}
	if len(f.failNext) > 0 {
		status := f.failNext[0]
		f.failNext = f.failNext[1:]
		if status == http.StatusBadGateway {
			w.WriteHeader(status)
			fmt.Fprint(w, "<html><body>502 Bad Gateway</body></html>")
			return
		}
		fakeErr(w, status, v1.CodeInternal, http.StatusText(status))
		return
	}
	if r.URL.Path == "/healthz" {
		w.WriteHeader(http.StatusOK)
		return
	}
	key, secret, ok := r.BasicAuth()
	f.auth = append(f.auth, key)
	if !ok || key != fakeKey || secret != fakeSecret {
		fakeErr(w, http.StatusUnauthorized, v1.CodeUnauthorized, "invalid API key")
		return
	}
	rest, isStmt := strings.CutPrefix(r.URL.EscapedPath(), "/v1/statements/")
	name, sub, _ := strings.Cut(rest, "/")
	name, _ = url.PathUnescape(name)
	switch {
	case r.URL.Path == "/v1/statements" && r.Method == http.MethodPost:
		f.create(w, body)
	case r.URL.Path == "/v1/statements" && r.Method == http.MethodGet:
		f.list(w, r)
	case !isStmt || name == "":
		fakeErr(w, http.StatusNotFound, v1.CodeNotFound, "no route")
	case sub == "" && r.Method == http.MethodGet:
		if st := f.get(w, name); st != nil {
			writeJSON(w, http.StatusOK, st)
		}
	case sub == "" && r.Method == http.MethodPut:
		f.update(w, name, body)
	case sub == "" && r.Method == http.MethodDelete:
		if st := f.lookup(w, name); st != nil {
			st.Status.Phase = v1.Deleting
			f.phases[name] = nil
			if _, ok := f.gone[name]; !ok {
				f.gone[name] = 0
			}
			w.WriteHeader(http.StatusAccepted)
		}
	case sub == "exceptions" && r.Method == http.MethodGet:
		if st := f.lookup(w, name); st != nil {
			writeJSON(w, http.StatusOK, v1.ExceptionList{Kind: "StatementExceptionList", Data: f.excs[name]})
		}
	case sub == "results" && r.Method == http.MethodGet:
		f.results(w, r, name)
	default:
		fakeErr(w, http.StatusMethodNotAllowed, v1.CodeMethodNotAllowed, "method not allowed")
	}
}

func (f *fake) lookup(w http.ResponseWriter, name string) *v1.Statement {
	st := f.stmts[name]
	if st == nil {
		fakeErr(w, http.StatusNotFound, v1.CodeNotFound, "statement "+name+" not found")
	}
	return st
}

// get returns a statement, moving it to its next scripted phase.
func (f *fake) get(w http.ResponseWriter, name string) *v1.Statement {
	if n, deleting := f.gone[name]; deleting && f.stmts[name] != nil {
		if n == 0 {
			delete(f.stmts, name)
		} else {
			f.gone[name] = n - 1
		}
	}
	st := f.lookup(w, name)
	if st == nil {
		return nil
	}
	if q := f.phases[name]; len(q) > 0 {
		if st.Status.Phase != q[0] {
			st.Status.Phase = q[0]
			st.Status.Detail = "now " + string(q[0])
			f.bump(st)
		}
		if len(q) > 1 {
			f.phases[name] = q[1:]
		}
	}
	return st
}

func (f *fake) bump(st *v1.Statement) {
	rv, _ := strconv.Atoi(st.Metadata.ResourceVersion)
	st.Metadata.ResourceVersion = strconv.Itoa(rv + 1)
}

func (f *fake) create(w http.ResponseWriter, body []byte) {
	var in v1.Statement
	if err := json.Unmarshal(body, &in); err != nil || in.Name == "" || in.Spec.Statement == "" {
		fakeErr(w, http.StatusBadRequest, v1.CodeInvalid, "invalid statement")
		return
	}
	if old := f.stmts[in.Name]; old != nil {
		details, _ := json.Marshal(old)
		writeJSON(w, http.StatusConflict, v1.ErrorResponse{Status: http.StatusConflict, Error: v1.ErrorBody{
			Code: v1.CodeAlreadyExists, Message: "statement " + in.Name + " already exists", Details: details,
		}})
		return
	}
	st := &v1.Statement{
		APIVersion: v1.APIVersion, Kind: "Statement", Name: in.Name,
		Metadata: v1.Metadata{UID: "uid-" + in.Name, CreatedAt: time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC), ResourceVersion: "1", Labels: in.Metadata.Labels},
		Spec:     in.Spec,
		Status:   v1.Status{Phase: v1.Pending, Detail: "Statement is being started."},
	}
	if in.Spec.Stopped {
		st.Status.Phase = v1.Stopped
	}
	f.stmts[in.Name] = st
	writeJSON(w, http.StatusCreated, st)
}

func (f *fake) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	size := f.pageSize
	if n, err := strconv.Atoi(q.Get("page_size")); err == nil && n < size {
		size = n
	}
	labels := map[string]string{}
	if sel := q.Get("label_selector"); sel != "" {
		for kv := range strings.SplitSeq(sel, ",") {
			k, v, _ := strings.Cut(kv, "=")
			labels[k] = v
		}
	}
	out := v1.StatementList{APIVersion: v1.APIVersion, Kind: "StatementList", Data: []v1.Statement{}}
	for _, name := range slices.Sorted(maps.Keys(f.stmts)) {
		st := f.stmts[name]
		if name <= q.Get("page_token") || !strings.HasPrefix(name, q.Get("name_prefix")) ||
			(q.Get("phase") != "" && q.Get("phase") != string(st.Status.Phase)) {
			continue
		}
		match := true
		for k, v := range labels {
			match = match && st.Metadata.Labels[k] == v
		}
		if !match {
			continue
		}
		if len(out.Data) == size {
			nq := r.URL.Query()
			nq.Set("page_token", out.Data[len(out.Data)-1].Name)
			out.Metadata.Next = "http://" + r.Host + "/v1/statements?" + nq.Encode()
			break
		}
		out.Data = append(out.Data, *st)
	}
	writeJSON(w, http.StatusOK, out)
}

func (f *fake) update(w http.ResponseWriter, name string, body []byte) {
	st := f.lookup(w, name)
	if st == nil {
		return
	}
	var in v1.UpdateRequest
	if err := json.Unmarshal(body, &in); err != nil || in.Metadata.ResourceVersion == "" {
		fakeErr(w, http.StatusBadRequest, v1.CodeInvalid, "metadata.resource_version is required")
		return
	}
	if f.conflict > 0 {
		f.conflict--
		f.bump(st)
	}
	if in.Metadata.ResourceVersion != st.Metadata.ResourceVersion {
		fakeErr(w, http.StatusConflict, v1.CodeConflict, "resource version conflict")
		return
	}
	if !in.Spec.Stopped && st.Status.Phase == v1.Stopping { // as internal/server
		fakeErr(w, http.StatusConflict, v1.CodeConflict, "statement is still STOPPING")
		return
	}
	if st.Spec.Stopped != in.Spec.Stopped {
		st.Spec.Stopped = in.Spec.Stopped
		st.Status.Phase = v1.Pending
		if in.Spec.Stopped {
			st.Status.Phase = v1.Stopping
		}
		f.bump(st)
	}
	writeJSON(w, http.StatusAccepted, st)
}

// results serves rows from the offset in page_token, at most two a page.
func (f *fake) results(w http.ResponseWriter, r *http.Request, name string) {
	if f.lookup(w, name) == nil {
		return
	}
	from, _ := strconv.Atoi(r.URL.Query().Get("page_token"))
	rows := f.rows[name]
	to := min(from+2, len(rows))
	from = min(from, to)
	page := v1.ResultPage{APIVersion: v1.APIVersion, Kind: "StatementResult", Results: v1.Results{Data: slices.Clone(rows[from:to])}}
	if page.Results.Data == nil {
		page.Results.Data = []v1.ResultRow{}
	}
	if !f.complete[name] || to < len(rows) {
		// A bare token; internal/server sends a URL with page_token,
		// which the CLI's tests use. The client takes both.
		page.Metadata.Next = strconv.Itoa(to)
	}
	writeJSON(w, http.StatusOK, page)
}

// do runs fn with the fake locked, to change it while a test runs.
func (f *fake) do(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

// requestLog returns the requests so far.
func (f *fake) requestLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func fakeErr(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, v1.ErrorResponse{Status: status, Error: v1.ErrorBody{Code: code, Message: msg}, RequestID: "req-7"})
}

func readAll(r *http.Request) ([]byte, error) {
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := r.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return []byte(b.String()), nil
		}
	}
}
