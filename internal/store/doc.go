// Package store owns the one Pebble instance of an embedded Eddy data
// directory. The catalog, every log table's records and all operator state
// live in it, so that one Pebble batch can commit a job's state, timers,
// source positions and sink output atomically (DESIGN.md §4 and §5).
//
// The package is deliberately thin: Open/Close with options tuned for a
// write-heavy streaming workload, small synced point helpers on DB, an
// indexed Batch with read-your-writes, and order-preserving key encoding
// helpers. The packages logstore and state build on it; the raw *pebble.DB
// stays reachable through DB.Pebble for metrics and advanced use.
//
// # Key space
//
// Every key starts with one byte that names its area. Areas never share a
// prefix, so each can be scanned, counted or deleted as a range on its own.
// Gaps between the values leave room for new areas.
//
//	0x01 PrefixMeta        store-wide metadata
//	                       0x01 'v'                       -> format version (uint64 BE)
//	0x10 PrefixCatalog     catalog objects (owned by the catalog package)
//	0x20 PrefixLogMeta     log table metadata (package logstore)
//	                       0x20 'n' name(raw)             -> uvarint id, uvarint partitions
//	                       0x20 'i'                       -> next log id (uint64 BE)
//	                       0x20 's'                       -> next global sequence (uint64 BE)
//	0x21 PrefixLogRecord   log records (package logstore)
//	                       0x21 id(u32 BE) partition(u32 BE) offset(u64 BE) -> record
//	0x30 PrefixState       keyed operator state (package state)
//	                       0x30 ns(esc) key(esc) name(esc) 'v'            -> value
//	                       0x30 ns(esc) key(esc) name(esc) 'L'            -> list head, tail
//	                       0x30 ns(esc) key(esc) name(esc) 'l' idx(u64)   -> list element
//	                       0x30 ns(esc) key(esc) name(esc) 'm' mapkey(raw) -> map value
//	0x31 PrefixTimer       event/processing-time timers (package state)
//	                       0x31 ns(esc) 0x01 time(i64) key(esc) name(raw) -> ""   (by time)
//	                       0x31 ns(esc) 0x02 key(esc) 0x00 time(i64)      -> ""   (unnamed, by key)
//	                       0x31 ns(esc) 0x02 key(esc) 0x01 name(raw)      -> time (named, by key)
//	0x40 PrefixCheckpoint  checkpoints: source positions, pending output (package runtime)
//	0x50 PrefixStatement   statement resources (package statement)
//	0x51 PrefixAPIKey      API keys, secrets hashed (package server)
//	0x52 PrefixArtifact    function artifacts (package artifact)
//	                       0x52 'a' id(raw)               -> artifact (JSON)
//	                       0x52 'b' sha256(raw, 32 bytes) -> module bytes
//
// "esc" is AppendBytes: 0x00 is escaped as 0x00 0xFF and the component ends
// with 0x00 0x01. The encoding preserves byte order and no encoded component
// is a prefix of another, so "a" and "ab" never collide as key prefixes.
// Integers are big-endian; signed ones (AppendInt64) have the sign bit
// flipped so that negative values sort first. "raw" components are only used
// last in a key, where no terminator is needed.
//
// # Concurrency
//
// A DB is safe for concurrent use. A Batch is not: each job owns its batch
// and uses it from one goroutine.
package store
