// Package connector is the interface between Eddy and external systems
// (docs/decisions/0008-kafka-tables.md §1, 0018-connector-factories.md).
//
// The runtime side: a Source the runtime reads records from, a Sink it
// writes rows to, with the hooks that tie an external transaction to the
// job's Pebble checkpoint, and a Generator for computed tables.
//
// The planner side: every connector registers a Factory in a Registry
// with its identifier, its option declarations (name, type, required,
// default, doc, secret) and metadata keys, and constructors of its source
// and sink. The Registry validates a table's options against the
// declarations (unknown keys get a "did you mean"); docs/connectors.md is
// generated from them.
//
// The package holds no connector; they live in the packages below it
// (kafka, datagen, filesystem, print, blackhole), and package builtin
// assembles the registry of the eddy binary.
package connector
