package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// The logical nodes of OVER, Top-N, deduplication, interval and temporal
// joins and the temporal sort (decision 0026). Their runtime operators and
// jobgraph specs are decision 0017's; the doc comment of each spec is the
// contract these nodes follow.

// Over is an OVER aggregation (Flink's OverAggregate): every input row,
// followed by one column per call over its frame. With Rank set it is a
// ranking function (ROW_NUMBER, RANK, DENSE_RANK) instead, its one column
// BIGINT NOT NULL: rule rank turns the pattern of a filter on that column
// into a Rank or a Deduplicate; alone, ROW_NUMBER over a time attribute
// runs as COUNT(*) over ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
type Over struct {
	In            Rel
	PartitionKeys []int
	// OrderBy are the ORDER BY keys of the window.
	OrderBy []jobgraph.SortKey
	Frame   jobgraph.OverFrame
	Calls   []jobgraph.AggCall
	// Rank is the ranking function when HasRank.
	Rank    jobgraph.RankFunc
	HasRank bool
	// NoRankEnd marks a ranking function filtered without an upper
	// bound (rn > 2): rule rank found no Top-N.
	NoRankEnd bool
	// StateTTL is 'table.exec.state.ttl' (nanoseconds) for the Top-N or
	// deduplication rule rank makes of it.
	StateTTL int64
	// Sorted marks an aggregate OVER ordered by something else than one
	// ascending time attribute: it runs as the SortedOver of decision
	// 0035, as does one over an updating input (IsSorted).
	Sorted bool
	UID    string
	Cols   []Column
	// Pos is the position of the first OVER call, OrderPos that of its
	// ORDER BY (errors).
	Pos, OrderPos sqlerr.Pos
}

// IsSorted reports whether an aggregate OVER runs as the SortedOver of
// decision 0035 (an Eddy extension): ordered by something else than one
// ascending time attribute, or over an updating input. Its output is then
// a retract changelog.
func (n *Over) IsSorted() bool {
	return !n.HasRank && (n.Sorted || ChangelogOf(n.In).Mode != jobgraph.Append)
}

// Rank is a streaming Top-N (Flink's Rank): per partition, the rows
// ranked Start..End by OrderBy, followed by the rank when OutputRank.
type Rank struct {
	In            Rel
	PartitionKeys []int
	OrderBy       []jobgraph.SortKey
	Func          jobgraph.RankFunc
	Start, End    int64
	OutputRank    bool
	// StateTTL forgets rows not written for that long (nanoseconds).
	StateTTL int64
	UID      string
	Cols     []Column
	Pos      sqlerr.Pos
}

// Deduplicate keeps the first or the last row per key by a time attribute
// (ROW_NUMBER() ... = 1 on a time attribute, the rank not selected).
type Deduplicate struct {
	In       Rel
	Keys     []int
	KeepLast bool
	// TimeColumn is the rowtime column, -1 for proctime.
	TimeColumn int
	// StateTTL forgets keys not written for that long (nanoseconds).
	StateTTL int64
	UID      string
	Pos      sqlerr.Pos
}

// IntervalJoin is a join bounded in time between two time attributes:
// l.t - r.t in [Lower, Upper] (nanoseconds, inclusive).
type IntervalJoin struct {
	Left, Right         Rel
	Kind                jobgraph.JoinKind
	LeftKeys, RightKeys []int
	LeftTime, RightTime int
	ProcTime            bool
	Lower, Upper        int64
	Residual            expr.Expr
	UID                 string
	Cols                []Column
	Pos                 sqlerr.Pos
}

// TemporalJoin is an event-time temporal join of Left with the versioned
// table Right (FOR SYSTEM_TIME AS OF the left rowtime).
type TemporalJoin struct {
	Left, Right         Rel
	Kind                jobgraph.JoinKind
	LeftKeys, RightKeys []int
	LeftTime, RightTime int
	Residual            expr.Expr
	// ProcTime: FOR SYSTEM_TIME AS OF a processing time, a lookup join
	// (LeftTime and RightTime unused).
	ProcTime bool
	UID      string
	Cols     []Column
	Pos      sqlerr.Pos
}

// TemporalSort is ORDER BY a time attribute ascending, then other keys.
type TemporalSort struct {
	In Rel
	// TimeColumn is the time attribute; ProcTime when it is a proctime.
	TimeColumn int
	ProcTime   bool
	OrderBy    []jobgraph.SortKey
	UID        string
	Pos        sqlerr.Pos
}

// Inputs implements Rel.
func (n *Over) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel.
func (n *Over) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *Over) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }

