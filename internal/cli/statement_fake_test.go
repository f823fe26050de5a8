package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/types"
)

// fakeServerEnv names the directory of the fake Eddy server of the
// testscript scripts. When it is set for `exec eddy`, init starts an
// in-process fake of the REST API (the contract of internal/server) for
// that command, keeps its statements in DIR/state.json from one command to
// the next, and routes every request of the command to it whatever the host
// of the URL: scripts tell the settings apart by host. Hosts ending in
// ".down" refuse connections.
//
// The fake accepts the API key test-key with secret test-secret. It logs
// each request to DIR/requests.log as
//
//	METHOD HOST URI key=KEY [name=NAME properties=K=V,... labels=K=V,...]
//
// Statements follow canned behaviours chosen by their SQL (see fakeDefaults)
// and changed by a directive comment in the SQL:
//
//	-- fake: phases=PENDING,PENDING,RUNNING stop=STOPPING,STOPPED
//
// A statement reports the first phase of its list when created; every GET
// of the statement or of its results moves to the next, and the last one
// stays. Directives: phases, stop, resume (phase lists for those
// updates), delete=N|never (GETs in DELETING before it is gone; default 0),
// fail="message" (the detail and exception of FAILED), flaky=N (the next N
// GETs of the statement answer 503), conflicts=N (the next N PUTs answer
// 409 RESOURCE_VERSION_CONFLICT), rows=order_status|tables|none (canned
// results), carried=NAME (status.state_carried_from), invalid="message"
// with at=LINE:COL (the create is refused with 400 INVALID_SQL).
const fakeServerEnv = "EDDY_TEST_FAKE_SERVER"

func init() {
	dir := os.Getenv(fakeServerEnv)
	if dir == "" || filepath.Base(os.Args[0]) != "eddy" {
		return
	}
	f, err := loadFakeServer(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake server:", err)
		os.Exit(2)
	}
	srv := httptest.NewServer(f)
	addr := srv.Listener.Addr().String()
	statementTransport = &http.Transport{
		DialContext: func(ctx context.Context, network, hostport string) (net.Conn, error) {
			if host, _, _ := net.SplitHostPort(hostport); strings.HasSuffix(host, ".down") {
				return nil, fmt.Errorf("dial tcp %s: connect: connection refused", hostport)
			}
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}
	statementPollInterval = 10 * time.Millisecond
	scriptSettle = 500 * time.Millisecond
	statementNow = func() time.Time { return time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC) }
}

// fakeServer is an in-memory Eddy server.
type fakeServer struct {
	dir string
	mu  sync.Mutex
	fakeState
}

// fakeState is what is kept between commands.
type fakeState struct {
	Clock      int                   `json:"clock"` // seconds after fakeEpoch
	Seq        int                   `json:"seq"`
	Statements map[string]*fakeEntry `json:"statements"`
}

var fakeEpoch = time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)

// fakeEntry is a statement and its scripted behaviour.
type fakeEntry struct {
	St         v1.Statement   `json:"statement"`
	Exceptions []v1.Exception `json:"exceptions,omitempty"`
	Queue      []v1.Phase     `json:"queue,omitempty"` // the phases of the next GETs
	Stop       []v1.Phase     `json:"stop"`
	Resume     []v1.Phase     `json:"resume"`
	Delete     int            `json:"delete"` // GETs before gone; -1 never
	Deleting   bool           `json:"deleting,omitempty"`
	Fail       string         `json:"fail"`
	Flaky      int            `json:"flaky,omitempty"`
	Conflicts  int            `json:"conflicts,omitempty"`
	Rows       []v1.ResultRow `json:"rows,omitempty"`
	Polls      int            `json:"polls,omitempty"` // results requests while not terminal
}

func loadFakeServer(dir string) (*fakeServer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f := &fakeServer{dir: dir, fakeState: fakeState{Statements: map[string]*fakeEntry{}}}
	b, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &f.fakeState)
	}
	return f, err
}

func (f *fakeServer) save() {
	b, err := json.MarshalIndent(f.fakeState, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(f.dir, "state.json"), b, 0o644)
	}
	if err != nil {
		panic(err)
	}
}

func (f *fakeServer) now() time.Time {
	f.Clock++
	return fakeEpoch.Add(time.Duration(f.Clock) * time.Second)
}

