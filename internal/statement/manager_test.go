package statement_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/statement"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/stretchr/testify/require"
)

type env struct {
	t   *testing.T
	dir string
	eng *engine.Engine
	m   *statement.Manager
}

func open(t *testing.T, dir string) *env {
	reg := ptf.NewRegistry()
	require.NoError(t, examples.Register(reg))
	eng, err := engine.Open(context.Background(), engine.Options{DataDir: dir, Registry: reg})
	require.NoError(t, err)
	m, err := statement.Open(statement.Options{Engine: eng, CheckpointInterval: 20 * time.Millisecond})
	require.NoError(t, err)
	return &env{t: t, dir: dir, eng: eng, m: m}
}

func (e *env) close() {
	require.NoError(e.t, e.m.Close())
	require.NoError(e.t, e.eng.Close())
}

// sql runs a statement as a durable statement and waits for its phase.
func (e *env) sql(name, sql string, want v1.Phase) v1.Statement {
	e.t.Helper()
	_, err := e.m.Create(context.Background(), v1.Statement{Name: name, Spec: v1.Spec{Statement: sql}})
	require.NoError(e.t, err)
	return e.await(name, want)
}

func (e *env) await(name string, want v1.Phase) v1.Statement {
	e.t.Helper()
	var st v1.Statement
	require.Eventually(e.t, func() bool {
		var err error
		st, err = e.m.Get(name)
		require.NoError(e.t, err)
		return st.Status.Phase == want
	}, 10*time.Second, 5*time.Millisecond, "statement %s never reached %s", name, want)
	return st
}

// rows reads a table with a bounded SELECT statement through the results.
func (e *env) rows(table string) []string {
	e.t.Helper()
	out, err := e.eng.Execute(context.Background(), "SELECT * FROM "+table, false)
	require.NoError(e.t, err)
	var got []string
	for {
		r, ok, err := out.Rows.Next(context.Background())
		require.NoError(e.t, err)
		if !ok {
			break
		}
		got = append(got, fmt.Sprint(r.Kind, r.Values))
	}
	return got
}

// sorted returns rows sorted, for comparing changelogs across keys.
func sorted(rows []string) []string {
	sort.Strings(rows)
	return rows
}

// settle waits until the running statements have checkpointed everything.
func (e *env) settle() {
	time.Sleep(150 * time.Millisecond)
}

func setup(e *env) {
	e.sql("fn", "CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker'", v1.Completed)
	e.sql("events", "CREATE TABLE order_events (order_id INT NOT NULL, event_type STRING)", v1.Completed)
	e.sql("ins1", "INSERT INTO order_events VALUES (101, 'PLACED'), (102, 'PLACED')", v1.Completed)
}

const ctas = `CREATE TABLE order_status (PRIMARY KEY (order_id) NOT ENFORCED) AS
SELECT order_id, status FROM OrderStatusTracker(input => TABLE order_events PARTITION BY order_id)`

func TestStopResumeExactlyOnce(t *testing.T) {
	e := open(t, t.TempDir())
	defer e.close()
	setup(e)
	st := e.sql("tracker", ctas, v1.Running)
	require.Equal(t, "CREATE_TABLE_AS", st.Status.Traits.SQLKind)
	e.settle()
	require.Equal(t, []string{"+I [101 PENDING]", "+I [102 PENDING]"}, sorted(e.rows("order_status")))

	st, err := e.m.Update(context.Background(), "tracker", st.Metadata.ResourceVersion, true)
	require.NoError(t, err)
	e.await("tracker", v1.Stopped)
	// Written while stopped: processed once after resume.
	e.sql("ins2", "INSERT INTO order_events VALUES (101, 'SHIPPED'), (103, 'PLACED'), (102, 'CANCELED')", v1.Completed)
	_, err = e.m.Update(context.Background(), "tracker", "", false)
	require.NoError(t, err)
	e.await("tracker", v1.Running)
	e.settle()
	// Table mode of the upsert table after normalize: the last row per key.
	require.Equal(t, []string{"+I [101 SHIPPED]", "+I [103 PENDING]"}, materialize(e.rows("order_status")))
	// Exactly once: each change appears once in the changelog.
	require.Equal(t, []string{"+I [101 PENDING]", "+I [102 PENDING]", "+I [103 PENDING]", "+U [101 SHIPPED]", "-D [102 PENDING]", "-U [101 PENDING]"}, sorted(e.rows("order_status")))
	st, _ = e.m.Get("tracker")
	require.Contains(t, st.Status.LatestOffsets["default_catalog.default_database.order_events"], "offset:5")
}

