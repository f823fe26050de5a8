package table_test

import (
	"context"
	"fmt"
	"testing"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/deploy"
	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/table"
	"github.com/stretchr/testify/require"
)

func newEnv(t *testing.T, opts ...table.Option) *table.Environment {
	t.Helper()
	env, err := table.New(context.Background(), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, env.Close()) })
	return env
}

func run(t *testing.T, env *table.Environment, sqls ...string) {
	t.Helper()
	for _, s := range sqls {
		_, err := env.ExecuteSQL(context.Background(), s)
		require.NoError(t, err, s)
	}
}

// collect executes a Table and renders its changelog.
func collect(t *testing.T, tb *table.Table) ([]string, []string) {
	t.Helper()
	ctx := context.Background()
	res, err := tb.Execute(ctx)
	require.NoError(t, err)
	rows, err := res.Collect(ctx)
	require.NoError(t, err)
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint(r.Kind, r.Values))
	}
	return res.Schema().Names(), out
}

func sqlOf(t *testing.T, tb *table.Table) string {
	t.Helper()
	q, err := tb.SQL(context.Background())
	require.NoError(t, err)
	return q
}

// The same call with positional and named arguments; mixing both is
// Flink's error.
func TestPositionalAndNamedArguments(t *testing.T) {
	env := newEnv(t)
	setup(t, env)
	src := env.From("temperature_readings").PartitionBy("sensor_id")
	pos := src.Process(examples.Median, table.Lit(3))
	require.Equal(t, "SELECT * FROM Median(TABLE temperature_readings PARTITION BY (sensor_id), 3)", sqlOf(t, pos))
	named := src.Process(examples.Median, table.Lit(3).AsArgument("numTrailing"))
	require.Equal(t, "SELECT * FROM Median(input => TABLE temperature_readings PARTITION BY (sensor_id), numTrailing => 3)", sqlOf(t, named))
	cols, a := collect(t, pos)
	_, b := collect(t, named)
	require.Equal(t, []string{"sensor_id", "temperature", "median"}, cols)
	require.Equal(t, []string{"+I [1 20.0 20.0]", "+I [1 22.0 21.0]", "+I [2 30.0 30.0]", "+I [1 21.0 21.0]"}, a)
	require.Equal(t, a, b)

	// Positional with DEFAULT for on_time, then the uid.
	_, c := collect(t, src.Process(examples.Median, table.Lit(3), table.Default(), table.Lit("m1")))
	require.Equal(t, a, c)

	_, err := src.Process(examples.Median, table.Lit(3), table.Lit("x").AsArgument("uid")).Execute(context.Background())
	require.ErrorContains(t, err, "Cannot mix positional and named arguments when calling function 'Median'")
}

// FromCall: a function without table arguments runs once; a function with
// two table arguments gets both, named with AsArgument.
func TestFromCall(t *testing.T) {
	env := newEnv(t, table.WithFunctions(map[string]*ptf.Definition{"test.Once": once}))
	cols, rows := collect(t, env.FromCall(once, table.Lit(7).AsArgument("n")))
	require.Equal(t, []string{"msg", "n"}, cols)
	require.Equal(t, []string{"+I [once 7]"}, rows)
	_, rows = collect(t, env.FromCall(once, table.Lit(8)))
	require.Equal(t, []string{"+I [once 8]"}, rows)

	run(t, env,
		"CREATE TABLE events (tenant_id STRING, payload STRING)",
		"CREATE TABLE control (tenant_id STRING, mode STRING)",
		"INSERT INTO control VALUES ('T1', 'turbo')",
		"INSERT INTO events VALUES ('T1', 'p1'), ('T2', 'p3')")
	call := env.FromCall(examples.MtControlStream,
		env.From("events").PartitionBy("tenant_id").AsArgument("events"),
		env.From("control").PartitionBy("tenant_id").AsArgument("control"),
		table.Lit("mt-v1").AsArgument("uid"))
	require.Equal(t, "SELECT * FROM MtControlStream(events => TABLE events PARTITION BY (tenant_id), control => TABLE control PARTITION BY (tenant_id), uid => 'mt-v1')", sqlOf(t, call))
	cols, rows = collect(t, call)
	require.Equal(t, []string{"tenant_id", "tenant_id0", "payload", "active_mode"}, cols)
	require.Equal(t, []string{"+I [T1 T1 p1 turbo]", "+I [T2 T2 p3 default]"}, rows)

	// Process with the second table as an argument is the same call.
	_, rows2 := collect(t, env.From("events").PartitionBy("tenant_id").Process(examples.MtControlStream,
		env.From("control").PartitionBy("tenant_id").AsArgument("control")))
	require.Equal(t, rows, rows2)
}

