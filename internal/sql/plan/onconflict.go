package plan

import (
	"strings"

	"github.com/eddy-sql/eddy/internal/catalog"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// RequireOnConflictKey is Flink 2.3's option
// 'table.exec.sink.require-on-conflict' (default true): an INSERT whose
// updating query has an upsert key other than the sink's primary key must
// say with ON CONFLICT how rows of different upsert keys that meet at one
// primary key are resolved.
const RequireOnConflictKey = "table.exec.sink.require-on-conflict"

// bindOnConflict checks the ON CONFLICT clause of an INSERT as Flink 2.3
// does and records it on the sink: it is allowed for upsert sinks only,
// and DO ERROR and DO NOTHING need every source table to have a watermark.
func (p *Planner) bindOnConflict(s *Sink, t *catalog.Table, o InsertOptions) error {
	s.OnConflict = o.OnConflict
	s.RequireOnConflict = !o.CreateTableAs && !strings.EqualFold(strings.TrimSpace(p.Session.Config[RequireOnConflictKey]), "false")
	if o.OnConflict == ast.NoConflictClause {
		return nil
	}
	full := t.FullName()
	switch {
	case p.TableMode(t) == jobgraph.Append:
		return errAt(o.OnConflictPos, sqlerr.InvalidArgument, "ON CONFLICT clause is only allowed for upsert sinks. The sink '%s' is not an upsert sink because it only accepts INSERT (append-only) changes.", full).
			WithHint("declare a PRIMARY KEY on %s, or drop the ON CONFLICT clause", t.Name)
	case p.TableMode(t) == jobgraph.Retract:
		return errAt(o.OnConflictPos, sqlerr.InvalidArgument, "ON CONFLICT clause is only allowed for upsert sinks. The sink '%s' is not an upsert sink because it requires UPDATE_BEFORE (retract mode).", full).
			WithHint("drop the ON CONFLICT clause: a retract sink takes every change")
	}
	if o.OnConflict == ast.ConflictDoError || o.OnConflict == ast.ConflictDoNothing {
		var missing []string
		seen := map[string]bool{}
		walkRels(s.In, func(r Rel) {
			sc, ok := r.(*Scan)
			if !ok || seen[sc.Table] {
				return
			}
			seen[sc.Table] = true
			parts := strings.SplitN(sc.Table, ".", 3)
			if len(parts) != 3 {
				return
			}
			if src, ok := p.Catalog.Table(parts[0], parts[1], parts[2]); ok && src.Watermark == nil {
				missing = append(missing, sc.Table)
			}
		})
		if len(missing) > 0 {
			return errAt(o.OnConflictPos, sqlerr.InvalidArgument, "ON CONFLICT %s requires all source tables to define watermarks, but the following source(s) do not: %s. Please add a WATERMARK declaration to these tables.",
				o.OnConflict, strings.Join(missing, ", ")).
				WithHint("ALTER TABLE %s ADD WATERMARK FOR ts AS ts, or use ON CONFLICT DO DEDUPLICATE", shortName(missing[0]))
		}
	}
	return nil
}

func shortName(full string) string {
	if i := strings.LastIndex(full, "."); i >= 0 {
		return full[i+1:]
	}
	return full
}

// walkRels calls fn on r and every node below it.
func walkRels(r Rel, fn func(Rel)) {
	if r == nil {
		return
	}
	fn(r)
	for _, in := range r.Inputs() {
		walkRels(in, fn)
	}
}

// ConflictStrategy returns the runtime strategy of an ON CONFLICT clause
// (DO DEDUPLICATE when there is none).
func ConflictStrategy(c ast.OnConflict) jobgraph.ConflictStrategy {
	switch c {
	case ast.ConflictDoNothing:
		return jobgraph.ConflictNothing
	case ast.ConflictDoError:
		return jobgraph.ConflictError
	}
	return jobgraph.ConflictDeduplicate
}

// OnConflict is a sink's ON CONFLICT strategy, as the parser read it; the
// optimizer reads it through this package (it does not import the AST).
type OnConflict = ast.OnConflict

// The conflict strategies, for the optimizer.
const (
	NoConflictClause      = ast.NoConflictClause
	ConflictDoNothing     = ast.ConflictDoNothing
	ConflictDoError       = ast.ConflictDoError
	ConflictDoDeduplicate = ast.ConflictDoDeduplicate
)
