package runtime

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// calcOp filters and projects rows (jobgraph.Calc); it passes watermarks
// on.
type calcOp struct {
	c   *jobgraph.Calc
	out Output
	// where prefixes evaluation errors ("input cat.db.t"), if set.
	where string
	// wm is the current watermark CURRENT_WATERMARK reads, nil when the
	// calc does not call it (then c is the shared spec).
	wm *expr.WatermarkCell
}

// bindWatermark gives the calc its own copy of expressions calling
// CURRENT_WATERMARK, reading the operator's watermark.
func (o *calcOp) bindWatermark() {
	has := o.c.Filter != nil && expr.HasWatermark(o.c.Filter)
	for _, e := range o.c.Project {
		has = has || expr.HasWatermark(e)
	}
	if !has {
		return
	}
	o.wm = &expr.WatermarkCell{WM: MinWatermark}
	c := &jobgraph.Calc{Filter: expr.BindWatermark(o.c.Filter, o.wm)}
	if o.c.Project != nil {
		c.Project = make([]expr.Expr, len(o.c.Project))
		for i, e := range o.c.Project {
			c.Project[i] = expr.BindWatermark(e, o.wm)
		}
	}
	o.c = c
}

func (o *calcOp) Process(_ int, row types.Row) error {
	r, ok, err := applyCalc(o.c, row)
	if err != nil && o.where != "" {
		return fmt.Errorf("%s: %w", o.where, err)
	}
	if err != nil || !ok {
		return err
	}
	return o.out.Emit(r)
}

func (o *calcOp) Watermark(_ int, wm int64) error {
	if o.wm != nil {
		o.wm.WM = wm
	}
	return o.out.Watermark(wm)
}
func (o *calcOp) Flush() error { return nil }

// unionOp passes the rows of all its inputs on (UNION ALL) and the
// minimum of their watermarks.
type unionOp struct {
	wm  minWatermark
	out Output
}

func (o *unionOp) Process(_ int, row types.Row) error { return o.out.Emit(row) }
func (o *unionOp) Watermark(port int, wm int64) error {
	if w, rose := o.wm.advance(port, wm); rose {
		return o.out.Watermark(w)
	}
	return nil
}
func (o *unionOp) Flush() error { return nil }

// valuesOp emits fixed rows when the job starts (not when it resumes:
// they were emitted before the checkpoint it resumes from).
type valuesOp struct {
	spec *jobgraph.Values
	out  Output
}

func (o *valuesOp) Process(int, types.Row) error    { return nil }
func (o *valuesOp) Watermark(_ int, wm int64) error { return o.out.Watermark(wm) }
func (o *valuesOp) Flush() error                    { return nil }
func (o *valuesOp) start(resume bool) error {
	if resume {
		return nil
	}
	for _, vals := range o.spec.Rows {
		if err := o.out.Emit(types.Row{Kind: types.Insert, Values: vals}); err != nil {
			return err
		}
	}
	return nil
}

// normalizeOp is the ChangelogNormalize operator (normalize.go).
type normalizeOp struct {
	n       *normalizer
	dropUB  bool
	out     Output
	scratch []types.Row
}

func (o *normalizeOp) Process(_ int, row types.Row) error {
	var err error
	if o.scratch, err = o.n.process(row, o.scratch[:0]); err != nil {
		return err
	}
	for _, r := range o.scratch {
		if o.dropUB && r.Kind == types.UpdateBefore {
			continue
		}
		if err := o.out.Emit(r); err != nil {
			return err
		}
	}
	return nil
}

func (o *normalizeOp) Watermark(_ int, wm int64) error { return o.out.Watermark(wm) }

func (o *normalizeOp) Flush() error {
	if err := o.n.flush(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// ptfNode is the PTF host (ptfop.go) as an operator: ports are the table
// arguments' Input numbers.
type ptfNode struct {
	op     *ptfOp
	out    Output
	lastWM int64
}

func (o *ptfNode) Process(port int, row types.Row) error { return o.op.processRow(port, &row) }

func (o *ptfNode) Watermark(port int, wm int64) error {
	if err := o.op.advance(port, wm); err != nil {
		return err
	}
	if w := o.op.opWM; w != MinWatermark && w > o.lastWM {
		o.lastWM = w
		return o.out.Watermark(w)
	}
	return nil
}

// OnProcessingTime implements procTimeOperator: it fires the function's
// processing-time timers.
func (o *ptfNode) OnProcessingTime(now int64) error { return o.op.OnProcessingTime(now) }

// usesProcTime: only calls that may have timers can have processing-time
// ones.
func (o *ptfNode) usesProcTime() bool { return o.op.timersOK }

func (o *ptfNode) Flush() error {
	if err := o.op.flush(); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

func (o *ptfNode) start(resume bool) error {
	if len(o.op.spec.Tables) == 0 && !resume {
		return o.op.evalOnce()
	}
	return nil
}

// starter is an operator that emits something when the job starts.
type starter interface {
	start(resume bool) error
}
