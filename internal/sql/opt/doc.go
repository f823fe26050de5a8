// Package opt turns a bound statement (a logical plan of package plan)
// into a job (package jobgraph), in three steps (DESIGN §5, decision
// 0015):
//
//   - Rewrite rules (rules.go, one rule_*.go file each) run bottom-up to
//     a fixed point: calc merge and identity removal, filters into joins,
//     join conditions, unions and aggregates, join input pruning. They run
//     from plan version 2 (plan.PlanV2); version 1 translates the bound
//     plan as it is, so that statements created before the rules resume
//     with the operators their state was built by.
//   - Changelog inference: each operator's needs from its inputs place
//     ChangelogNormalize (normalize.go) and the sink upsert materializer
//     (opt.go) only where an input gives less than its consumer needs;
//     the changelog each node then emits is inferred for EXPLAIN
//     (traits.go).
//   - Physical translation (physical.go): one operator per node, with the
//     uid the plan gave it, HASH edges into keyed operators.
//
// Explain prints the three forms as Flink's EXPLAIN does. The package
// never imports the runtime: its output is plain data.
package opt
