package statement_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/statement"
	"github.com/eddy-sql/eddy/internal/wasm/wasmtest"
	"github.com/eddy-sql/eddy/ptf"
)

// A statement running a function from an artifact keeps its state across
// stop and resume; a new version with another state type is refused at
// resume before anything changes; the artifact is not deleted while the
// statement uses it.
func TestArtifactStatementLifecycle(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{DataDir: t.TempDir(), Registry: ptf.NewRegistry(), WasmCacheDir: wasmtest.CacheDir()})
	require.NoError(t, err)
	m, err := statement.Open(statement.Options{Engine: eng, CheckpointInterval: 20 * time.Millisecond})
	require.NoError(t, err)
	e := &env{t: t, eng: eng, m: m}
	defer e.close()

	a, err := eng.CreateArtifact(ctx, "examples", "", wasmtest.Module(t, "./internal/wasm/testdata/guest"))
	require.NoError(t, err)
	e.sql("fn", "CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker' USING JAR 'eddy-artifact://"+a.ID+"'", v1.Completed)
	e.sql("ev", "CREATE TABLE ev (order_id INT NOT NULL, event_type STRING)", v1.Completed)
	e.sql("out", "CREATE TABLE statuses (order_id INT NOT NULL, status STRING, PRIMARY KEY (order_id) NOT ENFORCED)", v1.Completed)
	e.sql("e1", "INSERT INTO ev VALUES (1, 'PLACED')", v1.Completed)
	// A SELECT: its results show the changelog as the function emits it.
	_, err = m.Create(ctx, v1.Statement{Name: "track", Spec: v1.Spec{Statement: "SELECT order_id, status FROM OrderStatusTracker(input => TABLE ev PARTITION BY order_id)"}})
	require.NoError(t, err)
	e.await("track", v1.Running)
	results := func() []string {
		rows, _, err := m.Results("track", "", 100)
		require.NoError(t, err)
		var out []string
		for _, r := range rows {
			out = append(out, fmt.Sprint(r.Op, r.Row))
		}
		return out
	}
	require.Eventually(t, func() bool { return len(results()) == 1 }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, []string{"0 [1 PENDING]"}, results())

	users, err := m.ArtifactUsers(a.ID)
	require.NoError(t, err)
	require.Equal(t, []string{"statement track"}, users)
	err = eng.DeleteArtifact(a.ID, m.ArtifactUsers)
	require.ErrorIs(t, err, engine.ErrArtifactInUse)

	// Stop, write, resume: the state of order 1 (PENDING) is kept, so
	// SHIPPED is an update (+U, op 2) of it, not a new order (+I, op 0).
	_, err = m.Update(ctx, "track", "", true)
	require.NoError(t, err)
	e.await("track", v1.Stopped)
	e.sql("e2", "INSERT INTO ev VALUES (1, 'SHIPPED')", v1.Completed)
	_, err = m.Update(ctx, "track", "", false)
	require.NoError(t, err)
	e.await("track", v1.Running)
	require.Eventually(t, func() bool { return len(results()) >= 1 }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, []string{"2 [1 SHIPPED]"}, results(), "resumed with its state")

	// A version whose OrderStatusTracker has another state type: the resume
	// is refused and the statement stays stopped.
	_, err = eng.AddArtifactVersion(ctx, a.ID, wasmtest.Module(t, "./internal/wasm/testdata/guestv2"), nil)
	require.NoError(t, err)
	_, err = m.Update(ctx, "track", "", true)
	require.NoError(t, err)
	e.await("track", v1.Stopped)
	_, err = m.Update(ctx, "track", "", false)
	require.True(t, errors.Is(err, statement.ErrIncompatibleState), "%v", err)
	require.ErrorContains(t, err, "Cannot resume: state entry 'state' of the process table function call 'OrderStatusTracker' was written as examples.OrderState{Status string;}, but the function now declares it as main.OrderState{Status string;Events int64;}")
	st, err := m.Get("track")
	require.NoError(t, err)
	require.Equal(t, v1.Stopped, st.Status.Phase)
	require.True(t, st.Spec.Stopped)
}
