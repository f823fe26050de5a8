package runtime

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

var rankFuncs = map[string]jobgraph.RankFunc{"row_number": jobgraph.RowNumber, "rank": jobgraph.RankNumber, "dense_rank": jobgraph.DenseRank}

var rankStrategies = map[string]jobgraph.RankStrategy{"append": jobgraph.AppendFastStrategy,
	"update": jobgraph.UpdateFastStrategy, "retract": jobgraph.RetractStrategy}

// TestRank runs testdata/rank:
//
//	rank [part=0] order=1:desc[:nullsfirst],2 [func=row_number|rank|dense_rank]
//	     [start=N] end=N [rank] strategy=append|update|retract [upsert=0]
//	     [dropub] [maxkeys=N]
//	    then "col NAME TYPE" lines
func TestRank(t *testing.T) {
	runOpTest(t, "testdata/rank", map[string]func(*testing.T, *datadriven.TestData, *opHarness){
		"rank": func(t *testing.T, d *datadriven.TestData, h *opHarness) {
			h.ports = opCols(t, d.Input, func(l string) { t.Fatalf("unknown line %q", l) })
			spec := &jobgraph.Rank{PartitionKeys: argInts(t, d, "part"), OrderBy: parseSortKeys(t, d, "order"),
				Func: rankFuncs[argString(d, "func", "row_number")], Start: 1, OutputRank: d.HasArg("rank"),
				Strategy: rankStrategies[argString(d, "strategy", "append")], UpsertKey: argInts(t, d, "upsert"),
				DropUpdateBefore: d.HasArg("dropub")}
			if d.HasArg("start") {
				d.ScanArgs(t, "start", &spec.Start)
			}
			d.ScanArgs(t, "end", &spec.End)
			h.build = func(oc OpContext) (Operator, error) { return newRankOp(spec, h.ports[0], oc) }
		},
	})
}

var rankSchema = types.NewSchema(types.Field{Name: "k", Type: types.String},
	types.Field{Name: "id", Type: types.Int}, types.Field{Name: "v", Type: types.Int})

// rankEvents returns n random rows over three partitions: inserts only
// (append), upserts by id with a growing v (update), or inserts and
// retractions of live rows, with NULLs and duplicates (retract).
func rankEvents(r *rand.Rand, strategy jobgraph.RankStrategy, n int) []opEvent {
	var evs []opEvent
	var live []types.Row
	cnt := map[string]int64{}
	for len(evs) < n {
		k := types.NewString(string(rune('a' + r.IntN(3))))
		v := types.NewInt(int64(r.IntN(8)))
		if r.IntN(8) == 0 {
			v = types.Null
		}
		row := types.Row{Kind: types.Insert, Values: []types.Value{k, types.NewInt(int64(r.IntN(6))), v}}
		switch strategy {
		case jobgraph.UpdateFastStrategy:
			key := fmt.Sprint(row.Values[:2])
			c, seen := cnt[key]
			c += int64(r.IntN(3))
			cnt[key] = c
			row.Values[2] = types.NewInt(c)
			if seen {
				row.Kind = types.UpdateAfter
			}
		case jobgraph.RetractStrategy:
			if len(live) > 0 && r.IntN(3) == 0 {
				i := r.IntN(len(live))
				old := live[i]
				live = slices.Delete(live, i, i+1)
				kind := types.Delete
				if r.IntN(2) == 0 {
					kind = types.UpdateBefore
				}
				evs = append(evs, opEvent{row: &types.Row{Kind: kind, Values: old.Values}})
				continue
			}
			if r.IntN(12) == 0 { // a retraction of a row never inserted
				evs = append(evs, opEvent{row: &types.Row{Kind: types.Delete, Values: row.Values}})
				continue
			}
			live = append(live, row)
		}
		evs = append(evs, opEvent{row: &row})
	}
	return evs
}

