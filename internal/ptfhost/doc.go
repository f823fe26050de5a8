// Package ptfhost runs one process table function call outside a job, for
// the PTF test harness (package ptf/ptftest): it plans the call with the
// same validation as SQL (internal/sql/plan) and drives the runtime's
// function operator (internal/runtime) on in-memory state with a manual
// processing-time clock.
//
// It is the seam between the public harness and the engine's internals:
// ptftest imports only this package, ptf and types, so that the runtime,
// the job graph and the planner can change without changing the harness's
// API (see docs/ARCHITECTURE.md).
package ptfhost
