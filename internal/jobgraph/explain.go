package jobgraph

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/types"
)

// Explain renders a job's operator DAG as a tree, sink first, for
// EXPLAIN: each operator with its uid (the name of its state), the
// exchanges into keyed operators, and the changelog kinds it emits
// (Flink's notation, inferred bottom-up by ChangelogKinds). Children are
// drawn below their consumer, ":- " before all but the last, "+- " before
// the last; an input read by several operators appears under each.
//
// A statement set's job has one tree per sink, in the order of its
// INSERTs; operators and inputs they share appear in each tree.
func Explain(j *Job) string {
	var b strings.Builder
	nodes, src := ChangelogKinds(j)
	results := j.Results()
	for i, sk := range j.Sinks() {
		if i > 0 {
			b.WriteString("\n")
		}
		switch sk.Kind {
		case LogSink:
			fmt.Fprintf(&b, "Sink(table=[%s], mode=[%s], key=%v)\n", sk.Table, sk.Mode, names(sk.Schema.Names(), sk.Key))
		case ExternalSink:
			fmt.Fprintf(&b, "KafkaSink(table=[%s], mode=[%s], key=%v)\n", sk.Table, sk.Mode, names(sk.Schema.Names(), sk.Key))
		default:
			if j.Limit > 0 {
				fmt.Fprintf(&b, "Collect(mode=[%s], limit=[%d])\n", j.Mode, j.Limit)
			} else {
				fmt.Fprintf(&b, "Collect(mode=[%s])\n", j.Mode)
			}
		}
		explainEndpoint(&b, j, "+- ", "   ", results[i], nodes, src)
	}
	return b.String()
}

func explainEndpoint(b *strings.Builder, j *Job, prefix, next string, e int, nodes, src []Kinds) {
	if i, ok := IsSource(e); ok {
		b.WriteString(prefix)
		explainInput(b, j.Inputs[i], src[i])
		return
	}
	n := j.Nodes[e]
	b.WriteString(prefix)
	writeOp(b, j, n)
	fmt.Fprintf(b, ", changelogMode=%s\n", nodes[e])
	for k, in := range n.Inputs {
		pre, nx := next+":- ", next+":  "
		if k == len(n.Inputs)-1 {
			pre, nx = next+"+- ", next+"   "
		}
		if in.Exchange == Hash {
			fmt.Fprintf(b, "%sExchange(distribution=[hash%v])\n", pre, names(endpointSchema(j, in.From).Names(), in.Keys))
			pre, nx = nx+"+- ", nx+"   "
		}
		explainEndpoint(b, j, pre, nx, in.From, nodes, src)
	}
}

// endpointSchema returns the schema of the rows an endpoint emits.
func endpointSchema(j *Job, e int) schemaNames {
	if i, ok := IsSource(e); ok {
		return j.Inputs[i].Schema
	}
	return j.Nodes[e].Out
}

type schemaNames interface{ Names() []string }