// materialize applies a changelog keyed by its first column.
func materialize(rows []string) []string {
	m := map[string]string{}
	for _, r := range rows {
		kind, vals, _ := strings.Cut(r, " ")
		k := strings.Fields(strings.Trim(vals, "[]"))[0]
		switch kind {
		case "+I", "+U":
			m[k] = "+I " + vals
		default:
			delete(m, k)
		}
	}
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func TestStaleResourceVersionConflicts(t *testing.T) {
	e := open(t, t.TempDir())
	defer e.close()
	setup(e)
	st := e.sql("tracker", ctas, v1.Running)
	_, err := e.m.Update(context.Background(), "tracker", "1", true)
	require.ErrorIs(t, err, statement.ErrConflict)
	_, err = e.m.Update(context.Background(), "tracker", st.Metadata.ResourceVersion, true)
	require.NoError(t, err)
}

func TestCreateStoppedAndNames(t *testing.T) {
	e := open(t, t.TempDir())
	defer e.close()
	setup(e)
	st, err := e.m.Create(context.Background(), v1.Statement{Name: "later", Spec: v1.Spec{Statement: ctas, Stopped: true}})
	require.NoError(t, err)
	require.Equal(t, v1.Stopped, st.Status.Phase)
	_, err = e.m.Create(context.Background(), v1.Statement{Name: "later", Spec: v1.Spec{Statement: ctas}})
	require.ErrorIs(t, err, statement.ErrExists)
	for _, bad := range []string{"Upper", "-lead", "trail-", "under_score", strings.Repeat("a", 101)} {
		_, err := e.m.Create(context.Background(), v1.Statement{Name: bad, Spec: v1.Spec{Statement: ctas}})
		require.ErrorIs(t, err, statement.ErrInvalid, bad)
	}
	a, b := e.m.GenerateName("app"), e.m.GenerateName("app")
	require.NotEqual(t, a, b)
	require.NoError(t, statement.ValidateName(a))
}

func TestFailedStatementRecordsException(t *testing.T) {
	e := open(t, t.TempDir())
	defer e.close()
	st := e.sql("bad", "SELECT * FROM nope", v1.Failed)
	require.Contains(t, st.Status.Detail, "Table 'nope' not found")
	ex, err := e.m.Exceptions("bad")
	require.NoError(t, err)
	require.Len(t, ex, 1)
	require.Equal(t, "UNKNOWN_TABLE", ex[0].Name)
}

func TestRestartResumesRunningStatements(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	setup(e)
	e.sql("tracker", ctas, v1.Running)
	e.settle()
	e.close()

	e = open(t, dir)
	defer e.close()
	e.await("tracker", v1.Running)
	e.sql("ins2", "INSERT INTO order_events VALUES (101, 'DELIVERED')", v1.Completed)
	e.settle()
	require.Equal(t, []string{"+I [101 DELIVERED]", "+I [102 PENDING]"}, materialize(e.rows("order_status")))
}

func TestReplaceCarriesState(t *testing.T) {
	e := open(t, t.TempDir())
	defer e.close()
	setup(e)
	e.sql("tracker", ctas, v1.Running)
	e.settle()
	// Same uid and state type, different SQL text: state and positions
	// carry over, so 101 stays PENDING->SHIPPED and is not re-inserted.
	res, err := e.m.Replace(context.Background(), v1.Statement{Name: "tracker", Spec: v1.Spec{Statement: strings.Replace(ctas, "order_id, status", "*", 1)}})
	require.NoError(t, err)
	require.False(t, res.Unchanged)
	require.True(t, res.Carried, res.Reason)
	e.await("tracker", v1.Running)
	e.sql("ins2", "INSERT INTO order_events VALUES (101, 'SHIPPED')", v1.Completed)
	e.settle()
	require.Equal(t, []string{"+I [101 PENDING]", "+I [102 PENDING]", "+U [101 SHIPPED]", "-U [101 PENDING]"}, sorted(e.rows("order_status")))

	same, err := e.m.Replace(context.Background(), v1.Statement{Name: "tracker", Spec: v1.Spec{Statement: strings.Replace(ctas, "order_id, status", "*", 1)}})
	require.NoError(t, err)
	require.True(t, same.Unchanged)

	fresh, err := e.m.Replace(context.Background(), v1.Statement{Name: "tracker", Spec: v1.Spec{Statement: strings.Replace(ctas, "PARTITION BY order_id)", "PARTITION BY order_id, uid => 'tracker-v2')", 1)}})
	require.NoError(t, err)
	require.False(t, fresh.Carried)
	require.Contains(t, fresh.Reason, "uid or state types changed")
}

func TestDeleteRemovesStatement(t *testing.T) {
	e := open(t, t.TempDir())
	defer e.close()
	setup(e)
	e.sql("tracker", ctas, v1.Running)
	require.NoError(t, e.m.Delete(context.Background(), "tracker"))
	_, err := e.m.Get("tracker")
	require.ErrorIs(t, err, statement.ErrNotFound)
	page, next := e.m.List(statement.Filter{}, 2, "")
	require.Len(t, page, 2)
	require.NotEmpty(t, next)
	rest, next2 := e.m.List(statement.Filter{}, 2, next)
	require.Len(t, rest, 1)
	require.Empty(t, next2)
}

func TestWarnings(t *testing.T) {
	e := open(t, t.TempDir())
	defer e.close()
	st, err := e.m.Create(context.Background(), v1.Statement{Spec: v1.Spec{
		Statement:  "CREATE TABLE w (a INT)",
		Properties: map[string]string{"execution.checkpointing.interval": "soon"},
	}})
	require.NoError(t, err)
	require.NoError(t, statement.ValidateName(st.Name))
	var reasons []string
	for _, w := range st.Status.Warnings {
		reasons = append(reasons, w.Reason)
	}
	require.Equal(t, []string{"GENERATED_NAME", "INVALID_PROPERTY"}, reasons)
}

// An INSERT over a bounded generated table is a bounded statement: it
// completes once every row is written.
func TestBoundedStatementCompletes(t *testing.T) {
	e := open(t, t.TempDir())
	defer e.close()
	e.sql("gen", `CREATE TABLE g (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '500',
		'rows-per-second' = '100000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '500')`, v1.Completed)
	e.sql("sink", "CREATE TABLE s (id INT)", v1.Completed)
	st := e.sql("copy", "INSERT INTO s SELECT * FROM g", v1.Completed)
	require.NotNil(t, st.Status.EndTime)
	require.Len(t, e.rows("s"), 500)
}

// A second CTAS statement on a table that another statement created fails
// with Flink's error and writes nothing: the table keeps one writer, and
// every change appears once. The owner still resumes into its table.
func TestCTASOnExistingTableFailsAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	e := open(t, dir)
	setup(e)
	e.sql("tracker", ctas, v1.Running)
	e.settle()
	st := e.sql("tracker-2", ctas, v1.Failed)
	require.Contains(t, st.Status.Detail, "Table (or view) default_database.order_status already exists in Catalog default_catalog")
	ex, err := e.m.Exceptions("tracker-2")
	require.NoError(t, err)
	require.Len(t, ex, 1)
	e.sql("ins2", "INSERT INTO order_events VALUES (101, 'SHIPPED'), (103, 'PLACED')", v1.Completed)
	e.settle()
	want := []string{"+I [101 PENDING]", "+I [102 PENDING]", "+I [103 PENDING]", "+U [101 SHIPPED]", "-U [101 PENDING]"}
	require.Equal(t, want, sorted(e.rows("order_status")))

	// IF NOT EXISTS starts nothing.
	st = e.sql("tracker-3", strings.Replace(ctas, "CREATE TABLE", "CREATE TABLE IF NOT EXISTS", 1), v1.Completed)
	require.Contains(t, st.Status.Detail, "nothing was created and no job was started")
	// CREATE OR REPLACE refuses while the owner writes the table.
	st = e.sql("tracker-4", strings.Replace(ctas, "CREATE TABLE", "CREATE OR REPLACE TABLE", 1), v1.Failed)
	require.Contains(t, st.Status.Detail, "cannot be replaced: it is written by statement tracker")

	// The owner resumes into its own table after a restart, without
	// writing anything twice.
	e.close()
	e = open(t, dir)
	defer e.close()
	e.await("tracker", v1.Running)
	e.sql("ins3", "INSERT INTO order_events VALUES (102, 'SHIPPED')", v1.Completed)
	e.settle()
	want = sorted(append(want, "+U [102 SHIPPED]", "-U [102 PENDING]"))
	require.Equal(t, want, sorted(e.rows("order_status")))
}

