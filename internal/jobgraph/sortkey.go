package jobgraph

// SortKey and RankFunc are shared by the Top-N operators. Stream `ovr`
// declares the same two types in rank.go: when both land, keep one copy.

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
