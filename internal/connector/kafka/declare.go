package kafka

import (
	"strings"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/format"
	"github.com/eddy-sql/eddy/types"
)

// Options declares every option of the 'kafka' and 'upsert-kafka'
// connectors (docs/decisions/0008 §2). Parse validates against them.
var Options = []connector.Option{
	{Key: "connector", Type: connector.TypeString, Required: true, Doc: "'kafka' (append-only or retract) or 'upsert-kafka' (keyed by the PRIMARY KEY)."},
	{Key: "topic", Type: connector.TypeString, Required: true, Doc: "The topic (one name) the table reads and writes. CREATE TABLE creates it when missing."},
	{Key: "properties.bootstrap.servers", Type: connector.TypeString, Default: "session 'eddy.kafka.bootstrap.servers'", Doc: "Brokers, 'host:port,...'. Resolved at CREATE TABLE and stored with the table."},
	{Key: "properties.security.protocol", Type: connector.TypeEnum, Default: "PLAINTEXT", Values: []string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}, Doc: "How the client connects."},
	{Key: "properties.sasl.mechanism", Type: connector.TypeEnum, Default: "PLAIN", Values: []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}, Doc: "The SASL mechanism."},
	{Key: "properties.sasl.jaas.config", Type: connector.TypeString, Secret: true, Doc: "Java's JAAS line with username=\"...\" password=\"...\" (or use sasl.username and sasl.password)."},
	{Key: "properties.sasl.username", Type: connector.TypeString, Doc: "The SASL user."},
	{Key: "properties.sasl.password", Type: connector.TypeString, Secret: true, Doc: "The SASL password."},
	{Key: "properties.ssl.ca.location", Type: connector.TypeString, Doc: "PEM file of the CAs that sign the brokers' certificates (default: the system's)."},
	{Key: "properties.ssl.certificate.location", Type: connector.TypeString, Doc: "PEM file of the client certificate (with ssl.key.location)."},
	{Key: "properties.ssl.key.location", Type: connector.TypeString, Doc: "PEM file of the client key."},
	{Key: "properties.ssl.endpoint.identification.algorithm", Type: connector.TypeString, Default: "https", Doc: "'https' verifies the brokers' host names; '' does not (the chain is always verified)."},
	{Key: "properties.client.id", Type: connector.TypeString, Doc: "The client id brokers log."},
	{Key: "properties.group.id", Type: connector.TypeString, Doc: "The consumer group of 'group-offsets' startup and bounded modes."},
	{Key: "properties.isolation.level", Type: connector.TypeEnum, Default: "read_committed", Values: []string{"read_committed", "read_uncommitted"}, Doc: "Whether reads see records of open or aborted transactions."},
	{Key: "properties.transaction.timeout.ms", Type: connector.TypeInteger, Default: "60000", Doc: "Timeout of the exactly-once sink's transactions; the job checkpoints at least every third of it."},
	{Key: "properties.compression.type", Type: connector.TypeEnum, Values: []string{"none", "gzip", "snappy", "lz4", "zstd"}, Doc: "Compression of produced batches."},
	{Key: "properties.linger.ms", Type: connector.TypeInteger, Doc: "How long the producer waits to fill a batch."},
	{Key: "properties.auto.offset.reset", Type: connector.TypeEnum, Values: []string{"earliest", "latest", "none"}, Doc: "Where 'group-offsets' starts a partition without a committed offset (default: an error)."},
	{Key: "properties.request.timeout.ms", Type: connector.TypeInteger, Doc: "Timeout of broker requests."},
	{Key: "format", Type: connector.TypeString, Doc: "The value format: another name for 'value.format'."},
	{Key: "value.format", Type: connector.TypeString, Doc: "Required (or 'format'): raw, json, avro, avro-confluent (= avro-registry), json-registry, debezium-json."},
	{Key: "key.format", Type: connector.TypeString, Doc: "The key format: raw, json, avro, avro-confluent, json-registry. Needed with key columns."},
	{Key: "key.fields", Type: connector.TypeString, Default: "the DISTRIBUTED BY columns", Doc: "'kafka' only: the key columns, 'a;b'."},
	{Key: "key.fields-prefix", Type: connector.TypeString, Doc: "A prefix of the key columns' names that the key leaves out (needs 'value.fields-include' = 'EXCEPT_KEY')."},
	{Key: "value.fields-include", Type: connector.TypeEnum, Default: "ALL", Values: []string{"ALL", "EXCEPT_KEY"}, Doc: "Whether the value repeats the key columns."},
	{Key: "key.<format>.*", Type: connector.TypeString, Doc: "Options of the key format, such as 'key.json.ignore-parse-errors'."},
	{Key: "value.<format>.*", Type: connector.TypeString, Doc: "Options of the value format, such as 'value.avro-confluent.url'."},
	{Key: "changelog.mode", Type: connector.TypeEnum, Default: "append ('kafka'), upsert ('upsert-kafka')", Values: []string{"append", "retract", "upsert"},
		Doc: "'kafka': 'append', or 'retract' with Confluent's 'op' header (0..3 for +I/-U/+U/-D); 'upsert-kafka': 'upsert'. A debezium-json value makes the table a retract changelog."},
	{Key: "scan.startup.mode", Type: connector.TypeEnum, Default: Earliest, Values: []string{Earliest, Latest, Group, Timestamp, Specific}, Doc: "Where a new statement starts reading."},
	{Key: "scan.startup.timestamp-millis", Type: connector.TypeLong, Doc: "The start of 'timestamp' startup, in milliseconds since the epoch."},
	{Key: "scan.startup.specific-offsets", Type: connector.TypeString, Doc: "The start of 'specific-offsets' startup: 'partition:0,offset:42;partition:1,offset:7'."},
	{Key: "scan.bounded.mode", Type: connector.TypeEnum, Default: Unbounded, Values: []string{Unbounded, Latest, Group, Timestamp, Specific}, Doc: "Where reading ends: the input then ends with the maximum watermark."},
	{Key: "scan.bounded.timestamp-millis", Type: connector.TypeLong, Doc: "The end of 'timestamp' bounded mode."},
	{Key: "scan.bounded.specific-offsets", Type: connector.TypeString, Doc: "The end of 'specific-offsets' bounded mode."},
	{Key: "scan.watermark.idle-timeout", Type: connector.TypeDuration, Default: "session 'table.exec.source.idle-timeout'", Doc: "A partition without records for this long stops holding the watermark back."},
	{Key: "sink.partitioner", Type: connector.TypeEnum, Default: "default", Values: []string{"default", "fixed", "round-robin"}, Doc: "'default' hashes the key bytes with Kafka's murmur2 (round-robin without a key); 'fixed' writes partition 0."},
	{Key: "sink.delivery-guarantee", Type: connector.TypeEnum, Default: ExactlyOnce, Values: []string{ExactlyOnce, AtLeastOnce, None}, Doc: "'exactly-once' commits Kafka transactions with Eddy's checkpoints."},
	{Key: "sink.transactional-id-prefix", Type: connector.TypeString, Default: "eddy", Doc: "Transactional ids are '<prefix>-<job>-0' and '-1'."},
	{Key: "sink.parallelism", Type: connector.TypeInteger, Doc: "Accepted for Flink compatibility and ignored (one producer per statement)."},
	{Key: "scan.parallelism", Type: connector.TypeInteger, Doc: "Accepted and ignored (one reader per statement)."},
	{Key: "scan.topic-partition-discovery.interval", Type: connector.TypeDuration, Doc: "Accepted and ignored."},
	{Key: "error-handling.mode", Type: connector.TypeEnum, Default: "fail", Values: []string{"fail", "ignore", "log"}, Doc: "What a record that does not decode does: fail the statement, be skipped, or be logged into the dead-letter table."},
	{Key: "error-handling.log.target", Type: connector.TypeString, Default: "error_log", Doc: "The dead-letter table of 'log', created with the table in its database."},
	{Key: "eddy.topic.create", Type: connector.TypeBoolean, Default: "true", Doc: "Whether CREATE TABLE creates a missing topic."},
	{Key: "kafka.cleanup-policy", Type: connector.TypeString, Default: "delete ('kafka'), compact ('upsert-kafka')", Doc: "Used when Eddy creates the topic."},
	{Key: "kafka.retention.time", Type: connector.TypeDuration, Doc: "Used when Eddy creates the topic."},
	{Key: "kafka.consumer.isolation-level", Type: connector.TypeString, Doc: "Confluent's name of 'properties.isolation.level' (read-committed, read-uncommitted)."},
	{Key: "kafka.producer.compression.type", Type: connector.TypeString, Doc: "Confluent's name of 'properties.compression.type'."},
}

