package plan

import (
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/types"
)

// ExplainOptions says how Explain prints a plan.
type ExplainOptions struct {
	// Optimized names the nodes as the operators they become (Calc,
	// GroupAggregate, ...); otherwise they carry Flink's logical names
	// (LogicalCalc, LogicalAggregate, ...).
	Optimized bool
	// Annotate returns more attributes of a node ("changelogMode=[I]"), or
	// "".
	Annotate func(Rel) string
	// Exchange returns the exchange into port i of a node
	// ("Exchange(distribution=[hash[k]])"), printed between the node and
	// that input, or "".
	Exchange func(r Rel, port int) string
}

// Explain prints a plan as a tree, root first, in the style of Flink's
// EXPLAIN: one node per line with its attributes, children below it
// (":- " before all but the last, "+- " before the last). A query whose
// rows go to the client prints from its last operator, as Flink does.
func Explain(b *Bound, o ExplainOptions) string {
	var sb strings.Builder
	var root Rel = b.Root
	if b.Root.Spec.Kind == jobgraph.CollectSink {
		root = b.Root.In
	}
	var walk func(r Rel, prefix, childPrefix string)
	walk = func(r Rel, prefix, childPrefix string) {
		sb.WriteString(prefix)
		sb.WriteString(describe(b, r, o))
		sb.WriteByte('\n')
		ins := r.Inputs()
		for i, in := range ins {
			pre, next := childPrefix+":- ", childPrefix+":  "
			if i == len(ins)-1 {
				pre, next = childPrefix+"+- ", childPrefix+"   "
			}
			if o.Exchange != nil {
				if x := o.Exchange(r, i); x != "" {
					sb.WriteString(pre + x + "\n")
					pre, next = next+"+- ", next+"   "
				}
			}
			walk(in, pre, next)
		}
	}
	walk(root, "", "")
	return sb.String()
}

// describe renders one node: its name and attributes.
func describe(b *Bound, r Rel, o ExplainOptions) string {
	name, attrs := nodeName(r, o.Optimized), nodeAttrs(b, r)
	if o.Annotate != nil {
		if a := o.Annotate(r); a != "" {
			attrs = append(attrs, a)
		}
	}
	return name + "(" + strings.Join(attrs, ", ") + ")"
}

func nodeName(r Rel, optimized bool) string {
	logical, physical := "", ""
	switch n := r.(type) {
	case *Scan:
		logical, physical = "LogicalTableScan", "TableSourceScan"
	case *Values:
		logical, physical = "LogicalValues", "Values"
	case *Calc:
		logical, physical = "LogicalCalc", "Calc"
	case *Aggregate:
		logical, physical = "LogicalAggregate", "GroupAggregate"
	case *Join:
		logical, physical = "LogicalJoin", "Join"
	case *Union:
		logical, physical = "LogicalUnion", "Union"
	case *PTFCall:
		logical, physical = "LogicalTableFunctionScan", "ProcessTableFunction"
	case *Correlate:
		logical, physical = "LogicalCorrelate", "Correlate"
	case *WindowAggregate:
		logical, physical = "LogicalWindowAggregate", "WindowAggregate"
	case *WindowJoin:
		logical, physical = "LogicalWindowJoin", "WindowJoin"
	case *WindowTVF:
		logical, physical = "LogicalTableFunctionScan", "WindowTableFunction"
	case *Limit:
		logical, physical = "LogicalSort", "Limit"
	case *Normalize:
		logical, physical = "ChangelogNormalize", "ChangelogNormalize"
	case *Sink:
		logical, physical = "LogicalSink", "Sink"
	default:
		var ok bool
		if logical, physical, ok = timeNodeName(r); !ok {
			return fmt.Sprintf("%T", n)
		}
	}
	if optimized {
		return physical
	}
	return logical
}

