package client_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/stretchr/testify/require"
)

// TestAPIKeys checks the requests of the API key methods and how their
// answers and errors come back.
func TestAPIKeys(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, _, _ := r.BasicAuth()
		body, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.URL.Path+" "+key+" "+string(body))
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == "POST" && r.URL.Path == "/v1/api-keys":
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(v1.APIKey{Kind: "APIKey", ID: "NEWKEY", Description: "ci", Secret: "s3cret"})
		case r.Method == "GET" && r.URL.Path == "/v1/api-keys":
			_ = json.NewEncoder(w).Encode(v1.APIKeyList{Kind: "APIKeyList", Data: []v1.APIKey{{ID: "A"}, {ID: "B"}}})
		case r.Method == "DELETE" && r.URL.Path == "/v1/api-keys/LAST":
			w.WriteHeader(http.StatusConflict)
			_ = json.NewEncoder(w).Encode(v1.ErrorResponse{Status: 409, Error: v1.ErrorBody{Code: v1.CodeLastAPIKey, Message: "last one"}})
		case r.Method == "DELETE":
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	c := newClient(t, srv.URL)
	ctx := t.Context()

	k, err := c.CreateAPIKey(ctx, "ci")
	require.NoError(t, err)
	require.Equal(t, "NEWKEY", k.ID)
	require.Equal(t, "s3cret", k.Secret)
	keys, err := c.ListAPIKeys(ctx)
	require.NoError(t, err)
	require.Len(t, keys, 2)
	require.NoError(t, c.DeleteAPIKey(ctx, "A B"))
	err = c.DeleteAPIKey(ctx, "LAST")
	ce, ok := errors.AsType[*client.Error](err)
	require.True(t, ok, "%T %v", err, err)
	require.Equal(t, v1.CodeLastAPIKey, ce.Code)
	require.Error(t, c.DeleteAPIKey(ctx, ""))

	require.Equal(t, []string{
		`POST /v1/api-keys ` + fakeKey + ` {"description":"ci"}`,
		`GET /v1/api-keys ` + fakeKey + ` `,
		`DELETE /v1/api-keys/A B ` + fakeKey + ` `,
		`DELETE /v1/api-keys/LAST ` + fakeKey + ` `,
	}, got)
}
