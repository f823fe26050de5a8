package kafka

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// ddlTimeout bounds the broker and registry calls of CREATE TABLE.
const ddlTimeout = 30 * time.Second

// Factory is the connector factory of 'kafka' or 'upsert-kafka'.
type Factory struct {
	spec connector.Spec
}

// Factories returns the factories of 'kafka' and 'upsert-kafka'.
func Factories() []connector.Factory {
	return []connector.Factory{newFactory(Kafka), newFactory(UpsertKafka)}
}

func newFactory(id string) *Factory {
	doc := "A Kafka topic read and written as an append-only stream or a retract changelog (franz-go; exactly-once with Eddy's checkpoints)."
	if id == UpsertKafka {
		doc = "A Kafka topic keyed by the table's PRIMARY KEY: a record upserts its key, a null value deletes it."
	}
	return &Factory{spec: connector.Spec{
		Identifier: id, Doc: doc, Options: Options, Metadata: metadata, Formats: formatNames(),
	}}
}

// Spec implements connector.Factory.
func (f *Factory) Spec() *connector.Spec { return &f.spec }

// tableOf describes a connector table as Parse takes it.
func tableOf(t *connector.Table) Table {
	return Table{
		Name: t.FullName, Columns: t.Columns, PrimaryKey: t.PrimaryKey, Distribution: t.Distribution,
		Buckets: t.Buckets, Options: t.Options, Defaults: t.Defaults,
	}
}

// Config validates a table's options.
func (f *Factory) Config(t *connector.Table) (*Config, error) { return Parse(tableOf(t)) }

// Validate implements connector.Factory. At CREATE TABLE it stores the
// session defaults it used (bootstrap servers, registry URLs), so the
// table works the same in every later session.
func (f *Factory) Validate(t *connector.Table) error {
	cfg, err := f.Config(t)
	if err != nil {
		return err
	}
	if !t.Creating {
		return nil
	}
	if t.Options["properties.bootstrap.servers"] == "" {
		t.Options["properties.bootstrap.servers"] = strings.Join(cfg.Bootstrap, ",")
	}
	for _, part := range []string{"key", "value"} {
		name := t.Options[part+".format"]
		if part == "value" && name == "" {
			name = t.Options["format"]
		}
		if (name == "avro-confluent" || name == "avro-registry" || name == "json-registry") && !hasURL(t.Options, part) {
			t.Options[part+"."+name+".url"] = cfg.RegistryURL
		}
	}
	return nil
}

// hasURL reports whether a registry format of the key or value part has
// its URL option.
func hasURL(opts map[string]string, part string) bool {
	for k := range opts {
		if strings.HasPrefix(k, part+".") && strings.HasSuffix(k, ".url") {
			return true
		}
	}
	return false
}

// ChangelogMode implements connector.Factory.
func (f *Factory) ChangelogMode(t *connector.Table) string {
	if f.spec.Identifier == UpsertKafka {
		return connector.Upsert
	}
	if strings.EqualFold(t.Options["changelog.mode"], "retract") || isChangelogFormat(t.Options) {
		return connector.Retract
	}
	return connector.Append
}

// isChangelogFormat reports whether the value format is a changelog
// (debezium-json): its records carry their own row kinds.
func isChangelogFormat(o map[string]string) bool {
	v := o["value.format"]
	if v == "" {
		v = o["format"]
	}
	return strings.EqualFold(v, "debezium-json")
}

// Source implements connector.SourceFactory.
func (f *Factory) Source(t *connector.Table) (*connector.Input, error) {
	cfg, err := f.Config(t)
	if err != nil {
		return nil, err
	}
	return &connector.Input{Source: NewSource(cfg), Errors: connector.ErrorHandling{Mode: cfg.ErrorMode, Target: cfg.ErrorTarget}}, nil
}

// Sink implements connector.SinkFactory. The rows carry the physical
// columns, then the persisted metadata columns ('timestamp', 'headers').
func (f *Factory) Sink(t *connector.Table, opts connector.SinkOptions) (connector.Sink, error) {
	cfg, err := f.Config(t)
	if err != nil {
		return nil, err
	}
	s := NewSink(cfg)
	i := len(t.Columns)
	for _, m := range t.Writable() {
		switch m.Key {
		case "timestamp":
			s.TimestampCol = i
		case "headers":
			s.HeadersCol = i
		}
		i++
	}
	return s, nil
}

// Create implements connector.Creator: the topic is created (or checked)
// and the registry schemas are registered.
func (f *Factory) Create(ctx context.Context, t *connector.Table) (string, error) {
	cfg, err := f.Config(t)
	if err != nil {
		return "", err
	}
	// A broker that does not answer must not hang the session.
	ctx, cancel := context.WithTimeout(ctx, ddlTimeout)
	defer cancel()
	created, err := EnsureTopic(ctx, cfg)
	if err != nil {
		var oe *OptionError
		if errors.As(err, &oe) {
			return "", oe
		}
		return "", sqlerr.Newf(sqlerr.Runtime, "Table '%s': %v", t.Name, err).
			WithHint("check 'properties.bootstrap.servers' and that the cluster is up; for a local one run `eddy dev kafka`")
	}
	if err := Register(ctx, cfg); err != nil {
		kept := ""
		if created {
			kept = fmt.Sprintf(" (topic '%s' was created and is kept)", cfg.Topic)
		}
		return "", sqlerr.Newf(sqlerr.Runtime, "Table '%s': registering its schemas: %v%s", t.Name, err, kept).
			WithHint("check the schema registry URL and credentials; a registered schema must be compatible with the table's columns")
	}
	if !created {
		return "", nil
	}
	return fmt.Sprintf(" Topic '%s' was created with %d partition(s).", cfg.Topic, max(cfg.Partitions, 1)), nil
}

// Dropped implements connector.Dropper: Eddy never deletes a topic.
func (f *Factory) Dropped(t *connector.Table) string {
	return fmt.Sprintf(" Its topic '%s' was kept: Eddy never deletes topics.", t.Options["topic"])
}
