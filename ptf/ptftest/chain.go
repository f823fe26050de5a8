package ptftest

import (
	"fmt"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

// bindPositional turns Args into named scalar arguments.
func (c *config) bindPositional(def *ptf.Definition) error {
	if c.positional == nil {
		return nil
	}
	var scalars []ptf.Arg
	for _, a := range def.Args {
		if !a.IsTable() {
			scalars = append(scalars, a)
		}
	}
	if len(c.positional) > len(scalars) {
		return fmt.Errorf("Args: %d values for the %d scalar arguments of the function", len(c.positional), len(scalars))
	}
	for i, v := range c.positional {
		name := scalars[i].Name
		if _, dup := c.scalars[name]; dup {
			return fmt.Errorf("Cannot mix positional and named arguments: '%s' is set by Args and by Arg", name)
		}
		if !v.IsNull() {
			c.scalars[name] = v
		}
	}
	return nil
}

// emit keeps an output row and feeds it to the next harness, if any.
func (h *Harness) emit(r types.Row) error {
	h.out = append(h.out, r)
	if h.next != nil {
		return h.next.Process(h.nextArg, r.Kind, r.Values...)
	}
	return nil
}

// Feed chains next after h, as a call over another call's result runs
// (Table.Process(...).PartitionBy(k).Process(...) in package table, or
// f2(input => (SELECT * FROM f1(...)) PARTITION BY k) in SQL): every row h
// emits becomes a row of next's table argument arg, every watermark h
// passes on (the minimum over its tables, after its timers fired) becomes
// that table's watermark, and End ends next too. next must declare arg
// with h's output columns (Schema), and with Upsert or Retract when h
// produces updates.
func (h *Harness) Feed(next *Harness, arg string) error {
	i, ok := next.inputs[arg]
	if !ok {
		return fmt.Errorf("Feed: the next function has no table argument %q declared with Table", arg)
	}
	want, got := next.cfg.tables[i].Schema, h.Schema()
	if want.Len() != got.Len() {
		return fmt.Errorf("Feed: table %s is declared with %d columns, but the function's output has %d (%s)", arg, want.Len(), got.Len(), got.RowType())
	}
	for j, f := range got.Fields {
		w := want.Fields[j]
		if w.Name != f.Name || w.Type.String() != f.Type.String() {
			return fmt.Errorf("Feed: column %d of table %s is declared as %s %s, but the function outputs %s %s; declare the table with %s",
				j+1, arg, w.Name, w.Type, f.Name, f.Type, got.RowType())
		}
	}
	h.next, h.nextArg = next, arg
	return nil
}

// forwardWatermark passes the minimum of the tables' watermarks on to the
// next harness when it advanced.
func (h *Harness) forwardWatermark() error {
	if h.next == nil || len(h.wms) < len(h.cfg.tables) {
		return nil
	}
	var min time.Time
	for _, t := range h.wms {
		if min.IsZero() || t.Before(min) {
			min = t
		}
	}
	if !min.After(h.fed) {
		return nil
	}
	h.fed = min
	return h.next.TableWatermark(h.nextArg, min)
}
