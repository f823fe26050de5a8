// Package logstore implements Eddy's log tables: append-only, partitioned
// logs kept in the store's Pebble instance, the embedded equivalent of Kafka
// topics (DESIGN.md §4).
//
// A log has n partitions. Each record has an offset in its partition (dense,
// from 0) and a global append sequence number that is unique across all
// logs of the store, increases in commit order and survives restarts.
// Partition maps a key to a partition exactly as Kafka's default
// partitioner does.
//
// # Writing
//
// A job buffers records in a Writer and commits them with Store.Commit
// together with its store.Batch, so operator state, timers, source
// positions and sink output land in one atomic Pebble batch:
//
//	w := s.NewWriter()
//	w.Append("orders", logstore.Partition(key, n), key, value)
//	// ... the job also writes state into b ...
//	err := s.Commit(w, b, sync)
//
// # Reading
//
// A Reader returns one partition's committed records in offset order; Next
// returns false at the current end and Wait blocks until more is committed.
// A MergedReader returns several partitions (of one or more logs) in global
// sequence order, which is how multi-input operators replay
// deterministically. Positions are plain offsets, stored in checkpoints.
//
// # Record format
//
// Key: store.PrefixLogRecord | log id (u32 BE) | partition (u32 BE) |
// offset (u64 BE). Log ids are allocated from a counter, so a log dropped
// and created again under the same name never sees old records. Value of
// a single record: flags (key nil, value nil, has timestamp) | uvarint seq
// | [varint timestamp] | uvarint key length | key | value.
//
// A commit writes the consecutive records of a partition as chunks of up
// to 128 records (about 32 KiB) under the offset of the chunk's first
// record, so that Pebble's per-key costs (memtable inserts, flushes,
// compactions, iteration) are paid per chunk; a chunk of one record is a
// single record. A chunk value is the flag 0x80 | uvarint count | per
// record: flags | uvarint seq delta | [varint timestamp] | uvarint key
// length | key | uvarint value length | value. A reader seeks to the last
// key at or before its offset and skips the chunk's records before it.
// Partitions written before chunks hold single records only; both formats
// are read alike.
//
// # Concurrency and locking
//
// Store is safe for concurrent use; Writer, Reader and MergedReader are
// owned by one goroutine each. Store has two mutexes, always taken in this
// order:
//
//  1. commitMu serializes Commit, CreateLog and DropLog. Commit holds it
//     while it assigns offsets and sequence numbers and applies the batch to
//     Pebble (visible, but not yet synced). Pebble's WAL therefore holds
//     commits in sequence order, so after a crash the surviving commits are
//     a prefix: offsets stay dense and sequence numbers never go back.
//  2. mu guards the published view: per-partition readable end offsets, the
//     notification channels, the queue of applied commits and the log map
//     (which is written under both locks and read under either).
//
// After the apply, Commit queues the commit, releases commitMu and waits for
// the WAL sync outside any lock, so the fsyncs of concurrent jobs overlap
// (Pebble groups them). It then marks the commit done and, under mu,
// publishes the done commits at the head of the queue: their end offsets
// become readable all at once and in sequence order, and each touched log's
// notification channel is closed (and replaced) to wake its waiting readers.
// A commit that is done before an earlier one waits on a condition variable
// (on mu) until that one publishes it, so Commit returns only once its
// records are readable. Readers take mu only to read end offsets, and read
// records from Pebble below those ends without any lock. No lock is held
// while a reader waits.
//
// If a WAL sync fails, the store stops publishing and every later Commit
// fails: the records were applied but may not be durable.
package logstore
