package jobgraph

// TemporalSort is ORDER BY a time attribute ascending, then other columns
// (Flink's TemporalSort): insert-only in and out, same schema.
//
// Rowtime: rows are buffered until the watermark reaches their time, then
// emitted in time order, rows of one time sorted by OrderBy (then in
// arrival order). A row whose time is NULL or at or before the last time
// emitted is late: dropped and counted.
//
// Proctime (ProcTime): rows are buffered until the clock passes the
// millisecond they arrived in, then emitted sorted by OrderBy (then in
// arrival order).
type TemporalSort struct {
	// TimeColumn is the rowtime position (ignored on proctime).
	TimeColumn int
	ProcTime   bool
	// OrderBy are the secondary sort keys.
	OrderBy []SortKey
}