func writeOp(b *strings.Builder, j *Job, n Node) {
	in := func(port int) []string { return endpointSchema(j, n.Inputs[port].From).Names() }
	switch op := n.Op.(type) {
	case *Calc:
		writeCalc(b, *op)
	case *Normalize:
		fmt.Fprintf(b, "ChangelogNormalize(uid=[%s], key=%v)", n.UID, names(in(0), op.Key))
		if op.DropUpdateBefore {
			b.WriteString(" DropUpdateBefore")
		}
	case *PTF:
		fmt.Fprintf(b, "ProcessTableFunction(function=[%s], id=[%s], uid=[%s], produces=%s, out=%v)", op.Name, op.ID, op.UID, op.Produced, op.Out.Names())
		for _, t := range op.Tables {
			fmt.Fprintf(b, " TableArgument(name=[%s], port=[%d], partitionBy=%v, delivered=%s)", t.Arg, t.Input, names(t.Schema.Names(), t.Keys), t.Delivered)
		}
	case *Aggregate:
		var calls []string
		for _, c := range op.Calls {
			calls = append(calls, c.String(in(0)))
		}
		fmt.Fprintf(b, "GroupAggregate(uid=[%s], groupBy=%v, select=[%s])", n.UID, names(in(0), op.Keys), strings.Join(calls, ", "))
		if op.DropUpdateBefore {
			b.WriteString(" DropUpdateBefore")
		}
		if op.MiniBatch.On() {
			fmt.Fprintf(b, " MiniBatch(%s)", op.MiniBatch)
		}
	case *Join:
		cond := []string{}
		for i := range op.LeftKeys {
			eq := "="
			if len(op.NullSafe) > i && op.NullSafe[i] {
				eq = "IS NOT DISTINCT FROM"
			}
			cond = append(cond, fmt.Sprintf("%s %s %s", op.Left.Names()[op.LeftKeys[i]], eq, op.Right.Names()[op.RightKeys[i]]))
		}
		if op.Residual != nil {
			cond = append(cond, op.Residual.String())
		}
		fmt.Fprintf(b, "Join(uid=[%s], joinType=[%s], where=[%s])", n.UID, op.Kind, strings.Join(cond, " AND "))
	case *Correlate:
		var args []string
		for _, a := range op.Args {
			args = append(args, a.String())
		}
		name, kind := op.Name, "INNER"
		if op.Unnest != nil {
			name = "UNNEST"
			if op.Unnest.Ordinality {
				name = "UNNEST WITH ORDINALITY"
			}
		}
		if op.Left {
			kind = "LEFT"
		}
		fmt.Fprintf(b, "Correlate(invocation=[%s(%s)], joinType=[%s])", name, strings.Join(args, ", "), kind)
	case *Union:
		b.WriteString("Union(all=[true])")
	case *Materialize:
		fmt.Fprintf(b, "SinkUpsertMaterializer(uid=[%s], pk=%v)", n.UID, names(n.Out.Names(), op.Key))
		if op.Conflict != ConflictDeduplicate {
			fmt.Fprintf(b, ", conflictStrategy=[%s]", op.Conflict)
		}
	case *Values:
		fmt.Fprintf(b, "Values(rows=[%d])", len(op.Rows))
	case *OverAggregate:
		writeOver(b, n, in(0), op)
	case *SortedOver:
		writeSortedOver(b, n, in(0), op)
	case *Rank:
		writeRank(b, n, in(0), op)
	case *Deduplicate:
		keep, order := "FirstRow", "ROWTIME"
		if op.KeepLast {
			keep = "LastRow"
		}
		if op.ProcTime() {
			order = "PROCTIME"
		}
		fmt.Fprintf(b, "Deduplicate(uid=[%s], keep=[%s], key=%v, order=[%s])", n.UID, keep, names(in(0), op.Keys), order)
	case *IntervalJoin:
		cond := equiCondition(op.Left, op.Right, op.LeftKeys, op.RightKeys, op.Residual)
		fmt.Fprintf(b, "IntervalJoin(uid=[%s], joinType=[%s], windowBounds=[isRowTime=%t, leftLowerBound=%s, leftUpperBound=%s, leftTime=[%s], rightTime=[%s]], where=[%s])",
			n.UID, op.Kind, !op.ProcTime, millis(op.LowerBound), millis(op.UpperBound),
			op.Left.Names()[op.LeftTime], op.Right.Names()[op.RightTime], cond)
	case *TemporalJoin:
		cond := equiCondition(op.Left, op.Right, op.LeftKeys, op.RightKeys, op.Residual)
		fmt.Fprintf(b, "TemporalJoin(uid=[%s], joinType=[%s], where=[%s], leftTime=[%s], rightTime=[%s])",
			n.UID, op.Kind, cond, op.Left.Names()[op.LeftTime], op.Right.Names()[op.RightTime])
	case *TemporalSort:
		keys := []string{"PROCTIME() ASC"}
		if !op.ProcTime {
			keys[0] = in(0)[op.TimeColumn] + " ASC"
		}
		for _, k := range op.OrderBy {
			keys = append(keys, sortKeyString(in(0), k))
		}
		fmt.Fprintf(b, "TemporalSort(uid=[%s], orderBy=[%s])", n.UID, strings.Join(keys, ", "))
	case *WindowTVF, *WindowAggregate, *WindowRank, *WindowDeduplicate, *WindowJoin:
		writeWindowOp(b, j, n)
	default:
		fmt.Fprintf(b, "%T", op)
	}
	fmt.Fprintf(b, ", fields=%v", n.Out.Names())
}

// String renders an aggregate call with its argument names.
func (c AggCall) String(in []string) string {
	var args []string
	for _, a := range c.Args {
		args = append(args, in[a])
	}
	s := string(c.Func)
	if c.Func == AggCountStar {
		s = "COUNT(*)"
	} else {
		d := ""
		if c.Distinct {
			d = "DISTINCT "
		}
		s += "(" + d + strings.Join(args, ", ") + ")"
	}
	switch {
	case c.KeepNulls && c.Func == AggArrayAgg:
		s = strings.TrimSuffix(s, ")") + " RESPECT NULLS)"
	case c.KeepNulls && c.Func == AggJSONArrayAgg:
		s = strings.TrimSuffix(s, ")") + " NULL ON NULL)"
	}
	if c.Filter >= 0 {
		s += " FILTER " + in[c.Filter]
	}
	return s
}

func explainInput(b *strings.Builder, in Input, k Kinds) {
	wm := ""
	if in.Watermark != nil {
		wm = fmt.Sprintf(", watermark=[%s]", in.Watermark.Expr)
	}
	if in.Source != nil {
		fmt.Fprintf(b, "KafkaScan(table=[%s], source=[%s], mode=[%s]%s, fields=%v), changelogMode=%s\n", in.Table, in.Source.Name(), in.Mode, wm, in.Schema.Names(), k)
		return
	}
	scan := "LogScan"
	if in.Generator != nil {
		scan = "GeneratedScan"
	}
	fmt.Fprintf(b, "%s(table=[%s], partitions=[%d], mode=[%s]%s, fields=%v), changelogMode=%s\n", scan, in.Table, in.Partitions, in.Mode, wm, in.Schema.Names(), k)
}