// ORDER BY on a table argument: rows reach the function in time order.
func TestOrderByTableArgument(t *testing.T) {
	env := newEnv(t)
	run(t, env,
		"CREATE TABLE clicks (user_id INT, url STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)",
		`INSERT INTO clicks VALUES (1, '/b', TIMESTAMP '2026-08-01 10:00:02'), (1, '/a', TIMESTAMP '2026-08-01 10:00:01'),
		  (1, '/c', TIMESTAMP '2026-08-01 10:00:03')`)
	ordered := env.From("clicks").PartitionBy("user_id").OrderBy(table.Col("ts").Asc()).Process(examples.PassThroughEnrich)
	require.Equal(t, "SELECT * FROM PassThroughEnrich(TABLE clicks PARTITION BY (user_id) ORDER BY (ts ASC))", sqlOf(t, ordered))
	_, rows := collect(t, ordered.Select(table.Col("url"), table.Col("EXPR$0")))
	require.Equal(t, []string{"+I [/a 1]", "+I [/b 2]", "+I [/c 3]"}, rows)
}

// A call's result is a Table: it can be partitioned and passed to another
// call, and queried.
func TestChainedProcess(t *testing.T) {
	env := newEnv(t)
	run(t, env,
		"CREATE TABLE clicks (user_id INT, url STRING)",
		"INSERT INTO clicks VALUES (1, '/a'), (2, '/b'), (1, '/c')")
	first := env.From("clicks").PartitionBy("user_id").Process(examples.PassThroughEnrich, table.Lit("first").AsArgument("uid"))
	second := first.Select(table.Col("user_id"), table.Col("url"), table.Col("EXPR$0").As("n")).
		PartitionBy("user_id").Process(examples.PassThroughEnrich, table.Lit("second").AsArgument("uid"))
	cols, rows := collect(t, second)
	require.Equal(t, []string{"user_id", "url", "n", "EXPR$0"}, cols)
	require.Equal(t, []string{"+I [1 /a 1 1]", "+I [2 /b 1 1]", "+I [1 /c 2 2]"}, rows)

	// Without uids the two calls collide, as in SQL.
	_, err := env.From("clicks").PartitionBy("user_id").Process(examples.PassThroughEnrich).
		PartitionBy("user_id").Process(examples.PassThroughEnrich).Execute(context.Background())
	require.ErrorContains(t, err, "Duplicate unique identifier 'PassThroughEnrich'")
}

