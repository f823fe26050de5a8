package deploy_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/client"
	"github.com/eddy-sql/eddy/deploy"
	"github.com/stretchr/testify/require"
)

func TestHandleLifecycle(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	env, log := newEnv(t, s, "--application-name", "orders")
	deployTables(t, env)
	env.SetStatementName("copy")
	h, err := env.ExecuteSQL(ctx, copyRows)
	require.NoError(t, err)

	st, err := h.Stop(ctx, 30*time.Second)
	require.NoError(t, err)
	require.Equal(t, v1.Stopped, st.Status.Phase)
	require.Contains(t, log.String(), `Statement "orders-copy" is STOPPED.`)

	st, err = h.Resume(ctx, 0)
	require.NoError(t, err)
	require.NotEqual(t, v1.Stopped, st.Status.Phase)
	st, err = h.Await(ctx)
	require.NoError(t, err)
	require.Equal(t, v1.Running, st.Status.Phase)

	// Stop without waiting, then wait for STOPPED.
	_, err = h.Stop(ctx, 0)
	require.NoError(t, err)
	st, err = h.Await(ctx, v1.Stopped)
	require.NoError(t, err)
	require.Equal(t, v1.Stopped, st.Status.Phase)

	exs, err := h.Exceptions(ctx)
	require.NoError(t, err)
	require.Empty(t, exs)

	// A handle by name addresses the same statement.
	same, err := env.Handle("copy")
	require.NoError(t, err)
	require.Equal(t, "orders-copy", same.Name())
	require.Equal(t, deploy.Existing, same.Outcome())
	require.Nil(t, same.Deployed())

	require.NoError(t, same.Delete(ctx, 30*time.Second))
	_, err = h.Statement(ctx)
	require.True(t, client.IsNotFound(err))
	require.EqualError(t, err, `statement "orders-copy" not found`)
	_, err = h.Stop(ctx, time.Second)
	require.EqualError(t, err, `statement "orders-copy" not found`)
	require.Error(t, h.Delete(ctx, 0))
}

// deployOrderStatus deploys the tutorial's pipeline and inserts its
// events.
func deployOrderStatus(t *testing.T, env *deploy.Env) {
	t.Helper()
	ctx := context.Background()
	for _, st := range []struct{ name, sql string }{
		{"tracker", "CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker'"},
		{"order-events", `CREATE TABLE order_events (
  order_id INT NOT NULL,
  event_type STRING,
  event_time TIMESTAMP(3),
  WATERMARK FOR event_time AS event_time
) DISTRIBUTED INTO 1 BUCKETS`},
		{"order-status", `CREATE TABLE order_status (
    PRIMARY KEY (order_id) NOT ENFORCED
) DISTRIBUTED INTO 1 BUCKETS
WITH ('changelog.mode' = 'upsert') AS
SELECT order_id, status
FROM OrderStatusTracker(input => TABLE order_events PARTITION BY order_id)`},
		{"events", `INSERT INTO order_events VALUES
  (101, 'PLACED',    TIMESTAMP '2026-08-01 09:00:00'),
  (102, 'PLACED',    TIMESTAMP '2026-08-01 09:00:02'),
  (103, 'PLACED',    TIMESTAMP '2026-08-01 09:00:03'),
  (101, 'FULFILLED', TIMESTAMP '2026-08-01 09:00:10'),
  (102, 'CANCELED',  TIMESTAMP '2026-08-01 09:00:15'),
  (101, 'SHIPPED',   TIMESTAMP '2026-08-01 09:00:30'),
  (101, 'DELIVERED', TIMESTAMP '2026-08-01 09:01:00')`},
	} {
		env.SetStatementName(st.name)
		_, err := env.ExecuteSQL(ctx, st.sql)
		require.NoError(t, err, st.name)
	}
}

