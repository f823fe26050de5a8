package plan

import (
	"fmt"
	"strings"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// TableSpec describes a table argument for BuildPTF, the way the planner
// would see the table in SQL.
type TableSpec struct {
	// Arg is the argument name; Schema the table's columns.
	Arg    string
	Schema *types.Schema
	// PartitionBy lists the PARTITION BY columns.
	PartitionBy []string
	// Mode is the table's changelog; UpsertKey its upsert key columns.
	Mode      jobgraph.Mode
	UpsertKey []string
	// TimeAttribute is the watermarked column, if any.
	TimeAttribute string
	// OrderBy lists the ORDER BY items.
	OrderBy []OrderSpec
}

// OrderSpec is one ORDER BY item of a table argument.
type OrderSpec struct {
	Column string
	Desc   bool
	// Nulls is "FIRST", "LAST" or "" for Flink's default: NULLS LAST for
	// ascending, NULLS FIRST for descending columns.
	Nulls string
}

// BuildPTF plans a call of def outside SQL (for the PTF test harness and
// the Go Table API) with the same validation as a SQL call. Table i is
// input i of the resulting node.
func BuildPTF(name string, def *ptf.Definition, tables []TableSpec, scalars map[string]types.Value, onTime []string, uid string, required ptf.ChangelogMode) (*jobgraph.PTF, error) {
	call := &ptfCall{name: name, id: name, def: def, required: required}
	for i, t := range tables {
		r := &rel{input: i, schema: t.Schema, mode: t.Mode, timeAttrs: map[int]bool{}}
		for _, k := range t.UpsertKey {
			j := t.Schema.Index(k)
			if j < 0 {
				return nil, fmt.Errorf("upsert key column %q is not in the schema of %s", k, t.Arg)
			}
			r.upsertKey = append(r.upsertKey, j)
		}
		if t.TimeAttribute != "" {
			j := t.Schema.Index(t.TimeAttribute)
			if j < 0 {
				return nil, fmt.Errorf("time attribute %q is not in the schema of %s", t.TimeAttribute, t.Arg)
			}
			r.timeAttrs[j] = true
		}
		tv := &tableArgValue{rel: r, hasPartition: len(t.PartitionBy) > 0}
		for _, p := range t.PartitionBy {
			tv.partitionBy = append(tv.partitionBy, ident{name: p})
		}
		for _, o := range t.OrderBy {
			it := orderItem{name: o.Column, desc: o.Desc, nullsFirst: o.Desc}
			switch strings.ToUpper(o.Nulls) {
			case "FIRST":
				it.nullsFirst = true
			case "LAST":
				it.nullsFirst = false
			case "":
			default:
				return nil, fmt.Errorf("ORDER BY %s of %s: Nulls must be FIRST, LAST or empty, got %q", o.Column, t.Arg, o.Nulls)
			}
			if it.name == "" {
				return nil, fmt.Errorf("ORDER BY of %s: an item has no column", t.Arg)
			}
			tv.orderBy = append(tv.orderBy, it)
		}
		call.args = append(call.args, callArg{name: t.Arg, table: tv})
	}
	for _, a := range def.Args {
		v, ok := scalars[a.Name]
		if !ok || a.IsTable() {
			continue
		}
		if a.IsDescriptor() {
			ca := callArg{name: a.Name, isDesc: true}
			for _, c := range v.Array() {
				ca.desc = append(ca.desc, ident{name: c.Str()})
			}
			call.args = append(call.args, ca)
			continue
		}
		t, err := types.ParseType(a.Type)
		if err != nil {
			return nil, err
		}
		x, err := expr.Lit(v, t)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", a.Name, err)
		}
		call.args = append(call.args, callArg{name: a.Name, scalar: x})
	}
	if len(onTime) > 0 {
		ca := callArg{name: "on_time", isDesc: true}
		for _, c := range onTime {
			ca.desc = append(ca.desc, ident{name: c})
		}
		call.args = append(call.args, ca)
	}
	if uid != "" {
		x, _ := expr.Lit(types.NewString(uid), types.String.NonNull())
		call.args = append(call.args, callArg{name: "uid", scalar: x})
	}
	return call.planPTF()
}
