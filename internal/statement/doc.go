// Package statement manages statements as named, durable resources, as
// Confluent Cloud does: create, list, get, stop/resume through
// spec.stopped with optimistic concurrency, delete, exceptions and results.
//
// A statement's spec and status are stored in the data directory. INSERT
// and CREATE TABLE AS SELECT statements run as background jobs whose state,
// timers, sink output and source positions commit together at every
// checkpoint; a statement that was running when the process stopped (even
// by kill -9) resumes from its last checkpoint when the manager opens
// again, so every input row's effect appears exactly once in every sink.
//
// Phases: PENDING -> RUNNING -> COMPLETED | FAILED; RUNNING -> STOPPING ->
// STOPPED -> (resume) PENDING -> RUNNING; any -> DELETING -> gone.
package statement