func nodeAttrs(b *Bound, r Rel) []string {
	switch n := r.(type) {
	case *Scan:
		a := []string{"table=[" + n.Table + "]"}
		if n.Input < len(b.Inputs) {
			in := b.Inputs[n.Input]
			if in.Watermark != nil {
				a = append(a, "watermark=["+in.Watermark.Expr.String()+"]")
			}
		}
		return append(a, "fields=["+strings.Join(names(n.Cols), ", ")+"]")
	case *Values:
		var rows []string
		for _, row := range n.Rows {
			vals := make([]string, len(row))
			for i, v := range row {
				vals[i] = types.Format(v, n.Cols[i].Type)
			}
			rows = append(rows, "{ "+strings.Join(vals, ", ")+" }")
		}
		return []string{"tuples=[" + strings.Join(rows, ", ") + "]", "fields=[" + strings.Join(names(n.Cols), ", ") + "]"}
	case *Calc:
		var a []string
		if n.Project != nil {
			a = append(a, "select=["+selectList(n.Project, n.Cols)+"]")
		}
		if n.Filter != nil {
			a = append(a, "where=["+n.Filter.String()+"]")
		}
		if n.Project == nil {
			a = append(a, "fields=["+strings.Join(names(n.Cols), ", ")+"]")
		}
		return a
	case *Aggregate:
		in := names(n.In.Columns())
		var sel []string
		for i, k := range n.Keys {
			sel = append(sel, as(in[k], n.Cols[i].Name))
		}
		for i, c := range n.Calls {
			sel = append(sel, as(c.String(in), n.Cols[len(n.Keys)+i].Name))
		}
		a := []string{"groupBy=[" + strings.Join(pick(in, n.Keys), ", ") + "]", "select=[" + strings.Join(sel, ", ") + "]"}
		if n.MiniBatch.On() {
			a = append(a, "miniBatch=["+n.MiniBatch.String()+"]")
		}
		return append(a, "uid=["+n.UID+"]")
	case *Join:
		l, rn := names(n.Left.Columns()), names(n.Right.Columns())
		var cond []string
		for i := range n.LeftKeys {
			eq := "="
			if i < len(n.NullSafe) && n.NullSafe[i] {
				eq = "IS NOT DISTINCT FROM"
			}
			cond = append(cond, fmt.Sprintf("%s %s %s", l[n.LeftKeys[i]], eq, rn[n.RightKeys[i]]))
		}
		if n.Residual != nil {
			cond = append(cond, n.Residual.String())
		}
		where := strings.Join(cond, " AND ")
		if where == "" {
			where = "true"
		}
		return []string{"joinType=[" + n.Kind.String() + "]", "where=[" + where + "]", "select=[" + strings.Join(names(n.Cols), ", ") + "]", "uid=[" + n.UID + "]"}
	case *Union:
		return []string{"all=[true]", "union=[" + strings.Join(names(n.Cols), ", ") + "]"}
	case *PTFCall:
		a := []string{"function=[" + n.Spec.Name + "]"}
		if n.Spec.UID != "" {
			a = append(a, "uid=[ptf/"+n.Spec.UID+"]")
		}
		for _, t := range n.Spec.Tables {
			arg := fmt.Sprintf("%s=[TABLE", t.Arg)
			if len(t.Keys) > 0 {
				arg += " PARTITION BY " + strings.Join(pick(t.Schema.Names(), t.Keys), ", ")
			}
			a = append(a, arg+"]")
		}
		return append(a, "produces="+n.Spec.Produced.String(), "fields=["+strings.Join(names(n.Cols), ", ")+"]")
	case *Correlate:
		args := make([]string, len(n.Spec.Args))
		for i, x := range n.Spec.Args {
			args[i] = x.String()
		}
		kind := "INNER"
		if n.Spec.Left {
			kind = "LEFT"
		}
		return []string{"invocation=[" + n.Spec.Name + "(" + strings.Join(args, ", ") + ")]", "joinType=[" + kind + "]", "fields=[" + strings.Join(names(n.Cols), ", ") + "]"}
	case *WindowAggregate:
		return windowAggAttrs(n)
	case *WindowJoin:
		return windowJoinAttrs(n)
	case *WindowTVF:
		a := []string{"window=[" + n.Window.Summary(jobgraph.Windowing{Window: n.Window}, names(n.In.Columns())) + "]"}
		if n.UID != "" {
			a = append(a, "uid=["+n.UID+"]")
		}
		return append(a, "fields=["+strings.Join(names(n.Cols), ", ")+"]")
	case *Limit:
		return []string{fmt.Sprintf("fetch=[%d]", n.N)}
	case *Normalize:
		a := []string{"key=[" + strings.Join(pick(names(n.In.Columns()), n.Key), ", ") + "]", "uid=[" + n.UID + "]"}
		if n.DropUpdateBefore {
			a = append(a, "dropUpdateBefore=[true]")
		}
		return a
	case *Sink:
		a := []string{"table=[" + n.Spec.Table + "]", "fields=[" + strings.Join(names(n.Columns()), ", ") + "]"}
		if n.Materialize {
			a = append(a, "upsertMaterialize=[true]")
		}
		if n.OnConflict != ast.NoConflictClause {
			a = append(a, "conflictStrategy=["+ConflictStrategy(n.OnConflict).String()+"]")
		}
		return a
	}
	return timeNodeAttrs(r)
}

func selectList(project []expr.Expr, cols []Column) string {
	items := make([]string, len(project))
	for i, x := range project {
		name := ""
		if i < len(cols) {
			name = cols[i].Name
		}
		items[i] = as(x.String(), name)
	}
	return strings.Join(items, ", ")
}

// as renders "x AS name", or x when it is the name.
func as(x, name string) string {
	if name == "" || x == name {
		return x
	}
	return x + " AS " + name
}

func names(cols []Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}
