package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/stretchr/testify/require"
)

func TestCreateStatement(t *testing.T) {
	e := newEnv(t)
	r := e.do(req{method: "POST", path: "/v1/statements", body: v1.Statement{
		Name:     "make-orders",
		Metadata: v1.Metadata{Labels: map[string]string{"team": "sales"}},
		Spec:     v1.Spec{Statement: "CREATE TABLE orders (id INT, item STRING) DISTRIBUTED INTO 1 BUCKETS"},
	}})
	require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
	require.Equal(t, "/v1/statements/make-orders", r.header.Get("Location"))
	var st v1.Statement
	r.decode(t, &st)
	require.Equal(t, "make-orders", st.Name)
	require.Equal(t, v1.APIVersion, st.APIVersion)
	require.Equal(t, "Statement", st.Kind)
	require.NotEmpty(t, st.Metadata.UID)
	require.NotEmpty(t, st.Metadata.ResourceVersion)
	require.Equal(t, map[string]string{"team": "sales"}, st.Metadata.Labels)
	require.Equal(t, v1.Completed, st.Status.Phase)
	require.Equal(t, "CREATE_TABLE", st.Status.Traits.SQLKind)

	t.Run("generated name", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/v1/statements", body: `{"spec": {"statement": "SHOW TABLES"}}`})
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
		var st v1.Statement
		r.decode(t, &st)
		require.Regexp(t, `^stmt-\d{8}-\d{6}-[0-9a-f]{12}$`, st.Name)
	})

	t.Run("409 name exists", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/v1/statements", body: v1.Statement{
			Name: "make-orders", Spec: v1.Spec{Statement: "SHOW TABLES"},
		}})
		require.Equal(t, http.StatusConflict, r.status)
		er := r.errorBody(t)
		require.Equal(t, v1.CodeAlreadyExists, er.Error.Code)
		require.Contains(t, er.Error.Message, "make-orders")
		require.Contains(t, er.Error.Suggestion, "different SQL")
		var existing v1.Statement
		require.NoError(t, json.Unmarshal(er.Error.Details, &existing))
		require.Equal(t, st.Metadata.UID, existing.Metadata.UID)
		require.Equal(t, st.Spec.Statement, existing.Spec.Statement)
	})

	t.Run("409 same SQL", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/v1/statements", body: v1.Statement{Name: "make-orders", Spec: st.Spec}})
		require.Equal(t, http.StatusConflict, r.status)
		require.Contains(t, r.errorBody(t).Error.Suggestion, "same SQL")
	})

	for _, tc := range []struct {
		name, body string
		status     int
		code, msg  string
	}{
		{"invalid name", `{"name": "Bad_Name", "spec": {"statement": "SHOW TABLES"}}`, 422, v1.CodeInvalid, "lowercase letters"},
		{"name too long", `{"name": "` + strings.Repeat("a", 101) + `", "spec": {"statement": "SHOW TABLES"}}`, 422, v1.CodeInvalid, "at most 100"},
		{"unknown field", `{"name": "x", "spec": {"statement": "SHOW TABLES", "sql": "x"}}`, 422, v1.CodeInvalid, `Unknown field "sql"`},
		{"unknown top-level field", `{"name": "x", "compute_pool": "p", "spec": {"statement": "SHOW TABLES"}}`, 422, v1.CodeInvalid, `Unknown field "compute_pool"`},
		{"missing statement", `{"name": "x", "spec": {}}`, 422, v1.CodeInvalid, "spec.statement is required"},
		{"wrong type", `{"name": 7, "spec": {"statement": "SHOW TABLES"}}`, 422, v1.CodeInvalid, `"name" must be a string`},
		{"not JSON", `{"name": `, 400, v1.CodeInvalid, "truncated"},
		{"syntax error", `{"name": x}`, 400, v1.CodeInvalid, "not valid JSON"},
		{"empty body", ``, 400, v1.CodeInvalid, "empty"},
		{"two values", `{"name": "x", "spec": {"statement": "SHOW TABLES"}} {}`, 400, v1.CodeInvalid, "more than one"},
		{"array", `[1]`, 400, v1.CodeInvalid, "must be a JSON object"},
		{"SQL syntax error", `{"name": "bad-sql", "spec": {"statement": "SELECT * FROM\n  WHERE"}}`, 400, v1.CodeInvalidSQL, ""},
		{"unknown table", `{"name": "bad-table", "spec": {"statement": "SELECT * FROM nope"}}`, 400, v1.CodeInvalidSQL, "nope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(req{method: "POST", path: "/v1/statements", body: tc.body})
			require.Equal(t, tc.status, r.status, "body: %s", r.body)
			er := r.errorBody(t)
			require.Equal(t, tc.code, er.Error.Code)
			require.Contains(t, er.Error.Message, tc.msg)
			require.NotEmpty(t, er.RequestID)
			require.Equal(t, r.header.Get("X-Request-Id"), er.RequestID)
			if tc.code == v1.CodeInvalidSQL {
				require.Regexp(t, `^\d+:\d+$`, er.Error.Position)
				require.NotEmpty(t, er.Error.Suggestion)
			}
		})
	}

	t.Run("SQL error position", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/v1/statements", body: v1.Statement{Name: "q", Spec: v1.Spec{Statement: "SELECT id,\n  nope FROM orders"}}})
		require.Equal(t, http.StatusBadRequest, r.status, "body: %s", r.body)
		er := r.errorBody(t)
		require.Equal(t, "2:3", er.Error.Position, "%+v", er.Error)
		// Nothing was created.
		require.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: "/v1/statements/q"}).status)
	})

	t.Run("413", func(t *testing.T) {
		big := `{"name": "big", "spec": {"statement": "` + strings.Repeat("x", 2<<20) + `"}}`
		r := e.do(req{method: "POST", path: "/v1/statements", body: big})
		require.Equal(t, http.StatusRequestEntityTooLarge, r.status)
		er := r.errorBody(t)
		require.Equal(t, v1.CodeTooLarge, er.Error.Code)
		require.Contains(t, er.Error.Message, "1 MiB")
	})

	t.Run("415", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/v1/statements", body: `name=x`, contentType: "application/x-www-form-urlencoded"})
		require.Equal(t, http.StatusUnsupportedMediaType, r.status)
		require.Equal(t, v1.CodeInvalid, r.errorBody(t).Error.Code)
	})
}

