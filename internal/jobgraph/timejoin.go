package jobgraph

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/types"
)

// IntervalJoin is a join bounded in time (Flink's IntervalJoin):
//
//	l JOIN r ON l.k = r.k AND l.t BETWEEN r.t + LowerBound AND r.t + UpperBound
//
// on two time attributes of the same kind. Both inputs are insert-only;
// port 0 is the left side, port 1 the right side. Output: the left
// columns, then the right columns; insert-only ([I]); the time attributes
// of both sides stay time attributes.
//
// Each side keeps its rows per equi-join key while rows of the other side
// can still match them: a left row at time t matches right rows in
// [t - UpperBound, t - LowerBound]. On rowtime, a left row expires once the
// watermark (the minimum of both sides) passes t - LowerBound, a right row
// once it passes t + UpperBound; an expiring row of an outer side that
// never matched is emitted padded with NULLs. The output watermark is held
// back by max(-LowerBound, UpperBound) so that those rows are not late
// downstream. As in Flink, rows are not dropped when late: a row arriving
// after its window has passed joins the rows still kept, and is emitted
// padded at once (outer side) when it matched none.
//
// On proctime (ProcTime), the times are the processing time of arrival
// (the injected clock) and rows expire as the clock passes them.
type IntervalJoin struct {
	// Kind is InnerJoin, LeftJoin, RightJoin or FullJoin.
	Kind JoinKind
	// LeftKeys and RightKeys are the equi-join key positions of each side;
	// rows with a NULL key match nothing.
	LeftKeys, RightKeys []int
	// LeftTime and RightTime are the time attribute positions of each side
	// (ignored on proctime).
	LeftTime, RightTime int
	ProcTime            bool
	// LowerBound and UpperBound (nanoseconds, inclusive, LowerBound <=
	// UpperBound) bound l.t - r.t. The planner turns a strict bound into an
	// inclusive one.
	LowerBound, UpperBound int64
	// Residual is the rest of the ON condition, over the concatenated
	// left and right row; nil when there is none.
	Residual expr.Expr
	// Left and Right are the input schemas.
	Left, Right *types.Schema
}

// TemporalJoin is an event-time temporal join (Flink's
// TemporalRowTimeJoinOperator):
//
//	l [LEFT] JOIN r FOR SYSTEM_TIME AS OF l.t ON l.k = r.k
//
// where r is a versioned table (a primary key contained in RightKeys, an
// event-time attribute RightTime). Port 0 is the left (probe) side, any
// changelog; port 1 the right (versioned) side, any changelog: +I/+U are
// versions, -U/-D mean "no row from that time on". Output: the left
// columns, then the right columns (NULLs when a LEFT join finds no
// version); each row keeps the kind of its left row, so the changelog is
// the left input's. Left time attributes stay time attributes; right ones
// are materialized.
//
// A left row waits until the watermark (the minimum of both sides)
// reaches its time, then joins the right version of its key with the
// largest time at or before it (a later arrival replaces a version of the
// same time). Rows of a key are emitted in arrival order, keys in (time,
// key) order. Left rows whose time is NULL or at or before the watermark
// on arrival are late: dropped (even in a LEFT join) and counted. Right
// versions older than the latest one at or before the watermark are
// removed.
type TemporalJoin struct {
	// Kind is InnerJoin or LeftJoin.
	Kind                JoinKind
	LeftKeys, RightKeys []int
	// LeftTime and RightTime are the rowtime positions of each side.
	LeftTime, RightTime int
	// Residual is the rest of the ON condition over the concatenated rows;
	// a version that fails it is no match.
	Residual    expr.Expr
	Left, Right *types.Schema
	// ProcTime makes it a processing-time temporal join, Flink's lookup
	// join: each left row joins the right rows of its key when it arrives
	// (after the bounded right input ended), without retraction; LeftTime
	// and RightTime are then unused.
	ProcTime bool
}
