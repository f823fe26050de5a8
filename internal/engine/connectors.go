package engine

import (
	"context"
	"fmt"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// createConnectorTable runs the side effects of CREATE TABLE for a
// connector table: the connector's own (a Kafka topic created or checked,
// registry schemas registered) and the dead-letter table of
// 'error-handling.mode' = 'log'. It returns a note for the user.
func (e *Engine) createConnectorTable(ctx context.Context, p *plan.Planner, t *catalog.Table, s *ast.CreateTable) (string, error) {
	f, tab, err := p.ConnectorTable(t, s.Name.Pos())
	if err != nil {
		return "", err
	}
	errs, err := p.ErrorHandling(t, s.Name.Pos())
	if err != nil {
		return "", err
	}
	dlqExists := false
	if errs.Mode == "log" {
		// Checked before anything is created.
		if dlq, ok := e.cat.Table(t.Catalog, t.Database, errs.Target); ok {
			if err := plan.CheckDeadLetterTable(dlq); err != nil {
				return "", sqlerr.Newf(sqlerr.InvalidOption, "Table '%s' cannot take the bad records of %s: %v", dlq.Name, t.Name, err).At(s.Name.Pos()).
					WithHint("set 'error-handling.log.target' to a new name (it is created with the right columns)")
			}
			dlqExists = true
		}
	}
	note := ""
	if c, ok := f.(connector.Creator); ok {
		if note, err = c.Create(ctx, tab); err != nil {
			return "", plan.ConnectorError(err, s, s.Name.Pos())
		}
	}
	if errs.Mode == "log" && !dlqExists {
		if err := e.createDeadLetterTable(t.Catalog, t.Database, errs.Target); err != nil {
			return "", err
		}
		note += fmt.Sprintf(" Bad records go to table '%s'.", errs.Target)
	}
	return note, nil
}

// droppedNote is what DROP TABLE of a connector table tells the user of
// what stays behind ("" for nothing).
func (e *Engine) droppedNote(t *catalog.Table) string {
	f, ok := e.connectors.Lookup(t.Connector())
	if !ok {
		return ""
	}
	d, ok := f.(connector.Dropper)
	if !ok {
		return ""
	}
	_, tab, err := e.planner().ConnectorTable(t, sqlerr.Pos{})
	if err != nil {
		return ""
	}
	return d.Dropped(tab)
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

// writeConnector writes INSERT ... VALUES rows into a connector table at
// once (a Kafka table in one transaction, with its delivery guarantee) and
// waits for them to be committed.
func (e *Engine) writeConnector(ctx context.Context, p *plan.Planner, t *catalog.Table, opts connector.SinkOptions, rows []types.Row, pos sqlerr.Pos) error {
	sink, err := p.Sink(t, opts, pos)
	if err != nil {
		return err
	}
	env := connector.Env{Logger: e.logger, Now: e.env.Clock.Now, Job: "values-" + newID(), Stdout: e.env.Stdout, Stderr: e.env.Stderr}
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
