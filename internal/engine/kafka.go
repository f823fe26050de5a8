package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/connector/kafka"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// kafkaDDLTimeout bounds the broker and registry calls of CREATE TABLE.
const kafkaDDLTimeout = 30 * time.Second

// createKafkaTable runs the side effects of CREATE TABLE for a Kafka table:
// the topic is created (or checked), the registry schemas registered, and
// the dead-letter table of 'error-handling.mode' = 'log' created. It
// returns a note for the user.
func (e *Engine) createKafkaTable(ctx context.Context, p *plan.Planner, t *catalog.Table, s *ast.CreateTable) (string, error) {
	cfg, err := p.KafkaConfig(t, s)
	if err != nil {
		return "", err
	}
	dlqExists := false
	if cfg.ErrorMode == "log" {
		// Checked before anything is created.
		if dlq, ok := e.cat.Table(t.Catalog, t.Database, cfg.ErrorTarget); ok {
			if err := plan.CheckDeadLetterTable(dlq); err != nil {
				return "", sqlerr.Newf(sqlerr.InvalidOption, "Table '%s' cannot take the bad records of %s: %v", dlq.Name, t.Name, err).At(s.Name.Pos()).
					WithHint("set 'error-handling.log.target' to a new name (it is created with the right columns)")
			}
			dlqExists = true
		}
	}
	// A broker that does not answer must not hang the session.
	ctx, cancel := context.WithTimeout(ctx, kafkaDDLTimeout)
	defer cancel()
	created, err := kafka.EnsureTopic(ctx, cfg)
	if err != nil {
		var oe *kafka.OptionError
		if errors.As(err, &oe) {
			return "", oe.Err.At(s.Name.Pos())
		}
		return "", sqlerr.Newf(sqlerr.Runtime, "Table '%s': %v", t.Name, err).At(s.Name.Pos()).
			WithHint("check 'properties.bootstrap.servers' and that the cluster is up; for a local one run `eddy dev kafka`")
	}
	if err := kafka.Register(ctx, cfg); err != nil {
		kept := ""
		if created {
			kept = fmt.Sprintf(" (topic '%s' was created and is kept)", cfg.Topic)
		}
		return "", sqlerr.Newf(sqlerr.Runtime, "Table '%s': registering its schemas: %v%s", t.Name, err, kept).At(s.Name.Pos()).
			WithHint("check the schema registry URL and credentials; a registered schema must be compatible with the table's columns")
	}
	note := ""
	if created {
		n := max(cfg.Partitions, 1)
		note = fmt.Sprintf(" Topic '%s' was created with %d partition(s).", cfg.Topic, n)
	}
	if cfg.ErrorMode == "log" && !dlqExists {
		if err := e.createDeadLetterTable(t.Catalog, t.Database, cfg.ErrorTarget); err != nil {
			return "", err
		}
		note += fmt.Sprintf(" Bad records go to table '%s'.", cfg.ErrorTarget)
	}
	return note, nil
}

// createDeadLetterTable creates the log table bad records are written to.
func (e *Engine) createDeadLetterTable(cat, db, name string) error {
	t := &catalog.Table{Catalog: cat, Database: db, Name: name, Options: map[string]string{}}
	for _, f := range jobgraph.DeadLetterSchema().Fields {
		t.Columns = append(t.Columns, catalog.Column{Name: f.Name, Type: catalog.Type{Type: f.Type}, Kind: catalog.Physical})
	}
	t.Comment = "Records that could not be decoded ('error-handling.mode' = 'log')"
	t.Log = t.FullName() + "#" + newID()
	if err := e.logs.CreateLog(t.Log, 1); err != nil {
		return fmt.Errorf("creating the log of %s: %w", name, err)
	}
	return e.cat.CreateTable(t)
}

// writeKafka writes INSERT ... VALUES rows into a Kafka table in one
// transaction (with the table's delivery guarantee) and waits for it.
func (e *Engine) writeKafka(ctx context.Context, p *plan.Planner, t *catalog.Table, rows []types.Row) error {
	sink, err := p.KafkaSink(t)
	if err != nil {
		return err
	}
	env := connector.Env{Logger: e.logger, Now: e.env.Clock.Now, Job: "values-" + newID()}
	w, err := sink.Open(ctx, env, noKV{})
	if err != nil {
		return fmt.Errorf("writing into %s: %w", t.Name, err)
	}
	defer w.Close()
	for _, r := range rows {
		if err := w.Write(ctx, r); err != nil {
			return fmt.Errorf("writing into %s: %w", t.Name, err)
		}
	}
	if err := w.Prepare(ctx, noKV{}); err != nil {
		return fmt.Errorf("writing into %s: %w", t.Name, err)
	}
	if err := w.Commit(ctx); err != nil {
		return fmt.Errorf("writing into %s: %w", t.Name, err)
	}
	return nil
}

// noKV is the empty checkpoint of a one-off write: nothing to recover,
// nothing to record.
type noKV struct{}

func (noKV) Get([]byte) ([]byte, bool, error)            { return nil, false, nil }
func (noKV) Commit(fn func(connector.Batch) error) error { return fn(noKV{}) }
func (noKV) Set(_, _ []byte) error                       { return nil }
func (noKV) Delete([]byte) error                         { return nil }
