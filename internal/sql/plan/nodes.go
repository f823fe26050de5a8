package plan

import (
	"slices"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Scan reads a table: a log table, a Kafka topic or a generated table
// (Bound.Inputs[Input] says which and how).
type Scan struct {
	Input int
	// Table is the table's full name.
	Table string
	// Mode is the table's changelog mode; Key its primary key positions.
	Mode jobgraph.Mode
	Key  []int
	Cols []Column
}

// Values emits fixed rows (VALUES as a query, SELECT without FROM).
type Values struct {
	Rows [][]types.Value
	Cols []Column
}

// Calc filters rows (Filter, nil keeps every row), then computes the
// output columns (Project, nil passes the row on).
type Calc struct {
	In      Rel
	Filter  expr.Expr
	Project []expr.Expr
	Cols    []Column
	// Prepares marks a calc that computes the inputs of the operator above
	// it (aggregate arguments, join keys, set operation casts): changelog
	// inference normalizes an updating input below it.
	Prepares bool
	// FilterPos is the position of WHERE; Pos that of the SELECT the calc
	// projects (changelog errors).
	FilterPos, Pos sqlerr.Pos
}

// Aggregate is a GROUP BY: per group of the key columns, one column per
// aggregate call. Its output is the keys, then the calls.
type Aggregate struct {
	In    Rel
	Keys  []int
	Calls []jobgraph.AggCall
	// StateTTL expires groups not updated for that long (nanoseconds).
	StateTTL int64
	// DropUpdateBefore omits the -U rows: the only consumer is an upsert
	// sink keyed by the group key (Flink's generateUpdateBefore = false).
	DropUpdateBefore bool
	// MiniBatch is 'table.exec.mini-batch.*' (zero: off).
	MiniBatch jobgraph.MiniBatch
	// UID names the operator's state (agg/N, numbered in binding order).
	UID  string
	Cols []Column
	Pos  sqlerr.Pos
}

// Join is a regular join of Left (port 0) and Right (port 1) on equal key
// columns, with a residual condition over the left row followed by the
// right row. Its output is both rows (the left one for semi and anti
// joins).
type Join struct {
	Left, Right         Rel
	Kind                jobgraph.JoinKind
	LeftKeys, RightKeys []int
	NullSafe            []bool
	Residual            expr.Expr
	StateTTL            int64
	// SideTTL overrides StateTTL per side (left, right) when HasSideTTL:
	// the STATE_TTL hint.
	SideTTL    [2]int64
	HasSideTTL bool
	// Subquery is set for the joins of IN, EXISTS and scalar subqueries.
	Subquery bool
	// UID names the operator's state (join/N, numbered in binding order).
	UID  string
	Cols []Column
	Pos  sqlerr.Pos
}

// Union passes the rows of its inputs on (UNION ALL). Its inputs have the
// same column types.
type Union struct {
	Ins  []Rel
	Cols []Column
	// Op names the set operation the union is part of (UNION, INTERSECT,
	// EXCEPT) for messages; "" for the union of GROUPING SETS.
	Op  string
	Pos sqlerr.Pos
}

// PTFCall is a process table function call; input i is the table passed
// on port i (Spec.Tables[k].Input).
type PTFCall struct {
	Ins  []Rel
	Spec *jobgraph.PTF
	Cols []Column
	Pos  sqlerr.Pos
}

// Correlate joins each input row with the rows that a table function
// (LATERAL TABLE) or UNNEST computes from it (Flink's Correlate); its
// output is the input row followed by the function's columns. It keeps no
// state.
type Correlate struct {
	In   Rel
	Spec *jobgraph.Correlate
	Cols []Column
	Pos  sqlerr.Pos
}

// Limit passes the first N rows on (the outermost LIMIT of a query whose
// rows go to the client).
type Limit struct {
	In  Rel
	N   int64
	Pos sqlerr.Pos
}

// Normalize is Flink's ChangelogNormalize: it turns an upsert changelog
// into a retract changelog with full deletes by keeping the last row per
// Key. Changelog inference places it.
type Normalize struct {
	In  Rel
	Key []int
	// DropUpdateBefore delivers upserts with full deletes (no -U rows).
	DropUpdateBefore bool
	// StateTTL is 'table.exec.state.ttl' (nanoseconds): a key not
	// written for that long is forgotten.
	StateTTL int64
	UID      string
}

// Sink is the root of a plan: where the rows of the query go.
type Sink struct {
	In Rel
	// Spec is the job's sink; for a collect sink, changelog inference sets
	// its mode and upsert key.
	Spec jobgraph.Sink
	// Name is the sink table's name, for messages ("" for a collect sink).
	Name string
	// Target maps query column i to column Target[i] of the sink table
	// (declaration order); PK lists the primary key columns in that order
	// and PKNames their names.
	Target  []int
	PK      []int
	PKNames []string
	// EnforceFilter and EnforceProject fit the query's rows to the table
	// (casts, NOT NULL and length enforcers, the column order of
	// Spec.Schema); both nil when the rows fit as they are.
	EnforceFilter  expr.Expr
	EnforceProject []expr.Expr
	// Materialize places the sink upsert materializer, keyed by
	// Spec.Key, before the sink (changelog inference sets it).
	Materialize bool
	// StateTTL is 'table.exec.state.ttl' for the materializer.
	StateTTL int64
	Pos      sqlerr.Pos
	// OnConflict is the INSERT's ON CONFLICT strategy and
	// RequireOnConflict 'table.exec.sink.require-on-conflict' (see
	// onconflict.go).
	OnConflict        ast.OnConflict
	RequireOnConflict bool
}

// Inputs implements Rel.
func (*Scan) Inputs() []Rel { return nil }

// Columns implements Rel.
func (n *Scan) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *Scan) WithInputs([]Rel) Rel { c := *n; return &c }