// A GROUP BY and a join statement stop and resume with their operator
// state: rows written while stopped are counted once, on top of the
// state from before the stop, and the results equal an uninterrupted run.
func TestStopResumeAggregateAndJoin(t *testing.T) {
	e := open(t, t.TempDir())
	defer e.close()
	e.sql("t1", "CREATE TABLE clicks (u INT NOT NULL, page STRING)", v1.Completed)
	e.sql("t2", "CREATE TABLE users (id INT NOT NULL, name STRING)", v1.Completed)
	e.sql("i1", "INSERT INTO clicks VALUES (1, 'a'), (1, 'b'), (2, 'a')", v1.Completed)
	e.sql("i2", "INSERT INTO users VALUES (1, 'ann')", v1.Completed)
	e.sql("counts", `CREATE TABLE counts (PRIMARY KEY (u) NOT ENFORCED) AS
SELECT u, COUNT(*) AS n, COUNT(DISTINCT page) AS pages FROM clicks GROUP BY u`, v1.Running)
	e.sql("named", `CREATE TABLE named (PRIMARY KEY (u, page) NOT ENFORCED) AS
SELECT c.u, c.page, us.name FROM clicks c LEFT JOIN users us ON c.u = us.id`, v1.Running)
	e.settle()
	for _, name := range []string{"counts", "named"} {
		st, err := e.m.Get(name)
		require.NoError(t, err)
		_, err = e.m.Update(context.Background(), name, st.Metadata.ResourceVersion, true)
		require.NoError(t, err)
		e.await(name, v1.Stopped)
	}
	// Written while stopped: processed once after resume.
	e.sql("i3", "INSERT INTO clicks VALUES (2, 'c'), (3, 'a'), (1, 'a')", v1.Completed)
	e.sql("i4", "INSERT INTO users VALUES (2, 'bob')", v1.Completed)
	for _, name := range []string{"counts", "named"} {
		_, err := e.m.Update(context.Background(), name, "", false)
		require.NoError(t, err)
		e.await(name, v1.Running)
	}
	e.settle()
	counts := e.rows("counts")
	require.Equal(t, []string{"+I [1 3 2]", "+I [2 2 2]", "+I [3 1 1]"}, materialize(counts))
	// Resumed from its state and positions, not recomputed from the
	// start: user 1 was inserted once.
	inserts := 0
	for _, r := range counts {
		if strings.HasPrefix(r, "+I [1 ") {
			inserts++
		}
	}
	require.Equal(t, 1, inserts, "changelog: %v", counts)
	named := map[string]string{}
	for _, r := range e.rows("named") {
		kind, vals, _ := strings.Cut(r, " ")
		f := strings.Fields(strings.Trim(vals, "[]"))
		if kind == "+I" || kind == "+U" {
			named[f[0]+"/"+f[1]] = f[2]
		} else {
			delete(named, f[0]+"/"+f[1])
		}
	}
	require.Equal(t, map[string]string{"1/a": "ann", "1/b": "ann", "2/a": "bob", "2/c": "bob", "3/a": "<NULL>"}, named)
}

