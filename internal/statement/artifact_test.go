package statement_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

	// A compatible version, another module (the example's own, not the
	// test module of every function) whose OrderStatusTracker declares the
	// same state: the resume goes through with the state, DELIVERED is an
	// update of order 1 again.
	_, err = eng.AddArtifactVersion(ctx, a.ID, wasmtest.Module(t, "./examples/wasm/OrderStatusTracker"), nil)
	require.NoError(t, err)
	e.sql("e3", "INSERT INTO ev VALUES (1, 'DELIVERED')", v1.Completed)
	_, err = m.Update(ctx, "track", "", false)
	require.NoError(t, err)
	e.await("track", v1.Running)
	require.Eventually(t, func() bool { return len(results()) >= 1 }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, []string{"2 [1 DELIVERED]"}, results(), "resumed from ver-3 with the state ver-1 wrote")
}

// A function that escapes its sandbox or its limits fails its own
// statement with a clear error; a statement running a healthy function of
// the same artifact keeps running and the next statements still run.
func TestArtifactSandboxFailsOnlyItsStatement(t *testing.T) {
	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{DataDir: t.TempDir(), Registry: ptf.NewRegistry(), WasmCacheDir: wasmtest.CacheDir()})
	require.NoError(t, err)
	m, err := statement.Open(statement.Options{Engine: eng, CheckpointInterval: 20 * time.Millisecond})
	require.NoError(t, err)
	e := &env{t: t, eng: eng, m: m}
	defer e.close()

	a, err := eng.CreateArtifact(ctx, "examples", "", wasmtest.Module(t, "./internal/wasm/testdata/guest"))
	require.NoError(t, err)
	jar := " USING JAR 'eddy-artifact://" + a.ID + "'"
	for fn, id := range map[string]string{"OrderStatusTracker": "examples.OrderStatusTracker", "Spin": "test.Spin", "Bomb": "test.Bomb",
		"Panicky": "test.Panic", "Quit": "test.Exit", "Breakout": "test.Escape"} {
		e.sql("fn-"+strings.ToLower(fn), "CREATE FUNCTION "+fn+" AS '"+id+"'"+jar, v1.Completed)
	}
	e.sql("ev", "CREATE TABLE ev (order_id INT NOT NULL, event_type STRING)", v1.Completed)
	e.sql("probes", "CREATE TABLE probes (k STRING, w STRING)", v1.Completed)
	e.sql("e1", "INSERT INTO ev VALUES (1, 'PLACED')", v1.Completed)
	e.sql("p1", "INSERT INTO probes VALUES ('k', '')", v1.Completed)
	_, err = m.Create(ctx, v1.Statement{Name: "track", Spec: v1.Spec{Statement: "SELECT order_id, status FROM OrderStatusTracker(input => TABLE ev PARTITION BY order_id)"}})
	require.NoError(t, err)
	e.await("track", v1.Running)

	for _, tc := range []struct {
		fn, want string
		props    map[string]string
	}{
		{"Spin", "the function did not return within 300ms, its time limit per call (an endless loop?)", map[string]string{"eddy.wasm.call-timeout": "300 ms"}},
		{"Bomb", "the function exceeded its memory limit of 64 MiB (fatal error: out of memory)", map[string]string{"eddy.wasm.memory-limit": "64 MiB"}},
		{"Panicky", "function Panicky panicked: assignment to entry in nil map", nil},
		{"Quit", "the function module exited with code 3", nil},
	} {
		name := "probe-" + strings.ToLower(tc.fn)
		_, err := m.Create(ctx, v1.Statement{Name: name, Spec: v1.Spec{Statement: "SELECT * FROM " + tc.fn + "(input => TABLE probes PARTITION BY k)", Properties: tc.props}})
		require.NoError(t, err)
		st := e.await(name, v1.Failed)
		require.Contains(t, st.Status.Detail, tc.want, tc.fn)
		require.Contains(t, st.Status.Detail, "WebAssembly", tc.fn)
	}
	// Files, network, environment and clock: every attempt answers an
	// error or nothing inside the module; nothing reaches the host.
	_, err = m.Create(ctx, v1.Statement{Name: "escape", Spec: v1.Spec{Statement: "SELECT * FROM Breakout(input => TABLE probes PARTITION BY k)"}})
	require.NoError(t, err)
	var out string
	require.Eventually(t, func() bool {
		rows, _, err := m.Results("escape", "", 100)
		require.NoError(t, err)
		out = fmt.Sprint(rows)
		return strings.Contains(out, "clock year")
	}, 20*time.Second, 10*time.Millisecond)
	for _, want := range []string{"open /etc/passwd:", "open /tmp/eddy-wasm-escape:", "dial tcp 127.0.0.1:22: ", "env HOME: ]", "clock year: 1970]"} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out, "no error")

	// The healthy statement still runs and processes new rows.
	require.Equal(t, v1.Running, e.await("track", v1.Running).Status.Phase)
	e.sql("e2", "INSERT INTO ev VALUES (2, 'PLACED')", v1.Completed)
	require.Eventually(t, func() bool {
		rows, _, err := m.Results("track", "", 100)
		require.NoError(t, err)
		return strings.Contains(fmt.Sprint(rows), "[2 PENDING]")
	}, 20*time.Second, 10*time.Millisecond)
}
