package jobgraph

// OverAggregate is a streaming OVER aggregation ordered by a time attribute
// (Flink's OverAggregate with a rowtime or proctime ORDER BY): every input
// row is emitted once, followed by one column per call computed over its
// frame, the rows of its partition from the frame's lower bound up to the
// current row.
//
// Input: one port, insert-only (Flink rejects updating input for a
// time-ordered OVER). Output: the input columns, then one column per call,
// insert-only ([I]). The ORDER BY time attribute stays a time attribute.
//
// Rowtime (ProcTime false): rows are buffered per partition until the
// watermark reaches their time, then processed in time order (arrival
// order within a time). A RANGE frame treats the rows of one time as
// peers: all of them get the same result, which includes all of them. A
// row is late, dropped and counted, when its time is NULL or at or before
// the watermark (unbounded frames) or at or before the last time its
// partition processed (bounded frames), as Flink decides it.
//
// Proctime (ProcTime true): the time of a row is the processing time when
// it arrives (the injected clock, in milliseconds); ROWS frames and the
// unbounded RANGE frame process each row on arrival; a bounded RANGE frame
// buffers the rows of the current millisecond and processes them, as
// peers, once the clock has passed it.
type OverAggregate struct {
	// PartitionKeys are the PARTITION BY column positions (none: one
	// partition).
	PartitionKeys []int
	// OrderBy is the position of the ORDER BY time attribute (sorted
	// ascending). With ProcTime it is the proctime column, whose value is
	// not read.
	OrderBy  int
	ProcTime bool
	// Frame is the frame shared by every call.
	Frame OverFrame
	// Calls are the aggregate calls (the AggCall of GROUP BY: DISTINCT and
	// FILTER apply; Filter -1 for none). Each needs retraction for a
	// bounded frame, which every AggFunc has.
	Calls []AggCall
	// StateTTL ('table.exec.state.ttl', nanoseconds; 0 = none) drops the
	// state of a partition that received no row for that long (Flink's
	// cleanup timers), for every frame but a bounded RANGE one, which
	// cleans up by the watermark (or the clock) already.
	StateTTL int64
}

// OverFrame is the frame of an OVER window: BETWEEN a lower bound AND
// CURRENT ROW.
type OverFrame struct {
	// Rows is true for a ROWS frame (counting rows), false for a RANGE
	// frame (over the ORDER BY time).
	Rows bool
	// Unbounded is UNBOUNDED PRECEDING; Preceding is then ignored.
	Unbounded bool
	// Preceding is the lower bound: n for ROWS BETWEEN n PRECEDING (the
	// frame holds n+1 rows), nanoseconds for RANGE BETWEEN INTERVAL …
	// PRECEDING (the frame holds the rows whose time t' has
	// t - Preceding <= t' <= t).
	Preceding int64
}

// SortedOver is the OVER aggregation over an updating input or ordered by
// columns that are not one ascending time attribute (an Eddy extension,
// decision 0035; Flink rejects both, FLINK-19059). Per partition it keeps
// the rows as an ordered multiset, sorted by OrderBy and, among rows equal
// in the ORDER BY keys, by all their columns in ascending order (NULLs
// first), so that the order, and every row's frame, depends only on the
// rows and not on their arrival. Each row is emitted with one column per
// call over its frame: the rows of its partition from the frame's lower
// bound up to it (ROWS), or, for the RANGE frame, which is unbounded,
// every row up to and including its peers (equal in the ORDER BY keys).
//
// Input: one port, any changelog with full retractions: +I and +U add a
// row, -U and -D remove one equal row (a removal of a row that is not
// there is ignored). Output: the input columns, then one column per call,
// as a retract changelog without a key ([I, UB, UA, D]): an added row is
// +I, a removed one -D with the values it was last emitted with, and every
// other row whose frame the change touched (the n rows after it for ROWS
// BETWEEN n PRECEDING, all later rows for an unbounded frame) is updated
// with -U (its old values) and +U (its new ones) when its values changed.
type SortedOver struct {
	PartitionKeys []int
	OrderBy       []SortKey
	// Frame is ROWS BETWEEN n or UNBOUNDED PRECEDING AND CURRENT ROW, or
	// RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW.
	Frame OverFrame
	Calls []AggCall
}