// Relational operations give the rows of the same SQL.
func TestRelationalOperations(t *testing.T) {
	env := newEnv(t)
	run(t, env,
		"CREATE TABLE orders (o_id INT, cust INT, amount INT)",
		"CREATE TABLE customers (c_id INT, name STRING)",
		"INSERT INTO orders VALUES (1, 10, 5), (2, 20, 7), (3, 10, 9)",
		"INSERT INTO customers VALUES (10, 'ann'), (20, 'bob')")
	orders, customers := env.From("orders"), env.From("customers")
	same := func(tb *table.Table, sql string) []string {
		t.Helper()
		_, got := collect(t, tb)
		_, want := rowsOf(t, env, sql)
		require.Equal(t, want, got, sqlOf(t, tb))
		return got
	}
	rows := same(orders.Filter(table.Col("amount").Gt(6)).Select(table.Col("o_id"), table.Col("amount").Times(2).As("twice")),
		"SELECT o_id, amount * 2 AS twice FROM orders WHERE amount > 6")
	require.Equal(t, []string{"+I [2 14]", "+I [3 18]"}, rows)
	rows = same(orders.GroupBy(table.Col("cust")).Select(table.Col("cust"), table.Col("amount").Sum().As("total"), table.CountStar().As("n")),
		"SELECT cust, SUM(amount) AS total, COUNT(*) AS n FROM orders GROUP BY cust")
	require.Equal(t, []string{"+I [10 5 1]", "+I [20 7 1]", "-U [10 5 1]", "+U [10 14 2]"}, rows)
	rows = same(orders.Join(customers, table.Col("cust").Eq(table.Col("c_id"))).Select(table.Col("o_id"), table.Col("name")),
		"SELECT o_id, name FROM orders JOIN customers ON cust = c_id")
	require.ElementsMatch(t, []string{"+I [1 ann]", "+I [2 bob]", "+I [3 ann]"}, rows)
	rows = same(orders.Select(table.Col("cust")).UnionAll(customers.Select(table.Col("c_id"))),
		"SELECT cust FROM orders UNION ALL SELECT c_id FROM customers")
	require.Len(t, rows, 5)
	_, got := collect(t, orders.Select(table.Col("cust")).Union(customers.Select(table.Col("c_id"))))
	require.Len(t, got, 2)
	_, got = collect(t, env.FromValues([]string{"a", "b"}, []any{1, "x"}, []any{2, "y"}).Filter(table.Col("a").Ge(2)))
	require.Equal(t, []string{"+I [2 y]"}, got)

	// A PTF over a filtered, projected table, then aggregated.
	perCust := orders.Filter(table.Col("amount").Gt(6)).Select(table.Col("cust"), table.Col("amount")).
		PartitionBy("cust").Process(examples.PassThroughEnrich).
		GroupBy(table.Col("cust")).Select(table.Col("cust"), table.Col("EXPR$0").Max().As("n"))
	_, got = collect(t, perCust)
	require.Equal(t, []string{"+I [20 1]", "+I [10 1]"}, got)
}

func TestExplain(t *testing.T) {
	env := newEnv(t)
	setup(t, env)
	plan, err := env.From("temperature_readings").PartitionBy("sensor_id").
		Process(examples.Median, table.Lit(3).AsArgument("numTrailing")).Explain(context.Background())
	require.NoError(t, err)
	require.Contains(t, plan, "== Optimized Execution Plan ==")
	require.Contains(t, plan, "ProcessTableFunction(function=[Median]")
	require.Contains(t, plan, "Exchange(distribution=[hash[sensor_id]])")
}

// sinkRows reads a table through SQL; the script synchronisation first
// lets the running statements catch up.
func sinkRows(t *testing.T, env *table.Environment, sql string) []string {
	t.Helper()
	_, rows := rowsOf(t, env, sql)
	return rows
}

