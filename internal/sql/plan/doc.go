// Package plan binds parsed statements into logical plans (DESIGN §5): it
// resolves tables and functions in the catalog, binds column names and
// types, type-checks expressions, inlines views and named queries, turns
// subqueries into joins, and plans process table function calls with
// Flink's rules (arguments, PARTITION BY, on_time, uid, output schema,
// changelog modes). The result is a tree of relational nodes rooted at a
// Sink (logical.go, nodes.go), with the changelog each node provides
// (changelog.go); package opt rewrites it, places changelog normalizes and
// the sink upsert materializer, and translates it into a jobgraph.Job.
//
// Errors are *sqlerr.Error positioned at the offending token with a hint.
//
// The planner never imports the runtime: its output is plain data.
package plan