// Inputs implements Rel.
func (n *Rank) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel.
func (n *Rank) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *Rank) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }

// Inputs implements Rel.
func (n *Deduplicate) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel.
func (n *Deduplicate) Columns() []Column { return n.In.Columns() }

// WithInputs implements Rel.
func (n *Deduplicate) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }

// Inputs implements Rel.
func (n *IntervalJoin) Inputs() []Rel { return []Rel{n.Left, n.Right} }

// Columns implements Rel.
func (n *IntervalJoin) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *IntervalJoin) WithInputs(in []Rel) Rel {
	c := *n
	c.Left, c.Right = in[0], in[1]
	return &c
}

// Inputs implements Rel.
func (n *TemporalJoin) Inputs() []Rel { return []Rel{n.Left, n.Right} }

// Columns implements Rel.
func (n *TemporalJoin) Columns() []Column { return n.Cols }

// WithInputs implements Rel.
func (n *TemporalJoin) WithInputs(in []Rel) Rel {
	c := *n
	c.Left, c.Right = in[0], in[1]
	return &c
}

// Inputs implements Rel.
func (n *TemporalSort) Inputs() []Rel { return []Rel{n.In} }

// Columns implements Rel.
func (n *TemporalSort) Columns() []Column { return n.In.Columns() }

// WithInputs implements Rel.
func (n *TemporalSort) WithInputs(in []Rel) Rel { c := *n; c.In = in[0]; return &c }

// IsTop1 reports whether a Rank keeps at most one row per partition
// without its rank: the partition key is then its upsert key.
func (n *Rank) IsTop1() bool {
	return n.Func == jobgraph.RowNumber && n.End == 1 && !n.OutputRank
}

// timeChangelog is the changelog of the nodes of this file; ok is false
// for other nodes.
func timeChangelog(r Rel) (Changelog, bool) {
	switch n := r.(type) {
	case *Over:
		if n.IsSorted() {
			return Changelog{Mode: jobgraph.Retract, Source: -1}, true
		}
		return Changelog{Mode: jobgraph.Append, Source: -1}, true
	case *IntervalJoin, *TemporalSort, *WindowRank, *WindowDedup:
		return Changelog{Mode: jobgraph.Append, Source: -1}, true
	case *Rank:
		c := Changelog{Mode: jobgraph.Retract, Source: -1}
		switch {
		case n.OutputRank && n.Func == jobgraph.RowNumber:
			c.Key = append(append([]int(nil), n.PartitionKeys...), len(n.Cols)-1)
		case n.IsTop1():
			c.Key = append([]int(nil), n.PartitionKeys...)
		default:
			c.Key = ChangelogOf(n.In).Key
		}
		return c, true
	case *Deduplicate:
		if !n.KeepLast {
			return Changelog{Mode: jobgraph.Append, Source: -1}, true
		}
		return Changelog{Mode: jobgraph.Retract, Key: append([]int(nil), n.Keys...), Source: -1}, true
	case *TemporalJoin:
		c := ChangelogOf(n.Left)
		c.Source, c.PTF = -1, nil
		if c.Mode == jobgraph.Upsert {
			c.Mode = jobgraph.Retract
		}
		c.Key = nil
		return c, true
	}
	return Changelog{}, false
}

// PhysicalName is the name EXPLAIN gives a node of the optimized plan
// (errors name the node that produces a changelog, as Flink does).
func PhysicalName(r Rel) string { return nodeName(r, true) }

// timeNodeName names the nodes of this file; ok is false for others.
func timeNodeName(r Rel) (logical, physical string, ok bool) {
	switch r.(type) {
	case *Over:
		if n, _ := r.(*Over); n.IsSorted() {
			return "LogicalOverAggregate", "SortedOverAggregate", true
		}
		return "LogicalOverAggregate", "OverAggregate", true
	case *Rank:
		return "LogicalRank", "Rank", true
	case *Deduplicate:
		return "LogicalRank", "Deduplicate", true
	case *IntervalJoin:
		return "LogicalJoin", "IntervalJoin", true
	case *TemporalJoin:
		return "LogicalJoin", "TemporalJoin", true
	case *TemporalSort:
		return "LogicalSort", "TemporalSort", true
	}
	return windowRankName(r)
}

