// Package datagen is the 'datagen' connector: tables whose rows are
// generated, with the options of Flink's DataGen connector, and the tables
// of the built-in examples.marketplace catalog, which generate data the way
// Confluent Cloud's examples catalog does.
//
// Generation is deterministic by row index: row i of a table is a pure
// function of the table's seed (derived from its name), the column and i,
// computed with a splitmix64 hash and mapped into the column's range. The
// same table gives the same rows in every run, and a source resumes from
// the number of rows it emitted. Timestamps count from the table's creation
// time ('eddy.created-at'): row i "happens" at created-at + i/rows-per-second.
//
// A Generator is immutable and safe for concurrent use. The package knows
// nothing about SQL parsing, the catalog or the runtime: the planner
// validates a table's options with New and hands the Generator to the
// runtime's source task, which reads it instead of a log.
package datagen
