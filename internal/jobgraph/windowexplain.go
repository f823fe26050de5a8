package jobgraph

import (
	"fmt"
	"strings"
)

// writeWindowOp renders a window operator as Flink's EXPLAIN prints it.
func writeWindowOp(b *strings.Builder, j *Job, n Node) {
	in := func(port int) []string { return endpointSchema(j, n.Inputs[port].From).Names() }
	switch op := n.Op.(type) {
	case *WindowTVF:
		fmt.Fprintf(b, "WindowTableFunction(uid=[%s], window=[%s])", n.UID, op.Window.Summary(Windowing{Window: op.Window}, in(0)))
	case *WindowAggregate:
		sel := names(in(0), op.Keys)
		out := n.Out.Names()
		for i, c := range op.Calls {
			sel = append(sel, c.String(in(0))+" AS "+out[len(op.Keys)+i])
		}
		timeFn := "rowtime"
		if op.Windowing.Window.ProcTime() {
			timeFn = "proctime"
		}
		if w := len(op.Keys) + len(op.Calls); len(out) >= w+3 {
			sel = append(sel, "start('w$) AS "+out[w], "end('w$) AS "+out[w+1], timeFn+"('w$) AS "+out[w+2])
		}
		fmt.Fprintf(b, "WindowAggregate(uid=[%s], groupBy=%v, window=[%s], select=[%s])", n.UID, names(in(0), op.Keys),
			op.Windowing.Window.Summary(op.Windowing, in(0)), strings.Join(sel, ", "))
	case *WindowRank:
		var order []string
		for _, k := range op.OrderBy {
			order = append(order, sortKeyString(in(0), k))
		}
		fmt.Fprintf(b, "WindowRank(uid=[%s], window=[%s], rankType=[%s], rankRange=[rankStart=%d, rankEnd=%d], partitionBy=%v, orderBy=[%s], outputRank=[%t])",
			n.UID, op.Windowing.Window.Summary(op.Windowing, in(0)), op.Func, op.Start, op.End, names(in(0), op.PartitionKeys), strings.Join(order, ", "), op.OutputRank)
	case *WindowDeduplicate:
		keep := "FirstRow"
		if op.KeepLast {
			keep = "LastRow"
		}
		fmt.Fprintf(b, "WindowDeduplicate(uid=[%s], window=[%s], keep=[%s], partitionKeys=%v, orderKey=[%s], order=[ROWTIME])",
			n.UID, op.Windowing.Window.Summary(op.Windowing, in(0)), keep, names(in(0), op.Keys), in(0)[op.TimeColumn])
	case *WindowJoin:
		l, r := op.Left.Names(), op.Right.Names()
		var cond []string
		for i := range op.LeftKeys {
			eq := "="
			if len(op.NullSafe) > i && op.NullSafe[i] {
				eq = "IS NOT DISTINCT FROM"
			}
			cond = append(cond, fmt.Sprintf("%s %s %s", l[op.LeftKeys[i]], eq, r[op.RightKeys[i]]))
		}
		if op.Residual != nil {
			cond = append(cond, op.Residual.String())
		}
		lw := Windowing{Window: op.Window, Attached: true, WindowStart: op.LeftStart, WindowEnd: op.LeftEnd}
		rw := Windowing{Window: op.Window, Attached: true, WindowStart: op.RightStart, WindowEnd: op.RightEnd}
		fmt.Fprintf(b, "WindowJoin(uid=[%s], leftWindow=[%s], rightWindow=[%s], joinType=[%s], where=[%s])",
			n.UID, op.Window.Summary(lw, l), op.Window.Summary(rw, r), op.Kind, strings.Join(cond, " AND "))
	}
}

// Summary renders the window as Flink's WindowSpec.toSummaryString does,
// with the windowing's columns named from in: "TUMBLE(time_col=[ts],
// size=[10 min])", "HOP(win_start=[window_start], win_end=[window_end],
// size=[10 min], slide=[5 min])".
func (w Window) Summary(ws Windowing, in []string) string {
	col := func(i int) string {
		if i >= 0 && i < len(in) {
			return in[i]
		}
		return fmt.Sprintf("$%d", i)
	}
	var where string
	switch {
	case ws.Attached:
		where = fmt.Sprintf("win_start=[%s], win_end=[%s]", col(ws.WindowStart), col(ws.WindowEnd))
	case w.ProcTime():
		where = "time_col=[PROCTIME()]"
	default:
		where = fmt.Sprintf("time_col=[%s]", col(w.TimeColumn))
	}
	var s string
	switch w.Kind {
	case Tumble:
		s = fmt.Sprintf("TUMBLE(%s, size=[%s]", where, FormatDuration(w.Size))
	case Hop:
		s = fmt.Sprintf("HOP(%s, size=[%s], slide=[%s]", where, FormatDuration(w.Size), FormatDuration(w.Slide))
	case Cumulate:
		s = fmt.Sprintf("CUMULATE(%s, max_size=[%s], step=[%s]", where, FormatDuration(w.Size), FormatDuration(w.Step))
	case Session:
		s = fmt.Sprintf("SESSION(%s, gap=[%s]", where, FormatDuration(w.Gap))
		if len(w.PartitionKeys) > 0 && !ws.Attached {
			var keys []string
			for _, k := range w.PartitionKeys {
				keys = append(keys, col(k))
			}
			s += fmt.Sprintf(", partition keys=[%s]", strings.Join(keys, ", "))
		}
	default:
		s = fmt.Sprintf("WINDOW%d(%s", w.Kind, where)
	}
	if w.Offset != 0 && w.Kind != Session {
		s += fmt.Sprintf(", offset=[%s]", FormatDuration(w.Offset))
	}
	if w.TimeZone != "" {
		s += fmt.Sprintf(", time_zone=[%s]", w.TimeZone)
	}
	return s + ")"
}

// FormatDuration renders nanoseconds in the largest unit that divides them,
// as Flink's TimeUtils.formatWithHighestUnit: "15 min", "2 h", "1500 ms".
func FormatDuration(ns int64) string {
	for _, u := range []struct {
		n     int64
		label string
	}{{86400e9, "d"}, {3600e9, "h"}, {60e9, "min"}, {1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}} {
		if ns%u.n == 0 {
			return fmt.Sprintf("%d %s", ns/u.n, u.label)
		}
	}
	return fmt.Sprintf("%d ns", ns)
}
