package connector

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/eddy-sql/eddy/types"
)

// ErrBadRecord marks a Decode error caused by the record itself (not by
// an unreachable registry or broker): the table's error-handling mode
// applies to it.
var ErrBadRecord = errors.New("bad record")

// BadRecordError is a Decode error caused by the record itself; it matches
// ErrBadRecord, and its message is the reason alone.
type BadRecordError struct{ Err error }

func (e *BadRecordError) Error() string        { return e.Err.Error() }
func (e *BadRecordError) Unwrap() error        { return e.Err }
func (e *BadRecordError) Is(target error) bool { return target == ErrBadRecord }

// Header is one record header.
type Header struct {
	Key   string
	Value []byte
}

// Timestamp types of a Record, as Kafka defines them.
const (
	NoTimestampType int8 = -1
	CreateTime      int8 = 0
	LogAppendTime   int8 = 1
)

// Record is one record read from an external source.
type Record struct {
	Partition     int32
	Offset        int64
	Timestamp     int64 // milliseconds since the epoch
	TimestampType int8
	LeaderEpoch   int32
	Key, Value    []byte
	Headers       []Header
}

// Env is what a connector gets from the job that runs it.
type Env struct {
	Logger *slog.Logger
	Now    func() time.Time
	// Job is the ID of the job (stable across restarts of a statement).
	Job string
	// KeyPrefix is where a sink may keep its recovery data in the job's
	// checkpoints (deleted with the job).
	KeyPrefix []byte
	// Bounds, for a source, are the end offsets an earlier run of the job
	// resolved for a bounded table: a restarted job ends at the same place.
	Bounds map[int32]int64
	// Stdout and Stderr are the process's output streams (the 'print'
	// connector writes there).
	Stdout, Stderr io.Writer
}

// Source is an external input, built (as plain configuration) by the
// planner and opened by the runtime's source task.
type Source interface {
	// Name names the source's positions in checkpoints, such as
	// "kafka:<catalog.db.table>".
	Name() string
	// Open starts reading. from holds the next offset per partition of the
	// last checkpoint; partitions missing from it start where the source's
	// startup mode says.
	Open(ctx context.Context, env Env, from map[int32]int64) (Reader, error)
	// Decode decodes a record into the rows it holds: usually one, none
	// to skip the record, two for a changelog format's update (-U, +U).
	// Each row's physical columns are appended to dst in turn and its
	// kind to kinds.
	Decode(rec *Record, dst []types.Value, kinds []types.RowKind) ([]types.Value, []types.RowKind, error)
	// Describe names a record for error messages ("topic t partition 0
	// offset 42").
	Describe(rec *Record) string
	// Topic is the topic (the 'topic' metadata column, and the topic
	// column of dead-letter rows); a source without topics names where
	// it reads (a path).
	Topic() string
	// IdleTimeout is how long a partition without records may hold the
	// watermark back (0: forever).
	IdleTimeout() time.Duration
}

// Reader reads the records of an opened Source.
type Reader interface {
	// Start returns the next offset to read of every partition.
	Start() map[int32]int64
	// Bounds returns where a bounded source ends (next offset per
	// partition), or nil for an unbounded one.
	Bounds() map[int32]int64
	// Targets returns, per partition, the offset a reader that started now
	// would read up to: the end of what is committed at this moment.
	Targets(ctx context.Context) (map[int32]int64, error)
	// Fetch returns buffered records, waiting until some arrive or ctx is
	// done. Records of one partition come in offset order; the runtime
	// orders partitions. Each record's Offset+1 is the partition's next
	// position once it is read (offsets may skip control records: use
	// Next for the position).
	Fetch(ctx context.Context) ([]Record, error)
	// Next returns the next offset of a partition after everything Fetch
	// returned so far (past control records and gaps).
	Next(partition int32) int64
	// Close stops the reader.
	Close() error
}

// Batch is the view of the checkpoint's commit batch a sink writes its
// transaction marker into.
type Batch interface {
	Set(key, value []byte) error
	Delete(key []byte) error
}

// KV reads what earlier checkpoints committed, and lets recovery commit
// its own decisions (synced) before the job starts.
type KV interface {
	Get(key []byte) ([]byte, bool, error)
	Commit(fn func(b Batch) error) error
}

// Sink is an external output, built by the planner.
type Sink interface {
	// Open creates the job's writer. It first recovers what an earlier run
	// of the same job (env.Job) left undecided, using the markers it wrote
	// into committed checkpoints.
	Open(ctx context.Context, env Env, kv KV) (SinkWriter, error)
}

// SinkWriter writes one job's output. Write is called concurrently by the
// job's keyed subtasks; Prepare, Commit and Close by one goroutine while no
// Write runs.
type SinkWriter interface {
	Write(ctx context.Context, row types.Row) error
	// Prepare makes everything written since the last checkpoint durable
	// in the external system (flush) and writes what recovery needs into b,
	// which the runtime then commits with the job's state and positions.
	Prepare(ctx context.Context, b Batch) error
	// Commit runs after b committed: it makes the output visible
	// (commits the external transaction) and starts the next interval.
	Commit(ctx context.Context) error
	// Close releases the writer; output not committed is abandoned (an
	// open transaction is aborted or fenced on the next Open).
	Close() error
}

// CommitDeadline is implemented by sink writers whose output must be
// committed within some time of being written (a Kafka transaction times
// out): the job checkpoints at least that often.
type CommitDeadline interface {
	MaxCheckpointInterval() time.Duration
}
