package ptf

import (
	"errors"
	"fmt"

	"github.com/eddy-sql/eddy/types"
)

// Input is one row passed to Eval: the row of exactly one table argument.
type Input struct {
	// Arg is the name of the table argument the row belongs to; empty for
	// functions without table arguments.
	Arg string
	// Row is the row, with its kind and schema.
	Row Row
}

// Row is an input row with its schema, for access by column name.
type Row struct {
	Kind   types.RowKind
	Values []types.Value
	Schema *types.Schema
}

// Get returns the named column, or NULL when there is no such column.
func (r Row) Get(name string) types.Value {
	if i := r.Schema.Index(name); i >= 0 && i < len(r.Values) {
		return r.Values[i]
	}
	return types.Null
}

// Is reports whether the input row belongs to the named table argument.
func (in Input) Is(arg string) bool { return in.Arg == arg }

// Definition describes a process table function.
type Definition struct {
	// Doc is a one-paragraph description shown by SHOW FUNCTIONS and docs.
	Doc string
	// Args are the declared arguments in call order. The system arguments
	// on_time and uid are added by the engine.
	Args []Arg
	// Output is the SQL type of the collected rows: "ROW<status STRING>",
	// or an atomic type such as "BOOLEAN", which yields one column EXPR$0.
	Output string
	// DeriveOutput, when set, derives the output columns from the call
	// instead of Output (for polymorphic functions such as the built-in
	// FROM_CHANGELOG, whose columns depend on the input table).
	DeriveOutput func(OutputContext) (*types.Schema, error)
	// State lists the function's state entries.
	State []StateEntry
	// Changelog returns the changelog mode the function produces; nil means
	// insert-only. It may be called several times while planning.
	Changelog func(ChangelogContext) ChangelogMode
	// Eval is called once per input row (once in all for a function without
	// table arguments). A returned error fails the statement.
	Eval func(ctx *Context, in Input) error
	// OnTimer is called when a timer fires; nil ignores timers.
	OnTimer func(ctx *Context) error
}

// Validate checks the signature rules that do not depend on a call.
func (d *Definition) Validate() error {
	if d.Eval == nil {
		return errors.New("definition has no Eval function")
	}
	if d.DeriveOutput == nil {
		if _, err := types.ParseType(d.Output); err != nil {
			return fmt.Errorf("invalid output type %q: %w", d.Output, err)
		}
	}
	seen := map[string]bool{}
	tables, rowSemantic, passThrough := 0, false, false
	for _, a := range d.Args {
		if err := a.validate(); err != nil {
			return err
		}
		if seen[a.Name] {
			return fmt.Errorf("argument '%s' is declared twice", a.Name)
		}
		seen[a.Name] = true
		if a.Kind == ScalarArg {
			if !a.IsDescriptor() {
				if _, err := types.ParseType(a.Type); err != nil {
					return fmt.Errorf("invalid type of argument '%s': %w", a.Name, err)
				}
			}
			continue
		}
		if a.Type != "" {
			t, err := types.ParseType(a.Type)
			if err != nil {
				return fmt.Errorf("invalid type of table argument '%s': %w", a.Name, err)
			}
			if t.ID != types.TypeRow {
				return fmt.Errorf("typed table arguments must use a composite type (argument '%s' is %s)", a.Name, a.Type)
			}
		}
		tables++
		rowSemantic = rowSemantic || a.Traits.Has(RowSemantic)
		passThrough = passThrough || a.Traits.Has(PassColumnsThrough)
	}
	if tables > 1 && rowSemantic {
		return errors.New("all table arguments must use set semantics if multiple table arguments are declared")
	}
	if tables > 1 && passThrough {
		return errors.New("pass-through columns are not supported if multiple table arguments are declared")
	}
	names := map[string]bool{}
	for _, s := range d.State {
		if names[s.StateName()] {
			return fmt.Errorf("state entry '%s' is declared twice", s.StateName())
		}
		names[s.StateName()] = true
	}
	return nil
}

// OutputContext is what DeriveOutput sees of a call.
type OutputContext struct {
	// Tables describes each table argument by name.
	Tables map[string]TableSemantics
	// Args holds the scalar arguments by name (NULL when omitted);
	// DESCRIPTOR arguments are ARRAYs of column names.
	Args map[string]types.Value
}

// TableArgs returns the table arguments in declaration order.
func (d *Definition) TableArgs() []Arg {
	var out []Arg
	for _, a := range d.Args {
		if a.IsTable() {
			out = append(out, a)
		}
	}
	return out
}

// ProducedMode returns the changelog mode for ctx (insert-only when the
// definition has no Changelog function).
func (d *Definition) ProducedMode(ctx ChangelogContext) ChangelogMode {
	if d.Changelog == nil {
		return InsertOnly()
	}
	return d.Changelog(ctx)
}
