package jobgraph

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/types"
)

// The operator DAG of a job (DESIGN §5). Sources are the job's Inputs;
// every other operator is a Node whose inputs are edges from sources or
// from earlier nodes; the last node feeds the Sink. Nodes are listed in
// topological order: a node's inputs come before it.

// Source returns the edge endpoint of input i (a negative number, so that
// node indexes and inputs share one space).
func Source(i int) int { return -1 - i }

// IsSource reports whether endpoint e is an input, and which.
func IsSource(e int) (int, bool) {
	if e < 0 {
		return -1 - e, true
	}
	return 0, false
}

// Exchange says how rows travel along an edge.
type Exchange uint8

// The exchanges.
const (
	// Forward passes rows to the next operator in the same task.
	Forward Exchange = iota
	// Hash sends each row to the subtask owning the key group of the
	// edge's Keys.
	Hash
)

// Edge is one input of a node.
type Edge struct {
	// From is a node index, or Source(i) for input i.
	From     int
	Exchange Exchange
	// Keys are the hashed column positions of a Hash edge.
	Keys []int
}

// Node is one operator of the DAG.
type Node struct {
	// UID identifies the operator's state; it is stable for the same plan
	// node across versions of a statement ("agg-1", the PTF's uid, ...).
	UID    string
	Inputs []Edge
	// Op is the operator's spec: *Calc, *Aggregate, *Join, *Union,
	// *PTF, *Normalize, *Values, *Materialize, *OverAggregate, *SortedOver, *Rank,
	// *Deduplicate, *IntervalJoin, *TemporalJoin, *TemporalSort.
	Op any
	// Out is the schema of the rows the node emits.
	Out *types.Schema
	// Parallelism of the node (0: the job's).
	Parallelism int
}

// Normalize turns an upsert changelog into a retract changelog with full
// deletes, keeping the last row per Key (Flink's ChangelogNormalize).
type Normalize struct {
	Key []int
	// DropUpdateBefore removes the -U rows of the result (upsert delivery
	// with full deletes).
	DropUpdateBefore bool
	// StateTTL ('table.exec.state.ttl', nanoseconds; 0 = none) forgets a
	// key not written for that long.
	StateTTL int64
}

// Materialize is the sink upsert materializer (Flink's
// SinkUpsertMaterializer): it keeps, per sink primary key (Key), the rows
// alive upstream and emits an upsert stream on that key. The planner puts
// it before an upsert sink whose input updates by another key.
type Materialize struct {
	Key []int
	// Conflict is what to do when rows of different upsert keys are alive
	// at one primary key (INSERT ... ON CONFLICT): show the last
	// (DEDUPLICATE, Flink's default materializer), keep the first
	// (NOTHING), or fail (ERROR). Table names the sink for the error.
	Conflict ConflictStrategy
	Table    string
	// StateTTL ('table.exec.state.ttl', nanoseconds; 0 = none) forgets a
	// key not written for that long.
	StateTTL int64
}

// ConflictStrategy is the ON CONFLICT strategy of a Materialize.
type ConflictStrategy uint8

// The conflict strategies.
const (
	ConflictDeduplicate ConflictStrategy = iota
	ConflictNothing
	ConflictError
)

// String returns Flink's name of the strategy, as EXPLAIN shows it.
func (c ConflictStrategy) String() string {
	switch c {
	case ConflictNothing:
		return "NOTHING"
	case ConflictError:
		return "ERROR"
	}
	return "DEDUPLICATE"
}

// Union passes the rows of all its inputs on unchanged (UNION ALL); its
// watermark is the minimum over the inputs.
type Union struct{}

// AggFunc names an aggregate function.
type AggFunc string

