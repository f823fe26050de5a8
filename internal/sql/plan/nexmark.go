package plan

import (
	"errors"
	"time"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/connector/nexmark"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// checkNexmark validates a 'nexmark' table (Flink's Nexmark source: the
// events of the Nexmark benchmark) and stamps its creation time, the time
// of its first events ('eddy.created-at', from the planner's clock),
// unless the DDL sets it.
func (p *Planner) checkNexmark(t *catalog.Table, ct *ast.CreateTable) error {
	if ct.Query != nil {
		return errAt(ct.Query.Pos(), sqlerr.Unsupported, "A 'nexmark' table generates its rows, so it cannot be created AS SELECT").
			WithHint("omit 'connector' to create an Eddy log table from the query")
	}
	for i, c := range t.Columns {
		if c.Kind == catalog.Metadata {
			return errAt(ct.Columns[i].Pos(), sqlerr.InvalidOption, "Column '%s': the nexmark connector has no metadata columns", c.Name).
				WithHint("declare a computed column over the generated ones")
		}
	}
	if ct.Distribution != nil {
		return errAt(ct.Distribution.Pos(), sqlerr.InvalidOption, "A 'nexmark' table has no buckets: DISTRIBUTED BY applies to Eddy log tables").
			WithHint("remove the DISTRIBUTED clause")
	}
	if _, set := t.Options[nexmark.OptCreatedAt]; !set && p.Now != nil {
		t.Options[nexmark.OptCreatedAt] = p.Now().UTC().Format(time.RFC3339Nano)
	}
	if _, err := nexmark.NewTable(t.Name, t.PhysicalSchema().Fields, t.Options); err != nil {
		return nexmarkError(err, ct)
	}
	return nil
}

// nexmarkError turns a nexmark validation error into a user error at the
// option it is about (or the table when it is about the columns).
func nexmarkError(err error, ct *ast.CreateTable) error {
	var oe *nexmark.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	pos := ct.Pos()
	for _, o := range ct.Options {
		if oe.Key != "" && o.Key.Value == oe.Key {
			pos = o.Value.Pos()
		}
	}
	e := errAt(pos, sqlerr.InvalidOption, "%s", oe.Message)
	if oe.Hint != "" {
		e.WithHint("%s", oe.Hint)
	}
	return e
}

// nexmarkGenerator returns the generator of a 'nexmark' table read at pos.
func nexmarkGenerator(t *catalog.Table, pos sqlerr.Pos) (*nexmark.Table, error) {
	gen, err := nexmark.NewTable(t.Name, t.PhysicalSchema().Fields, t.Options)
	if err != nil {
		var oe *nexmark.OptionError
		if errors.As(err, &oe) {
			return nil, errAt(pos, sqlerr.InvalidOption, "%s", oe.Message)
		}
		return nil, err
	}
	return gen, nil
}
