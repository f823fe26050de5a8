package runtime

import (
	"context"
	"sync"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/logstore"
	"github.com/eddy-sql/eddy/types"
)

// sink receives the job's output rows.
type sink interface {
	write(ctx context.Context, row types.Row) error
}

// collectSink hands rows to the client through a channel.
type collectSink struct {
	out chan<- types.Row
}

func (s *collectSink) write(ctx context.Context, row types.Row) error {
	select {
	case s.out <- row:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// logSink appends rows to a log table through the job's writer; they
// become visible when the checkpoint commits.
type logSink struct {
	spec *jobgraph.Sink
	w    *logstore.Writer
	mu   *sync.Mutex // guards w, shared by the subtasks
	kbuf []byte
	vbuf []byte
	vals []types.Value
	ts   []types.Type
	rr   int
}

func newLogSink(spec *jobgraph.Sink, w *logstore.Writer, mu *sync.Mutex) *logSink {
	s := &logSink{spec: spec, w: w, mu: mu}
	for _, k := range spec.Bucket {
		s.ts = append(s.ts, spec.Schema.Fields[k].Type)
	}
	return s
}

func (s *logSink) write(_ context.Context, row types.Row) error {
	if s.spec.Mode == jobgraph.Upsert && row.Kind == types.UpdateBefore {
		return nil // upsert sinks only need the after image
	}
	partition := 0
	s.kbuf = s.kbuf[:0]
	if len(s.spec.Bucket) > 0 {
		s.vals = s.vals[:0]
		for _, k := range s.spec.Bucket {
			s.vals = append(s.vals, row.Values[k])
		}
		s.kbuf = types.KeyBytes(s.kbuf, s.vals, s.ts)
		partition = logstore.Partition(s.kbuf, s.spec.Partitions)
	} else if s.spec.Partitions > 1 {
		partition = s.rr % s.spec.Partitions
		s.rr++
	}
	s.vbuf = types.AppendRow(s.vbuf[:0], row)
	s.mu.Lock()
	s.w.Append(s.spec.Log, partition, s.kbuf, s.vbuf)
	s.mu.Unlock()
	return nil
}

// extSink hands rows to an external sink's writer.
type extSink struct{ w connector.SinkWriter }

func (s extSink) write(ctx context.Context, row types.Row) error { return s.w.Write(ctx, row) }