// The aggregate functions of the core set. Each is retractable: MIN, MAX,
// FIRST_VALUE and LAST_VALUE keep the values they need to retract.
const (
	AggCountStar  AggFunc = "COUNT(*)"
	AggCount      AggFunc = "COUNT"
	AggSum        AggFunc = "SUM"
	AggSum0       AggFunc = "$SUM0" // SUM that is 0 instead of NULL (COUNT over DISTINCT rewrites)
	AggAvg        AggFunc = "AVG"
	AggMin        AggFunc = "MIN"
	AggMax        AggFunc = "MAX"
	AggFirstValue AggFunc = "FIRST_VALUE"
	AggLastValue  AggFunc = "LAST_VALUE"
	AggListAgg    AggFunc = "LISTAGG"
	AggStddevPop  AggFunc = "STDDEV_POP"
	AggStddevSamp AggFunc = "STDDEV_SAMP"
	AggVarPop     AggFunc = "VAR_POP"
	AggVarSamp    AggFunc = "VAR_SAMP"
	AggBoolAnd    AggFunc = "BOOL_AND"
	AggBoolOr     AggFunc = "BOOL_OR"
)

// The aggregate functions beyond the core set (reference §8.3). All but
// APPROX_COUNT_DISTINCT are retractable; it fails on a retraction (the
// planner allows it over insert-only input only).
const (
	// AggCollect is COLLECT(x): the MULTISET of the non-NULL values.
	AggCollect AggFunc = "COLLECT"
	// AggArrayAgg is ARRAY_AGG(x): the values in arrival order; NULL
	// values only with KeepNulls (RESPECT NULLS, the default).
	AggArrayAgg AggFunc = "ARRAY_AGG"
	// AggJSONObjectAgg is JSON_OBJECTAGG(KEY k VALUE v NULL ON NULL) and
	// AggJSONObjectAggAbsent its ABSENT ON NULL form: arguments are the
	// key and the value's JSON text (see expr.JSONText); KeepNulls is set.
	AggJSONObjectAgg       AggFunc = "JSON_OBJECTAGG"
	AggJSONObjectAggAbsent AggFunc = "JSON_OBJECTAGG_ABSENT_ON_NULL"
	// AggJSONArrayAgg is JSON_ARRAYAGG(x): the argument is the value's
	// JSON text; NULL values become JSON null with KeepNulls (NULL ON
	// NULL), else are skipped (ABSENT ON NULL, the default).
	AggJSONArrayAgg AggFunc = "JSON_ARRAYAGG"
	// AggApproxCountDistinct is APPROX_COUNT_DISTINCT(x): a HyperLogLog
	// estimate of COUNT(DISTINCT x).
	AggApproxCountDistinct AggFunc = "APPROX_COUNT_DISTINCT"
)

// AggCall is one aggregate call of an Aggregate.
type AggCall struct {
	Func AggFunc
	// Args are argument column positions in the input row (none for
	// COUNT(*); LISTAGG's second is the separator column, or absent for
	// ',').
	Args []int
	// Distinct aggregates each distinct argument value once.
	Distinct bool
	// Filter is the position of the BOOLEAN column of FILTER (WHERE ...),
	// or -1: rows where it is not TRUE are not aggregated.
	Filter int
	// Type is the result type (Flink's: COUNT BIGINT NOT NULL, SUM of INT
	// is INT, AVG of INT is INT, ...).
	Type types.Type
	// KeepNulls passes rows whose arguments are NULL to the function;
	// without it they are skipped, as SQL aggregates skip NULLs.
	KeepNulls bool
	// User is the user-defined aggregate function of the call (Func is
	// then its SQL name); nil for the built-in functions.
	User UserAggregate
	// InsertOnly says the input never retracts (a window aggregate over an
	// insert-only input): MIN and MAX then keep only the extreme value
	// instead of a multiset of every value.
	InsertOnly bool
}

// UserAggregate is a user-defined aggregate function as the runtime calls
// it (the planner adapts a udf.AggregateFunction to it). Accumulators are
// opaque values, created, changed in place and encoded by the function;
// the operator keeps them in its keyed state.
type UserAggregate interface {
	// CreateAccumulator returns an empty accumulator.
	CreateAccumulator() (any, error)
	// Accumulate adds a row's arguments (+I, +U) to acc.
	Accumulate(acc any, args []types.Value) error
	// Retract removes a row's arguments (-U, -D) from acc.
	Retract(acc any, args []types.Value) error
	// Merge adds the rows of other to acc (session windows).
	Merge(acc, other any) error
	// Value returns the result for acc.
	Value(acc any) (types.Value, error)
	// EncodeAccumulator and DecodeAccumulator convert acc to and from
	// the bytes kept in state.
	EncodeAccumulator(acc any) ([]byte, error)
	DecodeAccumulator(b []byte) (any, error)
}

// Aggregate is a streaming GROUP BY (Flink's GroupAggregate): it keeps
// per group key the accumulators of its calls and a row count, and emits
// the group's row (keys, then one column per call) as a retract
// changelog: +I for a new group, -U/+U when its values change (nothing
// when they do not), -D when its last row is retracted.
type Aggregate struct {
	// Keys are the group key positions in the input row.
	Keys  []int
	Calls []AggCall
	// StateTTL ('table.exec.state.ttl', nanoseconds; 0 = none) expires
	// groups not updated for that long.
	StateTTL int64
	// DropUpdateBefore omits the -U rows ([I,UA], and D when the input
	// updates): the consumer upserts by the group key.
	DropUpdateBefore bool
	// MiniBatch folds each group's updates within a bundle of input rows
	// into one (Flink's 'table.exec.mini-batch.*'); zero is off.
	MiniBatch MiniBatch
}

// MiniBatch is Flink's mini-batch setting of a group aggregate: a bundle
// closes after Size input rows, after Latency nanoseconds of processing
// time, at every checkpoint and at the end of the input; then every group
// the bundle touched emits one update (or none when its result did not
// change). Final results are those of the row-at-a-time operator.
type MiniBatch struct {
	Size    int64
	Latency int64
}

// On reports whether mini-batch is enabled.
func (m MiniBatch) On() bool { return m.Size > 0 }

// String is the EXPLAIN form, e.g. "2000ms, 50000 rows".
func (m MiniBatch) String() string {
	return fmt.Sprintf("%dms, %d rows", m.Latency/1e6, m.Size)
}

// JoinKind is the kind of a regular join.
type JoinKind uint8

// The join kinds.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	// SemiJoin and AntiJoin emit left rows that have (do not have) a
	// match: EXISTS/IN and NOT EXISTS/NOT IN subqueries.
	SemiJoin
	AntiJoin
)

// String returns the SQL name of the kind.
func (k JoinKind) String() string {
	return [...]string{"InnerJoin", "LeftOuterJoin", "RightOuterJoin", "FullOuterJoin", "LeftSemiJoin", "LeftAntiJoin"}[k]
}

// Join is a regular streaming join (Flink's StreamingJoin): both sides are
// kept in state by their equi-join keys; every input row is matched with
// the other side's rows of the same key. Output rows are the left row's
// columns followed by the right row's (the left row alone for semi and
// anti joins); outer joins pad the missing side with NULLs and retract the
// padded row when a first match arrives.
type Join struct {
	Kind JoinKind
	// LeftKeys and RightKeys are the equi-join key positions in each
	// side's rows (port 0 is left, 1 is right). Rows whose key has a NULL
	// never match (SQL equality), unless NullSafe[i] (IS NOT DISTINCT
	// FROM).
	LeftKeys, RightKeys []int
	NullSafe            []bool
	// Residual is the rest of the ON condition, over the concatenated
	// left and right row; nil when there is none.
	Residual expr.Expr
	// Left and Right are the input schemas.
	Left, Right *types.Schema
	// StateTTL ('table.exec.state.ttl', nanoseconds; 0 = none).
	StateTTL int64
	// SideTTL overrides StateTTL per side (left, right) when HasSideTTL
	// (the STATE_TTL hint).
	SideTTL    [2]int64
	HasSideTTL bool
}

// Values emits fixed rows once at the start (VALUES and SELECT without
// FROM); the job's inputs may be empty.
type Values struct {
	Rows [][]types.Value
}
