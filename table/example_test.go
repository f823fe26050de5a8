package table_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/table"
	"github.com/eddy-sql/eddy/types"
)

// These examples are the ones docs/writing-functions.md shows in its
// section on the Table API (TestDocExamples checks that they match).

func printRows(ctx context.Context, res *table.Result) {
	rows, err := res.Collect(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.Join(res.Schema().Names(), " | "))
	for _, r := range rows {
		fmt.Println(r.Kind, r.Values)
	}
}

func mustSQL(ctx context.Context, env *table.Environment, stmts ...string) {
	for _, s := range stmts {
		if _, err := env.ExecuteSQL(ctx, s); err != nil {
			panic(err)
		}
	}
}

// The quickstart's Step 3a: tableEnv.from(...).partitionBy($("sensor_id")).
// process(Median.class, lit(3).asArgument("numTrailing")).execute().
func ExampleTable_Process_median() {
	ctx := context.Background()
	env, err := table.New(ctx)
	if err != nil {
		panic(err)
	}
	defer env.Close()
	mustSQL(ctx, env,
		"CREATE TABLE temperature_readings (sensor_id INT, temperature DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)",
		`INSERT INTO temperature_readings VALUES (1, 20.0, TIMESTAMP '2026-08-01 10:00:00'),
		  (1, 22.0, TIMESTAMP '2026-08-01 10:00:01'), (1, 21.0, TIMESTAMP '2026-08-01 10:00:02'),
		  (1, 24.0, TIMESTAMP '2026-08-01 10:00:03'), (1, 23.0, TIMESTAMP '2026-08-01 10:00:04')`)

	median := env.From("temperature_readings").
		PartitionBy("sensor_id").
		Process(examples.Median, table.Lit(3).AsArgument("numTrailing"), table.Lit("median-v1").AsArgument("uid"))
	q, _ := median.SQL(ctx)
	fmt.Println(q)
	res, err := median.Execute(ctx)
	if err != nil {
		panic(err)
	}
	printRows(ctx, res)
	// Output:
	// SELECT * FROM Median(input => TABLE temperature_readings PARTITION BY (sensor_id), numTrailing => 3, uid => 'median-v1')
	// sensor_id | temperature | median
	// +I [1 20.0 20.0]
	// +I [1 22.0 21.0]
	// +I [1 21.0 21.0]
	// +I [1 24.0 22.0]
	// +I [1 23.0 23.0]
}

// Several table arguments: env.fromCall(MtControlStream.class,
// events.partitionBy($("tenant_id")).asArgument("events"), ...).
func ExampleEnvironment_FromCall() {
	ctx := context.Background()
	env, _ := table.New(ctx)
	defer env.Close()
	mustSQL(ctx, env,
		"CREATE TABLE events (tenant_id STRING, payload STRING)",
		"CREATE TABLE control (tenant_id STRING, mode STRING)",
		"INSERT INTO control VALUES ('T1', 'turbo')",
		"INSERT INTO events VALUES ('T1', 'p1'), ('T1', 'p2'), ('T2', 'p3')")

	tagged := env.FromCall(examples.MtControlStream,
		env.From("events").PartitionBy("tenant_id").AsArgument("events"),
		env.From("control").PartitionBy("tenant_id").AsArgument("control"),
		table.Lit("mt-control-stream-v1").AsArgument("uid"))
	res, err := tagged.Select(table.Col("tenant_id"), table.Col("payload"), table.Col("active_mode")).Execute(ctx)
	if err != nil {
		panic(err)
	}
	printRows(ctx, res)
	// Output:
	// tenant_id | payload | active_mode
	// +I [T1 p1 turbo]
	// +I [T1 p2 turbo]
	// +I [T2 p3 default]
}

// Filter, a function call, and an aggregation over its result, chained on
// Table values; positional arguments work as in SQL.
func ExampleTable_GroupBy() {
	ctx := context.Background()
	env, _ := table.New(ctx)
	defer env.Close()
	mustSQL(ctx, env,
		"CREATE TABLE clicks (user_id INT, url STRING)",
		"INSERT INTO clicks VALUES (1234, '/home'), (1234, '/shop'), (5678, '/home'), (1234, '/cart')")

	counted := env.From("clicks").
		Filter(table.Col("url").Ne("/cart")).
		PartitionBy("user_id").
		Process(examples.PassThroughEnrich). // appends EXPR$0, the running count
		GroupBy(table.Col("user_id")).
		Select(table.Col("user_id"), table.Col("EXPR$0").Max().As("clicks"))
	res, err := counted.Execute(ctx)
	if err != nil {
		panic(err)
	}
	printRows(ctx, res)
	// Output:
	// user_id | clicks
	// +I [1234 1]
	// -U [1234 1]
	// +U [1234 2]
	// +I [5678 1]
}