// ExecuteInsert submits a durable statement; its handle stops, resumes and
// deletes it in the same process, and the state survives the stop.
func TestStatementLifecycleKeepsState(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t, table.WithApplicationName("shop"))
	run(t, env,
		"CREATE TABLE clicks (user_id INT, url STRING)",
		"CREATE TABLE enriched (user_id INT, url STRING, n BIGINT)",
		"INSERT INTO clicks VALUES (1, '/a'), (1, '/b')")
	env.SetStatementName("enrich")
	res, err := env.From("clicks").PartitionBy("user_id").Process(examples.PassThroughEnrich).ExecuteInsert(ctx, "enriched")
	require.NoError(t, err)
	h := res.Statement()
	require.NotNil(t, h)
	require.Equal(t, "shop-enrich", h.Name())
	require.Contains(t, res.Message, "Submitted statement 'shop-enrich'")
	require.Equal(t, []string{"+I [/a 1]", "+I [/b 2]"}, sinkRows(t, env, "SELECT url, n FROM enriched"))

	require.NoError(t, h.Stop(ctx))
	phase, err := h.Phase(ctx)
	require.NoError(t, err)
	require.Equal(t, v1.Stopped, phase)
	run(t, env, "INSERT INTO clicks VALUES (1, '/c')")
	require.Len(t, sinkRows(t, env, "SELECT url, n FROM enriched"), 2, "a stopped statement writes nothing")

	require.NoError(t, h.Resume(ctx))
	// The count goes on from the checkpoint: /c is the third click.
	require.Equal(t, []string{"+I [/a 1]", "+I [/b 2]", "+I [/c 3]"}, sinkRows(t, env, "SELECT url, n FROM enriched"))

	sts, err := env.ListStatements(ctx)
	require.NoError(t, err)
	require.Len(t, sts, 1)
	require.Equal(t, "shop-enrich", sts[0].Name)
	require.Equal(t, h.Name(), env.Statement("enrich").Name())

	require.NoError(t, h.Delete(ctx))
	_, err = h.Phase(ctx)
	require.ErrorContains(t, err, "shop-enrich")
	run(t, env, "INSERT INTO clicks VALUES (1, '/d')")
	require.Len(t, sinkRows(t, env, "SELECT url, n FROM enriched"), 3, "a deleted statement writes nothing")

	// The name was for one statement only, and names are checked.
	env.SetStatementName("Bad_Name")
	_, err = env.From("clicks").Select(table.Col("user_id"), table.Col("url"), table.Lit(int64(0))).ExecuteInsert(ctx, "enriched")
	require.ErrorContains(t, err, "Invalid statement name 'shop-Bad_Name'")
	res, err = env.From("clicks").Select(table.Col("user_id"), table.Col("url"), table.Lit(int64(0))).ExecuteInsert(ctx, "enriched")
	require.NoError(t, err)
	require.NotEqual(t, "shop-Bad_Name", res.Statement().Name())
}

// With a data directory, closing the environment keeps the statements and
// their state: the next environment on the directory resumes them.
func TestStatementsOutliveTheEnvironment(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	env, err := table.New(ctx, table.WithDataDir(dir))
	require.NoError(t, err)
	run(t, env,
		// A permanent function, so that the statement resolves it in the
		// next process too.
		"CREATE FUNCTION PassThroughEnrich AS 'examples.PassThroughEnrich'",
		"CREATE TABLE clicks (user_id INT, url STRING)",
		"CREATE TABLE enriched (user_id INT, url STRING, n BIGINT)",
		"INSERT INTO clicks VALUES (1, '/a'), (1, '/b')")
	env.SetStatementName("enrich")
	_, err = env.From("clicks").PartitionBy("user_id").Process(examples.PassThroughEnrich).ExecuteInsert(ctx, "enriched")
	require.NoError(t, err)
	require.Len(t, sinkRows(t, env, "SELECT * FROM enriched"), 2)
	require.NoError(t, env.Close())

	env, err = table.New(ctx, table.WithDataDir(dir))
	require.NoError(t, err)
	defer env.Close()
	phase, err := env.Statement("enrich").Phase(ctx)
	require.NoError(t, err)
	require.Equal(t, v1.Running, phase)
	run(t, env, "INSERT INTO clicks VALUES (1, '/c')")
	require.Equal(t, []string{"+I [/a 1]", "+I [/b 2]", "+I [/c 3]"}, sinkRows(t, env, "SELECT url, n FROM enriched"))
	require.NoError(t, env.Statement("enrich").Delete(ctx))
}

