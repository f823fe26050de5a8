package expr

import (
	"github.com/eddy-sql/eddy/types"
)

// CURRENT_WATERMARK(rowtime) (reference §7.1): the current watermark of the
// operator evaluating the expression, NULL before its first watermark. The
// expression reads a cell the operator owns (BindWatermark gives each
// operator instance its own copy); an unbound one is always NULL.
//
// It is opaque to the rewriter (operands does not know it): the optimizer
// neither pushes nor merges an expression holding it into another operator,
// where the watermark would be a different one.

// MinWatermark is the watermark before the first (no watermark yet).
const MinWatermark = int64(-1 << 63)

// WatermarkCell holds an operator's current watermark (MinWatermark before
// the first). Only the operator's goroutine reads and writes it.
type WatermarkCell struct{ WM int64 }

type watermarkExpr struct {
	t    types.Type
	arg  string // the rendering of the rowtime argument
	cell *WatermarkCell
}

// CurrentWatermark returns CURRENT_WATERMARK(arg) of the type t (the
// rowtime column's type, nullable). The planner checks that arg is a
// rowtime attribute; argText is its rendering.
func CurrentWatermark(t types.Type, argText string) Expr {
	return &watermarkExpr{t: t.Nullable(), arg: argText}
}

func (w *watermarkExpr) Type() types.Type { return w.t }

func (w *watermarkExpr) Eval([]types.Value) (types.Value, error) {
	if w.cell == nil || w.cell.WM == MinWatermark {
		return types.Null, nil
	}
	return types.NewTimestamp(w.cell.WM), nil
}

func (w *watermarkExpr) String() string { return "CURRENT_WATERMARK(" + w.arg + ")" }

// HasWatermark reports whether e calls CURRENT_WATERMARK.
func HasWatermark(e Expr) bool {
	found := false
	walkWatermark(e, func(*watermarkExpr) Expr { found = true; return nil })
	return found
}

// BindWatermark returns e with every CURRENT_WATERMARK reading cell (e
// itself when it has none). Each operator instance binds its own copy, so
// that subtasks do not share a cell.
func BindWatermark(e Expr, cell *WatermarkCell) Expr {
	if e == nil {
		return nil
	}
	return walkWatermark(e, func(w *watermarkExpr) Expr {
		c := *w
		c.cell = cell
		return &c
	})
}

// walkWatermark rebuilds e with each CURRENT_WATERMARK replaced by f's
// result (nil keeps it). Subtrees without one are kept as they are.
func walkWatermark(e Expr, f func(*watermarkExpr) Expr) Expr {
	if e == nil {
		return nil
	}
	if w, ok := e.(*watermarkExpr); ok {
		if r := f(w); r != nil {
			return r
		}
		return e
	}
	kids, ok := operands(e)
	if !ok {
		fn, isFn := e.(*fnExpr)
		if !isFn {
			return e // opaque: cannot hold one the planner built
		}
		kids = fn.args
	}
	var next []Expr
	for i, k := range kids {
		if k == nil {
			continue
		}
		if r := walkWatermark(k, f); r != k {
			if next == nil {
				next = append([]Expr(nil), kids...)
			}
			next[i] = r
		}
	}
	if next == nil {
		return e
	}
	if fn, isFn := e.(*fnExpr); isFn && fn.render != nil {
		c := *fn
		c.args = next
		return &c
	}
	return withOperands(e, next)
}