// A statement resumed after ALTER TABLE is planned again against the new
// definition; when its operators would keep other state than its
// checkpoint holds, the resume is refused (decision 0036).
func TestResumeAfterAlterTable(t *testing.T) {
	e := open(t, t.TempDir())
	defer e.close()
	e.sql("t", "CREATE TABLE nums (k INT NOT NULL, v INT, w AS v * 2)", v1.Completed)
	e.sql("i1", "INSERT INTO nums VALUES (1, 1), (1, 2)", v1.Completed)
	e.sql("out", "CREATE TABLE sums (k INT NOT NULL, s DOUBLE, PRIMARY KEY (k) NOT ENFORCED)", v1.Completed)
	e.sql("sum", "INSERT INTO sums SELECT k, SUM(w) FROM nums GROUP BY k", v1.Running)
	e.settle()
	stop := func() {
		st, err := e.m.Get("sum")
		require.NoError(t, err)
		_, err = e.m.Update(context.Background(), "sum", st.Metadata.ResourceVersion, true)
		require.NoError(t, err)
		e.await("sum", v1.Stopped)
	}
	stop()
	// Same state (SUM of an INT): the resumed plan computes w anew.
	e.sql("a1", "ALTER TABLE nums MODIFY w AS v * 10", v1.Completed)
	e.sql("i2", "INSERT INTO nums VALUES (1, 3)", v1.Completed)
	_, err := e.m.Update(context.Background(), "sum", "", false)
	require.NoError(t, err)
	e.await("sum", v1.Running)
	e.settle()
	require.Equal(t, []string{"+I [1 36.0]"}, materialize(e.rows("sums")))
	stop()
	// SUM of a DOUBLE keeps other state: refused.
	e.sql("a2", "ALTER TABLE nums MODIFY w AS CAST(v AS DOUBLE)", v1.Completed)
	_, err = e.m.Update(context.Background(), "sum", "", false)
	require.NoError(t, err)
	st := e.await("sum", v1.Failed)
	require.Contains(t, st.Status.Detail, "the state of its operators changed")
}