var fakeRoutes = []struct {
	pattern string
	handle  func(f *fakeServer, w http.ResponseWriter, r *http.Request)
}{
	{"POST /v1/statements", (*fakeServer).create},
	{"GET /v1/statements", (*fakeServer).list},
	{"GET /v1/statements/{name}", (*fakeServer).get},
	{"PUT /v1/statements/{name}", (*fakeServer).update},
	{"DELETE /v1/statements/{name}", (*fakeServer).delete},
	{"GET /v1/statements/{name}/exceptions", (*fakeServer).exceptions},
	{"GET /v1/statements/{name}/results", (*fakeServer).results},
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	defer f.save()
	key, secret, _ := r.BasicAuth()
	f.log(r, key)
	if r.URL.Path == "/healthz" {
		writeFakeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return
	}
	if key != "test-key" || secret != "test-secret" {
		fakeError(w, http.StatusUnauthorized, v1.CodeUnauthorized, "invalid API key or secret", "")
		return
	}
	mux := http.NewServeMux()
	for _, rt := range fakeRoutes {
		mux.HandleFunc(rt.pattern, func(w http.ResponseWriter, r *http.Request) { rt.handle(f, w, r) })
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fakeError(w, http.StatusNotFound, v1.CodeNotFound, "no such route "+r.Method+" "+r.URL.Path, "")
	})
	mux.ServeHTTP(w, r)
}

