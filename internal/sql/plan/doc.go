// Package plan turns parsed statements into jobs (package jobgraph): it
// resolves tables and functions in the catalog, binds column names and
// types, type-checks expressions, plans process table function calls with
// Flink's rules (arguments, PARTITION BY, on_time, uid, output schema,
// changelog modes), derives each stream's changelog mode and upsert key,
// and inserts a changelog normalize where a consumer needs -U and full
// deletes.
//
// Errors are *sqlerr.Error positioned at the offending token with a hint.
//
// The planner never imports the runtime: its output is plain data.
package plan
