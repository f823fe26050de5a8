package opt

import (
	"slices"
	"strings"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// Optimize turns a bound statement into a job: rewrite rules (from plan
// version 2), changelog inference, physical translation.
func Optimize(b *plan.Bound) (*plan.QueryPlan, error) {
	if b.Version == 0 {
		v := *b
		v.Version = plan.LatestPlan
		b = &v
	}
	root := b.Root
	if b.Version >= plan.PlanV2 {
		root = requirePTFs(rewrite(root, rulesOf(b.Version)))
	} else if hasRanking(root) {
		root = rewrite(root, rankRules)
	}
	x := newPlacer()
	x.version = b.Version
	x.ttl = b.StateTTL
	in, err := x.visit(root.In)
	if err != nil {
		return nil, err
	}
	sink := *root
	sink.In = in
	if err := x.placeSink(&sink); err != nil {
		return nil, err
	}
	if b.TryResolveNDU {
		if err := checkDeterminism(&sink, b.Inputs); err != nil {
			return nil, err
		}
	}
	dropAggregateUpdateBefore(&sink)
	opt := *b
	opt.Root = &sink
	job, err := translate(&opt)
	if err != nil {
		return nil, err
	}
	cl := plan.ChangelogOf(&sink)
	q := &plan.QueryPlan{Job: job, Schema: sink.Spec.Schema, Mode: cl.Mode, Key: cl.Key, Changelog: cl.Exact(), Version: b.Version, Logical: b, Optimized: &opt}
	if sink.Spec.Kind != jobgraph.CollectSink {
		q.Key = sink.Spec.Key
	}
	job.Mode, job.UpsertKey = q.Mode, q.Key
	return q, nil
}

// placeSink checks that the query's changelog fits the sink and places
// what the sink needs: a normalize before a retract sink (and before the
// client, which sees the retract changelog of an upsert table, as Flink's
// SQL client does), the sink upsert materializer before an upsert sink fed
// by a changelog keyed differently from its primary key.
func (x *placer) placeSink(s *plan.Sink) error {
	cl := plan.ChangelogOf(s.In)
	if s.Spec.Kind == jobgraph.CollectSink {
		if cl.Mode == jobgraph.Upsert && cl.Source >= 0 {
			s.In = x.normalizeSource(s.In, false)
		}
		return nil
	}
	sink := s.Spec.Mode
	if cl.Mode == jobgraph.Append && sink == jobgraph.Upsert && (s.OnConflict == plan.ConflictDoNothing || s.OnConflict == plan.ConflictDoError) &&
		!(len(cl.Key) > 0 && sameColumns(mapKey(cl.Key, s.Target), s.PK)) {
		// Insert-only rows are upserts for DO DEDUPLICATE; the other
		// strategies resolve rows that meet at one primary key.
		s.Materialize = true
		return nil
	}
	switch {
	case cl.Mode == jobgraph.Upsert && sink == jobgraph.Retract && cl.Source < 0:
		// A function's upsert output cannot be turned into a retract
		// changelog (there is no changelog normalize after a call).
		exact := cl.Exact()
		return errAt(s.Pos, sqlerr.ChangelogMismatch, "There is a changelog mismatch between two operators. One produces an upsert changelog (UPDATE_AFTER without UPDATE_BEFORE): %s %s. The other requires a retract changelog: table sink '%s' ('changelog.mode' = 'retract')",
			exact.Name(), exact, s.Name).
			WithHint("declare PRIMARY KEY (%s) NOT ENFORCED on %s so it becomes an upsert table, or let the function answer a required UPDATE_BEFORE with a retract changelog", keyNames(s.In, cl.Key), s.Name)
	case cl.Mode == jobgraph.Append || sink == jobgraph.Retract:
		if cl.Mode == jobgraph.Upsert {
			s.In = x.normalizeSource(s.In, false)
		}
		return nil
	case sink == jobgraph.Append:
		if cl.Mode == jobgraph.Upsert && cl.Source >= 0 {
			return errAt(s.Pos, sqlerr.ChangelogMismatch, "Table sink '%s' is append-only, but the query reads an updating table", s.Name).
				WithHint("declare a PRIMARY KEY on %s so it becomes an upsert table, or set 'changelog.mode' = 'retract'", s.Name)
		}
		what := "a retract changelog"
		if cl.Mode == jobgraph.Upsert {
			what = "an upsert changelog (UPDATE_AFTER without UPDATE_BEFORE)"
		}
		exact := cl.Exact()
		return errAt(s.Pos, sqlerr.ChangelogMismatch, "There is a changelog mismatch: the query produces %s, mode %s %s, but table sink '%s' is append-only and requires an insert-only changelog", what, exact.Name(), exact, s.Name).
			WithHint("declare PRIMARY KEY (%s) NOT ENFORCED on %s so it becomes an upsert table", keyNames(s.In, cl.Key), s.Name)
	}
	// An upsert sink.
	keyIsPK := len(cl.Key) > 0 && sameColumns(mapKey(cl.Key, s.Target), s.PK)
	if cl.Mode == jobgraph.Upsert && !keyIsPK {
		return errAt(s.Pos, sqlerr.ChangelogMismatch, "The upsert key of the query (%s) does not match the primary key of '%s' (%s)", keyNames(s.In, cl.Key), s.Name, strings.Join(s.PKNames, ", ")).
			WithHint("the primary key of the sink must equal the PARTITION BY key of the function that emits upserts")
	}
	if cl.Mode == jobgraph.Retract && len(s.PK) > 0 && !keyIsPK {
		// The query updates by another key than the sink's primary key
		// (or by none): materialize per primary key, as Flink's
		// SinkUpsertMaterializer does (table.exec.sink.upsert-materialize
		// AUTO). Flink 2.3 asks for the conflict strategy first.
		if s.OnConflict == plan.NoConflictClause && s.RequireOnConflict {
			upsert := "[]"
			if len(cl.Key) > 0 {
				upsert = "[" + keyNames(s.In, cl.Key) + "]"
			}
			return errAt(s.Pos, sqlerr.ChangelogMismatch, "The query has an upsert key that differs from the primary key of the sink table '%s'. Primary key: [%s], upsert key: %s. This can lead to non-deterministic results when multiple records with different upsert keys map to the same primary key. Please specify an ON CONFLICT clause to define how conflicts should be handled: ON CONFLICT DO DEDUPLICATE (update to the latest record, state intensive, since we need to keep the entire history), or ON CONFLICT DO ERROR (fail on conflict), or ON CONFLICT DO NOTHING (keep first record).",
				s.Spec.Table, strings.Join(s.PKNames, ", "), upsert).
				WithHint("end the INSERT with ON CONFLICT DO DEDUPLICATE (what Eddy and Flink before 2.3 did), or SET '%s' = 'false'", plan.RequireOnConflictKey)
		}
		s.Materialize = true
	}
	if cl.Mode == jobgraph.Retract && len(s.PK) > 0 && x.version >= plan.PlanV2 && !onlyUpdateAfter(s.In) {
		// Keyed by the primary key, but a filter on other columns can
		// remove the +U of an update and pass its -U alone, which an
		// upsert sink drops: the materializer turns it into a delete.
		s.Materialize = true
	}
	return nil
}

// mapKey maps query columns to sink columns.
func mapKey(key, target []int) []int {
	out := make([]int, len(key))
	for i, k := range key {
		out[i] = target[k]
	}
	return out
}

func sameColumns(a, b []int) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
