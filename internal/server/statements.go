package server

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/internal/statement"
)

// Limits of requests.
const (
	// maxStatementLength is the longest spec.statement, as Confluent's.
	maxStatementLength = 131072
	// defaultListPageSize and maxListPageSize bound GET /v1/statements.
	defaultListPageSize = 10
	maxListPageSize     = 100
	// defaultResultPageSize and maxResultPageSize bound the results
	// endpoint.
	defaultResultPageSize = 100
	maxResultPageSize     = 10000
)

// createStatement serves POST /v1/statements.
func (s *Server) createStatement(w http.ResponseWriter, r *http.Request) {
	var st v1.Statement
	if err := readJSON(r, &st); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := checkCreate(&st); err != nil {
		s.fail(w, r, err)
		return
	}
	if existing, err := s.mgr.Get(st.Name); err == nil {
		s.fail(w, r, alreadyExists(existing, st))
		return
	}
	if err := s.dryRun(r, st); err != nil {
		s.fail(w, r, err)
		return
	}
	created, err := s.mgr.Create(r.Context(), st)
	if errors.Is(err, statement.ErrExists) {
		s.fail(w, r, alreadyExists(created, st))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.logger.Info("statement created", "statement", created.Name, "phase", created.Status.Phase)
	w.Header().Set("Location", created.Metadata.Self)
	writeJSON(w, http.StatusCreated, created)
}

// replaceStatement serves POST /v1/statements/{name}/replace: it replaces
// the statement's spec, carrying its state and source positions over when
// every stateful PTF call keeps its uid and state types (see
// statement.Manager.Replace); an identical spec is a no-op.
func (s *Server) replaceStatement(w http.ResponseWriter, r *http.Request) {
	var st v1.Statement
	if err := readJSON(r, &st); err != nil {
		s.fail(w, r, err)
		return
	}
	st.Name = r.PathValue("name")
	if err := checkCreate(&st); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := s.dryRun(r, st); err != nil {
		s.fail(w, r, err)
		return
	}
	res, err := s.mgr.Replace(r.Context(), st)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.logger.Info("statement replaced", "statement", st.Name, "unchanged", res.Unchanged, "state_carried", res.Carried, "reason", res.Reason)
	writeJSON(w, http.StatusOK, v1.ReplaceResponse{Statement: res.Statement, Unchanged: res.Unchanged, StateCarried: res.Carried, Reason: res.Reason})
}

// checkCreate validates the body of a create request. An empty name is
// allowed: the manager generates one.
func checkCreate(st *v1.Statement) error {
	if strings.TrimSpace(st.Spec.Statement) == "" {
		return invalid("Field spec.statement is required.", `Put the SQL text in spec.statement, e.g. {"name": "my-insert", "spec": {"statement": "INSERT INTO ..."}}.`)
	}
	if len(st.Spec.Statement) > maxStatementLength {
		return invalid(fmt.Sprintf("Field spec.statement is %d bytes long; at most %d are allowed.", len(st.Spec.Statement), maxStatementLength), "")
	}
	if st.Name != "" {
		if err := statement.ValidateName(st.Name); err != nil {
			return invalid(trimSentinel(err, statement.ErrInvalid)+".",
				"Use a name such as 'orders-enriched-v2'; omit the name to get a generated one.")
		}
	}
	for k := range st.Metadata.Labels {
		if k == "" {
			return invalid("Label keys must not be empty.", "")
		}
	}
	return nil
}

// dryRun plans the statement's SQL when the server has the engine, so SQL
// errors come back with their position before anything is created. Other
// failures of the dry run are left to the real run, which records them in
// the statement's exceptions.
func (s *Server) dryRun(r *http.Request, st v1.Statement) error {
	if s.opts.Engine == nil {
		return nil
	}
	_, err := s.opts.Engine.Run(r.Context(), st.Spec.Statement, engine.RunOptions{Properties: st.Spec.Properties, DryRun: true})
	if _, ok := sqlerr.As(err); ok {
		return err
	}
	if err != nil {
		s.logger.Debug("dry run failed; creating the statement anyway", "statement", st.Name, "err", err)
	}
	return nil
}

func alreadyExists(existing, req v1.Statement) *apiError {
	e := &apiError{status: http.StatusConflict, code: v1.CodeAlreadyExists,
		message: fmt.Sprintf("Statement '%s' already exists.", existing.Name), details: existing}
	if existing.Spec.Statement == req.Spec.Statement && maps.Equal(existing.Spec.Properties, req.Spec.Properties) {
		e.suggestion = fmt.Sprintf("It has the same SQL and properties: use it as it is (GET /v1/statements/%s), or delete it first to start over.", existing.Name)
	} else {
		e.suggestion = fmt.Sprintf("It has different SQL or properties, and statements are immutable: choose another name, or delete '%s' first (DELETE /v1/statements/%s) to replace it.", existing.Name, existing.Name)
	}
	return e
}

// listStatements serves GET /v1/statements.
func (s *Server) listStatements(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if err := onlyParams(q, "name_prefix", "label_selector", "phase", "page_size", "page_token"); err != nil {
		s.fail(w, r, err)
		return
	}
	f := statement.Filter{NamePrefix: q.Get("name_prefix")}
	if p := q.Get("phase"); p != "" {
		if !slices.Contains(phases, v1.Phase(strings.ToUpper(p))) {
			s.fail(w, r, badRequest(fmt.Sprintf("Unknown phase %q.", p), "Use one of: "+phaseList()+"."))
			return
		}
		f.Phase = strings.ToUpper(p)
	}
	labels, err := parseLabelSelector(q.Get("label_selector"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	f.Labels = labels
	size, err := pageSize(q.Get("page_size"), defaultListPageSize, maxListPageSize)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	page, next := s.mgr.List(f, size, q.Get("page_token"))
	list := v1.StatementList{
		APIVersion: v1.APIVersion, Kind: "StatementList",
		Metadata: v1.ListMetadata{Self: r.URL.RequestURI()},
		Data:     page,
	}
	if list.Data == nil {
		list.Data = []v1.Statement{}
	}
	if next != "" {
		q.Set("page_token", next)
		q.Set("page_size", strconv.Itoa(size))
		list.Metadata.Next = "/v1/statements?" + q.Encode()
	}
	writeJSON(w, http.StatusOK, list)
}

// phases lists the phases in lifecycle order.
var phases = []v1.Phase{v1.Pending, v1.Running, v1.Completed, v1.Stopping, v1.Stopped, v1.Failing, v1.Failed, v1.Degraded, v1.Deleting}

func phaseList() string {
	var names []string
	for _, p := range phases {
		names = append(names, string(p))
	}
	return strings.Join(names, ", ")
}

// parseLabelSelector parses "k=v,k2=v2".
func parseLabelSelector(sel string) (map[string]string, error) {
	if sel == "" {
		return nil, nil
	}
	out := map[string]string{}
	for part := range strings.SplitSeq(sel, ",") {
		k, v, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, badRequest(fmt.Sprintf("Invalid label_selector %q: %q is not key=value.", sel, part),
				"Use label_selector=key=value,key2=value2.")
		}
		out[k] = strings.TrimSpace(v)
	}
	return out, nil
}

// pageSize parses a page_size: def when empty, at most max (larger values
// are lowered to max), at least 1.
func pageSize(s string, def, max int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, badRequest(fmt.Sprintf("Invalid page_size %q.", s), fmt.Sprintf("Use a number from 1 to %d.", max))
	}
	return min(n, max), nil
}

// onlyParams rejects query parameters other than names, to catch typos.
func onlyParams(q url.Values, names ...string) error {
	for k := range q {
		if !slices.Contains(names, k) {
			return badRequest(fmt.Sprintf("Unknown query parameter %q.", k), "This endpoint takes: "+strings.Join(names, ", ")+".")
		}
	}
	return nil
}

// getStatement serves GET /v1/statements/{name}.
func (s *Server) getStatement(w http.ResponseWriter, r *http.Request) {
	st, err := s.mgr.Get(r.PathValue("name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// updateBody is the body of PUT /v1/statements/{name}: a v1.UpdateRequest,
// or a whole v1.Statement as returned by GET (read-only fields are
// ignored). Pointers tell absent fields from zero values.
type updateBody struct {
	APIVersion string      `json:"api_version"`
	Kind       string      `json:"kind"`
	Name       string      `json:"name"`
	Metadata   v1.Metadata `json:"metadata"`
	Spec       struct {
		Statement  *string           `json:"statement"`
		Properties map[string]string `json:"properties"`
		Stopped    *bool             `json:"stopped"`
	} `json:"spec"`
	Status *v1.Status `json:"status"`
}

// updateStatement serves PUT /v1/statements/{name}: stop or resume.
func (s *Server) updateStatement(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var body updateBody
	if err := readJSON(r, &body); err != nil {
		s.fail(w, r, err)
		return
	}
	cur, err := s.mgr.Get(name)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if err := checkUpdate(name, body, cur); err != nil {
		s.fail(w, r, err)
		return
	}
	if !*body.Spec.Stopped && cur.Status.Phase == v1.Stopping {
		// The manager would record the resume but leave the statement
		// STOPPED once the stop finishes; make the client retry instead.
		s.fail(w, r, &apiError{status: http.StatusConflict, code: v1.CodeConflict,
			message:    fmt.Sprintf("Statement '%s' is still STOPPING (taking its final checkpoint) and cannot be resumed yet.", name),
			suggestion: "Wait until its phase is STOPPED, then GET it and resume with its new resource_version.",
			details:    cur})
		return
	}
	st, err := s.mgr.Update(r.Context(), name, body.Metadata.ResourceVersion, *body.Spec.Stopped)
	if errors.Is(err, statement.ErrConflict) {
		s.fail(w, r, &apiError{status: http.StatusConflict, code: v1.CodeConflict,
			message: fmt.Sprintf("Statement '%s' has changed: its resource_version is %s, the request has %s.",
				name, st.Metadata.ResourceVersion, body.Metadata.ResourceVersion),
			suggestion: "GET the statement, apply your change to its current metadata.resource_version and retry.",
			details:    st})
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.logger.Info("statement updated", "statement", name, "stopped", st.Spec.Stopped, "phase", st.Status.Phase)
	writeJSON(w, http.StatusAccepted, st)
}

// checkUpdate validates an update against the current statement: only
// spec.stopped may change.
func checkUpdate(name string, body updateBody, cur v1.Statement) error {
	if body.Name != "" && body.Name != name {
		return invalid(fmt.Sprintf("The body names statement '%s', the path '%s'.", body.Name, name),
			"Statements cannot be renamed; omit name or use the path's.")
	}
	if body.Metadata.ResourceVersion == "" {
		return invalid("Field metadata.resource_version is required.",
			fmt.Sprintf("GET /v1/statements/%s and send its metadata.resource_version, so that concurrent changes are detected.", name))
	}
	if body.Spec.Stopped == nil {
		return invalid("Field spec.stopped is required.", "Send spec.stopped: true to stop the statement, false to resume it.")
	}
	immutable := func(field string) error {
		return invalid(fmt.Sprintf("Field %s cannot be changed: statements are immutable; only spec.stopped can be updated (stop or resume).", field),
			fmt.Sprintf("To change the SQL or properties, create a new statement (POST /v1/statements) with a new name, then stop or delete '%s'.", name))
	}
	// v1.UpdateRequest always sends spec.statement; empty means unchanged.
	if body.Spec.Statement != nil && *body.Spec.Statement != "" && *body.Spec.Statement != cur.Spec.Statement {
		return immutable("spec.statement")
	}
	if body.Spec.Properties != nil && !maps.Equal(body.Spec.Properties, cur.Spec.Properties) {
		return immutable("spec.properties")
	}
	if body.Metadata.Labels != nil && !maps.Equal(body.Metadata.Labels, cur.Metadata.Labels) {
		return invalid("Field metadata.labels cannot be changed: labels are set when a statement is created.", "")
	}
	return nil
}

// deleteStatement serves DELETE /v1/statements/{name}: it stops the
// statement, deletes its state and removes it.
func (s *Server) deleteStatement(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if err := s.mgr.Delete(r.Context(), name); err != nil {
		s.fail(w, r, err)
		return
	}
	s.logger.Info("statement deleted", "statement", name)
	w.WriteHeader(http.StatusAccepted)
}

// statementExceptions serves GET /v1/statements/{name}/exceptions.
func (s *Server) statementExceptions(w http.ResponseWriter, r *http.Request) {
	ex, err := s.mgr.Exceptions(r.PathValue("name"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if ex == nil {
		ex = []v1.Exception{}
	}
	writeJSON(w, http.StatusOK, v1.ExceptionList{Kind: "StatementExceptionList", Data: ex})
}

// statementResults serves GET /v1/statements/{name}/results: a page of
// the statement's changelog from page_token (an offset, "" = 0). While the
// statement runs, metadata.next is always set (the page may be empty: poll
// it again); it is empty once every result was returned.
func (s *Server) statementResults(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	q := r.URL.Query()
	if err := onlyParams(q, "page_token", "page_size"); err != nil {
		s.fail(w, r, err)
		return
	}
	token := q.Get("page_token")
	if token != "" {
		if n, err := strconv.ParseInt(token, 10, 64); err != nil || n < 0 {
			s.fail(w, r, badRequest(fmt.Sprintf("Invalid page_token %q.", token),
				"Use the page_token of the previous page's metadata.next, or none for the first page."))
			return
		}
	}
	size, err := pageSize(q.Get("page_size"), defaultResultPageSize, maxResultPageSize)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rows, next, err := s.mgr.Results(name, token, size)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	page := v1.ResultPage{
		APIVersion: v1.APIVersion, Kind: "StatementResult",
		Metadata: v1.ResultMetadata{Self: r.URL.RequestURI(), CreatedAt: s.clock.Now().UTC()},
		Results:  v1.Results{Data: rows},
	}
	if page.Results.Data == nil {
		page.Results.Data = []v1.ResultRow{}
	}
	if next != "" {
		nq := url.Values{"page_token": {next}}
		if q.Has("page_size") {
			nq.Set("page_size", strconv.Itoa(size))
		}
		page.Metadata.Next = "/v1/statements/" + url.PathEscape(name) + "/results?" + nq.Encode()
	}
	writeJSON(w, http.StatusOK, page)
}
