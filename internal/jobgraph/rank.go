package jobgraph

// SortKey is one ORDER BY column: its position, its direction, and where
// NULLs sort. Flink's default is NULLS FIRST for ASC and NULLS LAST for
// DESC; the planner sets NullsFirst explicitly.
type SortKey struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// RankFunc is the ranking function of a Rank.
type RankFunc uint8

// The ranking functions.
const (
	RowNumber RankFunc = iota
	RankNumber
	DenseRank
)

// String returns Flink's name of the function.
func (f RankFunc) String() string {
	return [...]string{"ROW_NUMBER", "RANK", "DENSE_RANK"}[f]
}

// RankStrategy is how a Rank keeps its state and reads its input, chosen
// by the planner from the input's changelog (Flink's RankProcessStrategy).
type RankStrategy uint8

// The strategies.
const (
	// AppendFastStrategy: insert-only input; a partition keeps only the rows that
	// can still be in the result (the top End by ROW_NUMBER; with RANK and
	// DENSE_RANK, every row ranked at most End).
	AppendFastStrategy RankStrategy = iota
	// UpdateFastStrategy: an upsert input (+I/+U, no -D; -U is ignored) whose
	// upsert key UpsertKey contains the partition key and whose sort key
	// only moves up (e.g. ORDER BY a growing COUNT DESC). A +U replaces the
	// row of its upsert key. A partition keeps only the rows that can still
	// be in the result, as AppendFastStrategy.
	UpdateFastStrategy
	// RetractStrategy: any changelog with full retractions (-U/-D carry the whole
	// row); a partition keeps every row, and a retraction removes the
	// first (earliest arrived) equal row.
	RetractStrategy
)

// String returns Flink's name of the strategy.
func (s RankStrategy) String() string {
	return [...]string{"AppendFastStrategy", "UpdateFastStrategy", "RetractStrategy"}[s]
}

// Rank is a streaming Top-N (Flink's Rank): per partition it keeps the
// rows in sort order (ties in arrival order) and emits the changes of the
// rows ranked in [Start, End].
//
// Input: one port, in the mode Strategy names. Output: the input columns,
// then, with OutputRank, the rank as BIGINT NOT NULL. Changelog:
// [I,UB,UA,D] ([I,UA,D] with DropUpdateBefore), whatever the input.
//
// Emission follows Flink's Top-N functions:
//   - ROW_NUMBER with OutputRank or Start > 1 ((partition, rank) is the
//     upsert key): per changed position, in ascending rank, -U of the row
//     that was there and +U of the row now there; +I for a position newly
//     filled, -D for a position emptied. Without OutputRank the rows carry
//     no rank column.
//   - ROW_NUMBER with neither (the row's own key is the upsert key): -D for
//     each row that left the result, then +I for each row that entered it.
//   - RANK and DENSE_RANK (Flink rejects them on unbounded streams; Eddy
//     runs them): -D for each row that left the result, then, in rank
//     order, -U/+U for each row whose rank changed (with OutputRank) and +I
//     for each row that entered.
type Rank struct {
	// PartitionKeys are the PARTITION BY positions (none: a global Top-N).
	PartitionKeys []int
	// OrderBy are the sort keys, most significant first.
	OrderBy []SortKey
	Func    RankFunc
	// Start and End bound the emitted ranks, 1-based and inclusive
	// (rn <= N is 1..N; rn BETWEEN a AND b is a..b; End >= Start >= 1).
	Start, End int64
	// OutputRank appends the rank column to the output rows.
	OutputRank bool
	Strategy   RankStrategy
	// UpsertKey is the input's upsert key (UpdateFast only).
	UpsertKey []int
	// DropUpdateBefore omits the -U rows (a consumer that upserts by the
	// output's key).
	DropUpdateBefore bool
	// StateTTL ('table.exec.state.ttl', nanoseconds; 0 = none) forgets a
	// row of a partition not written for that long.
	StateTTL int64
}

// Deduplicate keeps the first or the last row per key, ordered by a time
// attribute (Flink's Deduplicate: ROW_NUMBER() OVER (PARTITION BY k ORDER
// BY time) = 1 with the rank not selected).
//
// Input: one port, insert-only. Output: the input rows, same schema.
// Changelog by variant (Flink 2.3, mini-batch off):
//   - keep first, proctime: the first row per key as +I, later rows
//     dropped: [I].
//   - keep first, rowtime: the row with the smallest time per key (the
//     earliest arrived among equal times) waits until the watermark reaches
//     its time, then is emitted as +I; later rows of the key are dropped,
//     as are late rows (time NULL or before the watermark, counted): [I].
//   - keep last, proctime: +I for the first row per key, then -U of the
//     previous row and +U of the new one for every later row (a row equal
//     to the previous one emits nothing): [I,UB,UA].
//   - keep last, rowtime: a row replaces the key's row when its time is at
//     or after that row's time, emitting +I, or -U/+U (even when equal);
//     older rows are dropped (rows with a NULL time too, counted as late):
//     [I,UB,UA].
//
// DropUpdateBefore omits the -U rows ([I,UA]).
type Deduplicate struct {
	Keys     []int
	KeepLast bool
	// TimeColumn is the rowtime column; -1 for proctime (the clock).
	TimeColumn       int
	DropUpdateBefore bool
	// StateTTL ('table.exec.state.ttl', nanoseconds; 0 = none) forgets a
	// key not written for that long.
	StateTTL int64
}

// ProcTime reports whether the deduplication orders by processing time.
func (d *Deduplicate) ProcTime() bool { return d.TimeColumn < 0 }
