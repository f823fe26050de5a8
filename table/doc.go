// Package table is Eddy's Table API for Go programs, Flink's
// TableEnvironment, Table and StatementSet on the embedded engine.
//
//	env, _ := table.New(ctx, table.WithDataDir(dir))
//	res, _ := env.From("temperature_readings").
//		PartitionBy("sensor_id").
//		Process(examples.Median, table.Lit(3).AsArgument("numTrailing")).
//		Execute(ctx)
//
// is `SELECT * FROM Median(input => TABLE temperature_readings PARTITION BY
// (sensor_id), numTrailing => 3)`, as Flink's
// tableEnv.from(...).partitionBy($("sensor_id")).process(Median.class, lit(3).asArgument("numTrailing")).
//
// A Table renders to one SQL query (Table.SQL) that the planner plans as
// SQL: calls with positional or named arguments and several tables
// (Environment.FromCall), PARTITION BY and ORDER BY of table arguments,
// calls over calls, and Select, Filter, GroupBy, Join, Union on any Table.
// Execute returns the rows of a snapshot query; ExecuteInsert and
// StatementSet submit durable statements of the data directory, which the
// returned StatementHandle stops, resumes (from the checkpoint of the
// stop) and deletes, and which resume when the directory is opened again.
// See docs/writing-functions.md, "Calling a function from the Go Table
// API", and docs/decisions/0023-table-api.md.
package table
