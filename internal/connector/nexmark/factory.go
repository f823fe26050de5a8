package nexmark

import (
	"errors"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// Factory is the connector factory of 'nexmark' tables (a source only).
type Factory struct{}

var spec = connector.Spec{
	Identifier: Identifier,
	Doc:        "The events of the Nexmark benchmark, generated as Flink's Nexmark source generates them, deterministic by event number (decision 0019).",
	Options:    Options,
}

// Spec implements connector.Factory.
func (Factory) Spec() *connector.Spec { return &spec }

// Validate implements connector.Factory. At CREATE TABLE it stamps the
// time of the first event ('eddy.created-at', from t.Now) unless the DDL
// sets it.
func (Factory) Validate(t *connector.Table) error {
	if t.AsSelect {
		return connector.ClauseError(connector.ClauseQuery, sqlerr.Unsupported, "A 'nexmark' table generates its rows, so it cannot be created AS SELECT").
			WithHint("omit 'connector' to create an Eddy log table from the query")
	}
	if len(t.Distribution) > 0 || t.Buckets > 0 {
		return connector.ClauseError(connector.ClauseDistribution, sqlerr.InvalidOption, "A 'nexmark' table has no buckets: DISTRIBUTED BY applies to Eddy log tables").
			WithHint("remove the DISTRIBUTED clause")
	}
	if _, set := t.Options[OptCreatedAt]; !set && t.Creating && t.Now != nil {
		t.Options[OptCreatedAt] = t.Now().UTC().Format(time.RFC3339Nano)
	}
	_, err := newTable(t)
	return err
}

// ChangelogMode implements connector.Factory: the events are inserts.
func (Factory) ChangelogMode(*connector.Table) string { return connector.Append }

// Source implements connector.SourceFactory.
func (Factory) Source(t *connector.Table) (*connector.Input, error) {
	g, err := newTable(t)
	if err != nil {
		return nil, err
	}
	return &connector.Input{Generator: g}, nil
}

// newTable builds the generator of a table; errors are
// *connector.OptionError (about the option, or the table's columns).
func newTable(t *connector.Table) (*Table, error) {
	g, err := NewTable(t.Name, t.Columns, t.Options)
	var oe *OptionError
	if errors.As(err, &oe) {
		e := connector.NewOptionError(oe.Key, "%s", oe.Message)
		if oe.Hint != "" {
			e.WithHint("%s", oe.Hint)
		}
		return nil, e
	}
	return g, err
}
