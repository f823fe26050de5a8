// Package state is the keyed state backend of operators: value, list and
// map state and named/unnamed timers per (namespace, key), as raw bytes.
// The operator layer (the PTF host) encodes values and TTL on top.
//
// Two implementations share one engine, so they have the same semantics,
// key layout and ordering:
//
//   - Pebble (NewPebble) reads and writes through a job's indexed
//     store.Batch. Reads see the job's own uncommitted writes; the state
//     commits atomically with the job's log output and source positions
//     when the batch is committed at a checkpoint.
//   - Memory (NewMemory) keeps everything in an ordered in-memory map, for
//     unit tests and the PTF test harness; Snapshot and Restore copy all of
//     it.
//
// # Layout
//
// Namespaces (operator uids), keys and names are escaped with
// store.AppendBytes, so no namespace or key is a prefix of another and a
// key's entries are contiguous:
//
//	0x30 ns key name 'v'          value state
//	0x30 ns key name 'L'          list metadata: uvarint head, uvarint tail
//	0x30 ns key name 'l' idx      list element idx (u64 BE), head <= idx < tail
//	0x30 ns key name 'm' mapkey   map entry; map keys sort bytewise
//	0x31 ns 0x01 time key name    timer, in firing order (time sign-flipped BE)
//	0x31 ns 0x02 key 0x00 time    index of the unnamed timers of a key
//	0x31 ns 0x02 key 0x01 name    index of a named timer -> its time
//
// A list append writes one element and the metadata; removing from the front
// advances head; nothing rewrites the list. ClearKey and MapClear delete
// entries one by one rather than with range tombstones, which would slow
// every later read through the batch. Timers fire in (time, key bytes,
// name) order with the unnamed timer of a (key, time) first, as DESIGN.md
// §5 requires. Fired timers leave tombstones at the front of the by-time
// range, so each backend remembers per namespace a time below which no
// timer is pending and starts due-timer scans there; registering an earlier
// timer lowers it, and discarded writes (Batch.Reset, Memory.Restore) reset
// it. This assumes one backend writes a namespace's timers at a time.
//
// # Concurrency
//
// A Backend is not safe for concurrent use: each task owns its backend and
// its batch. Namespaces keep the operators of one job apart in one batch.
package state
