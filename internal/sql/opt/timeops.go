package opt

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// Changelog inference and physical translation of the OVER, Top-N,
// deduplication, interval join, temporal join and temporal sort nodes
// (decision 0026; the operators are decision 0017's).

// placeTime places the normalizes of the nodes of this file; ok is false
// for other nodes.
func (x *placer) placeTime(r plan.Rel) (plan.Rel, bool, error) {
	switch n := r.(type) {
	case *plan.Over:
		if n.IsSorted() {
			ins, err := x.retractInputs([]plan.Rel{n.In}, func() error {
				return errAt(n.Pos, sqlerr.Unsupported, "An OVER aggregate over the upsert output of a table function is not supported yet").
					WithHint("let the function emit a retract changelog (with UPDATE_BEFORE)")
			})
			if err != nil {
				return nil, true, err
			}
			return n.WithInputs(ins), true, nil
		}
		in, err := x.insertOnly(n.In, "OverAggregate", n.Pos)
		if err != nil {
			return nil, true, err
		}
		return n.WithInputs([]plan.Rel{in}), true, nil
	case *plan.Deduplicate:
		in, err := x.insertOnly(n.In, "Deduplicate", n.Pos)
		if err != nil {
			return nil, true, err
		}
		return n.WithInputs([]plan.Rel{in}), true, nil
	case *plan.WindowRank:
		in, err := x.insertOnly(n.In, "WindowRank", n.Pos)
		if err != nil {
			return nil, true, err
		}
		return n.WithInputs([]plan.Rel{in}), true, nil
	case *plan.WindowDedup:
		in, err := x.insertOnly(n.In, "WindowDeduplicate", n.Pos)
		if err != nil {
			return nil, true, err
		}
		return n.WithInputs([]plan.Rel{in}), true, nil
	case *plan.TemporalSort:
		in, err := x.insertOnly(n.In, "TemporalSort", n.Pos)
		if err != nil {
			return nil, true, err
		}
		return n.WithInputs([]plan.Rel{in}), true, nil
	case *plan.IntervalJoin:
		l, err := x.insertOnly(n.Left, "IntervalJoin", n.Pos)
		if err != nil {
			return nil, true, err
		}
		rt, err := x.insertOnly(n.Right, "IntervalJoin", n.Pos)
		if err != nil {
			return nil, true, err
		}
		return n.WithInputs([]plan.Rel{l, rt}), true, nil
	case *plan.Rank:
		ins, err := x.retractInputs([]plan.Rel{n.In}, func() error {
			return errAt(n.Pos, sqlerr.Unsupported, "A Top-N over the upsert output of a table function is not supported yet").
				WithHint("let the function emit a retract changelog (with UPDATE_BEFORE)")
		})
		if err != nil {
			return nil, true, err
		}
		return n.WithInputs(ins), true, nil
	case *plan.TemporalJoin:
		// The versioned side is read as it is: its upserts are versions
		// (Flink places no ChangelogNormalize there).
		l, err := x.visit(n.Left)
		if err != nil {
			return nil, true, err
		}
		rt, err := x.visit(n.Right)
		if err != nil {
			return nil, true, err
		}
		if cl := plan.ChangelogOf(l); cl.Mode == jobgraph.Upsert {
			if cl.Source < 0 {
				return nil, true, errAt(n.Pos, sqlerr.Unsupported, "A temporal join of the upsert output of a table function is not supported yet")
			}
			l = x.normalizeSource(l, false)
		}
		return n.WithInputs([]plan.Rel{l, rt}), true, nil
	}
	return nil, false, nil
}

// insertOnly visits an input that must be insert-only, failing with
// Flink's message otherwise.
func (x *placer) insertOnly(r plan.Rel, op string, pos sqlerr.Pos) (plan.Rel, error) {
	in, err := x.visit(r)
	if err != nil {
		return nil, err
	}
	if cl := plan.ChangelogOf(in); cl.Mode != jobgraph.Append {
		producer := producerOf(in)
		what := "update changes"
		if k := kindsOfMode(cl.Mode); k.Delete {
			what = "update and delete changes"
		}
		return nil, errAt(pos, sqlerr.ChangelogMismatch, "%s doesn't support consuming %s which is produced by node %s", op, what, describeNode(producer)).
			WithHint("%s needs an insert-only input: read a table without a primary key, or keep the first row per key with ROW_NUMBER() OVER (PARTITION BY ... ORDER BY a time attribute) = 1", op)
	}
	return in, nil
}

// producerOf returns the node that makes r's changelog updating, below the
// calcs that pass it on.
func producerOf(r plan.Rel) plan.Rel {
	for {
		switch n := r.(type) {
		case *plan.Calc:
			r = n.In
		case *plan.Limit:
			r = n.In
		default:
			return r
		}
	}
}

