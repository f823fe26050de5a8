package connector

import (
	"context"
	"time"

	"github.com/eddy-sql/eddy/types"
)

// Changelog modes of a connector table, as Confluent names them.
const (
	Append  = "append"  // +I only
	Upsert  = "upsert"  // +I/+U/-D by the primary key
	Retract = "retract" // +I/-U/+U/-D
)

// Factory makes the sources and sinks of one connector ('connector' =
// Spec().Identifier). A factory implements SourceFactory, SinkFactory or
// both; it may implement Creator and Dropper for side effects of DDL.
// Factories are safe for concurrent use.
type Factory interface {
	// Spec declares the connector: identifier, options, metadata keys.
	Spec() *Spec
	// Validate checks a table whose options passed the checks of the
	// declarations (known keys, value types). With t.Creating (CREATE
	// TABLE) it may add options to t.Options that are then stored with the
	// table, such as session defaults resolved once. Errors are
	// *OptionError.
	Validate(t *Table) error
	// ChangelogMode returns how the table's rows change: Append, Upsert or
	// Retract, as a source and as a sink.
	ChangelogMode(t *Table) string
}

// SourceFactory is a factory whose tables can be read.
type SourceFactory interface {
	Factory
	// Source returns how to read the table. It is called for every plan
	// that reads it, with a validated table.
	Source(t *Table) (*Input, error)
}

// SinkFactory is a factory whose tables can be written.
type SinkFactory interface {
	Factory
	// Sink returns the writer of an INSERT into the table. Its rows hold
	// the physical columns, then the persisted (not VIRTUAL) metadata
	// columns, in declaration order (Table.Writable).
	Sink(t *Table, opts SinkOptions) (Sink, error)
}

// Creator is a factory with side effects at CREATE TABLE (a topic to
// create, schemas to register). Create runs after Validate, before the
// table is stored; note is shown to the user ("" for none).
type Creator interface {
	Create(ctx context.Context, t *Table) (note string, err error)
}

// Dropper is a factory that tells the user what DROP TABLE leaves behind
// ("Its topic 't' was kept"); "" for nothing.
type Dropper interface {
	Dropped(t *Table) string
}

// Spec declares a connector.
type Spec struct {
	// Identifier is the value of 'connector'.
	Identifier string
	// Doc is one sentence for the docs.
	Doc string
	// Options are every option the connector takes, 'connector' included.
	Options []Option
	// Metadata are the metadata keys a table may declare columns for.
	Metadata []Metadata
	// Formats are the names of the formats of "<format>" in option keys.
	Formats []string
	// Partitioned connectors support PARTITIONED BY, INSERT OVERWRITE and
	// INSERT ... PARTITION (...).
	Partitioned bool
}

// Option returns the declaration whose key (or pattern) key matches.
func (s *Spec) Option(key string) (*Option, bool) {
	for i := range s.Options {
		o := &s.Options[i]
		if o.Key == key {
			return o, true
		}
	}
	for i := range s.Options {
		o := &s.Options[i]
		if o.isPattern() && o.matches(key, s.Formats) {
			return o, true
		}
	}
	return nil, false
}

// Metadatum returns the declaration of a metadata key.
func (s *Spec) Metadatum(key string) (*Metadata, bool) {
	for i := range s.Metadata {
		if s.Metadata[i].Key == key {
			return &s.Metadata[i], true
		}
	}
	return nil, false
}

// Metadata declares a metadata key: its type, whether INSERT can write it
// (else columns of it must be VIRTUAL), and the slot (Meta*) the runtime
// computes it into.
type Metadata struct {
	Key      string
	Type     types.Type
	Writable bool
	Slot     int
	Doc      string
}

// The slots of metadata values: the runtime appends them, in this order,
// after the physical columns of a stored row before it computes the
// metadata and computed columns.
const (
	MetaOffset        = iota // BIGINT: the record's offset in its partition
	MetaPartition            // INT
	MetaTimestamp            // TIMESTAMP_LTZ(3): the record's timestamp
	MetaTimestampType        // STRING: NoTimestampType, CreateTime, LogAppendTime
	MetaTopic                // STRING: the topic
	MetaHeaders              // MAP<STRING, BYTES>
	MetaLeaderEpoch          // INT (NULL when unknown)
	MetaRawKey               // BYTES
	MetaRawValue             // BYTES
	// MetaCount is the number of slots.
	MetaCount
)

// Table is what a factory knows of a table.
type Table struct {
	// Name is the table's name, FullName catalog.database.name.
	Name, FullName string
	// Columns are the physical columns in order.
	Columns []types.Field
	// PrimaryKey, Distribution and PartitionKeys are indexes into Columns.
	PrimaryKey, Distribution, PartitionKeys []int
	// Buckets is the DISTRIBUTED INTO count, 0 when not given.
	Buckets int
	// Metadata are the metadata columns in declaration order.
	Metadata []MetaColumn
	Options  map[string]string
	// Defaults are the session's settings ('SET'), for options that fall
	// back to them.
	Defaults map[string]string
	// Now is the clock that stamps creation times (nil: unset).
	Now func() time.Time
	// Creating is set at CREATE TABLE, AsSelect for CREATE TABLE ... AS
	// SELECT.
	Creating, AsSelect bool
}

// MetaColumn is a metadata column of a table.
type MetaColumn struct {
	Name, Key string
	Type      types.Type
	Virtual   bool
}

// Writable returns the persisted (not VIRTUAL) metadata columns, in the
// order a sink's rows carry them after the physical columns.
func (t *Table) Writable() []MetaColumn {
	var out []MetaColumn
	for _, m := range t.Metadata {
		if !m.Virtual {
			out = append(out, m)
		}
	}
	return out
}

// ColumnIndex returns the position of a physical column, or -1.
func (t *Table) ColumnIndex(name string) int {
	for i, f := range t.Columns {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// Input says how a source table is read: rows computed by a Generator, or
// records of an external Source.
type Input struct {
	Generator Generator
	Source    Source
	// Errors is the table's handling of records Source cannot decode.
	Errors ErrorHandling
}

// ErrorHandling is a table's 'error-handling.mode': fail (default),
// ignore, or log into the Eddy log table Target (the dead-letter table,
// created with the table).
type ErrorHandling struct {
	Mode, Target string
}

// SinkOptions are what an INSERT asks of a sink besides its rows.
type SinkOptions struct {
	// Overwrite is INSERT OVERWRITE: the rows replace the table's (or the
	// written partitions') data when the first checkpoint commits.
	Overwrite bool
	// Static holds the partition columns given values by INSERT ...
	// PARTITION (col = value); the rows carry those values too.
	Static map[string]types.Value
}

// Generator produces the rows of a generated table. Row i is a pure
// function of i, so the number of rows read is enough to resume. It must be
// safe for concurrent use.
type Generator interface {
	// Row appends the physical values of row i (from 0) to dst.
	Row(i int64, dst []types.Value) []types.Value
	// End returns the number of rows of a bounded table, or -1.
	End() int64
	// RowsPerSecond is the pace of a continuous read.
	RowsPerSecond() int64
	// SnapshotRows returns how many rows a snapshot started at now reads.
	SnapshotRows(now time.Time) int64
}
