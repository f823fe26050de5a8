// Package udf is the SDK for writing user-defined SQL functions in Go:
// scalar functions, table functions and aggregate functions, with the
// contracts of Apache Flink's ScalarFunction, TableFunction and
// AggregateFunction.
//
// A function is a plain value: a *Scalar, a *Table or an *Aggregate[ACC].
// Its overloads declare the SQL types of the arguments and of the result,
// as PTF signatures do ("INT", "STRING NOT NULL", "ARRAY<DOUBLE>"), or
// derive the result type from the argument types of each call (type
// inference). Typed helpers build overloads from ordinary Go functions:
//
//	udf.Func2(func(ctx context.Context, s string, n int64) (string, error) { ... })
//
// declares (STRING NOT NULL, BIGINT NOT NULL) -> STRING NOT NULL; pointer
// parameters (*int64) accept NULL (nil) and a pointer result may return
// NULL.
//
// NULL handling follows one rule for every kind: an argument declared NOT
// NULL never sees NULL. When such an argument is NULL, a scalar function
// returns NULL without being called, a table function emits no rows and an
// aggregate function skips the row. Arguments declared nullable see NULL
// values, and handling them is the function's job, as in Flink.
//
// Functions are registered under ids in a Registry, built into an eddy
// binary with eddy.Main(eddy.WithUserFunctions(...)), and bound to SQL
// names with CREATE FUNCTION name AS 'id'. An error returned by a function,
// or a panic in it, fails the statement that called it, with the error
// recorded; the process keeps running.
//
// Package udf imports nothing internal to Eddy; package udftest runs
// functions without an engine, for unit tests.
package udf
