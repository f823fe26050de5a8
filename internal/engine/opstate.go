package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// operatorState describes what the stateful operators of a job other than
// process table functions keep, by uid: the types of the rows and keys a
// join, normalize or sink upsert materializer stores, the key types and
// calls of an aggregate. Two jobs with the same description can share
// their state; a replacing statement carries state over only then.
func operatorState(job *jobgraph.Job) string {
	if job == nil {
		return ""
	}
	in := func(n jobgraph.Node, port int) *types.Schema {
		e := n.Inputs[port].From
		if i, ok := jobgraph.IsSource(e); ok {
			return job.Inputs[i].Schema
		}
		return job.Nodes[e].Out
	}
	var parts []string
	for _, n := range job.Nodes {
		var d string
		switch op := n.Op.(type) {
		case *jobgraph.Aggregate:
			var calls []string
			for _, c := range op.Calls {
				calls = append(calls, c.String(typeNames(in(n, 0)))+":"+c.Type.String())
			}
			d = fmt.Sprintf("keys=%s;calls=%s", typesAt(in(n, 0), op.Keys), strings.Join(calls, ","))
		case *jobgraph.Join:
			d = fmt.Sprintf("kind=%s;left=%s;right=%s;keys=%v/%v", op.Kind, typeList(op.Left), typeList(op.Right), op.LeftKeys, op.RightKeys)
		case *jobgraph.Normalize:
			d = fmt.Sprintf("row=%s;key=%v", typeList(in(n, 0)), op.Key)
		case *jobgraph.Materialize:
			d = fmt.Sprintf("row=%s;key=%v", typeList(n.Out), op.Key)
		case *jobgraph.OverAggregate:
			var calls []string
			for _, c := range op.Calls {
				calls = append(calls, c.String(typeNames(in(n, 0)))+":"+c.Type.String())
			}
			d = fmt.Sprintf("over;row=%s;keys=%v;order=%d;frame=%+v;calls=%s", typeList(in(n, 0)), op.PartitionKeys, op.OrderBy, op.Frame, strings.Join(calls, ","))
		case *jobgraph.SortedOver:
			var calls []string
			for _, c := range op.Calls {
				calls = append(calls, c.String(typeNames(in(n, 0)))+":"+c.Type.String())
			}
			d = fmt.Sprintf("sortedover;row=%s;keys=%v;order=%+v;frame=%+v;calls=%s", typeList(in(n, 0)), op.PartitionKeys, op.OrderBy, op.Frame, strings.Join(calls, ","))
		case *jobgraph.Rank:
			d = fmt.Sprintf("rank;row=%s;keys=%v;order=%+v;func=%s;range=%d-%d;strategy=%s", typeList(in(n, 0)), op.PartitionKeys, op.OrderBy, op.Func, op.Start, op.End, op.Strategy)
		case *jobgraph.Deduplicate:
			d = fmt.Sprintf("dedup;row=%s;keys=%v;last=%t;time=%d", typeList(in(n, 0)), op.Keys, op.KeepLast, op.TimeColumn)
		case *jobgraph.WindowRank:
			d = fmt.Sprintf("windowrank;row=%s;window=%+v;keys=%v;order=%+v;func=%s;range=%d-%d", typeList(in(n, 0)), op.Windowing, op.PartitionKeys, op.OrderBy, op.Func, op.Start, op.End)
		case *jobgraph.WindowDeduplicate:
			d = fmt.Sprintf("windowdedup;row=%s;window=%+v;keys=%v;last=%t;time=%d", typeList(in(n, 0)), op.Windowing, op.Keys, op.KeepLast, op.TimeColumn)
		case *jobgraph.TemporalSort:
			d = fmt.Sprintf("sort;row=%s;time=%d;order=%+v", typeList(in(n, 0)), op.TimeColumn, op.OrderBy)
		case *jobgraph.IntervalJoin:
			d = fmt.Sprintf("interval;kind=%s;left=%s;right=%s;keys=%v/%v;bounds=%d/%d", op.Kind, typeList(op.Left), typeList(op.Right), op.LeftKeys, op.RightKeys, op.LowerBound, op.UpperBound)
		case *jobgraph.TemporalJoin:
			d = fmt.Sprintf("temporal;kind=%s;left=%s;right=%s;keys=%v/%v", op.Kind, typeList(op.Left), typeList(op.Right), op.LeftKeys, op.RightKeys)
		default:
			continue
		}
		parts = append(parts, n.UID+"{"+d+"}")
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

func typeList(s *types.Schema) string {
	var ts []string
	for _, f := range s.Fields {
		ts = append(ts, f.Type.String())
	}
	return "(" + strings.Join(ts, ",") + ")"
}

func typesAt(s *types.Schema, idx []int) string {
	var ts []string
	for _, i := range idx {
		ts = append(ts, s.Fields[i].Type.String())
	}
	return "(" + strings.Join(ts, ",") + ")"
}

// typeNames names columns by their types, so that a description does not
// depend on column names.
func typeNames(s *types.Schema) []string {
	out := make([]string, s.Len())
	for i, f := range s.Fields {
		out[i] = f.Type.String()
	}
	return out
}