// Without the dry run, a statement whose SQL fails is created FAILED and
// its error is in the exceptions.
func TestExceptions(t *testing.T) {
	e := newEnv(t, envOptions{noDryRun: true})
	st := e.create("broken", "SELECT * FROM nope")
	require.Equal(t, v1.Failed, st.Status.Phase)
	r := e.do(req{method: "GET", path: "/v1/statements/broken/exceptions"})
	require.Equal(t, http.StatusOK, r.status)
	var list v1.ExceptionList
	r.decode(t, &list)
	require.Equal(t, "StatementExceptionList", list.Kind)
	require.Len(t, list.Data, 1)
	require.Equal(t, "UNKNOWN_TABLE", list.Data[0].Name)
	require.Contains(t, list.Data[0].Message, "nope")

	e.run("ok", "SHOW TABLES")
	r = e.do(req{method: "GET", path: "/v1/statements/ok/exceptions"})
	require.Equal(t, http.StatusOK, r.status)
	require.JSONEq(t, `{"kind": "StatementExceptionList", "data": []}`, string(r.body))

	r = e.do(req{method: "GET", path: "/v1/statements/missing/exceptions"})
	require.Equal(t, http.StatusNotFound, r.status)
	require.Equal(t, v1.CodeNotFound, r.errorBody(t).Error.Code)
}

func TestGetAndDelete(t *testing.T) {
	e := newEnv(t)
	e.run("t", "CREATE TABLE t (id INT) DISTRIBUTED INTO 1 BUCKETS")
	e.run("fill", "INSERT INTO t VALUES (1), (2)")
	e.create("copy", "CREATE TABLE t2 DISTRIBUTED INTO 1 BUCKETS AS SELECT * FROM t")
	e.waitPhase("copy", v1.Running)

	st := e.get("copy")
	require.Equal(t, "/v1/statements/copy", st.Metadata.Self)

	r := e.do(req{method: "DELETE", path: "/v1/statements/copy"})
	require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
	r = e.do(req{method: "GET", path: "/v1/statements/copy"})
	require.Equal(t, http.StatusNotFound, r.status)
	er := r.errorBody(t)
	require.Equal(t, v1.CodeNotFound, er.Error.Code)
	require.Equal(t, "Statement 'copy' does not exist.", er.Error.Message)
	require.Equal(t, http.StatusNotFound, e.do(req{method: "DELETE", path: "/v1/statements/copy"}).status)
	require.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: "/v1/statements/copy/results"}).status)
}

func TestListStatements(t *testing.T) {
	e := newEnv(t)
	mk := func(name string, labels map[string]string, stopped bool) {
		r := e.do(req{method: "POST", path: "/v1/statements", body: v1.Statement{
			Name: name, Metadata: v1.Metadata{Labels: labels}, Spec: v1.Spec{Statement: "SHOW TABLES", Stopped: stopped},
		}})
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
	}
	mk("app-a", map[string]string{"team": "x", "env": "prod"}, false)
	mk("app-b", map[string]string{"team": "x", "env": "dev"}, true)
	mk("app-c", map[string]string{"team": "y"}, false)
	mk("other-d", nil, true)
	mk("other-e", map[string]string{"team": "x"}, false)

	list := func(query string) (names []string, next string) {
		t.Helper()
		r := e.do(req{method: "GET", path: "/v1/statements" + query})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		var l v1.StatementList
		r.decode(t, &l)
		require.Equal(t, "StatementList", l.Kind)
		require.NotNil(t, l.Data)
		for _, st := range l.Data {
			names = append(names, st.Name)
		}
		return names, l.Metadata.Next
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"app-a", "app-b", "app-c", "other-d", "other-e"}},
		{"?name_prefix=app-", []string{"app-a", "app-b", "app-c"}},
		{"?label_selector=team=x", []string{"app-a", "app-b", "other-e"}},
		{"?label_selector=team=x,env=prod", []string{"app-a"}},
		{"?phase=stopped", []string{"app-b", "other-d"}},
		{"?phase=COMPLETED&name_prefix=other", []string{"other-e"}},
		{"?name_prefix=none", nil},
	} {
		names, next := list(tc.query)
		require.Equal(t, tc.want, names, "query %q", tc.query)
		require.Empty(t, next, "query %q", tc.query)
	}

	// Default page size is 10; page through 2 at a time keeping filters.
	var all []string
	path := "?page_size=2&label_selector=team%3Dx"
	for pages := 0; path != ""; pages++ {
		require.Less(t, pages, 3)
		names, next := list(strings.TrimPrefix(path, "/v1/statements"))
		all = append(all, names...)
		if next != "" {
			require.Contains(t, next, "label_selector=team%3Dx")
			require.Contains(t, next, "page_token=")
		}
		path = next
	}
	require.Equal(t, []string{"app-a", "app-b", "other-e"}, all)

	for i := range 12 {
		mk(fmt.Sprintf("z-%02d", i), nil, true)
	}
	names, next := list("?name_prefix=z-")
	require.Len(t, names, 10)
	require.NotEmpty(t, next)
	names, next = list(strings.TrimPrefix(next, "/v1/statements"))
	require.Equal(t, []string{"z-10", "z-11"}, names)
	require.Empty(t, next)
	names, _ = list("?page_size=1000")
	require.Len(t, names, 17) // coerced to the maximum of 100

	for _, q := range []string{"?page_size=0", "?page_size=x", "?phase=RESUMING", "?label_selector=team", "?labels=a=b"} {
		r := e.do(req{method: "GET", path: "/v1/statements" + q})
		require.Equal(t, http.StatusBadRequest, r.status, "query %q: %s", q, r.body)
		require.Equal(t, v1.CodeInvalid, r.errorBody(t).Error.Code)
	}
}

