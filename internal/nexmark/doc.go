// Package nexmark runs the Nexmark benchmark on Eddy: the suite's Flink
// scripts (examples/nexmark) with their ${…} placeholders filled in as
// the suite's QueryRunner does (Script), checking a query's final result
// against the plain-Go reference implementation (Verify, used by
// TestQueries and `eddy bench nexmark --check`), measuring what each
// query costs per core (Bench), and the `eddy bench nexmark` command
// (Command). Queries lists q0 … q22 with what each one that does not run
// yet waits for.
package nexmark
