package printsink

import (
	"context"
	"io"
	"os"
	"sync"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/format"
	"github.com/eddy-sql/eddy/types"
)

// Identifier is the value of 'connector'.
const Identifier = "print"

// Options declares the options of the 'print' connector (Flink's).
var Options = []connector.Option{
	{Key: "connector", Type: connector.TypeString, Required: true, Doc: "Must be 'print'."},
	{Key: "print-identifier", Type: connector.TypeString, Doc: "A prefix of every line: 'id> +I[...]'."},
	{Key: "standard-error", Type: connector.TypeBoolean, Default: "false", Doc: "Print to the standard error of the Eddy process instead of its standard output."},
	{Key: "sink.parallelism", Type: connector.TypeInteger, Doc: "Accepted for Flink compatibility; Eddy prints from one writer, so lines never carry a subtask number."},
}

var spec = connector.Spec{
	Identifier: Identifier,
	Doc:        "A sink that prints every row to the standard output (or error) of the Eddy process (the `eddy sql` shell, or `eddy server`), in Flink's format '+I[1, abc]'.",
	Options:    Options,
}

// Factory is the connector factory of 'print' tables.
type Factory struct{}

// Spec implements connector.Factory.
func (Factory) Spec() *connector.Spec { return &spec }

// Validate implements connector.Factory.
func (Factory) Validate(*connector.Table) error { return nil }

// ChangelogMode implements connector.Factory: a print table takes every
// change (as Flink's, which accepts the mode it is asked for); with a
// primary key it takes upserts.
func (Factory) ChangelogMode(t *connector.Table) string {
	if len(t.PrimaryKey) > 0 {
		return connector.Upsert
	}
	return connector.Retract
}

// Sink implements connector.SinkFactory.
func (Factory) Sink(t *connector.Table, _ connector.SinkOptions) (connector.Sink, error) {
	s := &Sink{Fields: t.Columns}
	if id := t.Options["print-identifier"]; id != "" {
		s.Prefix = id + "> "
	}
	s.Stderr, _ = connector.ParseBool(t.Options["standard-error"])
	return s, nil
}

// Sink prints rows. It is plain configuration until Open.
type Sink struct {
	// Prefix starts every line ("id> ", or "").
	Prefix string
	// Stderr prints to the standard error instead of the standard output.
	Stderr bool
	// Fields are the columns of the rows.
	Fields []types.Field
}

// Open implements connector.Sink: the writer prints to env.Stdout (or
// env.Stderr), by default the process's.
func (s *Sink) Open(_ context.Context, env connector.Env, _ connector.KV) (connector.SinkWriter, error) {
	var out io.Writer
	if s.Stderr {
		out = env.Stderr
		if out == nil {
			out = os.Stderr
		}
	} else {
		out = env.Stdout
		if out == nil {
			out = os.Stdout
		}
	}
	return &writer{s: s, out: out}, nil
}

// writer prints each row as it arrives, one line per row, under a lock
// (subtasks write concurrently; each line is written whole).
type writer struct {
	s   *Sink
	out io.Writer
	mu  sync.Mutex
	buf []byte
}

func (w *writer) Write(_ context.Context, row types.Row) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := append(w.buf[:0], w.s.Prefix...)
	b = format.AppendJavaRow(b, row.Kind, row.Values, w.s.Fields)
	b = append(b, '\n')
	w.buf = b
	_, err := w.out.Write(b)
	return err
}

// Prepare implements connector.SinkWriter: lines are written at once, so
// there is nothing to flush (a restarted statement prints the rows after
// its last checkpoint again, as Flink's print sink does).
func (w *writer) Prepare(context.Context, connector.Batch) error { return nil }

func (w *writer) Commit(context.Context) error { return nil }

func (w *writer) Close() error { return nil }
