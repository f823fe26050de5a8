// Package format holds the row codecs of Kafka key and value payloads
// and of the records of files (docs/decisions/0008-kafka-tables.md §4,
// 0018-connector-factories.md). A Codec converts between the values of a
// fixed list of columns (a *types.Schema) and one payload; a
// ChangelogCodec between a payload and the changes it holds.
//
// Formats, with Flink's names and semantics:
//
//   - raw: one column. STRING/CHAR as UTF-8 bytes, BYTES/BINARY as is,
//     BOOLEAN one byte, TINYINT/SMALLINT/INT/BIGINT big-endian in 1/2/4/8
//     bytes, FLOAT/DOUBLE IEEE 754 big-endian. NULL is a nil payload.
//     Options raw.charset (UTF-8 only) and raw.endianness (big-endian only).
//   - json: one object per row, field names = column names. Numbers,
//     strings, booleans, ROW as objects, ARRAY as arrays, MAP (string keys
//     only) as objects, BYTES as base64 strings, DECIMAL as plain JSON
//     numbers without loss of precision, DATE "2026-08-01", TIME
//     "09:00:00[.fff]", TIMESTAMP "2026-08-01 09:00:00[.fff]" (the fraction
//     is written with as few digits as needed, none when zero, like Flink's
//     SQL_TIMESTAMP_FORMAT), TIMESTAMP_LTZ the same with a trailing 'Z'.
//     Options: json.timestamp-format.standard (SQL | ISO-8601, which uses
//     'T'), json.fail-on-missing-field (false), json.ignore-parse-errors
//     (false; true: fields that do not convert become NULL and records
//     that do not parse decode to nil, meaning skip),
//     json.map-null-key.mode (FAIL | DROP | LITERAL) and
//     json.map-null-key.literal, json.encode.decimal-as-plain-number
//     (accepted; decimals are always written plain).
//   - avro: Avro binary without any header, with the schema that Flink
//     derives from the table (AvroSchema): record "record" in namespace
//     "org.apache.flink.avro.generated", nullable columns as
//     ["null", T] unions with default null, DECIMAL as bytes with logical
//     type decimal, DATE as int date, TIME as int time-millis,
//     TIMESTAMP(p<=3) and TIMESTAMP_LTZ(p<=3) as long timestamp-millis,
//     p<=6 as timestamp-micros, nested ROW as records named
//     "<parent>_<field>".
//   - avro-confluent (alias avro-registry): the avro body behind the
//     Confluent wire header, magic byte 0 and a 4-byte big-endian schema
//     id. Without a registry (New), option schema-id (or
//     avro-confluent.schema-id) is the id written by Encode; when set,
//     Decode also requires it; url, subject, basic-auth.*,
//     bearer-auth.token, schema and auto.register.schemas are accepted for
//     the connector. DecodeID reports the id. With a registry, see below.
//   - csv: Flink's csv format, one record per payload (a line of a file),
//     fields in column order, no header. NULL is an empty field (or
//     csv.null-literal); an empty unquoted field of a string column is the empty string
//     as in Flink, of any other column NULL (Flink fails on it for dates
//     and times). Strings are quoted when they hold the delimiter, the
//     quote, a line break, or are empty; numbers, BOOLEAN (true/false),
//     DECIMAL with its scale, BYTES in base64, DATE, TIME, TIMESTAMP
//     "2026-08-01 09:00:00[.fff]" (TIMESTAMP_LTZ with 'Z'), ARRAY and ROW
//     of simple types as elements joined by csv.array-element-delimiter;
//     no MAP. Options: csv.field-delimiter (','; '\t' for a tab),
//     csv.quote-character ('"'), csv.disable-quote-character,
//     csv.escape-character, csv.allow-comments ('#' lines are skipped),
//     csv.ignore-parse-errors (fields that do not convert become NULL,
//     records that do not split are skipped), csv.array-element-delimiter
//     (';'), csv.null-literal.
//   - debezium-json: a changelog format (ChangelogCodec, NewChangelog):
//     Debezium's JSON change events {"before":..., "after":..., "op":...}
//     (inside "payload" with debezium-json.schema-include). Op c and r
//     decode to +I of after, u to -U of before and +U of after, d to -D of
//     before; an empty message (a tombstone) to nothing. Encoding writes
//     +I and +U as {"before":null,"after":{...},"op":"c"} and -U and -D as
//     {"before":{...},"after":null,"op":"d"}, as Flink does. The row
//     fields follow the json format and its options (with the
//     debezium-json. prefix); debezium-json.ignore-parse-errors skips
//     messages that are not changes.
//   - json-registry: the json body behind the same Confluent header,
//     handled like avro-confluent (same options); its schema is the JSON
//     Schema that JSONSchema derives (type "JSON").
//
// # Schema registry
//
// NewRegistryCodec builds the avro-confluent and json-registry codecs that
// talk to a Confluent schema registry (Registry, a cached wrapper of
// franz-go's sr.Client; NewRegistry shares one per URL and credentials in
// the process, options basic-auth.user-info and bearer-auth.token).
//
// Writer schema. The codec writes the schema derived from the columns
// (AvroSchema, JSONSchema) or the option 'schema' (for Avro it must have the
// derived layout; record names, namespaces and docs may differ), under the
// subject given by the caller ("<topic>-value" unless option subject). With
// RegistryOptions.Register (sinks, CREATE TABLE) it is registered at
// construction; registering is idempotent. Otherwise (sources) the
// subject's latest schema is used when it matches, and the first Encode
// registers the writer schema if it does not: a codec that only decodes
// never registers. Option schema-id fixes the id instead (checked against
// the registry); auto.register.schemas = false forbids registering.
//
// Reading avro-confluent. Records with the codec's own id, or with a writer
// schema of the same layout (same field names, order and types; names of
// records and documentation aside), take the fast decoder. For any other id
// the writer schema is fetched once (cached per id, one request for
// concurrent decoders) and Avro schema resolution is compiled for it
// (avro_resolve.go): fields matched by name, the table's nullable columns
// the writer lacks are NULL, writer-only fields are skipped, int/long/float
// promotions, string<->bytes, per-branch resolution of writer unions,
// timestamp units and decimal scales converted, record names ignored as
// Java's ResolvingDecoder does. Reading json-registry skips the header and
// reads the JSON body by field names; it does not look ids up.
//
// Bad record or broken registry. Decode returns a *Error when the record is
// bad: wrong magic byte, short header, an id the registry does not have
// ("unknown schema id N"; remembered for a few seconds), a writer schema that
// is not Avro, does not parse or cannot be read as the columns, a body that
// does not decode. It returns an error that is not a *Error when the
// registry could not be asked (unreachable, timeout, authentication, any
// HTTP failure other than "schema not found"); such failures are not
// cached. Callers send *Errors to error handling and treat the others as
// infrastructure failures (retry, or fail the job). Encode likewise returns
// a non-*Error error when a lazy registration fails.
//
// Options are given without the key./value. prefix of the table DDL; the
// "<format>." part is optional ("json.ignore-parse-errors" or
// "ignore-parse-errors"). Unknown options are errors.
//
// Decoding never panics on malformed input: errors are *Error values that
// name the column (a path for nested fields), the byte offset when known and
// what was wrong. Decode appends to dst and returns the extended slice; a
// nil result with a nil error means the record is to be skipped
// (json.ignore-parse-errors).
package format