func (f *fakeServer) log(r *http.Request, key string) {
	line := fmt.Sprintf("%s %s %s key=%s", r.Method, r.Host, r.URL.RequestURI(), key)
	if r.Method == http.MethodPost && r.Body != nil {
		var st v1.Statement
		b, _ := readAllLimited(r)
		if json.Unmarshal(b, &st) == nil {
			line += fmt.Sprintf(" name=%s properties=%s labels=%s", st.Name,
				strings.Join(sortedPairs(st.Spec.Properties), ","), strings.Join(sortedPairs(st.Metadata.Labels), ","))
		}
		r.Body = readCloser(b)
	}
	fh, err := os.OpenFile(filepath.Join(f.dir, "requests.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		panic(err)
	}
	defer fh.Close()
	fmt.Fprintln(fh, line)
}

func writeFakeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func fakeError(w http.ResponseWriter, status int, code, msg, pos string) {
	writeFakeJSON(w, status, v1.ErrorResponse{Status: status, Error: v1.ErrorBody{Code: code, Message: msg, Position: pos}, RequestID: "req-1"})
}

var fakeNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func (f *fakeServer) create(w http.ResponseWriter, r *http.Request) {
	var in v1.Statement
	b, _ := readAllLimited(r)
	if err := json.Unmarshal(b, &in); err != nil {
		fakeError(w, http.StatusBadRequest, v1.CodeInvalid, "malformed JSON: "+err.Error(), "")
		return
	}
	switch {
	case len(in.Name) > 100 || !fakeNameRE.MatchString(in.Name):
		fakeError(w, http.StatusBadRequest, v1.CodeInvalid, fmt.Sprintf("invalid name %q", in.Name), "")
		return
	case strings.TrimSpace(in.Spec.Statement) == "":
		fakeError(w, http.StatusBadRequest, v1.CodeInvalid, "spec.statement is empty", "")
		return
	case f.Statements[in.Name] != nil:
		fakeError(w, http.StatusConflict, v1.CodeAlreadyExists, fmt.Sprintf("statement %s already exists", in.Name), "")
		return
	}
	e, invalid, at := fakeDefaults(in.Spec.Statement)
	if invalid != "" {
		fakeError(w, http.StatusBadRequest, v1.CodeInvalidSQL, invalid, at)
		return
	}
	f.Seq++
	now := f.now()
	e.St = v1.Statement{
		APIVersion: v1.APIVersion, Kind: "Statement", Name: in.Name,
		Metadata: v1.Metadata{Self: "/v1/statements/" + in.Name, UID: fmt.Sprintf("uid-%d", f.Seq), CreatedAt: now, UpdatedAt: now, Labels: in.Metadata.Labels},
		Spec:     in.Spec,
		Status:   v1.Status{Traits: e.St.Status.Traits, StateCarriedFrom: e.St.Status.StateCarriedFrom},
	}
	if in.Spec.Stopped {
		e.Queue = []v1.Phase{v1.Stopped}
	}
	f.Statements[in.Name] = e
	f.advance(e)
	writeFakeJSON(w, http.StatusCreated, e.St)
}

// advance moves a statement to the next phase of its queue.
func (f *fakeServer) advance(e *fakeEntry) {
	if len(e.Queue) == 0 {
		return
	}
	p := e.Queue[0]
	if len(e.Queue) > 1 {
		e.Queue = e.Queue[1:]
	}
	if p == e.St.Status.Phase {
		return
	}
	e.St.Status.Phase = p
	e.St.Status.Detail = fakeDetail(e, p)
	if p == v1.Failed {
		e.Exceptions = append([]v1.Exception{{Kind: "StatementException", Name: "RUNTIME_ERROR", Message: e.Fail, Timestamp: f.now()}}, e.Exceptions...)
	}
	f.bump(e)
}

func (f *fakeServer) bump(e *fakeEntry) {
	rv, _ := strconv.Atoi(e.St.Metadata.ResourceVersion)
	e.St.Metadata.ResourceVersion = strconv.Itoa(rv + 1)
	e.St.Metadata.UpdatedAt = f.now()
}

func fakeDetail(e *fakeEntry, p v1.Phase) string {
	switch p {
	case v1.Pending:
		return "Statement is being started."
	case v1.Running:
		return "Statement is running successfully."
	case v1.Completed:
		if e.St.Status.Traits != nil && e.St.Status.Traits.SQLKind == "EXPLAIN" {
			return "\n== Physical Plan ==\nSink(fake) <- Source(fake)"
		}
		return "Execute statement succeeded."
	case v1.Stopping:
		return "Statement is being stopped: taking a final checkpoint."
	case v1.Stopped:
		if e.St.Spec.Stopped && e.St.Status.StartTime == nil {
			return "Created stopped; resume it to run."
		}
		return "Statement was stopped; resume it to continue from its last checkpoint."
	case v1.Failed, v1.Failing:
		return e.Fail
	case v1.Deleting:
		return "Statement is being deleted."
	}
	return "Statement is " + string(p) + "."
}

// entry returns the named statement, or answers 404 (or 503 while it is
// flaky) and returns nil. A GET moves it on.
func (f *fakeServer) entry(w http.ResponseWriter, r *http.Request, tick bool) *fakeEntry {
	name := r.PathValue("name")
	e := f.Statements[name]
	if e != nil && tick && e.Flaky > 0 {
		e.Flaky--
		fakeError(w, http.StatusServiceUnavailable, v1.CodeInternal, "the server is restarting", "")
		return nil
	}
	if e != nil && tick && e.Deleting {
		if e.Delete == 0 {
			delete(f.Statements, name)
			e = nil
		} else if e.Delete > 0 {
			e.Delete--
		}
	}
	if e == nil {
		fakeError(w, http.StatusNotFound, v1.CodeNotFound, "statement: not found: "+name, "")
		return nil
	}
	if tick && !e.Deleting {
		f.advance(e)
	}
	return e
}

func (f *fakeServer) get(w http.ResponseWriter, r *http.Request) {
	if e := f.entry(w, r, true); e != nil {
		writeFakeJSON(w, http.StatusOK, e.St)
	}
}

// fakePageSize caps list pages, so that paging is exercised.
const fakePageSize = 3

func (f *fakeServer) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	size := fakePageSize
	if n, err := strconv.Atoi(q.Get("page_size")); err == nil && n > 0 && n < size {
		size = n
	}
	labels := map[string]string{}
	if sel := q.Get("label_selector"); sel != "" {
		for _, kv := range strings.Split(sel, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				fakeError(w, http.StatusBadRequest, v1.CodeInvalid, "invalid label_selector "+sel, "")
				return
			}
			labels[k] = v
		}
	}
	var page []v1.Statement
	next := ""
	for _, name := range slices.Sorted(maps.Keys(f.Statements)) {
		st := f.Statements[name].St
		if name <= q.Get("page_token") || !strings.HasPrefix(name, q.Get("name_prefix")) ||
			(q.Get("phase") != "" && !strings.EqualFold(q.Get("phase"), string(st.Status.Phase))) {
			continue
		}
		match := true
		for k, v := range labels {
			match = match && st.Metadata.Labels[k] == v
		}
		if !match {
			continue
		}
		if len(page) == size {
			nq := r.URL.Query()
			nq.Set("page_token", page[len(page)-1].Name)
			next = "/v1/statements?" + nq.Encode()
			break
		}
		page = append(page, st)
	}
	if page == nil {
		page = []v1.Statement{}
	}
	writeFakeJSON(w, http.StatusOK, v1.StatementList{APIVersion: v1.APIVersion, Kind: "StatementList", Metadata: v1.ListMetadata{Next: next}, Data: page})
}