// eventually materializes h until it has want, or fails.
func eventually(t *testing.T, h *deploy.Handle, want [][]any) *deploy.Table {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		tab, err := h.Materialize(context.Background())
		require.NoError(t, err)
		if fmt.Sprint(tab.Rows) == fmt.Sprint(want) || time.Now().After(deadline) {
			require.Equal(t, fmt.Sprint(want), fmt.Sprint(tab.Rows))
			return tab
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestMaterializeUpsert(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	env, _ := newEnv(t, s, "--application-name", "orders")
	deployOrderStatus(t, env)

	env.SetStatementName("show-status")
	h, err := env.ExecuteSQL(ctx, "SELECT * FROM order_status")
	require.NoError(t, err)
	tab := eventually(t, h, [][]any{{"101", "DELIVERED"}, {"103", "PENDING"}})
	require.Equal(t, []string{"order_id", "status"}, tab.Columns)
	require.Equal(t, []int{0}, tab.Key)

	// The changelog has the updates and the delete of order 102.
	var ops []string
	for c, err := range h.Changelog(ctx) {
		require.NoError(t, err)
		ops = append(ops, fmt.Sprint(c.Op, c.Values))
		if c.Op == deploy.UpdateAfter && c.Values[1] == "DELIVERED" {
			break
		}
	}
	require.Contains(t, ops, "+I [102 PENDING]")
	require.Contains(t, ops, "-D [102 PENDING]")
	require.Contains(t, ops, "-U [101 PENDING]")
	require.Equal(t, "+U [101 DELIVERED]", ops[len(ops)-1])
	require.NoError(t, h.Delete(ctx, 10*time.Second))
}

func TestMaterializeMultiset(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	env, _ := newEnv(t, s, "--application-name", "orders")
	deployOrderStatus(t, env)

	// Without the key column the updating result is a multiset.
	env.SetStatementName("statuses")
	h, err := env.ExecuteSQL(ctx, "SELECT status FROM order_status")
	require.NoError(t, err)
	tab := eventually(t, h, [][]any{{"PENDING"}, {"DELIVERED"}})
	require.Empty(t, tab.Key)
	require.Equal(t, []string{"status"}, tab.Columns)

	env.SetStatementName("src")
	_, err = env.ExecuteSQL(ctx, createSrc)
	require.NoError(t, err)
	env.SetStatementName("rows")
	_, err = env.ExecuteSQL(ctx, "INSERT INTO src VALUES (1, 'a'), (2, 'b'), (3, 'a')")
	require.NoError(t, err)

	// An append-only SELECT.
	env.SetStatementName("all")
	h, err = env.ExecuteSQL(ctx, "SELECT v, id FROM src")
	require.NoError(t, err)
	eventually(t, h, [][]any{{"a", "1"}, {"b", "2"}, {"a", "3"}})
	n := 0
	for c, err := range h.Changelog(ctx) {
		require.NoError(t, err)
		require.Equal(t, deploy.Insert, c.Op)
		if n++; n == 3 {
			break
		}
	}

	// A cancelled context ends a following changelog with its error.
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	var last error
	n = 0
	for _, err := range h.Changelog(cctx) {
		if err != nil {
			last = err
		} else {
			n++
		}
	}
	require.Equal(t, 3, n)
	require.True(t, errors.Is(last, context.DeadlineExceeded), "%v", last)
}

func TestChangelogOfCompletedStatement(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	env, _ := newEnv(t, s)
	env.SetStatementName("tables")
	h, err := env.ExecuteSQL(ctx, "SHOW TABLES")
	require.NoError(t, err)
	require.Equal(t, v1.Completed, h.Deployed().Status.Phase)
	n := 0
	for _, err := range h.Changelog(ctx) { // ends: the results are complete
		require.NoError(t, err)
		n++
	}
	require.Zero(t, n)
	tab, err := h.Materialize(ctx)
	require.NoError(t, err)
	require.Empty(t, tab.Rows)
}

func TestOpString(t *testing.T) {
	require.Equal(t, "+I -U +U -D ?", fmt.Sprint(deploy.Insert, deploy.UpdateBefore, deploy.UpdateAfter, deploy.Delete, deploy.Op(9)))
	require.True(t, deploy.Delete.IsRetraction())
	require.False(t, deploy.UpdateAfter.IsRetraction())
	require.Equal(t, "created unchanged replaced existing", fmt.Sprint(deploy.Created, deploy.Unchanged, deploy.Replaced, deploy.Existing))
}
