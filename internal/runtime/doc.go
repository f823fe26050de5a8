// Package runtime executes planned jobs (package jobgraph) on the embedded
// engine.
//
// A running job has two goroutines, both owned by the Job and awaited by
// Wait:
//
//	source task: merged log reader (global append order) -> decode ->
//	             computed columns -> watermarks  ==batches==>
//	keyed task:  changelog normalize -> calc -> PTF host -> calc -> sink
//
// Data crosses from the source task to the keyed task in batches over a
// bounded channel, which gives backpressure. Watermarks travel in-band,
// right after the record that raised them (Flink's on-event strategy), so
// results are deterministic. Checkpoint barriers also travel in-band: when
// the keyed task sees one it writes dirty state into the job's batch and
// commits state, sink output and source positions in one atomic Pebble
// batch.
//
// The runtime never calls time.Now: processing time (state TTL) comes from
// an injected Clock.
package runtime