func (f *fakeServer) update(w http.ResponseWriter, r *http.Request) {
	e := f.entry(w, r, false)
	if e == nil {
		return
	}
	var in v1.UpdateRequest
	b, _ := readAllLimited(r)
	if err := json.Unmarshal(b, &in); err != nil {
		fakeError(w, http.StatusBadRequest, v1.CodeInvalid, "malformed JSON: "+err.Error(), "")
		return
	}
	switch {
	case in.Metadata.ResourceVersion == "":
		fakeError(w, http.StatusBadRequest, v1.CodeInvalid, "metadata.resource_version is required", "")
		return
	case in.Spec.Statement != e.St.Spec.Statement || !maps.Equal(in.Spec.Properties, e.St.Spec.Properties):
		fakeError(w, http.StatusBadRequest, v1.CodeInvalid, "spec.statement and spec.properties are immutable", "")
		return
	case e.Conflicts > 0:
		e.Conflicts--
		f.bump(e) // someone else wrote meanwhile
		fakeError(w, http.StatusConflict, v1.CodeConflict, "resource version conflict; GET it again and retry", "")
		return
	case in.Metadata.ResourceVersion != e.St.Metadata.ResourceVersion:
		fakeError(w, http.StatusConflict, v1.CodeConflict, "resource version conflict; GET it again and retry", "")
		return
	case !in.Spec.Stopped && e.St.Status.Phase == v1.Stopping: // as internal/server
		fakeError(w, http.StatusConflict, v1.CodeConflict, "statement is still STOPPING and cannot be resumed yet", "")
		return
	}
	if in.Spec.Stopped != e.St.Spec.Stopped {
		e.St.Spec.Stopped = in.Spec.Stopped
		if in.Spec.Stopped && !e.St.Status.Phase.IsTerminal() {
			e.Queue = slices.Clone(e.Stop)
		} else if !in.Spec.Stopped && e.St.Status.Phase != v1.Completed {
			e.Queue = slices.Clone(e.Resume)
			t := fakeEpoch
			e.St.Status.StartTime = &t
		}
		f.bump(e)
		f.advance(e)
	}
	writeFakeJSON(w, http.StatusAccepted, e.St)
}

func (f *fakeServer) delete(w http.ResponseWriter, r *http.Request) {
	e := f.entry(w, r, false)
	if e == nil {
		return
	}
	e.Deleting, e.Queue = true, []v1.Phase{v1.Deleting}
	f.advance(e)
	writeFakeJSON(w, http.StatusAccepted, e.St)
}

func (f *fakeServer) exceptions(w http.ResponseWriter, r *http.Request) {
	if e := f.entry(w, r, false); e != nil {
		data := e.Exceptions
		if data == nil {
			data = []v1.Exception{}
		}
		writeFakeJSON(w, http.StatusOK, v1.ExceptionList{Kind: "StatementExceptionList", Data: data})
	}
}

// results serves the rows from the offset in page_token. While the
// statement is not terminal one more row becomes visible every second
// request (so a reader that caught up sees an empty page first), and the
// results are not complete.
func (f *fakeServer) results(w http.ResponseWriter, r *http.Request) {
	e := f.entry(w, r, true)
	if e == nil {
		return
	}
	from := 0
	if t := r.URL.Query().Get("page_token"); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 {
			fakeError(w, http.StatusBadRequest, v1.CodeInvalid, "invalid page_token "+t, "")
			return
		}
		from = n
	}
	size := 1000
	if n, err := strconv.Atoi(r.URL.Query().Get("page_size")); err == nil && n > 0 {
		size = n
	}
	visible, complete := len(e.Rows), e.St.Status.Phase.IsTerminal()
	if !complete {
		e.Polls++
		visible = min((e.Polls+1)/2, len(e.Rows))
	}
	from = min(from, visible)
	to := min(from+size, visible)
	next := "/v1/statements/" + e.St.Name + "/results?page_token=" + strconv.Itoa(to) // as internal/server
	if complete && to == len(e.Rows) {
		next = ""
	}
	rows := slices.Clone(e.Rows[from:to])
	if rows == nil {
		rows = []v1.ResultRow{}
	}
	writeFakeJSON(w, http.StatusOK, v1.ResultPage{
		APIVersion: v1.APIVersion, Kind: "StatementResult",
		Metadata: v1.ResultMetadata{Next: next, CreatedAt: fakeEpoch},
		Results:  v1.Results{Data: rows},
	})
}

