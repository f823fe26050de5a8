package jobgraph

import (
	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/types"
)

// The window operators (Flink's window TVFs and the operators that group,
// rank, deduplicate and join by window; reference §4 and §3.6).
//
// Times: window sizes, slides, steps, offsets and gaps are nanoseconds, as
// every duration in the engine, and must be whole milliseconds: windows
// are computed on epoch milliseconds as Flink's are. Window columns hold
// TIMESTAMP(3) values. A window [start, end) fires when the watermark (or,
// on processing time, the clock) reaches end - 1 ms; its results are then
// emitted once, insert-only, and its state is dropped. Rows whose every
// window has fired are late: dropped and counted (OpContext.Late).
//
// Time zones: with a TIMESTAMP_LTZ time attribute (and on processing
// time, which is TIMESTAMP_LTZ), windows are aligned on the wall clock of
// the session time zone (Window.TimeZone, 'table.local-time-zone') as
// Flink's TimeWindowUtil does: a row's instant is first turned into local
// wall-clock milliseconds, windows are computed on those, window_start and
// window_end are local TIMESTAMP(3) values, window_time is the instant of
// window_end - 1 ms (a TIMESTAMP_LTZ(3)), and a window fires when the
// watermark reaches that instant (for a local time skipped by a DST
// change, the first valid instant after it).

// WindowKind is the window function of a window TVF.
type WindowKind uint8

// The window functions.
const (
	// Tumble: fixed, contiguous windows of Size.
	Tumble WindowKind = iota
	// Hop: windows of Size every Slide (Size a multiple of Slide); a row
	// is in Size/Slide windows.
	Hop
	// Cumulate: windows growing by Step from the start of a fixed window
	// of Size (a multiple of Step) up to it; a row is in every window of
	// its fixed window that ends after it.
	Cumulate
	// Session: per partition, rows closer than Gap form one window
	// [first row, last row + Gap); a row that bridges two sessions merges
	// them.
	Session
)

// String returns the SQL name of the window function.
func (k WindowKind) String() string {
	return [...]string{"TUMBLE", "HOP", "CUMULATE", "SESSION"}[k]
}

// Window is a window TVF's windowing: the function, its parameters and
// the time attribute it reads.
type Window struct {
	Kind WindowKind
	// Size is the window size of TUMBLE and HOP, the maximum size of
	// CUMULATE (nanoseconds).
	Size int64
	// Slide is HOP's slide; Step is CUMULATE's step.
	Slide, Step int64
	// Offset shifts the window boundaries of TUMBLE, HOP and CUMULATE (may
	// be negative; offsets congruent modulo the size are equivalent).
	Offset int64
	// Gap is SESSION's gap.
	Gap int64
	// PartitionKeys are SESSION's PARTITION BY columns, positions in the
	// input rows of the WindowTVF (none: one partition). A session window
	// aggregate uses its group keys instead; Flink plans one only when
	// they are the same columns.
	PartitionKeys []int
	// TimeColumn is the position of the time attribute (the DESCRIPTOR
	// column) in the rows the windows are assigned from, or -1 for
	// processing time (the job's clock when a row arrives).
	TimeColumn int
	// TimeZone is the session time zone ('table.local-time-zone': an IANA
	// name, 'UTC', or an offset like 'GMT+08:00') that windows over a
	// TIMESTAMP_LTZ time attribute or over processing time are aligned
	// in; "" for a TIMESTAMP time attribute (no shift, as UTC).
	TimeZone string
}

// ProcTime reports whether the windows are on processing time.
func (w *Window) ProcTime() bool { return w.TimeColumn < 0 }

// Windowing says how a window operator finds the window of each input
// row (Flink's WindowingStrategy).
type Windowing struct {
	// Window is the window function. Unless Attached, the operator assigns
	// windows itself from Window.TimeColumn of its input rows (a window
	// TVF fused into it: Flink's TimeAttributeWindowingStrategy).
	Window Window
	// Attached means the input rows carry their window in the columns
	// WindowStart and WindowEnd (window_start and window_end of a window
	// TVF, window aggregate, window rank or window join upstream: Flink's
	// WindowAttachedWindowingStrategy). Window then describes those
	// windows: its TimeColumn says whether they fire on event time (>= 0:
	// the watermark) or processing time (-1), and its TimeZone how their
	// local end times map to instants.
	Attached               bool
	WindowStart, WindowEnd int
}

// WindowTVF is a window table-valued function (Flink's
// WindowTableFunction): TUMBLE, HOP, CUMULATE or SESSION over its input.
//
// Input: one port. Output: the input columns, then window_start
// TIMESTAMP(3) NOT NULL, window_end TIMESTAMP(3) NOT NULL and window_time
// NOT NULL (the type of the time attribute, TIMESTAMP(3) or
// TIMESTAMP_LTZ(3); it is the new time attribute). Rows keep their kind,
// so the changelog is the input's.
//
// TUMBLE, HOP and CUMULATE are stateless: each row is emitted at once,
// once per window it belongs to (in window order), and late rows are not
// dropped (the window operators downstream drop them). Rows whose time
// attribute is NULL are dropped. SESSION keeps the rows of each open
// session per Window.PartitionKeys and emits them, in arrival order, when
// the session fires; late rows are dropped and counted.
type WindowTVF struct {
	Window Window
}

