package runtime

import (
	"sync"

	"github.com/eddy-sql/eddy/internal/logstore"
	"github.com/eddy-sql/eddy/types"
)

type eventKind uint8

const (
	evRecord eventKind = iota
	evWatermark
	evBarrier
	evEnd
)

// event is one element of a batch from the source task to the keyed task.
type event struct {
	kind  eventKind
	input int
	row   types.Row
	// wm is the new watermark of input (nanoseconds; MaxWatermark at end).
	wm int64
	// barrier carries a checkpoint request.
	barrier *barrier
}

// barrier is a checkpoint request travelling in-band to every subtask.
// Subtasks flush their state when they see it; the last one to arrive
// commits everything in one batch and closes done. Every subtask waits for
// done before it goes on (aligned checkpoint).
type barrier struct {
	// positions are the source's next offsets when it injected the
	// barrier: everything before them is covered by this checkpoint.
	positions []logstore.Position
	// deadLetters are the dead-letter rows of bad records read before the
	// barrier: they commit with this checkpoint, which covers their
	// records.
	deadLetters []deadLetter
	mu          sync.Mutex
	arrived     int
	// done is closed after the checkpoint committed; err is set before.
	done chan struct{}
	err  error
}

// MaxWatermark is the watermark that ends a bounded input; it fires all
// remaining timers.
const MaxWatermark = int64(^uint64(0) >> 1)

// MinWatermark means "no watermark yet".
const MinWatermark = -MaxWatermark - 1

const batchSize = 512

// batch is what the source sends a keyed subtask: events, and when it
// sent them (unix nanoseconds of the job's clock), from which the subtask
// measures how long rows take from the source to the sink.
type batch struct {
	events []event
	// vals holds the events' row values when the source recycles them
	// (source.recycle); nil otherwise.
	vals []types.Value
	sent int64
}

// batchBufs are the slices of a processed batch, returned to the source
// to be filled again.
type batchBufs struct {
	events []event
	vals   []types.Value
}