// timeNodeAttrs renders the attributes of the nodes of this file.
func timeNodeAttrs(r Rel) []string {
	switch n := r.(type) {
	case *Over:
		in := names(n.In.Columns())
		order := sortKeys(in, n.OrderBy)
		a := []string{"partitionBy=[" + strings.Join(pick(in, n.PartitionKeys), ", ") + "]", "orderBy=[" + order + "]"}
		if n.HasRank {
			return append(a, "select=["+strings.Join(in, ", ")+", "+n.Rank.String()+"() AS "+n.Cols[len(n.Cols)-1].Name+"]", "uid=["+n.UID+"]")
		}
		sel := append([]string(nil), in...)
		for i, c := range n.Calls {
			sel = append(sel, as(c.String(in), n.Cols[len(in)+i].Name))
		}
		return append(a, "window=["+frameString(n.Frame)+"]", "select=["+strings.Join(sel, ", ")+"]", "uid=["+n.UID+"]")
	case *Rank:
		in := names(n.In.Columns())
		return []string{"rankType=[" + n.Func.String() + "]", fmt.Sprintf("rankRange=[rankStart=%d, rankEnd=%d]", n.Start, n.End),
			"partitionBy=[" + strings.Join(pick(in, n.PartitionKeys), ", ") + "]", "orderBy=[" + sortKeys(in, n.OrderBy) + "]",
			fmt.Sprintf("select=[%s]", strings.Join(names(n.Cols), ", ")), "uid=[" + n.UID + "]"}
	case *Deduplicate:
		in := names(n.In.Columns())
		keep, order := "FirstRow", "PROCTIME"
		if n.KeepLast {
			keep = "LastRow"
		}
		if n.TimeColumn >= 0 {
			order = "ROWTIME"
		}
		return []string{"keep=[" + keep + "]", "key=[" + strings.Join(pick(in, n.Keys), ", ") + "]", "order=[" + order + "]", "uid=[" + n.UID + "]"}
	case *IntervalJoin:
		l, rn := names(n.Left.Columns()), names(n.Right.Columns())
		var cond []string
		for i := range n.LeftKeys {
			cond = append(cond, l[n.LeftKeys[i]]+" = "+rn[n.RightKeys[i]])
		}
		if n.Residual != nil {
			cond = append(cond, n.Residual.String())
		}
		kind := "rowtime"
		if n.ProcTime {
			kind = "proctime"
		}
		return []string{"joinType=[" + n.Kind.String() + "]",
			fmt.Sprintf("windowBounds=[isRowTime=%t, leftLowerBound=%d, leftUpperBound=%d, leftTimeIndex=%d, rightTimeIndex=%d]", !n.ProcTime, n.Lower/1e6, n.Upper/1e6, n.LeftTime, n.RightTime),
			"where=[" + strings.Join(cond, " AND ") + "]", "time=[" + kind + "]", "select=[" + strings.Join(names(n.Cols), ", ") + "]", "uid=[" + n.UID + "]"}
	case *TemporalJoin:
		l, rn := names(n.Left.Columns()), names(n.Right.Columns())
		var cond []string
		for i := range n.LeftKeys {
			cond = append(cond, l[n.LeftKeys[i]]+" = "+rn[n.RightKeys[i]])
		}
		if n.Residual != nil {
			cond = append(cond, n.Residual.String())
		}
		return []string{"joinType=[" + n.Kind.String() + "]", "where=[__TEMPORAL_JOIN_CONDITION(" + l[n.LeftTime] + ", " + rn[n.RightTime] + ") AND " + strings.Join(cond, " AND ") + "]",
			"select=[" + strings.Join(names(n.Cols), ", ") + "]", "uid=[" + n.UID + "]"}
	case *TemporalSort:
		in := names(n.In.Columns())
		keys := []string{in[n.TimeColumn] + " ASC"}
		if o := sortKeys(in, n.OrderBy); o != "" {
			keys = append(keys, o)
		}
		return []string{"orderBy=[" + strings.Join(keys, ", ") + "]", "uid=[" + n.UID + "]"}
	}
	return windowRankAttrs(r)
}

func sortKeys(in []string, keys []jobgraph.SortKey) string {
	var out []string
	for _, k := range keys {
		s := in[k.Col] + " ASC"
		if k.Desc {
			s = in[k.Col] + " DESC"
		}
		if k.NullsFirst != !k.Desc {
			if k.NullsFirst {
				s += "-nulls-first"
			} else {
				s += "-nulls-last"
			}
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func frameString(f jobgraph.OverFrame) string {
	unit, bound := "RANGE", time.Duration(f.Preceding).String()
	if f.Rows {
		unit, bound = "ROWS", fmt.Sprint(f.Preceding)
	}
	if f.Unbounded {
		bound = "UNBOUNDED"
	}
	return unit + " BETWEEN " + bound + " PRECEDING AND CURRENT ROW"
}

// rankColumn is the column a ranking function adds.
func rankColumn(name string) Column { return Column{Name: name, Type: types.BigInt.NonNull()} }