// Inputs implements Rel.
func (*Values) Inputs() []Rel { return nil }

// Columns implements Rel.
func (n *Values) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *Values) WithInputs([]Rel) Rel { c := *n; return &c }

// Inputs implements Rel.
func (n *Calc) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel.
func (n *Calc) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *Calc) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }

// IsIdentity reports whether the calc passes every row on unchanged.
func (n *Calc) IsIdentity() bool { return n.Filter == nil && n.Project == nil }

// Inputs implements Rel.
func (n *Aggregate) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel.
func (n *Aggregate) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *Aggregate) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }

// Inputs implements Rel.
func (n *Join) Inputs() []Rel { return []Rel{n.Left, n.Right} }

// Columns implements Rel.
func (n *Join) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *Join) WithInputs(in []Rel) Rel { c := *n; c.Left, c.Right = in[0], in[1]; return &c }

// Inputs implements Rel.
func (n *Union) Inputs() []Rel { return n.Ins }

// Columns implements Rel.
func (n *Union) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *Union) WithInputs(in []Rel) Rel { c := *n; c.Ins = slices.Clone(in); return &c }

// Inputs implements Rel.
func (n *PTFCall) Inputs() []Rel { return n.Ins }

// Columns implements Rel.
func (n *PTFCall) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *PTFCall) WithInputs(in []Rel) Rel { c := *n; c.Ins = slices.Clone(in); return &c }

// Inputs implements Rel.
func (n *Correlate) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel.
func (n *Correlate) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *Correlate) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }

// Inputs implements Rel.
func (n *Limit) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel.
func (n *Limit) Columns() []Column { return n.In.Columns() }

// WithInputs implements Rel.
func (n *Limit) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }

// Inputs implements Rel.
func (n *Normalize) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel.
func (n *Normalize) Columns() []Column { return n.In.Columns() }

// WithInputs implements Rel.
func (n *Normalize) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }

// Inputs implements Rel.
func (n *Sink) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel: the rows written, in the order of Spec.Schema.
func (n *Sink) Columns() []Column {
	if n.Spec.Schema == nil {
		return n.In.Columns()
	}
	cols := make([]Column, n.Spec.Schema.Len())
	for i, f := range n.Spec.Schema.Fields {
		cols[i] = Column{Name: f.Name, Type: f.Type}
	}
	return cols
}

// WithInputs implements Rel.
func (n *Sink) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }
