package jobgraph

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/types"
)

// TestExplainTimeOperators: the EXPLAIN lines and changelog modes of the
// OVER, Top-N, deduplication, interval join, temporal join and temporal
// sort nodes.
func TestExplainTimeOperators(t *testing.T) {
	ts := types.Timestamp(3)
	s := types.NewSchema(types.Field{Name: "k", Type: types.String}, types.Field{Name: "ts", Type: ts}, types.Field{Name: "v", Type: types.Int})
	r := types.NewSchema(types.Field{Name: "k0", Type: types.String}, types.Field{Name: "ts0", Type: ts}, types.Field{Name: "w", Type: types.Int})
	joined := types.NewSchema(append(append([]types.Field(nil), s.Fields...), r.Fields...)...)
	withCnt := types.NewSchema(append(append([]types.Field(nil), s.Fields...), types.Field{Name: "cnt", Type: types.BigInt.NonNull()})...)
	withRn := types.NewSchema(append(append([]types.Field(nil), s.Fields...), types.Field{Name: "rn", Type: types.BigInt.NonNull()})...)
	v, err := expr.Col(2, "v", types.Int)
	require.NoError(t, err)
	w, err := expr.Col(5, "w", types.Int)
	require.NoError(t, err)
	residual, err := expr.Binary("<", v, w)
	require.NoError(t, err)
	j := &Job{
		Inputs: []Input{
			{Table: "c.d.l", Log: "l", Partitions: 1, Schema: s},
			{Table: "c.d.r", Log: "r", Partitions: 1, Schema: r, Mode: Upsert, Key: []int{0}},
		},
		Nodes: []Node{
			{UID: "over-0", Inputs: []Edge{{From: Source(0), Exchange: Hash, Keys: []int{0}}}, Out: withCnt, Op: &OverAggregate{
				PartitionKeys: []int{0}, OrderBy: 1, Frame: OverFrame{Preceding: 10_000_000_000},
				Calls: []AggCall{{Func: AggCount, Args: []int{2}, Filter: -1, Type: types.BigInt.NonNull()}}}},
			{UID: "rank-1", Inputs: []Edge{{From: 0, Exchange: Hash, Keys: []int{0}}}, Out: withRn, Op: &Rank{
				PartitionKeys: []int{0}, OrderBy: []SortKey{{Col: 3, Desc: true}, {Col: 2, NullsFirst: false}},
				Func: RowNumber, Start: 1, End: 3, OutputRank: true, Strategy: AppendFastStrategy}},
			{UID: "dedup-2", Inputs: []Edge{{From: Source(0), Exchange: Hash, Keys: []int{0}}}, Out: s, Op: &Deduplicate{
				Keys: []int{0}, KeepLast: true, TimeColumn: 1}},
			{UID: "ijoin-3", Inputs: []Edge{{From: 2, Exchange: Hash, Keys: []int{0}}, {From: Source(1), Exchange: Hash, Keys: []int{0}}},
				Out: joined, Op: &IntervalJoin{Kind: LeftJoin, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1,
					LowerBound: -2_000_000_000, UpperBound: 500_000, Residual: residual, Left: s, Right: r}},
			{UID: "tjoin-4", Inputs: []Edge{{From: Source(0), Exchange: Hash, Keys: []int{0}}, {From: Source(1), Exchange: Hash, Keys: []int{0}}},
				Out: joined, Op: &TemporalJoin{Kind: InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1, Left: s, Right: r}},
			{UID: "sort-5", Inputs: []Edge{{From: 4}}, Out: joined, Op: &TemporalSort{TimeColumn: 1, OrderBy: []SortKey{{Col: 2, Desc: true, NullsFirst: true}}}},
		},
	}
	nodes, _ := ChangelogKinds(j)
	var modes []string
	for _, k := range nodes {
		modes = append(modes, k.String())
	}
	require.Equal(t, []string{"[I]", "[I,UB,UA,D]", "[I,UB,UA]", "[I]", "[I]", "[I]"}, modes)
	var lines []string
	for _, n := range j.Nodes {
		var b strings.Builder
		writeOp(&b, j, n)
		lines = append(lines, b.String())
	}
	require.Equal(t, []string{
		"OverAggregate(uid=[over-0], partitionBy=[k], orderBy=[ts ASC], window=[RANGE BETWEEN 10000 PRECEDING AND CURRENT ROW], select=[k, ts, v, COUNT(v) AS cnt]), fields=[k ts v cnt]",
		"Rank(uid=[rank-1], strategy=[AppendFastStrategy], rankType=[ROW_NUMBER], rankRange=[rankStart=1, rankEnd=3], partitionBy=[k], orderBy=[cnt DESC, v ASC NULLS LAST], outputRank=[true]), fields=[k ts v rn]",
		"Deduplicate(uid=[dedup-2], keep=[LastRow], key=[k], order=[ROWTIME]), fields=[k ts v]",
		"IntervalJoin(uid=[ijoin-3], joinType=[LeftOuterJoin], windowBounds=[isRowTime=true, leftLowerBound=-2000, leftUpperBound=0.5, leftTime=[ts], rightTime=[ts0]], where=[k = k0 AND v < w]), fields=[k ts v k0 ts0 w]",
		"TemporalJoin(uid=[tjoin-4], joinType=[InnerJoin], where=[k = k0], leftTime=[ts], rightTime=[ts0]), fields=[k ts v k0 ts0 w]",
		"TemporalSort(uid=[sort-5], orderBy=[ts ASC, v DESC NULLS FIRST]), fields=[k ts v k0 ts0 w]",
	}, lines)
}
