package jobgraph

import (
	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// Mode is a changelog encoding of a table or stream.
type Mode uint8

// The changelog modes.
const (
	Append  Mode = iota // +I only
	Upsert              // +I/+U/-D by key, deletes may be key-only
	Retract             // +I/-U/+U/-D
)

// String returns the Confluent name of the mode.
func (m Mode) String() string {
	switch m {
	case Upsert:
		return "upsert"
	case Retract:
		return "retract"
	}
	return "append"
}

// Calc is a filter followed by a projection. A nil Filter keeps every row;
// a nil Project keeps the row as it is.
type Calc struct {
	Filter  expr.Expr
	Project []expr.Expr
}

// IsIdentity reports whether the calc does nothing.
func (c Calc) IsIdentity() bool { return c.Filter == nil && c.Project == nil }

// Watermark is the watermark strategy of an input: WATERMARK FOR the column
// at position Column AS Expr, evaluated on every row.
type Watermark struct {
	Column int
	Expr   expr.Expr
}

// Input is one table read by the job.
type Input struct {
	// Table is the display name (catalog.database.table).
	Table string
	// Log is the embedded log holding the table.
	Log        string
	Partitions int
	// Generator, when set, produces the table's rows instead of a log
	// (connector 'datagen'); Log is then empty and Partitions 1, and
	// metadata columns see the row index as the offset.
	Generator Generator
	// Source, when set, is an external input (a Kafka table); Log is then
	// the source's name and Partitions is learned when it opens.
	Source connector.Source
	// MetaUsed has bit 1<<Meta* set for each metadata value a column
	// reads; the source computes only those (NULL for the rest).
	MetaUsed uint16
	// Errors says what to do with records Source cannot decode.
	Errors ErrorHandling
	// Physical is the schema of the stored rows.
	Physical *types.Schema
	// Columns computes the full table row (physical, computed and
	// metadata columns) from the stored row; nil when they are the same.
	// Metadata columns are expressions over the extra columns appended to
	// the stored row: offset, partition (see MetaOffset).
	Columns []expr.Expr
	// Schema is the full table row's schema.
	Schema *types.Schema
	// Mode is how the stored log encodes changes.
	Mode Mode
	// Key holds the primary key positions in the full row (upsert tables).
	Key []int
	// Watermark is nil for tables without WATERMARK FOR.
	Watermark *Watermark
}

// Generator produces the rows of a generated table (connector.Generator).
type Generator = connector.Generator

// MetaOffset and the other Meta* constants are the slots, after the
// physical columns, of the metadata values the source appends to each
// stored row before Columns are evaluated (connector.Meta*).
const (
	MetaOffset        = connector.MetaOffset
	MetaPartition     = connector.MetaPartition
	MetaTimestamp     = connector.MetaTimestamp
	MetaTimestampType = connector.MetaTimestampType
	MetaTopic         = connector.MetaTopic
	MetaHeaders       = connector.MetaHeaders
	MetaLeaderEpoch   = connector.MetaLeaderEpoch
	MetaRawKey        = connector.MetaRawKey
	MetaRawValue      = connector.MetaRawValue
)

// ErrorHandling is a table's 'error-handling.mode': fail (default),
// ignore, or log into the log table of Log (the dead-letter table).
type ErrorHandling struct {
	Mode      string
	Table     string // the dead-letter table's full name
	Log       string // its log
	Statement string
}

// MetaCount is the number of metadata values appended to stored rows.
const MetaCount = connector.MetaCount

// PTFTable is one table argument of a PTF call.
type PTFTable struct {
	Arg string
	// Input is the port of the PTF node the table's rows arrive on.
	Input int
	// SetSemantic tables have a partition key (possibly empty).
	SetSemantic bool
	// Keys are PARTITION BY column positions in the table's rows.
	Keys []int
	// TimeColumn is the on_time column position, or -1.
	TimeColumn  int
	PassThrough bool
	// Delivered is the changelog mode delivered to the function.
	Delivered ptf.ChangelogMode
	Schema    *types.Schema
	// ArgSchema and ArgCast are set for typed table arguments: the row
	// passed to Eval is cast column by column (by position) to the
	// declared ROW type, whose field names it then carries.
	ArgSchema *types.Schema
	ArgCast   []expr.Expr
	// OrderBy holds the ORDER BY column positions in Schema (Flink 2.3);
	// empty without ORDER BY. The first is a time attribute sorted
	// ascending, NULLS LAST: rows are buffered per key and passed to the
	// function in time order as the table's watermark passes them. The
	// others are secondary sort keys for rows of equal time.
	OrderBy []int
	// OrderDesc and OrderNullsFirst give, per OrderBy column, whether it
	// sorts descending and whether NULLs sort before other values.
	OrderDesc       []bool
	OrderNullsFirst []bool
}

// PTF is a process table function call.
type PTF struct {
	// Name is the SQL name the function was called by; ID its registry id.
	Name, ID string
	Def      *ptf.Definition
	// UID identifies the call's state; empty for stateless calls.
	UID     string
	Tables  []PTFTable
	Scalars map[string]types.Value
	// FuncOut is the schema of the function's own columns.
	FuncOut *types.Schema
	// Out is the full output schema: key prefix or pass-through columns,
	// function columns, then rowtime when EmitRowtime.
	Out         *types.Schema
	EmitRowtime bool
	Produced    ptf.ChangelogMode
	// StateTTL is the default TTL ('table.exec.state.ttl').
	StateTTL int64
}

// SinkKind says where results go.
type SinkKind uint8

// The sink kinds.
const (
	CollectSink  SinkKind = iota // rows go back to the client
	LogSink                      // rows are appended to a log table
	ExternalSink                 // rows go to External (a Kafka table)
)

// Sink is the job's output.
type Sink struct {
	Kind       SinkKind
	Table      string
	Log        string
	Partitions int
	// Mode of the sink table; upsert sinks write by Key.
	Mode Mode
	// Key holds the positions of the upsert/primary key in the output row.
	Key []int
	// Bucket holds the positions hashed to choose a partition.
	Bucket []int
	Schema *types.Schema
	// External writes the rows of an ExternalSink.
	External connector.Sink
	// OrderBy is the ORDER BY of a collect query on other columns than a
	// time attribute, without LIMIT: the client sorts the table it
	// materializes by it (a script's snapshot of the result); the rows
	// themselves arrive unsorted.
	OrderBy []SortKey
}

// Job is a planned statement: sources (Inputs), an operator DAG (Nodes)
// and a sink fed by the endpoint Result.
type Job struct {
	Inputs []Input
	// Nodes are the operators in topological order (see dag.go).
	Nodes []Node
	// Result is the endpoint whose rows go to the sink: a node index, or
	// Source(i) when the sink reads input i unchanged.
	Result int
	// Limit stops a collect sink after that many rows (0: no limit).
	Limit int
	Sink  Sink
	// Mode is the changelog mode of the rows reaching the sink.
	Mode Mode
	// UpsertKey is the key of an upsert stream reaching the sink.
	UpsertKey []int
	// Parallelism of the keyed stage.
	Parallelism int
	// Outputs are the further sinks of a statement set (EXECUTE
	// STATEMENT SET): one job writes several tables, each fed by its own
	// endpoint. Empty for every other statement (see statementset.go).
	Outputs []Output
}

// PTFs returns the process table function calls of the job in plan order.
func (j *Job) PTFs() []*PTF {
	var out []*PTF
	for _, n := range j.Nodes {
		if p, ok := n.Op.(*PTF); ok {
			out = append(out, p)
		}
	}
	return out
}

// DeadLetterSchema is the schema of the table that 'error-handling.mode' =
// 'log' writes undecodable records into (Confluent's DLQ columns).
func DeadLetterSchema() *types.Schema {
	ltz := types.TimestampLTZ(3)
	return types.NewSchema(
		types.Field{Name: "error_timestamp", Type: ltz},
		types.Field{Name: "error_code", Type: types.String},
		types.Field{Name: "error_reason", Type: types.String},
		types.Field{Name: "statement_name", Type: types.String},
		types.Field{Name: "source_table", Type: types.String},
		types.Field{Name: "topic", Type: types.String},
		types.Field{Name: "partition", Type: types.Int},
		types.Field{Name: "offset", Type: types.BigInt},
		types.Field{Name: "record_timestamp", Type: ltz},
		types.Field{Name: "headers", Type: types.MapOf(types.String, types.Bytes)},
		types.Field{Name: "raw_key", Type: types.Bytes},
		types.Field{Name: "raw_value", Type: types.Bytes},
	)
}