func TestUpdateErrors(t *testing.T) {
	e := newEnv(t)
	e.run("t", "CREATE TABLE t (id INT) DISTRIBUTED INTO 1 BUCKETS")
	st := e.create("copy", "INSERT INTO t SELECT * FROM t WHERE id < 0")
	st = e.waitPhase("copy", v1.Running)
	rv := st.Metadata.ResourceVersion

	put := func(body any) response {
		return e.do(req{method: "PUT", path: "/v1/statements/copy", body: body})
	}
	t.Run("stale version", func(t *testing.T) {
		r := put(map[string]any{"metadata": map[string]any{"resource_version": "1"}, "spec": map[string]any{"stopped": true}})
		require.Equal(t, http.StatusConflict, r.status, "body: %s", r.body)
		er := r.errorBody(t)
		require.Equal(t, v1.CodeConflict, er.Error.Code)
		require.Contains(t, er.Error.Message, "resource_version is "+rv)
		var cur v1.Statement
		require.NoError(t, json.Unmarshal(er.Error.Details, &cur))
		require.Equal(t, rv, cur.Metadata.ResourceVersion)
		require.Equal(t, v1.Running, e.get("copy").Status.Phase)
	})
	for _, tc := range []struct {
		name string
		body any
		msg  string
	}{
		{"immutable statement", map[string]any{"metadata": map[string]any{"resource_version": rv}, "spec": map[string]any{"stopped": true, "statement": "INSERT INTO t SELECT * FROM t"}}, "immutable"},
		{"immutable properties", map[string]any{"metadata": map[string]any{"resource_version": rv}, "spec": map[string]any{"stopped": true, "properties": map[string]string{"a": "b"}}}, "immutable"},
		{"labels", map[string]any{"metadata": map[string]any{"resource_version": rv, "labels": map[string]string{"a": "b"}}, "spec": map[string]any{"stopped": true}}, "labels cannot be changed"},
		{"missing version", map[string]any{"spec": map[string]any{"stopped": true}}, "metadata.resource_version is required"},
		{"missing stopped", map[string]any{"metadata": map[string]any{"resource_version": rv}}, "spec.stopped is required"},
		{"other name", map[string]any{"name": "other", "metadata": map[string]any{"resource_version": rv}, "spec": map[string]any{"stopped": true}}, "cannot be renamed"},
		{"unknown field", map[string]any{"metadata": map[string]any{"resource_version": rv}, "spec": map[string]any{"stopped": true, "paused": true}}, "Unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := put(tc.body)
			require.Equal(t, http.StatusUnprocessableEntity, r.status, "body: %s", r.body)
			er := r.errorBody(t)
			require.Equal(t, v1.CodeInvalid, er.Error.Code)
			require.Contains(t, er.Error.Message+" "+er.Error.Suggestion, tc.msg)
			if tc.msg == "immutable" {
				require.Contains(t, er.Error.Suggestion, "POST /v1/statements")
			}
		})
	}
	require.Equal(t, v1.Running, e.get("copy").Status.Phase)

	t.Run("whole statement from GET", func(t *testing.T) {
		// A client may PUT back what it got, with spec.stopped changed.
		cur := e.get("copy")
		cur.Spec.Stopped = true
		r := put(cur)
		require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
		e.waitPhase("copy", v1.Stopped)
	})

	r := e.do(req{method: "PUT", path: "/v1/statements/missing", body: map[string]any{"metadata": map[string]any{"resource_version": "1"}, "spec": map[string]any{"stopped": true}}})
	require.Equal(t, http.StatusNotFound, r.status)
}