// A durable statement: ExecuteInsert submits it, its handle stops, resumes
// and deletes it, and the state survives the stop.
func ExampleStatementHandle() {
	ctx := context.Background()
	env, _ := table.New(ctx, table.WithApplicationName("marketplace"))
	defer env.Close()
	mustSQL(ctx, env,
		"CREATE TABLE clicks (user_id INT, url STRING)",
		"CREATE TABLE enriched (user_id INT, url STRING, running_count BIGINT)",
		"INSERT INTO clicks VALUES (1234, '/home'), (1234, '/shop')")

	env.SetStatementName("enrich-clicks")
	res, err := env.From("clicks").PartitionBy("user_id").Process(examples.PassThroughEnrich).ExecuteInsert(ctx, "enriched")
	if err != nil {
		panic(err)
	}
	handle := res.Statement()
	fmt.Println(handle.Name())

	if err := handle.Stop(ctx); err != nil {
		panic(err)
	}
	phase, _ := handle.Phase(ctx)
	fmt.Println(phase)
	mustSQL(ctx, env, "INSERT INTO clicks VALUES (1234, '/cart')")
	if err := handle.Resume(ctx); err != nil {
		panic(err)
	}
	out, _ := env.ExecuteSQL(ctx, "SELECT * FROM enriched")
	printRows(ctx, out)
	if err := handle.Delete(ctx); err != nil {
		panic(err)
	}
	// Output:
	// marketplace-enrich-clicks
	// STOPPED
	// user_id | url | running_count
	// +I [1234 /home 1]
	// +I [1234 /shop 2]
	// +I [1234 /cart 3]
}

// A statement set submits several INSERTs together.
func ExampleStatementSet() {
	ctx := context.Background()
	env, _ := table.New(ctx)
	defer env.Close()
	mustSQL(ctx, env,
		"CREATE TABLE clicks (user_id INT, url STRING)",
		"CREATE TABLE home_clicks (user_id INT, url STRING)",
		"CREATE TABLE clicks_per_user (user_id INT, n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED)",
		"INSERT INTO clicks VALUES (1234, '/home'), (1234, '/shop'), (5678, '/home')")

	clicks := env.From("clicks")
	set := env.CreateStatementSet().
		AddInsert("home_clicks", clicks.Filter(table.Col("url").Eq("/home"))).
		AddInsert("clicks_per_user", clicks.GroupBy(table.Col("user_id")).Select(table.Col("user_id"), table.CountStar()))
	env.SetStatementName("clicks-fanout")
	res, err := set.Execute(ctx)
	if err != nil {
		panic(err)
	}
	for _, h := range res.Statements() {
		fmt.Println(h.Name())
	}
	out, _ := env.ExecuteSQL(ctx, "SELECT * FROM home_clicks")
	printRows(ctx, out)
	// Output:
	// clicks-fanout
	// user_id | url
	// +I [1234 /home]
	// +I [5678 /home]
}

// Explain prints the plan of a pipeline, as EXPLAIN does.
func ExampleTable_Explain() {
	ctx := context.Background()
	env, _ := table.New(ctx)
	defer env.Close()
	mustSQL(ctx, env, "CREATE TABLE clicks (user_id INT, url STRING)")

	plan, err := env.From("clicks").PartitionBy("user_id").Process(examples.PassThroughEnrich).Explain(ctx)
	if err != nil {
		panic(err)
	}
	for _, line := range strings.Split(plan, "\n") {
		if strings.HasPrefix(line, "==") {
			fmt.Println(line)
		}
	}
	// Output:
	// == Abstract Syntax Tree ==
	// == Optimized Physical Plan ==
	// == Optimized Execution Plan ==
}

// Literal rows make a pipeline testable without tables, as Flink's
// fromValues.
func ExampleEnvironment_FromValues() {
	ctx := context.Background()
	env, _ := table.New(ctx)
	defer env.Close()

	readings := env.FromValues([]string{"sensor_id", "value"},
		[]any{1, 99.5}, []any{1, 120.0}, []any{2, types.NewFloat(101)})
	res, err := readings.PartitionBy("sensor_id").
		Process(examples.ThresholdFilter, table.Lit(100.0).AsArgument("threshold")).
		Execute(ctx)
	if err != nil {
		panic(err)
	}
	printRows(ctx, res)
	// Output:
	// sensor_id | value | EXPR$0
	// +I [1 99.5 FALSE]
	// +I [1 120.0 TRUE]
	// +I [2 101.0 TRUE]
}
