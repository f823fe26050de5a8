package server_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	eddyclient "github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/internal/wasm/wasmtest"
	"github.com/stretchr/testify/require"
)

// The Go client uploads, lists, versions and deletes artifacts of a
// server, and a statement it creates binds a function of one.
func TestClientArtifacts(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	c, err := eddyclient.New(eddyclient.Server(e.url), eddyclient.APIKey(e.key, e.secret), eddyclient.PollInterval(10*time.Millisecond))
	require.NoError(t, err)

	module := wasmtest.Module(t, "./examples/wasm/OrderStatusTracker")
	a, err := c.CreateArtifact(ctx, "order_status_ptf", "the tracker", module)
	require.NoError(t, err)
	require.Regexp(t, `^art-[0-9a-f]{12}$`, a.ID)
	require.Equal(t, "eddy-artifact://"+a.ID, a.URI)
	require.Len(t, a.Versions, 1)
	require.Equal(t, []string{"examples.OrderStatusTracker"}, a.Versions[0].Functions)

	_, err = c.CreateArtifact(ctx, "junk", "", []byte("PK\x03\x04 a jar file"))
	var ce *eddyclient.Error
	require.True(t, errors.As(err, &ce), "%v", err)
	require.Equal(t, http.StatusUnprocessableEntity, ce.Status)
	require.Equal(t, "INVALID_ARTIFACT", ce.Code)
	require.Contains(t, ce.Message, "Not a valid WebAssembly module")

	_, err = c.CreateArtifact(ctx, "order_status_ptf", "", module)
	require.True(t, eddyclient.IsExists(err), "%v", err)

	desc := "the tracker, again"
	a2, err := c.AddArtifactVersion(ctx, a.ID, module, &desc)
	require.NoError(t, err)
	require.Len(t, a2.Versions, 2)
	require.Equal(t, "ver-2", a2.Versions[1].Version)
	require.Equal(t, desc, a2.Description)
	got, err := c.GetArtifact(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, a2.Versions, got.Versions)
	all, err := c.ListArtifacts(ctx)
	require.NoError(t, err)
	require.Len(t, all, 1)

	for name, sql := range map[string]string{
		"fn": "CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker' USING JAR '" + a.URI + "'",
		"ev": "CREATE TABLE ev (order_id INT NOT NULL, event_type STRING)",
	} {
		_, err := c.CreateStatement(ctx, v1.Statement{Name: name, Spec: v1.Spec{Statement: sql}})
		require.NoError(t, err)
		st, err := c.Await(ctx, name, func(p v1.Phase) bool { return p == v1.Completed || p == v1.Failed }, waitTimeout)
		require.NoError(t, err)
		require.Equal(t, v1.Completed, st.Status.Phase, st.Status.Detail)
	}
	_, err = c.CreateStatement(ctx, v1.Statement{Name: "track", Spec: v1.Spec{Statement: "SELECT order_id, status FROM OrderStatusTracker(input => TABLE ev PARTITION BY order_id)"}})
	require.NoError(t, err)
	_, err = c.Await(ctx, "track", func(p v1.Phase) bool { return p == v1.Running }, waitTimeout)
	require.NoError(t, err)

	err = c.DeleteArtifact(ctx, a.ID)
	require.True(t, errors.As(err, &ce), "%v", err)
	require.Equal(t, http.StatusConflict, ce.Status)
	require.Equal(t, "ARTIFACT_IN_USE", ce.Code)
	require.Contains(t, ce.Message, "track")

	require.NoError(t, c.DeleteStatement(ctx, "track"))
	require.NoError(t, c.AwaitDeleted(ctx, "track", waitTimeout))
	require.NoError(t, c.DeleteArtifact(ctx, a.ID))
	_, err = c.GetArtifact(ctx, a.ID)
	require.True(t, eddyclient.IsNotFound(err), "%v", err)
}