// describeNode renders a node as Flink names it in changelog errors.
func describeNode(r plan.Rel) string {
	switch n := r.(type) {
	case *plan.Scan:
		return fmt.Sprintf("TableSourceScan(table=[[%s]])", n.Table)
	case *plan.Normalize:
		return "ChangelogNormalize(key=[...])"
	}
	return plan.PhysicalName(r) + "(...)"
}

// timeKinds returns the row kinds of the nodes of this file; ok is false
// for other nodes.
func timeKinds(r plan.Rel, in []jobgraph.Kinds) (jobgraph.Kinds, bool) {
	switch n := r.(type) {
	case *plan.Over:
		if n.IsSorted() {
			return kindsOfMode(jobgraph.Retract), true
		}
		return jobgraph.Kinds{Insert: true}, true
	case *plan.IntervalJoin, *plan.TemporalSort, *plan.WindowRank, *plan.WindowDedup:
		return jobgraph.Kinds{Insert: true}, true
	case *plan.Rank:
		return kindsOfMode(jobgraph.Retract), true
	case *plan.Deduplicate:
		if !n.KeepLast {
			return jobgraph.Kinds{Insert: true}, true
		}
		return jobgraph.Kinds{Insert: true, UpdateBefore: true, UpdateAfter: true}, true
	case *plan.TemporalJoin:
		return in[0], true
	}
	return jobgraph.Kinds{}, false
}

