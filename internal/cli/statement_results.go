package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	v1 "github.com/eddy-sql/eddy/api/v1"
	"github.com/eddy-sql/eddy/types"
	"github.com/spf13/cobra"
)

// resultsCmd holds the flags of `eddy statement results`.
type resultsCmd struct {
	*statementCmd
	follow bool
}

func (s *statementCmd) newResultsCommand() *cobra.Command {
	c := &resultsCmd{statementCmd: s}
	cmd := &cobra.Command{
		Use:   "results NAME [--follow]",
		Short: "Print the results of a statement as a changelog",
		Long: `Print the results of a statement (a SELECT, SHOW, DESCRIBE or EXPLAIN) as a
changelog: one row per change, with the op column (+I insert, -U update
before, +U update after, -D delete).

Without --follow the rows the statement produced so far are printed; with
it, the command keeps printing new rows as they come until the results are
complete (the statement completed or was stopped) or it is interrupted.
-o json prints the rows as the REST API returns them ({"op": 0..3, "row":
[...]}): an array, or one object per line with --follow.

` + settingsHelp,
		Example: `  eddy statement results cli-20260801-101500-3f9a0c2d4e1b
  eddy statement results shop-top-products --follow`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := c.connect(cmd); err != nil {
				return err
			}
			return c.run(cmd.Context(), args[0])
		},
	}
	cmd.Flags().BoolVarP(&c.follow, "follow", "f", false, "keep printing new rows until the results are complete")
	return cmd
}

func (c *resultsCmd) run(ctx context.Context, name string) error {
	st, err := c.cl.GetStatement(ctx, name)
	if err != nil {
		return c.fail(err, name)
	}
	rows := c.cl.ResultRows(ctx, name, c.follow)
	switch {
	case c.output != "table" && c.follow:
		return c.streamValues(ctx, name, rows)
	case c.output != "table":
		all := []v1.ResultRow{}
		for r, err := range rows {
			if err != nil {
				return c.fail(err, name)
			}
			all = append(all, r)
		}
		return c.printValue(all)
	}
	schema := resultSchema(st.Status.Traits)
	rs := &RowStream{Schema: schema}
	var stop func()
	rs.Next, stop = pullRows(schema, rows)
	defer stop()
	if c.follow {
		if err := streamChanges(ctx, c.out(), rs, false); err != nil {
			return c.fail(err, name)
		}
		return nil
	}
	var changes []types.Row
	if err := forEach(ctx, rs, func(r types.Row) { changes = append(changes, r) }); err != nil {
		return c.fail(err, name)
	}
	if err := printChangelog(c.out(), schema, changes); err != nil {
		return err
	}
	if st, err = c.cl.GetStatement(ctx, name); err == nil && !st.Status.Phase.IsTerminal() {
		fmt.Fprintf(c.opts.Stderr, "Statement %q is %s: these are its results so far; --follow prints more as they come.\n", name, st.Status.Phase)
	}
	return nil
}

// streamValues prints rows as they come, one JSON object per line or one
// YAML document each.
func (c *resultsCmd) streamValues(ctx context.Context, name string, rows iter.Seq2[v1.ResultRow, error]) error {
	for r, err := range rows {
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return c.fail(err, name)
		}
		if c.output == "yaml" {
			fmt.Fprintln(c.out(), "---")
			if err := writeYAML(c.out(), r); err != nil {
				return err
			}
			continue
		}
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.out(), "%s\n", b)
	}
	return nil
}

// pullRows adapts a result iterator to RowStream.Next; stop releases it.
func pullRows(schema *types.Schema, rows iter.Seq2[v1.ResultRow, error]) (next func(context.Context) (types.Row, bool, error), stop func()) {
	pull, stop := iter.Pull2(rows)
	next = func(context.Context) (types.Row, bool, error) {
		r, err, ok := pull()
		if !ok {
			return types.Row{}, false, nil
		}
		if err != nil {
			return types.Row{}, false, err
		}
		return resultRow(schema, r), true, nil
	}
	return next, stop
}

// resultSchema converts a statement's result schema. A type that does not
// parse is shown as STRING: the values arrive rendered as text anyway.
func resultSchema(t *v1.Traits) *types.Schema {
	s := types.NewSchema()
	if t == nil || t.Schema == nil {
		return s
	}
	for _, c := range t.Schema.Columns {
		typ, err := types.ParseType(c.Type)
		if err != nil {
			typ = types.String
		}
		s.Fields = append(s.Fields, types.Field{Name: c.Name, Type: typ})
	}
	return s
}

// resultRow converts a row of the results API: its values arrive rendered
// as strings (null for NULL), nested ROWs and ARRAYs as arrays and MAPs as
// arrays of [key, value] pairs; they are kept as text.
func resultRow(s *types.Schema, r v1.ResultRow) types.Row {
	kind := types.Insert
	if r.Op >= 0 && r.Op <= int(types.Delete) {
		kind = types.RowKind(r.Op)
	}
	// A row wider than the schema (no schema) gets columns named by
	// position.
	for len(s.Fields) < len(r.Row) {
		s.Fields = append(s.Fields, types.Field{Name: fmt.Sprintf("EXPR$%d", len(s.Fields)), Type: types.String})
	}
	vals := make([]types.Value, len(r.Row))
	for i, v := range r.Row {
		if v == nil {
			vals[i] = types.Null
			continue
		}
		vals[i] = types.NewString(renderResultValue(v, s.Fields[i].Type))
	}
	return types.Row{Kind: kind, Values: vals}
}

// renderResultValue renders a value of the results API as the shell prints
// values: ARRAY [a, b], MAP {k=v}, ROW (a, b), NULL inside them.
func renderResultValue(v any, t types.Type) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case string:
		return v
	case []any:
		var b strings.Builder
		switch t.ID {
		case types.TypeRow:
			b.WriteByte('(')
			for i, f := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				ft := types.String
				if i < len(t.Fields) {
					ft = t.Fields[i].Type
				}
				b.WriteString(renderResultValue(f, ft))
			}
			b.WriteByte(')')
		case types.TypeMap, types.TypeMultiset: // a multiset's pairs are element, multiplicity
			b.WriteByte('{')
			for i, e := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				pair, ok := e.([]any)
				if !ok || len(pair) != 2 {
					b.WriteString(renderResultValue(e, types.String))
					continue
				}
				b.WriteString(renderResultValue(pair[0], elemOrString(t.Elem)))
				b.WriteByte('=')
				vt := elemOrString(t.Val)
				if t.ID == types.TypeMultiset {
					vt = types.Int
				}
				b.WriteString(renderResultValue(pair[1], vt))
			}
			b.WriteByte('}')
		default:
			b.WriteByte('[')
			for i, e := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(renderResultValue(e, elemOrString(t.Elem)))
			}
			b.WriteByte(']')
		}
		return b.String()
	}
	return fmt.Sprint(v)
}

func elemOrString(t *types.Type) types.Type {
	if t == nil {
		return types.String
	}
	return *t
}
