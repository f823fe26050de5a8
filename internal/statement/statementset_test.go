package statement_test

import (
	"testing"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/stretchr/testify/require"
)

// A statement set is one statement running one job with a sink per
// INSERT: its sql_kind is STATEMENT_SET, it writes both tables, and it
// resumes after a restart without writing anything twice.
func TestStatementSet(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	e.sql("t1", "CREATE TABLE src (k INT, v STRING)", v1.Completed)
	e.sql("t2", "CREATE TABLE a (k INT, v STRING)", v1.Completed)
	e.sql("t3", "CREATE TABLE b (k INT, v STRING)", v1.Completed)
	e.sql("i1", "INSERT INTO src VALUES (1, 'x'), (2, 'y')", v1.Completed)
	st := e.sql("fanout", "EXECUTE STATEMENT SET BEGIN INSERT INTO a SELECT * FROM src WHERE k = 1; INSERT INTO b SELECT k + 10, v FROM src; END", v1.Running)
	require.Equal(t, "STATEMENT_SET", st.Status.Traits.SQLKind)
	e.settle()
	require.Equal(t, []string{"+I [1 x]"}, sorted(e.rows("a")))
	require.Equal(t, []string{"+I [11 x]", "+I [12 y]"}, sorted(e.rows("b")))
	e.close()
	e = open(t, dir)
	defer e.close()
	e.await("fanout", v1.Running)
	e.sql("i2", "INSERT INTO src VALUES (1, 'z')", v1.Completed)
	e.settle()
	require.Equal(t, []string{"+I [1 x]", "+I [1 z]"}, sorted(e.rows("a")))
	require.Equal(t, []string{"+I [11 x]", "+I [11 z]", "+I [12 y]"}, sorted(e.rows("b")))
}
