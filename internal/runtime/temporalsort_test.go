package runtime

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// TestTemporalSort runs testdata/temporalsort:
//
//	sort time=N|proc [order=2:desc,...]
//	    then "col NAME TYPE" lines
func TestTemporalSort(t *testing.T) {
	runOpTest(t, "testdata/temporalsort", map[string]func(*testing.T, *datadriven.TestData, *opHarness){
		"sort": func(t *testing.T, d *datadriven.TestData, h *opHarness) {
			h.ports = opCols(t, d.Input, func(l string) { t.Fatalf("unknown line %q", l) })
			spec := &jobgraph.TemporalSort{TimeColumn: -1, OrderBy: parseSortKeys(t, d, "order")}
			if tc := argString(d, "time", "proc"); tc == "proc" {
				spec.ProcTime = true
			} else {
				spec.TimeColumn = aggAtoi(t, tc)
			}
			h.build = func(oc OpContext) (Operator, error) { return newTemporalSortOp(spec, h.ports[0], oc) }
		},
	})
}

// TestTemporalSortRandom: restoring gives the uninterrupted run, and the
// output is the input rows that are not late, stably sorted by (time,
// secondary key).
func TestTemporalSortRandom(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 8))
		evs, _ := dedupEvents(r, 200)
		spec := &jobgraph.TemporalSort{TimeColumn: 1, OrderBy: []jobgraph.SortKey{{Col: 2, Desc: seed%2 == 0}}}
		build := func(oc OpContext) (Operator, error) { return newTemporalSortOp(spec, dedupSchema, oc) }
		checkRestore(t, r, build, evs)
		rows, _ := opCollect(t, build, evs)
		var want [][]types.Value
		last, hasLast := int64(0), false
		// A row is late when its time is at or before the last time
		// emitted, which is the largest buffered time at or before the
		// watermark of its arrival.
		var buffered []int64
		for _, ev := range evs {
			if ev.row == nil {
				for _, bt := range buffered {
					if bt <= ev.wm && (!hasLast || bt > last) {
						last, hasLast = bt, true
					}
				}
				continue
			}
			ts, ok := rowTime(ev.row.Values, 1)
			if !ok || hasLast && ts <= last {
				continue
			}
			buffered = append(buffered, ts)
			want = append(want, ev.row.Values)
		}
		slices.SortStableFunc(want, func(a, b []types.Value) int {
			if c := types.Compare(a[1], b[1]); c != 0 {
				return c
			}
			return compareSortKeys(spec.OrderBy, a, b)
		})
		var got [][]types.Value
		for _, row := range rows {
			got = append(got, row.Values)
		}
		require.Equal(t, want, got, "seed %d", seed)
	}
}
