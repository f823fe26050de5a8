// Package table is Eddy's Table API for Go programs: it builds the same
// statements as SQL, against the embedded engine.
//
//	env, _ := table.New(ctx, table.WithDataDir(dir))
//	res, _ := env.From("temperature_readings").
//		PartitionBy("sensor_id").
//		Process(examples.Median, table.Lit(3).As("numTrailing")).
//		Execute(ctx)
//
// is `SELECT * FROM Median(input => TABLE temperature_readings PARTITION BY
// sensor_id, numTrailing => 3)`, as in Flink's
// tableEnv.from(...).partitionBy($("sensor_id")).process(Median.class, lit(3).asArgument("numTrailing")).
package table
