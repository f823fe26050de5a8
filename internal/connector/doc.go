// Package connector is the small interface between the runtime and
// external systems (docs/decisions/0008-kafka-tables.md §1): a Source the
// runtime reads records from and a Sink it writes rows to, with the hooks
// that tie an external transaction to the job's Pebble checkpoint. It holds
// no implementation; internal/connector/kafka implements it with franz-go,
// and the runtime's tests use fakes.
package connector