// translateTime emits the operator of a node of this file; ok is false
// for other nodes.
func (t *translator) translateTime(r plan.Rel, ins []int) (int, bool, error) {
	out := plan.SchemaOf(r)
	switch n := r.(type) {
	case *plan.Over:
		op := &jobgraph.OverAggregate{PartitionKeys: n.PartitionKeys, Frame: n.Frame, Calls: n.Calls, StateTTL: n.StateTTL}
		if n.NoRankEnd {
			return 0, true, errAt(n.Pos, sqlerr.Unsupported, "Rank end is not specified. Currently rank only supports TopN, which means the rank end must be specified.").
				WithHint("bound the rank from above: WHERE rn <= N, rn < N, rn = N or rn BETWEEN a AND b")
		}
		if n.HasRank {
			if n.Rank != jobgraph.RowNumber {
				return 0, true, errAt(n.Pos, sqlerr.Unsupported, "%s() is supported only in a Top-N: filter on its column in an enclosing query (WHERE rk <= N)", n.Rank)
			}
			// ROW_NUMBER alone over a time attribute: the rows so far
			// in the partition, COUNT(*) over ROWS UNBOUNDED PRECEDING.
			op.Frame = jobgraph.OverFrame{Rows: true, Unbounded: true}
			op.Calls = []jobgraph.AggCall{{Func: jobgraph.AggCountStar, Filter: -1, Type: out.Fields[out.Len()-1].Type}}
		}
		if n.IsSorted() {
			if !n.Frame.Rows && !n.Frame.Unbounded {
				return 0, true, errAt(n.OrderPos, sqlerr.Unsupported, "RANGE BETWEEN ... PRECEDING is supported only over an insert-only input ordered by one time attribute").
					WithHint("over an updating input or another ORDER BY, write ROWS BETWEEN n PRECEDING AND CURRENT ROW or RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW")
			}
			sop := &jobgraph.SortedOver{PartitionKeys: n.PartitionKeys, OrderBy: n.OrderBy, Frame: n.Frame, Calls: n.Calls}
			return t.addNode(jobgraph.Node{UID: n.UID, Inputs: []jobgraph.Edge{hashEdge(ins[0], n.PartitionKeys)}, Op: sop, Out: out}), true, nil
		}
		inCols := n.In.Columns()
		if len(n.OrderBy) != 1 || n.OrderBy[0].Desc || inCols[n.OrderBy[0].Col].Time == plan.NotTime {
			return 0, true, errAt(n.OrderPos, sqlerr.Unsupported, "OVER windows' ordering in stream mode must be defined on a time attribute.").
				WithHint("for a Top-N, filter on the ROW_NUMBER() column in an enclosing query: SELECT * FROM (SELECT *, ROW_NUMBER() OVER (...) AS rn FROM t) WHERE rn <= 3")
		}
		op.OrderBy = n.OrderBy[0].Col
		op.ProcTime = inCols[op.OrderBy].Time == plan.ProcTime
		return t.addNode(jobgraph.Node{UID: n.UID, Inputs: []jobgraph.Edge{hashEdge(ins[0], n.PartitionKeys)}, Op: op, Out: out}), true, nil
	case *plan.Rank:
		op := &jobgraph.Rank{PartitionKeys: n.PartitionKeys, OrderBy: n.OrderBy, Func: n.Func, Start: n.Start, End: n.End, OutputRank: n.OutputRank, StateTTL: n.StateTTL}
		op.Strategy, op.UpsertKey = rankStrategy(n)
		return t.addNode(jobgraph.Node{UID: n.UID, Inputs: []jobgraph.Edge{hashEdge(ins[0], n.PartitionKeys)}, Op: op, Out: out}), true, nil
	case *plan.Deduplicate:
		op := &jobgraph.Deduplicate{Keys: n.Keys, KeepLast: n.KeepLast, TimeColumn: n.TimeColumn, StateTTL: n.StateTTL}
		return t.addNode(jobgraph.Node{UID: n.UID, Inputs: []jobgraph.Edge{hashEdge(ins[0], n.Keys)}, Op: op, Out: out}), true, nil
	case *plan.WindowRank:
		op := &jobgraph.WindowRank{Windowing: n.Windowing, PartitionKeys: n.PartitionKeys, OrderBy: n.OrderBy, Func: n.Func, Start: n.Start, End: n.End, OutputRank: n.OutputRank}
		return t.addNode(jobgraph.Node{UID: n.UID, Inputs: []jobgraph.Edge{hashEdge(ins[0], plan.WindowKeys(n.Windowing, n.PartitionKeys))}, Op: op, Out: out}), true, nil
	case *plan.WindowDedup:
		op := &jobgraph.WindowDeduplicate{Windowing: n.Windowing, Keys: n.Keys, KeepLast: n.KeepLast, TimeColumn: n.TimeColumn}
		return t.addNode(jobgraph.Node{UID: n.UID, Inputs: []jobgraph.Edge{hashEdge(ins[0], plan.WindowKeys(n.Windowing, n.Keys))}, Op: op, Out: out}), true, nil
	case *plan.TemporalSort:
		op := &jobgraph.TemporalSort{TimeColumn: n.TimeColumn, ProcTime: n.ProcTime, OrderBy: n.OrderBy}
		return t.addNode(jobgraph.Node{UID: n.UID, Inputs: []jobgraph.Edge{{From: ins[0], Exchange: jobgraph.Hash}}, Op: op, Out: out}), true, nil
	case *plan.IntervalJoin:
		op := &jobgraph.IntervalJoin{Kind: n.Kind, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys, LeftTime: n.LeftTime, RightTime: n.RightTime,
			ProcTime: n.ProcTime, LowerBound: n.Lower, UpperBound: n.Upper, Residual: n.Residual, Left: plan.SchemaOf(n.Left), Right: plan.SchemaOf(n.Right)}
		return t.addNode(jobgraph.Node{UID: n.UID, Inputs: []jobgraph.Edge{hashEdge(ins[0], n.LeftKeys), hashEdge(ins[1], n.RightKeys)}, Op: op, Out: out}), true, nil
	case *plan.TemporalJoin:
		op := &jobgraph.TemporalJoin{Kind: n.Kind, LeftKeys: n.LeftKeys, RightKeys: n.RightKeys, LeftTime: n.LeftTime, RightTime: n.RightTime,
			Residual: n.Residual, Left: plan.SchemaOf(n.Left), Right: plan.SchemaOf(n.Right), ProcTime: n.ProcTime}
		return t.addNode(jobgraph.Node{UID: n.UID, Inputs: []jobgraph.Edge{hashEdge(ins[0], n.LeftKeys), hashEdge(ins[1], n.RightKeys)}, Op: op, Out: out}), true, nil
	}
	return 0, false, nil
}

// hashEdge is a HASH edge on keys (a SINGLETON-like hash on no keys for a
// global operator).
func hashEdge(from int, keys []int) jobgraph.Edge {
	return jobgraph.Edge{From: from, Exchange: jobgraph.Hash, Keys: keys}
}

// timeExchangeKeys returns the keys of the exchange into port i of a node
// of this file.
func timeExchangeKeys(r plan.Rel, i int) []int {
	switch n := r.(type) {
	case *plan.Over:
		return n.PartitionKeys
	case *plan.Rank:
		return n.PartitionKeys
	case *plan.Deduplicate:
		return n.Keys
	case *plan.WindowRank:
		return plan.WindowKeys(n.Windowing, n.PartitionKeys)
	case *plan.WindowDedup:
		return plan.WindowKeys(n.Windowing, n.Keys)
	case *plan.IntervalJoin:
		if i == 1 {
			return n.RightKeys
		}
		return n.LeftKeys
	case *plan.TemporalJoin:
		if i == 1 {
			return n.RightKeys
		}
		return n.LeftKeys
	}
	return nil
}
