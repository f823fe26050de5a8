package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/stretchr/testify/require"
)

const replaceCTAS = `CREATE TABLE order_status (PRIMARY KEY (order_id) NOT ENFORCED) AS
SELECT order_id, status FROM OrderStatusTracker(input => TABLE order_events PARTITION BY order_id)`

func (e *client) replace(name, sql string) v1.ReplaceResponse {
	e.t.Helper()
	r := e.do(req{method: "POST", path: "/v1/statements/" + name + "/replace", body: v1.Statement{Spec: v1.Spec{Statement: sql}}})
	require.Equal(e.t, http.StatusOK, r.status, string(r.body))
	var out v1.ReplaceResponse
	r.decode(e.t, &out)
	return out
}

// POST /v1/statements/{name}/replace keeps the PTF state and the source
// positions when the new SQL keeps the function's uid and state types: rows
// processed before the replace are not processed again, and the state
// (each order's status) continues.
func TestReplaceCarriesStateOverREST(t *testing.T) {
	e := newEnv(t)
	e.run("fn", "CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker'")
	e.run("events", "CREATE TABLE order_events (order_id INT NOT NULL, event_type STRING)")
	e.run("fill-1", "INSERT INTO order_events VALUES (101, 'PLACED'), (102, 'PLACED')")
	e.create("tracker", replaceCTAS)
	e.waitPhase("tracker", v1.Running)
	e.create("watch-1", "SELECT * FROM order_status")
	require.Len(t, e.results("watch-1", 2), 2)

	// Unchanged spec: a no-op.
	same := e.replace("tracker", replaceCTAS)
	require.True(t, same.Unchanged)

	res := e.replace("tracker", strings.Replace(replaceCTAS, "order_id, status", "*", 1))
	require.False(t, res.Unchanged)
	require.True(t, res.StateCarried, res.Reason)
	require.NotEmpty(t, res.Statement.Status.StateCarriedFrom)
	e.waitPhase("tracker", v1.Running)
	e.run("fill-2", "INSERT INTO order_events VALUES (101, 'SHIPPED')")

	// The changelog of the upsert table: 101 was inserted once and updated
	// once (its PENDING state survived the replace), 102 once.
	e.create("watch-2", "SELECT * FROM order_status")
	rows := e.results("watch-2", 4)
	var got []string
	for _, r := range rows {
		got = append(got, []string{"+I", "-U", "+U", "-D"}[r.Op]+" "+strings.Join(rowStrings([]v1.ResultRow{r}), ""))
	}
	slices.Sort(got)
	require.Equal(t, []string{"+I 101,PENDING", "+I 102,PENDING", "+U 101,SHIPPED", "-U 101,PENDING"}, got)

	// A new uid cannot take over the state: the answer says why.
	fresh := e.replace("tracker", strings.Replace(replaceCTAS, "PARTITION BY order_id)", "PARTITION BY order_id, uid => 'tracker_v2')", 1))
	require.False(t, fresh.StateCarried)
	require.Contains(t, fresh.Reason, "uid or state types changed")
}