var (
	fakeDirectiveRE = regexp.MustCompile(`(?m)--\s*fake:(.*)$`)
	fakeArgRE       = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*"|\S+)`)
	fakeFromRE      = regexp.MustCompile(`(?i)\bFROM\s+(\w+)`)
)

// fakeDefaults returns the behaviour of a new statement from its SQL and
// its directives, or why the create is refused (and where).
func fakeDefaults(sql string) (e *fakeEntry, invalid, at string) {
	e = &fakeEntry{
		Stop:   []v1.Phase{v1.Stopping, v1.Stopped},
		Resume: []v1.Phase{v1.Pending, v1.Running},
		Fail:   "Function Boom failed: kaput.",
	}
	body := strings.TrimSpace(fakeDirectiveRE.ReplaceAllString(sql, ""))
	words := strings.Fields(strings.ToUpper(body))
	first := ""
	if len(words) > 0 {
		first = words[0]
	}
	kind, rows := first, "none"
	switch first {
	case "SELECT":
		e.Queue = fakePhases("PENDING,RUNNING,RUNNING,COMPLETED")
		if m := fakeFromRE.FindStringSubmatch(body); m != nil {
			rows = strings.ToLower(m[1])
		}
		if rows == "endless" {
			e.Queue, rows = fakePhases("PENDING,RUNNING"), "order_status"
		}
	case "INSERT":
		kind, e.Queue = "INSERT_INTO", fakePhases("PENDING,RUNNING")
	case "SHOW":
		kind, rows = "SHOW_"+strings.Join(words[1:], "_"), "tables"
		e.Queue = fakePhases("PENDING,COMPLETED")
	case "EXPLAIN", "DESCRIBE":
		e.Queue = fakePhases("PENDING,COMPLETED")
	default:
		if len(words) > 1 {
			kind = first + "_" + words[1]
		}
		e.Queue = fakePhases("PENDING,COMPLETED")
	}
	if i := strings.Index(body, "nope"); i >= 0 {
		e.Queue = fakePhases("PENDING,FAILED")
		e.Fail = fmt.Sprintf("at %s: Table 'nope' not found.\nHint: Run SHOW TABLES; to list the tables.", posAt(body, i))
	}
	traits := &v1.Traits{SQLKind: kind, IsBounded: first != "SELECT" && first != "INSERT"}
	for _, m := range fakeDirectiveRE.FindAllStringSubmatch(sql, -1) {
		for _, a := range fakeArgRE.FindAllStringSubmatch(m[1], -1) {
			k, v := a[1], a[2]
			if uq, err := strconv.Unquote(v); err == nil {
				v = uq
			}
			switch k {
			case "phases":
				e.Queue = fakePhases(v)
			case "stop":
				e.Stop = fakePhases(v)
			case "resume":
				e.Resume = fakePhases(v)
			case "delete":
				e.Delete = -1
				if v != "never" {
					e.Delete, _ = strconv.Atoi(v)
				}
			case "fail":
				e.Fail = v
			case "flaky":
				e.Flaky, _ = strconv.Atoi(v)
			case "conflicts":
				e.Conflicts, _ = strconv.Atoi(v)
			case "rows":
				rows = v
			case "carried":
				e.St.Status.StateCarriedFrom = v
			case "invalid":
				invalid = v
			case "at":
				at = v
			default:
				panic("unknown fake directive " + k)
			}
		}
	}
	switch rows {
	case "order_status":
		traits.Schema = &v1.Schema{Columns: []v1.Column{{Name: "order_id", Type: "INT"}, {Name: "status", Type: "STRING", Nullable: true}}}
		traits.UpsertColumns = []int{0}
		for _, r := range orderChanges {
			e.Rows = append(e.Rows, v1.ResultRow{Op: int(r.Kind), Row: []any{types.Format(r.Values[0], types.Int), r.Values[1].Str()}})
		}
	case "tables":
		traits.Schema = &v1.Schema{Columns: []v1.Column{{Name: "table name", Type: "STRING"}}}
		for _, t := range []string{"clicks", "order_status"} {
			e.Rows = append(e.Rows, v1.ResultRow{Row: []any{t}})
		}
	}
	e.St.Status.Traits = traits
	return e, invalid, at
}

// fakePhases parses "PENDING,RUNNING".
func fakePhases(s string) []v1.Phase {
	var out []v1.Phase
	for p := range strings.SplitSeq(s, ",") {
		out = append(out, v1.Phase(strings.TrimSpace(p)))
	}
	return out
}

func readAllLimited(r *http.Request) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r.Body, 1<<20))
}

func readCloser(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }
