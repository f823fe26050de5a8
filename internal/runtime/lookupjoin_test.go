package runtime

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// TestLookupJoinRandom: the processing-time temporal join (lookup join)
// restores to the uninterrupted run, and each left row joins every row of
// its key that the bounded right input held, whether it arrived before the
// right input ended (it waits) or after; LEFT pads the unmatched ones.
func TestLookupJoinRandom(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 8))
		all := timeJoinEvents(r, 120, 1)
		all = all[:len(all)-2] // the final watermarks
		end := r.IntN(len(all) + 1)
		var evs []opEvent
		for i, ev := range all {
			if i == end {
				evs = append(evs, opEvent{port: 1, wm: MaxWatermark})
			}
			if i >= end && ev.port == 1 {
				continue // a bounded input sends nothing after its end
			}
			evs = append(evs, ev)
		}
		if end == len(all) {
			evs = append(evs, opEvent{port: 1, wm: MaxWatermark})
		}
		evs = append(evs, opEvent{port: 0, wm: MaxWatermark})
		for _, kind := range []jobgraph.JoinKind{jobgraph.InnerJoin, jobgraph.LeftJoin} {
			spec := &jobgraph.TemporalJoin{Kind: kind, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: -1,
				Left: ijLeft, Right: ijRight, ProcTime: true}
			if seed%2 == 1 {
				spec.Residual = residualLess(t, ijLeft, ijRight, 2, 2)
			}
			build := func(oc OpContext) (Operator, error) { return newLookupJoinOp(spec, oc) }
			checkRestore(t, r, build, evs)
			rows, late := opCollect(t, build, evs)
			require.Zero(t, late)
			var want []types.Row
			nulls := []types.Value{types.Null, types.Null, types.Null}
			for _, ev := range evs {
				if ev.row == nil || ev.port != 0 {
					continue
				}
				l := ev.row.Values
				matched := false
				for _, rv := range evs {
					if rv.row == nil || rv.port != 1 || l[0].IsNull() || !types.Equal(rv.row.Values[0], l[0]) {
						continue
					}
					if seed%2 == 1 && l[2].Int() >= rv.row.Values[2].Int() {
						continue
					}
					matched = true
					want = append(want, types.Row{Values: append(slices.Clone(l), rv.row.Values...)})
				}
				if !matched && kind == jobgraph.LeftJoin {
					want = append(want, types.Row{Values: append(slices.Clone(l), nulls...)})
				}
			}
			sortRows(want)
			sortRows(rows)
			require.Equal(t, want, rows, "seed %d %s", seed, kind)
		}
	}
}

func sortRows(rows []types.Row) {
	slices.SortFunc(rows, types.CompareRows)
}

// TestLookupJoinNoRetraction: a right row removed after the lookup
// retracts nothing (Flink's lookup join), later left rows no longer see it.
func TestLookupJoinNoRetraction(t *testing.T) {
	spec := &jobgraph.TemporalJoin{Kind: jobgraph.InnerJoin, LeftKeys: []int{0}, RightKeys: []int{0}, RightTime: -1,
		Left: ijLeft, Right: ijRight, ProcTime: true}
	row := func(k string, n int64) *types.Row {
		return &types.Row{Kind: types.Insert, Values: []types.Value{types.NewString(k), types.NewTimestampMillis(0), types.NewInt(n)}}
	}
	del := row("a", 1)
	del.Kind = types.Delete
	evs := []opEvent{{port: 1, row: row("a", 1)}, {port: 0, row: row("a", 7)}, {port: 1, wm: MaxWatermark},
		{port: 1, row: del}, {port: 0, row: row("a", 8)}, {port: 0, wm: MaxWatermark}}
	build := func(oc OpContext) (Operator, error) { return newLookupJoinOp(spec, oc) }
	rows, _ := opCollect(t, build, evs)
	require.Len(t, rows, 1)
	require.Equal(t, types.Insert, rows[0].Kind)
	require.Equal(t, int64(7), rows[0].Values[2].Int())
}