// rankBatch computes the Top-N of the rows live at the end, ties in the
// order of the arrival of each row (for upserts: of the last update that
// changed its sort key), with the ranks.
func rankBatch(spec *jobgraph.Rank, evs []opEvent) []types.Row {
	var live [][]types.Value
	for _, ev := range evs {
		vals := ev.row.Values
		switch {
		case spec.Strategy == jobgraph.UpdateFastStrategy:
			// An update that keeps the sort key keeps the row's place
			// among its ties.
			i := slices.IndexFunc(live, func(x []types.Value) bool { return types.Equal(x[1], vals[1]) && types.Equal(x[0], vals[0]) })
			if i >= 0 && compareSortKeys(spec.OrderBy, live[i], vals) == 0 {
				live[i] = vals
				continue
			}
			if i >= 0 {
				live = slices.Delete(live, i, i+1)
			}
			live = append(live, vals)
		case ev.row.Kind.IsRetraction():
			if i := slices.IndexFunc(live, func(x []types.Value) bool { return equalValues(x, vals) }); i >= 0 {
				live = slices.Delete(live, i, i+1)
			}
		default:
			live = append(live, vals)
		}
	}
	parts := map[string][][]types.Value{}
	for _, vals := range live {
		parts[vals[0].Str()] = append(parts[vals[0].Str()], vals)
	}
	var out []types.Row
	for _, rows := range parts {
		slices.SortStableFunc(rows, func(a, b []types.Value) int { return compareSortKeys(spec.OrderBy, a, b) })
		var rank int64
		for i, vals := range rows {
			switch {
			case spec.Func == jobgraph.RowNumber || i == 0:
				rank = int64(i) + 1
			case compareSortKeys(spec.OrderBy, rows[i-1], vals) == 0:
			case spec.Func == jobgraph.RankNumber:
				rank = int64(i) + 1
			default:
				rank++
			}
			if rank < spec.Start || rank > spec.End {
				continue
			}
			if spec.OutputRank {
				vals = append(slices.Clip(vals), types.NewInt(rank))
			}
			out = append(out, types.Row{Values: vals})
		}
	}
	return out
}

// TestRankRandom: for every strategy, ranking function, range and output
// form, restoring gives the uninterrupted run, and the materialized output
// equals the Top-N of the rows live at the end.
func TestRankRandom(t *testing.T) {
	for seed := range uint64(25) {
		r := rand.New(rand.NewPCG(seed, 4))
		for _, strategy := range []jobgraph.RankStrategy{jobgraph.AppendFastStrategy, jobgraph.UpdateFastStrategy, jobgraph.RetractStrategy} {
			evs := rankEvents(r, strategy, 120)
			for _, fn := range []jobgraph.RankFunc{jobgraph.RowNumber, jobgraph.RankNumber, jobgraph.DenseRank} {
				if strategy == jobgraph.UpdateFastStrategy && fn != jobgraph.RowNumber {
					continue // monotonic updates keep the result only for ROW_NUMBER's bounded buffer
				}
				for _, rng := range [][2]int64{{1, 1}, {1, 3}, {2, 4}} {
					for _, withRank := range []bool{false, true} {
						spec := &jobgraph.Rank{PartitionKeys: []int{0}, Func: fn, Start: rng[0], End: rng[1],
							OutputRank: withRank, Strategy: strategy, UpsertKey: []int{0, 1},
							OrderBy: []jobgraph.SortKey{{Col: 2, Desc: seed%2 == 0, NullsFirst: seed%3 == 0}}}
						if strategy == jobgraph.UpdateFastStrategy {
							spec.OrderBy[0].Desc = true // the growing v moves rows up
						}
						build := func(oc OpContext) (Operator, error) { return newRankOp(spec, rankSchema, oc) }
						checkRestore(t, r, build, evs)
						rows, _ := opCollect(t, build, evs)
						require.Equal(t, materialize(t, rankBatch(spec, evs)), materialize(t, rows),
							"seed %d %s %s %v rank=%v", seed, strategy, fn, rng, withRank)
					}
				}
			}
		}
	}
}
