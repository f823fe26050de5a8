package plan

import (
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// The logical plan (DESIGN §5, first form). The binder turns a statement
// into a tree of relational nodes rooted at a Sink: plain data with
// resolved names, types, time attributes and positions for errors. Views
// and named queries are inlined and subqueries are joins. Package opt
// rewrites the tree (rules), infers its changelog modes and translates it
// into a jobgraph.Job.
//
// Nodes are values that rules copy and rebuild (WithInputs); a node may be
// the input of several others (the shared pre-projection of GROUPING
// SETS), so passes that rebuild a plan map each node once, by identity.

// Rel is a node of the logical plan.
type Rel interface {
	// Inputs returns the node's inputs, by port.
	Inputs() []Rel
	// Columns returns the node's output columns.
	Columns() []Column
	// WithInputs returns a copy of the node that reads in instead (as many
	// inputs as Inputs returns).
	WithInputs(in []Rel) Rel
}

// Column is an output column of a node.
type Column struct {
	Name string
	Type types.Type
	// Time marks a time attribute (Flink's rowtime and proctime columns).
	// Operators that can reorder rows (joins, aggregates) turn time
	// attributes into plain timestamps.
	Time TimeKind
}

// TimeKind says whether a column is a time attribute.
type TimeKind uint8

// The time kinds.
const (
	// NotTime is a plain column.
	NotTime TimeKind = iota
	// RowTime is an event-time attribute: a column with a watermark.
	RowTime
	// ProcTime is a processing-time attribute.
	ProcTime
)

// Bound is a statement bound into a logical plan: the plan, rooted at a
// sink, and the tables it reads (a Scan's Input indexes Inputs).
type Bound struct {
	Root   *Sink
	Inputs []jobgraph.Input
	// Version is the plan version the statement is planned with
	// (Session.PlanVersion).
	Version int
	// TryResolveNDU is 'table.optimizer.non-deterministic-update.strategy'
	// = 'TRY_RESOLVE': the optimizer rejects non-deterministic updates.
	TryResolveNDU bool
	// StateTTL is 'table.exec.state.ttl' (nanoseconds) for the operators
	// the optimizer places: ChangelogNormalize.
	StateTTL int64
}

// The plan versions. A durable statement resumes with the version it was
// first planned with, so that its operators keep the inputs their state
// was built from.
const (
	// PlanV1 translates the bound plan as it is: the operator DAG of
	// statements created before package opt had rewrite rules.
	PlanV1 = 1
	// PlanV2 runs the rewrite rules (filter and projection pushdown, calc
	// merge) before changelog inference.
	PlanV2 = 2
	// PlanV3 also ranks per window over SESSION windows: a ranking function
	// partitioned by window_start and window_end of a SESSION window TVF or
	// window aggregate is a window Top-N (decision 0035); version 2 plans it
	// as an unbounded Top-N.
	PlanV3 = 3
	// PlanV4 drops the rank column of a Top-N that nothing above reads,
	// also when the projection that drops it is not right above the
	// ranking function's filter, and a ROW_NUMBER Top-1 by a time
	// attribute so pruned is a deduplication (decision 0041).
	PlanV4 = 4
	// LatestPlan is the version of new statements.
	LatestPlan = PlanV4
)

// schemaOf returns the schema of columns.
func schemaOf(cols []Column) *types.Schema {
	fields := make([]types.Field, len(cols))
	for i, c := range cols {
		fields[i] = types.Field{Name: c.Name, Type: c.Type}
	}
	return types.NewSchema(fields...)
}

// SchemaOf returns the schema of a node's rows.
func SchemaOf(r Rel) *types.Schema { return schemaOf(r.Columns()) }
