package ast

import "github.com/eddy-sql/eddy/internal/sqlerr"

// WindowSpec is the window of an OVER clause or of a WINDOW definition:
//
//	[w] [PARTITION BY exprs] [ORDER BY items] [{ROWS | RANGE} frame]
type WindowSpec struct {
	Loc
	// Ref names a window of the WINDOW clause that this one refines
	// (OVER w, OVER (w ORDER BY ...)); nil when none.
	Ref         *Ident
	PartitionBy []Expr
	OrderBy     []*OrderItem
	// Frame is nil when no ROWS or RANGE frame is written.
	Frame *WindowFrame
}

// WindowFrame is {ROWS | RANGE} start or {ROWS | RANGE} BETWEEN start AND
// end.
type WindowFrame struct {
	Loc
	// Rows is set for ROWS, false for RANGE.
	Rows  bool
	Start *FrameBound
	// End is nil when the frame is written without BETWEEN (the end is
	// then CURRENT ROW).
	End *FrameBound
}

// FrameBoundKind is the kind of a frame bound.
type FrameBoundKind uint8

// The frame bounds.
const (
	UnboundedPreceding FrameBoundKind = iota // UNBOUNDED PRECEDING
	Preceding                                // n PRECEDING, INTERVAL ... PRECEDING
	CurrentRow                               // CURRENT ROW
	Following                                // n FOLLOWING
	UnboundedFollowing                       // UNBOUNDED FOLLOWING
)

// FrameBound is one bound of a window frame.
type FrameBound struct {
	Loc
	Kind FrameBoundKind
	// Offset is the n or INTERVAL of Preceding and Following; nil
	// otherwise.
	Offset Expr
}

// NamedWindow is one definition of a WINDOW clause: name AS (spec).
type NamedWindow struct {
	Name *Ident
	Spec *WindowSpec
}

// Pos returns the position of the name.
func (w *NamedWindow) Pos() sqlerr.Pos { return w.Name.Pos() }
