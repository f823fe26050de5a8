package jobgraph

import (
	"fmt"
	"strings"
)

// Explain renders a job as an indented tree, sink first, for EXPLAIN.
func Explain(j *Job) string {
	var b strings.Builder
	switch j.Sink.Kind {
	case LogSink:
		fmt.Fprintf(&b, "Sink(table=[%s], mode=[%s], key=%v)\n", j.Sink.Table, j.Sink.Mode, names(j.Sink.Schema.Names(), j.Sink.Key))
	case ExternalSink:
		fmt.Fprintf(&b, "KafkaSink(table=[%s], mode=[%s], key=%v)\n", j.Sink.Table, j.Sink.Mode, names(j.Sink.Schema.Names(), j.Sink.Key))
	default:
		fmt.Fprintf(&b, "Collect(mode=[%s])\n", j.Mode)
	}
	indent := "  "
	for i := len(j.Output) - 1; i >= 0; i-- {
		writeCalc(&b, indent, j.Output[i])
		indent += "  "
	}
	for k := len(j.Chain) - 1; k >= 0; k-- {
		c := j.Chain[k]
		fmt.Fprintf(&b, "%sProcessTableFunction(function=[%s], id=[%s], uid=[%s], produces=%s, out=%v)\n",
			indent, c.PTF.Name, c.PTF.ID, c.PTF.UID, c.PTF.Produced, c.PTF.Out.Names())
		indent += "  "
		for i := len(c.Calcs) - 1; i >= 0; i-- {
			writeCalc(&b, indent, c.Calcs[i])
			indent += "  "
		}
	}
	if p := j.PTF; p != nil {
		fmt.Fprintf(&b, "%sProcessTableFunction(function=[%s], id=[%s], uid=[%s], produces=%s, out=%v)\n",
			indent, p.Name, p.ID, p.UID, p.Produced, p.Out.Names())
		indent += "  "
		for _, t := range p.Tables {
			in := j.Inputs[t.Input]
			fmt.Fprintf(&b, "%sTableArgument(name=[%s], partitionBy=%v, delivered=%s)\n", indent, t.Arg, names(t.Schema.Names(), t.Keys), t.Delivered)
			explainInput(&b, indent+"  ", in)
		}
		return b.String()
	}
	for _, in := range j.Inputs {
		explainInput(&b, indent, in)
	}
	return b.String()
}

func explainInput(b *strings.Builder, indent string, in Input) {
	for i := len(in.Calcs) - 1; i >= 0; i-- {
		writeCalc(b, indent, in.Calcs[i])
		indent += "  "
	}
	if in.Normalize {
		fmt.Fprintf(b, "%sChangelogNormalize(key=%v)\n", indent, names(in.Schema.Names(), in.Key))
		indent += "  "
	}
	wm := ""
	if in.Watermark != nil {
		wm = fmt.Sprintf(", watermark=[%s]", in.Watermark.Expr)
	}
	if in.Source != nil {
		fmt.Fprintf(b, "%sKafkaScan(table=[%s], source=[%s], mode=[%s]%s, fields=%v)\n", indent, in.Table, in.Source.Name(), in.Mode, wm, in.Schema.Names())
		return
	}
	fmt.Fprintf(b, "%sLogScan(table=[%s], partitions=[%d], mode=[%s]%s, fields=%v)\n", indent, in.Table, in.Partitions, in.Mode, wm, in.Schema.Names())
}

func writeCalc(b *strings.Builder, indent string, c Calc) {
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
	fmt.Fprintf(b, "%sCalc(%s)\n", indent, strings.Join(parts, ", "))
}

func names(all []string, idx []int) []string {
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = all[j]
	}
	return out
}