// TestStopResumeExactlyOnce stops a running INSERT, writes to its source
// while it is stopped, resumes it and checks that the sink holds every row
// exactly once: the job continued from its checkpoint.
func TestStopResumeExactlyOnce(t *testing.T) {
	e := newEnv(t)
	e.run("src", "CREATE TABLE src (id INT, item STRING) DISTRIBUTED INTO 2 BUCKETS")
	e.run("sink", "CREATE TABLE sink (id INT, item STRING) DISTRIBUTED INTO 1 BUCKETS")
	e.run("fill-1", "INSERT INTO src VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	e.create("copy", "INSERT INTO sink SELECT id, UPPER(item) FROM src")
	e.waitPhase("copy", v1.Running)
	e.create("watch-1", "SELECT * FROM sink")
	require.ElementsMatch(t, []string{"1,A", "2,B", "3,C"}, rowStrings(e.results("watch-1", 3)))

	st := e.update("copy", true)
	require.True(t, st.Spec.Stopped)
	require.Contains(t, []v1.Phase{v1.Stopping, v1.Stopped}, st.Status.Phase)
	e.waitPhase("copy", v1.Stopped)

	e.run("fill-2", "INSERT INTO src VALUES (4, 'd'), (5, 'e')")
	st = e.update("copy", false)
	require.False(t, st.Spec.Stopped)
	e.waitPhase("copy", v1.Running)
	e.run("fill-3", "INSERT INTO src VALUES (6, 'f')")

	e.create("watch-2", "SELECT * FROM sink")
	got := rowStrings(e.results("watch-2", 6))
	slices.Sort(got)
	require.Equal(t, []string{"1,A", "2,B", "3,C", "4,D", "5,E", "6,F"}, got)
}

// A resume sent right after a stop either waits for the stop (409 while
// STOPPING) or resumes; the statement never ends STOPPED with
// spec.stopped=false.
func TestResumeRightAfterStop(t *testing.T) {
	e := newEnv(t)
	e.run("t", "CREATE TABLE t (id INT) DISTRIBUTED INTO 1 BUCKETS")
	e.create("copy", "CREATE TABLE t2 DISTRIBUTED INTO 1 BUCKETS AS SELECT * FROM t")
	e.waitPhase("copy", v1.Running)
	for range 5 {
		st := e.update("copy", true)
		r := e.do(req{method: "PUT", path: "/v1/statements/copy", body: v1.UpdateRequest{
			Metadata: v1.Metadata{ResourceVersion: st.Metadata.ResourceVersion}, Spec: v1.Spec{Stopped: false},
		}})
		if r.status == http.StatusConflict {
			er := r.errorBody(t)
			require.Equal(t, v1.CodeConflict, er.Error.Code)
			e.waitPhase("copy", v1.Stopped)
			e.update("copy", false)
		} else {
			require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
		}
		st = e.waitPhase("copy", v1.Running)
		require.False(t, st.Spec.Stopped)
	}
}

func TestResults(t *testing.T) {
	e := newEnv(t)
	e.run("t", "CREATE TABLE t (id INT, name STRING) DISTRIBUTED INTO 1 BUCKETS")
	e.run("fill", "INSERT INTO t VALUES (1, 'a'), (2, NULL), (3, 'c'), (4, 'd'), (5, 'e')")

	t.Run("running SELECT", func(t *testing.T) {
		e.create("q", "SELECT id, name FROM t WHERE id > 1")
		var rows []v1.ResultRow
		path := "/v1/statements/q/results?page_size=2"
		for polls := 0; len(rows) < 4; polls++ {
			require.Less(t, polls, 1000)
			r := e.do(req{method: "GET", path: path})
			require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
			var page v1.ResultPage
			r.decode(t, &page)
			require.Equal(t, "StatementResult", page.Kind)
			require.LessOrEqual(t, len(page.Results.Data), 2)
			// A running statement always has a next page.
			require.NotEmpty(t, page.Metadata.Next)
			require.Contains(t, page.Metadata.Next, "page_size=2")
			rows = append(rows, page.Results.Data...)
			path = page.Metadata.Next
		}
		require.Equal(t, []string{"2,null", "3,c", "4,d", "5,e"}, rowStrings(rows))
		for _, r := range rows {
			require.Equal(t, 0, r.Op)
		}
		// Re-attach from the start by name: the same rows.
		require.Equal(t, rowStrings(rows), rowStrings(e.results("q", 4)))
	})

	t.Run("complete", func(t *testing.T) {
		e.run("tables", "SHOW TABLES")
		var names []string
		path := "/v1/statements/tables/results?page_size=1"
		for path != "" {
			r := e.do(req{method: "GET", path: path})
			require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
			var page v1.ResultPage
			r.decode(t, &page)
			names = append(names, rowStrings(page.Results.Data)...)
			path = page.Metadata.Next
		}
		require.Equal(t, []string{"t"}, names)
	})

	t.Run("no results", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/v1/statements/fill/results"})
		require.Equal(t, http.StatusOK, r.status)
		var page v1.ResultPage
		r.decode(t, &page)
		require.Empty(t, page.Metadata.Next)
		require.NotNil(t, page.Results.Data)
		require.Empty(t, page.Results.Data)
	})

	for _, q := range []string{"?page_token=-1", "?page_token=x", "?page_size=0", "?offset=3"} {
		r := e.do(req{method: "GET", path: "/v1/statements/q/results" + q})
		require.Equal(t, http.StatusBadRequest, r.status, "query %q: %s", q, r.body)
		require.Equal(t, v1.CodeInvalid, r.errorBody(t).Error.Code)
	}
}
