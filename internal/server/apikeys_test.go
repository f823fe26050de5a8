package server_test

import (
	"net/http"
	"strings"
	"testing"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/stretchr/testify/require"
)

// TestAPIKeysREST manages keys through the REST API while the server runs:
// a new key works at once, a deleted one is refused at once, and the last
// key cannot be deleted.
func TestAPIKeysREST(t *testing.T) {
	e := newEnv(t)

	// Without a key nothing is listed or created.
	r := e.do(req{method: "GET", path: "/v1/api-keys", noAuth: true})
	require.Equal(t, http.StatusUnauthorized, r.status)
	r = e.do(req{method: "POST", path: "/v1/api-keys", body: v1.APIKeyCreate{}, noAuth: true})
	require.Equal(t, http.StatusUnauthorized, r.status)

	r = e.do(req{method: "POST", path: "/v1/api-keys", body: v1.APIKeyCreate{Description: "ci"}})
	require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
	require.Equal(t, "no-store", r.header.Get("Cache-Control"))
	var k v1.APIKey
	r.decode(t, &k)
	require.Regexp(t, `^[A-Z2-7]{16}$`, k.ID)
	require.Len(t, k.Secret, 43)
	require.Equal(t, "ci", k.Description)

	// The new key works at once.
	r = e.do(req{method: "GET", path: "/v1/statements", key: k.ID, secret: k.Secret})
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)

	// The list has both keys and no secret.
	r = e.do(req{method: "GET", path: "/v1/api-keys", key: k.ID, secret: k.Secret})
	require.Equal(t, http.StatusOK, r.status)
	var list v1.APIKeyList
	r.decode(t, &list)
	require.Equal(t, "APIKeyList", list.Kind)
	require.Len(t, list.Data, 2)
	require.NotContains(t, string(r.body), k.Secret)
	require.NotContains(t, string(r.body), "secret")

	// Unknown fields are refused, as everywhere.
	r = e.do(req{method: "POST", path: "/v1/api-keys", body: `{"descripton":"x"}`})
	require.Equal(t, http.StatusUnprocessableEntity, r.status, "body: %s", r.body)

	// The new key revokes the first one (the test's): refused from then on.
	r = e.do(req{method: "DELETE", path: "/v1/api-keys/" + e.key, key: k.ID, secret: k.Secret})
	require.Equal(t, http.StatusNoContent, r.status, "body: %s", r.body)
	r = e.do(req{method: "GET", path: "/v1/statements"})
	require.Equal(t, http.StatusUnauthorized, r.status)
	require.Contains(t, e.logs.String(), "API key deleted")
	require.Contains(t, e.logs.String(), "by="+k.ID)

	// An unknown key: 404.
	r = e.do(req{method: "DELETE", path: "/v1/api-keys/" + e.key, key: k.ID, secret: k.Secret})
	require.Equal(t, http.StatusNotFound, r.status)
	require.Equal(t, v1.CodeNotFound, r.errorBody(t).Error.Code)

	// The last key stays.
	r = e.do(req{method: "DELETE", path: "/v1/api-keys/" + k.ID, key: k.ID, secret: k.Secret})
	require.Equal(t, http.StatusConflict, r.status)
	er := r.errorBody(t)
	require.Equal(t, v1.CodeLastAPIKey, er.Error.Code)
	require.True(t, strings.Contains(er.Error.Suggestion, "Create another key first"), er.Error.Suggestion)
	r = e.do(req{method: "GET", path: "/v1/statements", key: k.ID, secret: k.Secret})
	require.Equal(t, http.StatusOK, r.status)
	// No secret reaches the log.
	require.NotContains(t, e.logs.String(), k.Secret)
}
