package runtime

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// windowTVFOp is the TUMBLE, HOP and CUMULATE window TVF (Flink's
// AlignedWindowTableFunctionOperator): every row is emitted at once, once
// per window it belongs to, with window_start, window_end and window_time
// appended and its kind kept. It keeps no state and drops no late row;
// rows whose time attribute is NULL are dropped.
type windowTVFOp struct {
	rows  winRows
	out   Output
	width int
	arena winArena
}

// newWindowTVFOp builds the operator of a window TVF: stateless for
// aligned windows, the session operator for SESSION.
func newWindowTVFOp(spec *jobgraph.WindowTVF, in *types.Schema, oc OpContext) (Operator, error) {
	if spec.Window.Kind == jobgraph.Session {
		return newSessionTVFOp(spec, in, oc)
	}
	rows, err := newWinRows(&jobgraph.Windowing{Window: spec.Window}, in, oc.Clock)
	if err != nil {
		return nil, fmt.Errorf("window TVF: %w", err)
	}
	return &windowTVFOp{rows: rows, out: oc.Out, width: in.Len() + 3}, nil
}

// Process implements Operator.
func (op *windowTVFOp) Process(_ int, row types.Row) error {
	spans, ok := op.rows.of(row.Values)
	if !ok {
		return nil
	}
	for _, span := range spans {
		vals := append(op.arena.take(op.width), row.Values...)
		vals = appendWindowColumns(vals, span, op.rows.assign.zone)
		if err := op.out.Emit(types.Row{Kind: row.Kind, Values: vals}); err != nil {
			return err
		}
	}
	return nil
}

// Watermark implements Operator.
func (op *windowTVFOp) Watermark(_ int, wm int64) error { return op.out.Watermark(wm) }

// Flush implements Operator.
func (op *windowTVFOp) Flush() error { return nil }
