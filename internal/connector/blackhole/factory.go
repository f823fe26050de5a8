package blackhole

import (
	"context"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/types"
)

// Identifier is the value of 'connector'.
const Identifier = "blackhole"

var spec = connector.Spec{
	Identifier: Identifier,
	Doc:        "A sink that discards every row, for benchmarks and for running a query for its side effects.",
	Options: []connector.Option{
		{Key: "connector", Type: connector.TypeString, Required: true, Doc: "Must be 'blackhole'."},
		{Key: "sink.parallelism", Type: connector.TypeInteger, Doc: "Accepted for Flink compatibility and ignored."},
	},
}

// Factory is the connector factory of 'blackhole' tables.
type Factory struct{}

// Spec implements connector.Factory.
func (Factory) Spec() *connector.Spec { return &spec }

// Validate implements connector.Factory.
func (Factory) Validate(*connector.Table) error { return nil }

// ChangelogMode implements connector.Factory: every change is accepted
// (upserts with a primary key).
func (Factory) ChangelogMode(t *connector.Table) string {
	if len(t.PrimaryKey) > 0 {
		return connector.Upsert
	}
	return connector.Retract
}

// Sink implements connector.SinkFactory.
func (Factory) Sink(*connector.Table, connector.SinkOptions) (connector.Sink, error) {
	return sink{}, nil
}

type sink struct{}

func (sink) Open(context.Context, connector.Env, connector.KV) (connector.SinkWriter, error) {
	return writer{}, nil
}

// writer discards rows.
type writer struct{}

func (writer) Write(context.Context, types.Row) error         { return nil }
func (writer) Prepare(context.Context, connector.Batch) error { return nil }
func (writer) Commit(context.Context) error                   { return nil }
func (writer) Close() error                                   { return nil }
