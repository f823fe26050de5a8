package runtime

import (
	"sync/atomic"

	"github.com/eddy-sql/eddy/types"
)

// Operator is one node of a job's operator DAG (jobgraph.Node), one
// instance per subtask. The task calls it from one goroutine: rows and
// watermarks arrive through Process and Watermark, results leave through
// the Output the operator was built with, and Flush runs at every
// checkpoint barrier. State lives in the operator's namespace of the KV:
// an operator built over a KV that holds a flushed state continues from it
// (restore), reading keys back lazily.
//
// Rows: an operator may keep the Values of a row it is given (producers
// never reuse a slice they emitted), and must not change them.
type Operator interface {
	// Process handles one row arriving on input port (0 for one-input
	// operators; a join's left side is 0, its right side 1).
	Process(port int, row types.Row) error
	// Watermark advances the watermark of port (MaxWatermark at the end of
	// a bounded input). The operator fires what became due, then forwards
	// its own watermark, the minimum over its ports, with Output.Watermark
	// when it rose.
	Watermark(port int, wm int64) error
	// Flush writes the operator's pending state into the KV at a
	// checkpoint barrier; the checkpoint commits it atomically with the
	// source positions and the sink output.
	Flush() error
}

// Output receives what an operator emits.
type Output interface {
	// Emit passes a row downstream.
	Emit(row types.Row) error
	// Watermark passes the operator's new watermark downstream.
	Watermark(wm int64) error
}

// OpContext is what an operator is built with.
type OpContext struct {
	// NS is the operator's state namespace (job id / operator uid).
	NS string
	// KV is the subtask's state backend (behind the checkpoint batch).
	KV KV
	// Clock is the processing-time clock (state TTL).
	Clock Clock
	// MaxKeys bounds the keys an operator caches between checkpoints;
	// past it, Flush evicts clean keys down to half (0: unbounded).
	MaxKeys int
	// Out receives the operator's rows and watermarks.
	Out Output
	// Late counts the rows the operator drops as late (the job's
	// Metrics.LateRecordsDropped); nil when nothing counts them.
	Late *atomic.Int64
}

// countLate adds one late row to oc's counter, if there is one.
func (oc *OpContext) countLate() {
	if oc.Late != nil {
		oc.Late.Add(1)
	}
}

// minWatermark tracks per-port watermarks and their minimum.
type minWatermark struct {
	ports []int64
	cur   int64
}

func newMinWatermark(ports int) minWatermark {
	m := minWatermark{ports: make([]int64, ports), cur: MinWatermark}
	for i := range m.ports {
		m.ports[i] = MinWatermark
	}
	return m
}

// advance sets port's watermark and reports the new minimum and whether it
// rose.
func (m *minWatermark) advance(port int, wm int64) (int64, bool) {
	if wm > m.ports[port] {
		m.ports[port] = wm
	}
	low := m.ports[0]
	for _, w := range m.ports[1:] {
		low = min(low, w)
	}
	if low > m.cur {
		m.cur = low
		return low, true
	}
	return m.cur, false
}

// evictClean drops cached keys, in the map's (random) order, until at most
// half of maxKeys remain, once more than maxKeys are cached (0: unbounded).
// Operators call it right after writing their dirty keys at a checkpoint,
// when every entry is clean: an evicted key is read back from the KV when
// it returns.
func evictClean[V any](cache map[string]V, maxKeys int) {
	if maxKeys <= 0 || len(cache) <= maxKeys {
		return
	}
	for k := range cache {
		if len(cache) <= maxKeys/2 {
			return
		}
		delete(cache, k)
	}
}
