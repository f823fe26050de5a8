package server_test

import (
	"net/http"
	"strings"
	"testing"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/server"
	"github.com/stretchr/testify/require"
)

func TestAuth(t *testing.T) {
	e := newEnv(t)
	other, err := server.NewKeyStore(e.eng.Env().DB, nil).Create("other")
	require.NoError(t, err)

	// Every refusal looks the same: status, header and body (but for the
	// request id), whatever was wrong.
	var first *v1.ErrorResponse
	for _, tc := range []struct {
		name string
		r    req
	}{
		{"missing", req{method: "GET", path: "/v1/statements", noAuth: true}},
		{"bad secret", req{method: "GET", path: "/v1/statements", key: e.key, secret: "wrong"}},
		{"other key's secret", req{method: "GET", path: "/v1/statements", key: e.key, secret: other.Secret}},
		{"unknown key", req{method: "GET", path: "/v1/statements", key: "AAAAAAAAAAAAAAAA", secret: e.secret}},
		{"malformed key", req{method: "GET", path: "/v1/statements", key: "not a key", secret: e.secret}},
		{"empty", req{method: "GET", path: "/v1/statements", rawAuth: "Basic Og=="}},
		{"not basic", req{method: "GET", path: "/v1/statements", rawAuth: "Bearer " + e.secret}},
		{"metrics", req{method: "GET", path: "/metrics", noAuth: true}},
		{"create", req{method: "POST", path: "/v1/statements", body: `{"spec": {"statement": "SHOW TABLES"}}`, noAuth: true}},
		{"unknown route", req{method: "GET", path: "/v1/nothing", noAuth: true}},
		{"wrong method", req{method: "PATCH", path: "/v1/statements/x", noAuth: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.r)
			require.Equal(t, http.StatusUnauthorized, r.status, "body: %s", r.body)
			require.Equal(t, `Basic realm="eddy", charset="UTF-8"`, r.header.Get("WWW-Authenticate"))
			er := r.errorBody(t)
			require.Equal(t, v1.CodeUnauthorized, er.Error.Code)
			require.Contains(t, er.Error.Suggestion, "eddy api-key create")
			er.RequestID = ""
			if first == nil {
				first = &er
			}
			require.Equal(t, *first, er)
		})
	}

	// The other key works, and so does /healthz without any.
	r := e.do(req{method: "GET", path: "/v1/statements", key: other.ID, secret: other.Secret})
	require.Equal(t, http.StatusOK, r.status)
	r = e.do(req{method: "GET", path: "/healthz", noAuth: true})
	require.Equal(t, http.StatusOK, r.status)
	require.JSONEq(t, `{"status": "ok"}`, string(r.body))

	// A deleted key stops working at once.
	require.NoError(t, server.NewKeyStore(e.eng.Env().DB, nil).Delete(other.ID))
	r = e.do(req{method: "GET", path: "/v1/statements", key: other.ID, secret: other.Secret})
	require.Equal(t, http.StatusUnauthorized, r.status)

	// Secrets never reach the log; key ids of accepted requests do.
	logs := e.logs.String()
	require.NotContains(t, logs, e.secret)
	require.NotContains(t, logs, other.Secret)
	require.Contains(t, logs, "key_id="+other.ID)
}

func TestInsecureNoAuth(t *testing.T) {
	e := newEnv(t, envOptions{server: func(o *server.Options) { o.InsecureNoAuth = true }})
	r := e.do(req{method: "GET", path: "/v1/statements", noAuth: true})
	require.Equal(t, http.StatusOK, r.status)
}

func TestRouting(t *testing.T) {
	e := newEnv(t)
	r := e.do(req{method: "GET", path: "/v1/nothing"})
	require.Equal(t, http.StatusNotFound, r.status)
	er := r.errorBody(t)
	require.Equal(t, v1.CodeNotFound, er.Error.Code)
	require.Contains(t, er.Error.Message, "/v1/nothing")

	r = e.do(req{method: "PATCH", path: "/v1/statements/x", body: `{}`})
	require.Equal(t, http.StatusMethodNotAllowed, r.status)
	er = r.errorBody(t)
	require.Equal(t, v1.CodeMethodNotAllowed, er.Error.Code)
	allow := r.header.Get("Allow")
	for _, m := range []string{"GET", "PUT", "DELETE"} {
		require.Contains(t, allow, m)
	}
	require.Contains(t, er.Error.Suggestion, "PUT")

	r = e.do(req{method: "DELETE", path: "/v1/statements"})
	require.Equal(t, http.StatusMethodNotAllowed, r.status)
	require.Equal(t, v1.CodeMethodNotAllowed, r.errorBody(t).Error.Code)

	r = e.do(req{method: "POST", path: "/healthz", noAuth: true})
	require.Equal(t, http.StatusMethodNotAllowed, r.status)

	// Each request is logged at debug level.
	require.Eventually(t, func() bool {
		return strings.Contains(e.logs.String(), `msg=request`) &&
			strings.Contains(e.logs.String(), `method=PATCH path=/v1/statements/x status=405`)
	}, waitTimeout, 10e6)
}
