package runtime

import (
	"errors"
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// windowJoinOp is Flink's window join (jobgraph.WindowJoin,
// WindowJoinOperator): each side's rows are kept per (window, join key);
// when the window fires, its rows are joined as WindowJoinHelper does and
// the state is dropped. Late rows are dropped and counted.
//
// Both sides of a key share one entry (the key values must have equal
// encodings on both sides: the planner casts keys to one type). An entry
// whose key has a NULL in a column that is not null-safe matches nothing;
// its outer rows are padded.
type windowJoinOp struct {
	spec  *jobgraph.WindowJoin
	rows  [2]winRows
	keys  [2][]int
	table *winTable[joinRows]
	oc    OpContext
	wm    minWatermark
	outer [2]bool
	nulls [2][]types.Value
	arena winArena
	kbuf  []types.Value
	cat   []types.Value
	// matched marks, while a FULL join window fires, the right rows that
	// found a match.
	matched []bool
	// matchable is false while an entry whose key matches nothing fires.
	matchable bool
}

// joinRows are the rows of both sides of one (window, key), in arrival
// order.
type joinRows struct{ sides [2][][]types.Value }

// winJoinStateName is the value state of the (window, key) rows.
const winJoinStateName = "j"

func newWindowJoinOp(spec *jobgraph.WindowJoin, oc OpContext) (Operator, error) {
	if spec.Left == nil || spec.Right == nil {
		return nil, errors.New("window join: missing input schema")
	}
	if len(spec.LeftKeys) != len(spec.RightKeys) {
		return nil, fmt.Errorf("window join: %d left keys but %d right keys", len(spec.LeftKeys), len(spec.RightKeys))
	}
	if len(spec.NullSafe) != 0 && len(spec.NullSafe) != len(spec.LeftKeys) {
		return nil, fmt.Errorf("window join: %d null-safe flags for %d keys", len(spec.NullSafe), len(spec.LeftKeys))
	}
	op := &windowJoinOp{spec: spec, oc: oc, wm: newMinWatermark(2), keys: [2][]int{spec.LeftKeys, spec.RightKeys}}
	schemas := [2]*types.Schema{spec.Left, spec.Right}
	cols := [2][2]int{{spec.LeftStart, spec.LeftEnd}, {spec.RightStart, spec.RightEnd}}
	for s := range 2 {
		for _, k := range op.keys[s] {
			if k < 0 || k >= schemas[s].Len() {
				return nil, fmt.Errorf("window join: key column %d out of range", k)
			}
		}
		ws := jobgraph.Windowing{Window: spec.Window, Attached: true, WindowStart: cols[s][0], WindowEnd: cols[s][1]}
		r, err := newWinRows(&ws, schemas[s], oc.Clock)
		if err != nil {
			return nil, fmt.Errorf("window join: %w", err)
		}
		op.rows[s] = r
		op.nulls[s] = make([]types.Value, schemas[s].Len())
	}
	switch spec.Kind {
	case jobgraph.InnerJoin, jobgraph.SemiJoin, jobgraph.AntiJoin:
	case jobgraph.LeftJoin:
		op.outer[0] = true
	case jobgraph.RightJoin:
		op.outer[1] = true
	case jobgraph.FullJoin:
		op.outer = [2]bool{true, true}
	default:
		return nil, fmt.Errorf("window join: unknown kind %d", spec.Kind)
	}
	var err error
	op.table, err = newWinTable(oc.NS, winJoinStateName, oc.KV, op.rows[0].assign.zone, &op.wm,
		func(dst []byte, v *joinRows) []byte { return appendRows(appendRows(dst, v.sides[0]), v.sides[1]) },
		func(b []byte, v *joinRows) error {
			var err error
			if v.sides[0], b, err = decodeRows(b); err != nil {
				return err
			}
			v.sides[1], err = decodeRowList(b)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("window join: %w", err)
	}
	return op, nil
}

// Process implements Operator: port 0 is the left side, 1 the right.
func (op *windowJoinOp) Process(port int, row types.Row) error {
	if port != 0 && port != 1 {
		return fmt.Errorf("window join: no input port %d", port)
	}
	if row.Kind.IsRetraction() {
		return fmt.Errorf("window join: the input must be insert-only, got %s", row.Kind)
	}
	spans, ok := op.rows[port].of(row.Values)
	if !ok {
		return nil
	}
	span := spans[0]
	if op.table.fired(span) {
		op.oc.countLate()
		return nil
	}
	op.kbuf = op.kbuf[:0]
	for _, k := range op.keys[port] {
		op.kbuf = append(op.kbuf, row.Values[k])
	}
	e, _ := op.table.entry(span, op.kbuf)
	e.v.sides[port] = append(e.v.sides[port], row.Values)
	op.table.touch(e)
	return nil
}

// Watermark implements Operator: the watermark is the minimum of both
// sides'.
func (op *windowJoinOp) Watermark(port int, wm int64) error {
	w, rose := op.wm.advance(port, wm)
	op.table.metaDirty = true // the input watermarks are state
	if !rose {
		return nil
	}
	if !op.rows[0].proc || w == MaxWatermark {
		if err := op.table.advance(w, op.fire); err != nil {
			return err
		}
	}
	return op.oc.Out.Watermark(w)
}

// OnProcessingTime implements procTimeOperator.
func (op *windowJoinOp) OnProcessingTime(now int64) error {
	if !op.rows[0].proc {
		return nil
	}
	return op.table.advance(now, op.fire)
}

// keyMatches reports whether the entry's key can match: no NULL in a
// column that is not null-safe.
func (op *windowJoinOp) keyMatches(key []types.Value) bool {
	for i, v := range key {
		if v.IsNull() && (i >= len(op.spec.NullSafe) || !op.spec.NullSafe[i]) {
			return false
		}
	}
	return true
}

func (op *windowJoinOp) match(l, r []types.Value) (bool, error) {
	if !op.matchable {
		return false, nil
	}
	if op.spec.Residual == nil {
		return true, nil
	}
	op.cat = append(append(op.cat[:0], l...), r...)
	v, err := op.spec.Residual.Eval(op.cat)
	if err != nil {
		return false, fmt.Errorf("window join: %w", err)
	}
	return !v.IsNull() && v.Bool(), nil
}

func (op *windowJoinOp) emit(l, r []types.Value) error {
	vals := op.arena.take(len(l) + len(r))
	vals = append(append(vals, l...), r...)
	return op.oc.Out.Emit(types.Row{Kind: types.Insert, Values: vals})
}

// fire joins one (window, key) as WindowJoinHelper's processors do.
func (op *windowJoinOp) fire(_ winSpan, e *winEntry[joinRows]) error {
	left, right := e.v.sides[0], e.v.sides[1]
	key, err := op.table.keyValues(e, op.kbuf[:0])
	if err != nil {
		return err
	}
	op.kbuf = key
	op.matchable = op.keyMatches(key)
	switch op.spec.Kind {
	case jobgraph.SemiJoin, jobgraph.AntiJoin:
		anti := op.spec.Kind == jobgraph.AntiJoin
		for _, l := range left {
			found := false
			for _, r := range right {
				ok, err := op.match(l, r)
				if err != nil {
					return err
				}
				if ok {
					found = true
					break
				}
			}
			if found != anti {
				if err := op.oc.Out.Emit(types.Row{Kind: types.Insert, Values: l}); err != nil {
					return err
				}
			}
		}
		return nil
	case jobgraph.RightJoin:
		for _, r := range right {
			found := false
			for _, l := range left {
				ok, err := op.match(l, r)
				if err != nil {
					return err
				}
				if ok {
					found = true
					if err := op.emit(l, r); err != nil {
						return err
					}
				}
			}
			if !found {
				if err := op.emit(op.nulls[0], r); err != nil {
					return err
				}
			}
		}
		return nil
	}
	// INNER, LEFT and FULL: left rows in order, each with its matches.
	full := op.spec.Kind == jobgraph.FullJoin
	if full {
		op.matched = append(op.matched[:0], make([]bool, len(right))...)
	}
	for _, l := range left {
		found := false
		for i, r := range right {
			ok, err := op.match(l, r)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			found = true
			if full {
				op.matched[i] = true
			}
			if err := op.emit(l, r); err != nil {
				return err
			}
		}
		if !found && op.outer[0] {
			if err := op.emit(l, op.nulls[1]); err != nil {
				return err
			}
		}
	}
	if full {
		for i, r := range right {
			if !op.matched[i] {
				if err := op.emit(op.nulls[0], r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Flush implements Operator.
func (op *windowJoinOp) Flush() error { return op.table.flush() }

func (op *windowJoinOp) usesProcTime() bool { return op.rows[0].proc }