// metadata declares the metadata keys of Kafka tables (their Flink types).
var metadata = []connector.Metadata{
	{Key: "topic", Type: types.String.NonNull(), Slot: connector.MetaTopic, Doc: "The record's topic."},
	{Key: "partition", Type: types.Int.NonNull(), Slot: connector.MetaPartition, Doc: "The record's partition."},
	{Key: "offset", Type: types.BigInt.NonNull(), Slot: connector.MetaOffset, Doc: "The record's offset."},
	{Key: "timestamp", Type: types.TimestampLTZ(3).NonNull(), Writable: true, Slot: connector.MetaTimestamp, Doc: "The record's timestamp; written as the record timestamp (default: the time of writing)."},
	{Key: "timestamp-type", Type: types.String.NonNull(), Slot: connector.MetaTimestampType, Doc: "NoTimestampType, CreateTime or LogAppendTime."},
	{Key: "headers", Type: types.MapOf(types.String, types.Bytes).NonNull(), Writable: true, Slot: connector.MetaHeaders, Doc: "The record's headers (a duplicate key keeps its last value)."},
	{Key: "leader-epoch", Type: types.Int, Slot: connector.MetaLeaderEpoch, Doc: "The leader epoch, NULL when unknown."},
	{Key: "raw-key", Type: types.Bytes, Slot: connector.MetaRawKey, Doc: "The key's bytes as they are."},
	{Key: "raw-value", Type: types.Bytes, Slot: connector.MetaRawValue, Doc: "The value's bytes as they are."},
}

// topLevel returns the connector's own option keys (besides properties.*,
// key.<format>.* and value.<format>.*).
func topLevel() []string {
	var out []string
	for _, o := range Options {
		if !strings.HasPrefix(o.Key, "properties.") || o.Key == "properties.bootstrap.servers" {
			if !strings.Contains(o.Key, "*") {
				out = append(out, o.Key)
			}
		}
	}
	return out
}

// properties returns the Kafka client properties Eddy maps to franz-go.
func properties() []string {
	var out []string
	for _, o := range Options {
		if p, ok := strings.CutPrefix(o.Key, "properties."); ok {
			out = append(out, p)
		}
	}
	return out
}

// formatNames are the formats of key.<format>.* and value.<format>.*.
func formatNames() []string { return format.Names() }