// WindowAggregate is a window aggregation (Flink's WindowAggregate):
// GROUP BY window_start, window_end, Keys. Each (window, group key) keeps
// a row count and one accumulator per call (the accumulators of
// Aggregate); when the window fires, the group's row is emitted once.
//
// Input: one port, any changelog (retractions update the accumulators
// before the window fires; a group whose rows are all retracted emits
// nothing). Output: the key columns, one column per call, then
// window_start TIMESTAMP(3) NOT NULL, window_end TIMESTAMP(3) NOT NULL and
// window_time NOT NULL (TIMESTAMP(3), or TIMESTAMP_LTZ(3) for an LTZ or
// processing-time attribute); insert-only. The upsert key of the output
// is (Keys, window_start, window_end). GROUPING SETS are several
// WindowAggregates unioned, as for Aggregate.
//
// Windowing may be fused (the operator assigns TUMBLE, HOP, CUMULATE or
// SESSION windows itself; SESSION windows are per group key) or Attached.
type WindowAggregate struct {
	// Keys are the group key positions in the input row (without the
	// window columns).
	Keys      []int
	Calls     []AggCall
	Windowing Windowing
}

// WindowRank is a window Top-N (Flink's WindowRank): per window and
// partition key it keeps the rows that can still rank in [Start, End] and
// emits them, in rank order, when the window fires.
//
// Input: one port, insert-only, with its window Attached. Output: the
// input columns, then, with OutputRank, the rank as BIGINT NOT NULL;
// insert-only. Flink's planner accepts only ROW_NUMBER here; the runtime
// also ranks by RANK and DENSE_RANK (ties share a rank).
type WindowRank struct {
	Windowing Windowing
	// PartitionKeys are the PARTITION BY columns besides window_start and
	// window_end.
	PartitionKeys []int
	// OrderBy are the sort keys, most significant first; rows that tie
	// keep their arrival order (ROW_NUMBER).
	OrderBy []SortKey
	Func    RankFunc
	// Start and End bound the emitted ranks, 1-based and inclusive.
	Start, End int64
	OutputRank bool
}

// WindowDeduplicate is a window deduplication (Flink's
// WindowDeduplicate: ROW_NUMBER() OVER (PARTITION BY window_start,
// window_end, Keys ORDER BY time) = 1): per window and key it keeps the
// first row (the smallest time, the earliest arrived among equal times) or
// the last (the largest time, the latest arrived among equal times) and
// emits it when the window fires.
//
// Input: one port, insert-only, with its window Attached. Output: the
// input rows, same schema; insert-only.
type WindowDeduplicate struct {
	Windowing Windowing
	Keys      []int
	KeepLast  bool
	// TimeColumn is the event-time column the rows are ordered by.
	TimeColumn int
}

// WindowJoin is a window join (Flink's WindowJoin): both sides are windowed
// alike (the same Window) and carry their window in columns; rows join
// when their windows are equal and their keys match. Each side keeps its
// rows per (window, key); when the window fires the rows are joined,
// outer sides padded with NULLs, and the state is dropped.
//
// Ports: 0 left, 1 right, both insert-only. Output: the left columns, then
// the right columns (the left columns alone for SemiJoin and AntiJoin);
// insert-only. For each window and key, left rows come in arrival order,
// each with its matches in the right side's arrival order; then (right
// and full joins) the unmatched right rows padded.
type WindowJoin struct {
	Kind JoinKind
	// Window describes both sides' windows (its kind, and TimeColumn /
	// TimeZone for firing, as in Windowing).
	Window Window
	// LeftStart, LeftEnd, RightStart and RightEnd are the window_start and
	// window_end positions in each side's rows.
	LeftStart, LeftEnd, RightStart, RightEnd int
	// LeftKeys and RightKeys are the equi-join key positions besides the
	// window columns. Rows whose key has a NULL match nothing, unless
	// NullSafe[i] (IS NOT DISTINCT FROM).
	LeftKeys, RightKeys []int
	NullSafe            []bool
	// Residual is the rest of the ON condition over the concatenated left
	// and right row; nil when there is none.
	Residual expr.Expr
	// Left and Right are the input schemas.
	Left, Right *types.Schema
}

// WindowColumns returns the three columns a window TVF appends:
// window_start, window_end and window_time, whose type is timeType's
// kind (TIMESTAMP or TIMESTAMP_LTZ) at precision 3, NOT NULL.
func WindowColumns(timeType types.Type) []types.Field {
	ts := types.Timestamp(3).NonNull()
	wt := types.Timestamp(3).NonNull()
	if timeType.ID == types.TypeTimestampLTZ {
		wt = types.TimestampLTZ(3).NonNull()
	}
	return []types.Field{{Name: "window_start", Type: ts}, {Name: "window_end", Type: ts}, {Name: "window_time", Type: wt}}
}