// A statement set submits its INSERTs together: all or none.
func TestStatementSet(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t)
	run(t, env,
		"CREATE TABLE clicks (user_id INT, url STRING)",
		"CREATE TABLE home (user_id INT, url STRING)",
		"CREATE TABLE counts (user_id INT, n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED)",
		"INSERT INTO clicks VALUES (1, '/home'), (2, '/shop'), (1, '/shop')")
	clicks := env.From("clicks")
	set := env.CreateStatementSet().
		AddInsert("home", clicks.Filter(table.Col("url").Eq("/home"))).
		AddInsert("counts", clicks.GroupBy(table.Col("user_id")).Select(table.Col("user_id"), table.CountStar()))
	q, err := set.SQL(ctx)
	require.NoError(t, err)
	require.Equal(t, "EXECUTE STATEMENT SET\nBEGIN\nINSERT INTO home SELECT * FROM clicks WHERE (url = '/home');\n"+
		"INSERT INTO counts SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\nEND", q)
	plan, err := set.Explain(ctx)
	require.NoError(t, err)
	require.Contains(t, plan, "Sink(table=[default_catalog.default_database.counts]")
	env.SetStatementName("fanout")
	res, err := set.Execute(ctx)
	require.NoError(t, err)
	// The engine runs EXECUTE STATEMENT SET: one durable statement.
	require.Len(t, res.Statements(), 1)
	require.Equal(t, []string{"+I [1 /home]"}, sinkRows(t, env, "SELECT * FROM home"))
	_, counts := rowsOf(t, env, "SELECT * FROM counts")
	require.Contains(t, counts, "+I [2 1]")

	// An error in any statement submits none.
	env.SetStatementName("broken")
	_, err = env.CreateStatementSet().
		AddInsert("home", clicks).
		AddInsertSQL("INSERT INTO nope SELECT * FROM clicks").Execute(ctx)
	require.ErrorContains(t, err, "nope")
	sts, err := env.ListStatements(ctx)
	require.NoError(t, err)
	var names []string
	for _, st := range sts {
		names = append(names, st.Name)
	}
	require.ElementsMatch(t, []string{res.Statements()[0].Name()}, names)
}

// As renames columns, so that a self-join's sides differ.
func TestRenameAndSelfJoin(t *testing.T) {
	env := newEnv(t)
	run(t, env, "CREATE TABLE edges (src INT, dst INT)", "INSERT INTO edges VALUES (1, 2), (2, 3)")
	e := env.From("edges")
	paths := e.Join(e.As("src2", "dst2"), table.Col("dst").Eq(table.Col("src2"))).Select(table.Col("src"), table.Col("dst2"))
	_, rows := collect(t, paths)
	require.Equal(t, []string{"+I [1 3]"}, rows)
	_, err := e.As("a").Execute(context.Background())
	require.Error(t, err)
}

// CreateFunction binds a registered definition permanently; Process then
// calls it by that name. An unregistered definition is refused, and a
// generated binding does not take a name bound to another function.
func TestCreateFunction(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t, table.WithFunctions(map[string]*ptf.Definition{"test.Once": once}))
	require.NoError(t, env.CreateFunction(ctx, "RunOnce", once))
	require.Equal(t, "SELECT * FROM RunOnce(n => 1)", sqlOf(t, env.FromCall(once, table.Lit(1).AsArgument("n"))))
	_, rows := rowsOf(t, env, "SHOW USER FUNCTIONS")
	require.Equal(t, []string{"+I [RunOnce test.Once <NULL>]"}, rows)

	other := &ptf.Definition{Args: once.Args, Output: once.Output, Eval: once.Eval}
	require.ErrorContains(t, env.CreateFunction(ctx, "Other", other), "the definition is not registered")
	// A function named Median exists already, for another id.
	run(t, env, "CREATE TEMPORARY FUNCTION Median AS 'examples.PassThroughEnrich'")
	setup(t, env)
	q := sqlOf(t, env.From("temperature_readings").PartitionBy("sensor_id").Process(examples.Median, table.Lit(3)))
	require.Equal(t, "SELECT * FROM Median_1(TABLE temperature_readings PARTITION BY (sensor_id), 3)", q)
}