func writeCalc(b *strings.Builder, c Calc) {
	var parts []string
	if c.Project != nil {
		var ps []string
		for _, e := range c.Project {
			ps = append(ps, e.String())
		}
		parts = append(parts, "select=["+strings.Join(ps, ", ")+"]")
	}
	if c.Filter != nil {
		parts = append(parts, "where=["+c.Filter.String()+"]")
	}
	fmt.Fprintf(b, "Calc(%s)", strings.Join(parts, ", "))
}

func names(all []string, idx []int) []string {
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = all[j]
	}
	return out
}

// writeOver renders an OVER aggregate as Flink's OverAggregate.
func writeOver(b *strings.Builder, n Node, in []string, op *OverAggregate) {
	order := in[op.OrderBy]
	if op.ProcTime {
		order += " (PROCTIME)"
	}
	unit, bound := "RANGE", millis(op.Frame.Preceding)
	if op.Frame.Rows {
		unit, bound = "ROWS", fmt.Sprint(op.Frame.Preceding)
	}
	if op.Frame.Unbounded {
		bound = "UNBOUNDED"
	}
	sel := append([]string(nil), in...)
	out := n.Out.Names()
	for i, c := range op.Calls {
		sel = append(sel, c.String(in)+" AS "+out[len(in)+i])
	}
	fmt.Fprintf(b, "OverAggregate(uid=[%s], partitionBy=%v, orderBy=[%s ASC], window=[%s BETWEEN %s PRECEDING AND CURRENT ROW], select=[%s])",
		n.UID, names(in, op.PartitionKeys), order, unit, bound, strings.Join(sel, ", "))
}

// writeSortedOver renders the OVER aggregate of decision 0035.
func writeSortedOver(b *strings.Builder, n Node, in []string, op *SortedOver) {
	var order []string
	for _, k := range op.OrderBy {
		order = append(order, sortKeyString(in, k))
	}
	unit, bound := "RANGE", "UNBOUNDED"
	if op.Frame.Rows {
		unit = "ROWS"
		if !op.Frame.Unbounded {
			bound = fmt.Sprint(op.Frame.Preceding)
		}
	}
	sel := append([]string(nil), in...)
	out := n.Out.Names()
	for i, c := range op.Calls {
		sel = append(sel, c.String(in)+" AS "+out[len(in)+i])
	}
	fmt.Fprintf(b, "SortedOverAggregate(uid=[%s], partitionBy=%v, orderBy=[%s], window=[%s BETWEEN %s PRECEDING AND CURRENT ROW], select=[%s])",
		n.UID, names(in, op.PartitionKeys), strings.Join(order, ", "), unit, bound, strings.Join(sel, ", "))
}

// writeRank renders a Top-N as Flink's Rank.
func writeRank(b *strings.Builder, n Node, in []string, op *Rank) {
	strategy := op.Strategy.String()
	if op.Strategy == UpdateFastStrategy {
		strategy += fmt.Sprint(names(in, op.UpsertKey))
	}
	var order []string
	for _, k := range op.OrderBy {
		order = append(order, sortKeyString(in, k))
	}
	fmt.Fprintf(b, "Rank(uid=[%s], strategy=[%s], rankType=[%s], rankRange=[rankStart=%d, rankEnd=%d], partitionBy=%v, orderBy=[%s], outputRank=[%t])",
		n.UID, strategy, op.Func, op.Start, op.End, names(in, op.PartitionKeys), strings.Join(order, ", "), op.OutputRank)
	if op.DropUpdateBefore {
		b.WriteString(" DropUpdateBefore")
	}
}

// sortKeyString renders a sort key as "c ASC" or "c DESC", with the NULL
// order when it is not Flink's default (first for ASC, last for DESC).
func sortKeyString(in []string, k SortKey) string {
	s := in[k.Col] + " ASC"
	if k.Desc {
		s = in[k.Col] + " DESC"
	}
	switch {
	case k.NullsFirst && k.Desc:
		s += " NULLS FIRST"
	case !k.NullsFirst && !k.Desc:
		s += " NULLS LAST"
	}
	return s
}

// equiCondition renders l = r for each key pair, then the residual.
func equiCondition(left, right *types.Schema, lk, rk []int, residual expr.Expr) string {
	var cond []string
	for i := range lk {
		cond = append(cond, left.Names()[lk[i]]+" = "+right.Names()[rk[i]])
	}
	if residual != nil {
		cond = append(cond, residual.String())
	}
	return strings.Join(cond, " AND ")
}

// millis renders nanoseconds as milliseconds, as Flink prints bounds.
func millis(ns int64) string {
	if ns%1e6 == 0 {
		return fmt.Sprint(ns / 1e6)
	}
	return strconv.FormatFloat(float64(ns)/1e6, 'f', -1, 64)
}
