// Package kafka is the 'kafka' and 'upsert-kafka' connector
// (docs/decisions/0008-kafka-tables.md, docs/kafka.md), built on franz-go.
//
// Parse validates a table's options (Flink's names) into a Config: topic,
// cluster and security (properties.*, mapped to kgo options, never passed
// through), key and value formats (internal/format), key fields, changelog
// mode, startup and bounded positions, idle timeout, partitioner, delivery
// guarantee and error handling. Errors are *OptionError values naming the
// option, so the planner can point at it.
//
// EnsureTopic and Register are the side effects of CREATE TABLE: the topic
// is created with the bucket count as partitions (or adopted), and the
// registry schemas derived from the table are registered.
//
// NewSource returns a connector.Source: Open resolves every partition's
// start (checkpointed positions first, then the startup mode) and, for a
// bounded table, its end, then fetches with read_committed by default,
// keeping control records so that positions move past transaction markers.
// Decode turns a record's key, value and 'op' header into a row and marks
// undecodable records with connector.BadRecordError.
//
// NewSink returns a connector.Sink. With 'sink.delivery-guarantee' =
// 'exactly-once' its writer produces each checkpoint interval in a Kafka
// transaction on one of two alternating transactional ids; Prepare flushes
// and writes a marker (transactional id, producer id and epoch, first
// offsets) and a copy of the interval's records into the checkpoint batch;
// Commit ends the transaction after that batch committed. Open settles the
// marker left by an earlier run (commit with a raw EndTxn, or produce the
// copy again if Kafka aborted it) before fencing the ids, so read_committed
// consumers see every row once across crashes.
package kafka