// Re-running a program on its data directory is idempotent: an unchanged
// statement is left running with its state; a changed one is a conflict,
// or is replaced with WithOnConflict(deploy.Replace).
func TestRedeploy(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	program := func(minLen int, opts ...table.Option) (*table.Environment, *table.Result, error) {
		env, err := table.New(ctx, append([]table.Option{table.WithDataDir(dir), table.WithApplicationName("shop")}, opts...)...)
		require.NoError(t, err)
		run(t, env,
			"CREATE TABLE IF NOT EXISTS clicks (user_id INT, url STRING)",
			"CREATE TABLE IF NOT EXISTS enriched (user_id INT, url STRING, n BIGINT)")
		require.NoError(t, env.CreateFunction(ctx, "PassThroughEnrich", examples.PassThroughEnrich))
		env.SetStatementName("enrich")
		res, err := env.From("clicks").Filter(table.Call("CHAR_LENGTH", table.Col("url")).Ge(minLen)).
			PartitionBy("user_id").Process(examples.PassThroughEnrich).ExecuteInsert(ctx, "enriched")
		return env, res, err
	}
	env, res, err := program(2)
	require.NoError(t, err)
	require.Equal(t, deploy.Created, res.Outcome)
	run(t, env, "INSERT INTO clicks VALUES (1, '/a'), (1, '/b')")
	require.Len(t, sinkRows(t, env, "SELECT * FROM enriched"), 2)
	require.NoError(t, env.Close())

	env, res, err = program(2)
	require.NoError(t, err)
	require.Equal(t, deploy.Unchanged, res.Outcome)
	require.Equal(t, "Statement 'shop-enrich' is unchanged (phase RUNNING): it exists already with the same SQL and properties.", res.Message)
	run(t, env, "INSERT INTO clicks VALUES (1, '/c')")
	require.Equal(t, []string{"+I [/a 1]", "+I [/b 2]", "+I [/c 3]"}, sinkRows(t, env, "SELECT url, n FROM enriched"))
	require.NoError(t, env.Close())

	env, _, err = program(3)
	require.ErrorContains(t, err, "statement 'shop-enrich' exists already with a different spec")
	require.ErrorContains(t, err, "CHAR_LENGTH(url) >= 3")
	require.NoError(t, env.Close())

	env, res, err = program(3, table.WithOnConflict(deploy.Replace))
	require.NoError(t, err)
	require.Equal(t, deploy.Replaced, res.Outcome)
	require.Contains(t, res.Message, "Statement 'shop-enrich' replaced")
	require.NoError(t, res.Statement().Delete(ctx))
	require.NoError(t, env.Close())

	_, err = table.New(ctx, table.WithOnConflict(deploy.Replace))
	require.ErrorContains(t, err, "needs WithApplicationName")
}

// A statement of a data directory that calls a function bound only for
// this environment says that it resumes in this process only.
func TestTemporaryFunctionNote(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t, table.WithDataDir(t.TempDir()))
	run(t, env, "CREATE TABLE clicks (user_id INT, url STRING)", "CREATE TABLE enriched (user_id INT, url STRING, n BIGINT)")
	res, err := env.From("clicks").PartitionBy("user_id").Process(examples.PassThroughEnrich).ExecuteInsert(ctx, "enriched")
	require.NoError(t, err)
	require.Contains(t, res.Message, "Note: it calls the temporary function(s) PassThroughEnrich of this environment, so it resumes in this process only")
	require.NoError(t, res.Statement().Delete(ctx))

	require.NoError(t, env.CreateFunction(ctx, "Enrich", examples.PassThroughEnrich))
	res, err = env.From("clicks").PartitionBy("user_id").Process(examples.PassThroughEnrich, table.Lit("v2").AsArgument("uid")).ExecuteInsert(ctx, "enriched")
	require.NoError(t, err)
	require.NotContains(t, res.Message, "Note:")
	q, err := env.From("clicks").PartitionBy("user_id").Process(examples.PassThroughEnrich).SQL(ctx)
	require.NoError(t, err)
	require.Equal(t, "SELECT * FROM Enrich(TABLE clicks PARTITION BY (user_id))", q)
}

