package datagen

import (
	"errors"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// Factory is the connector factory of 'datagen' tables (a source only).
type Factory struct{}

var spec = connector.Spec{
	Identifier: Identifier,
	Doc:        "Generated rows with Flink's DataGen options, deterministic by row index (decision 0006); also the tables of examples.marketplace.",
	Options:    Options,
}

// Spec implements connector.Factory.
func (Factory) Spec() *connector.Spec { return &spec }

// Validate implements connector.Factory. At CREATE TABLE it stamps the
// creation time ('eddy.created-at', from t.Now) unless the DDL sets it.
func (Factory) Validate(t *connector.Table) error {
	if t.AsSelect {
		return connector.ClauseError(connector.ClauseQuery, sqlerr.Unsupported, "A 'datagen' table generates its rows, so it cannot be created AS SELECT").
			WithHint("omit 'connector' to create an Eddy log table from the query")
	}
	if len(t.Distribution) > 0 || t.Buckets > 0 {
		return connector.ClauseError(connector.ClauseDistribution, sqlerr.InvalidOption, "A 'datagen' table has no buckets: DISTRIBUTED BY applies to Eddy log tables").
			WithHint("remove the DISTRIBUTED clause")
	}
	if _, set := t.Options[OptCreatedAt]; !set && t.Creating && t.Now != nil {
		t.Options[OptCreatedAt] = t.Now().UTC().Format(time.RFC3339Nano)
	}
	_, err := newGenerator(t)
	return err
}

// ChangelogMode implements connector.Factory: 'changelog.mode', upsert by
// default for a table with a primary key.
func (Factory) ChangelogMode(t *connector.Table) string {
	if m := strings.ToLower(t.Options[OptChangelogMode]); m != "" {
		return m
	}
	if len(t.PrimaryKey) > 0 {
		return connector.Upsert
	}
	return connector.Append
}

// Source implements connector.SourceFactory.
func (Factory) Source(t *connector.Table) (*connector.Input, error) {
	g, err := newGenerator(t)
	if err != nil {
		return nil, err
	}
	return &connector.Input{Generator: g}, nil
}

// newGenerator builds the generator of a table; errors are
// *connector.OptionError.
func newGenerator(t *connector.Table) (*Generator, error) {
	g, err := New(t.Name, t.Columns, t.Options)
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