// The upsert tutorial's CREATE TABLE … AS SELECT through ExecuteSQL is a
// durable statement with a handle, like ExecuteInsert.
func TestCreateTableAsSelectStatement(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t)
	run(t, env,
		"CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker'",
		"CREATE TABLE order_events (order_id INT NOT NULL, event_type STRING, event_time TIMESTAMP(3), WATERMARK FOR event_time AS event_time) DISTRIBUTED INTO 1 BUCKETS",
		`INSERT INTO order_events VALUES
		  (101, 'PLACED',    TIMESTAMP '2026-08-01 09:00:00'), (102, 'PLACED',    TIMESTAMP '2026-08-01 09:00:02'),
		  (103, 'PLACED',    TIMESTAMP '2026-08-01 09:00:03'), (101, 'FULFILLED', TIMESTAMP '2026-08-01 09:00:10'),
		  (102, 'CANCELED',  TIMESTAMP '2026-08-01 09:00:15'), (101, 'SHIPPED',   TIMESTAMP '2026-08-01 09:00:30'),
		  (101, 'DELIVERED', TIMESTAMP '2026-08-01 09:01:00')`,
		"SET 'client.statement-name' = 'order-status'")
	res, err := env.ExecuteSQL(ctx, `CREATE TABLE order_status (PRIMARY KEY (order_id) NOT ENFORCED) DISTRIBUTED INTO 1 BUCKETS
		WITH ('changelog.mode' = 'upsert') AS
		SELECT order_id, status FROM OrderStatusTracker(input => TABLE order_events PARTITION BY order_id)`)
	require.NoError(t, err)
	require.Equal(t, "order-status", res.Statement().Name())
	require.Equal(t, deploy.Created, res.Outcome)
	phase, err := res.Statement().Phase(ctx)
	require.NoError(t, err)
	require.Equal(t, v1.Running, phase)
	_, rows := collect(t, env.From("order_status"))
	require.NotEmpty(t, rows)
	// The materialized result: 101 DELIVERED, 103 PENDING, 102 gone.
	alive := map[string]string{}
	for _, r := range rows {
		var kind, id, status string
		_, _ = fmt.Sscanf(r, "%s [%s %s", &kind, &id, &status)
		status = status[:len(status)-1]
		if kind == "-D" || kind == "-U" {
			delete(alive, id)
		} else {
			alive[id] = status
		}
	}
	require.Equal(t, map[string]string{"101": "DELIVERED", "103": "PENDING"}, alive)
}

// GroupBy keys named with As group by the expression; InsertSQL renders
// the statement ExecuteInsert submits.
func TestGroupByNamedKeyAndInsertSQL(t *testing.T) {
	ctx := context.Background()
	env := newEnv(t)
	run(t, env, "CREATE TABLE orders (cust INT, amount INT)", "INSERT INTO orders VALUES (1, 5), (2, 7), (3, 9)")
	key := table.Col("cust").Div(2).As("half")
	_, rows := collect(t, env.From("orders").GroupBy(key).Select(key, table.CountStar().As("n")))
	require.Equal(t, []string{"+I [0 1]", "+I [1 1]", "-U [1 1]", "+U [1 2]"}, rows)
	q, err := env.From("orders").Filter(table.Col("amount").Gt(6)).InsertSQL(ctx, "big_orders")
	require.NoError(t, err)
	require.Equal(t, "INSERT INTO big_orders SELECT * FROM orders WHERE (amount > 6)", q)
}
