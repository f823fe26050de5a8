package runtime

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// TestSortedOver runs testdata/sortedover:
//
//	sortedover [part=0] order=1[:desc],... frame=rows:N|rows:unbounded|range:unbounded
//	    then "col NAME TYPE" and "call FUNC [ARG,ARG] ... : TYPE" lines
func TestSortedOver(t *testing.T) {
	runOpTest(t, "testdata/sortedover", map[string]func(*testing.T, *datadriven.TestData, *opHarness){
		"sortedover": func(t *testing.T, d *datadriven.TestData, h *opHarness) {
			spec := &jobgraph.SortedOver{PartitionKeys: argInts(t, d, "part"), OrderBy: parseSortKeys(t, d, "order"),
				Frame: parseOverFrame(t, argString(d, "frame", "range:unbounded"))}
			h.ports = opCols(t, d.Input, func(l string) {
				verb, rest, _ := strings.Cut(l, " ")
				if verb != "call" {
					t.Fatalf("unknown line %q", l)
				}
				spec.Calls = append(spec.Calls, parseAggCall(t, rest))
			})
			h.build = func(oc OpContext) (Operator, error) { return newSortedOverOp(spec, h.ports[0], oc) }
		},
	})
}

// sortedOverBatch computes the final result from the rows left at the
// end: per partition (column 0) the rows in total order, each with the
// calls over its frame.
func sortedOverBatch(spec *jobgraph.SortedOver, evs []opEvent) []types.Row {
	parts := map[string][][]types.Value{}
	for _, ev := range evs {
		if ev.row == nil {
			continue
		}
		k := ev.row.Values[0].String()
		if !ev.row.Kind.IsRetraction() {
			parts[k] = append(parts[k], ev.row.Values)
			continue
		}
		if i := slices.IndexFunc(parts[k], func(r []types.Value) bool { return slices.EqualFunc(r, ev.row.Values, types.Equal) }); i >= 0 {
			parts[k] = slices.Delete(parts[k], i, i+1)
		}
	}
	order := slices.Clone(spec.OrderBy)
	for i := range allAggSchema.Len() {
		order = append(order, jobgraph.SortKey{Col: i, NullsFirst: true})
	}
	var out []types.Row
	for _, rows := range parts {
		slices.SortFunc(rows, func(a, b []types.Value) int { return compareSortKeys(order, a, b) })
		for i, row := range rows {
			var frame [][]types.Value
			f := spec.Frame
			for j, o := range rows {
				var in bool
				switch {
				case f.Rows && f.Unbounded:
					in = j <= i
				case f.Rows:
					in = j <= i && int64(i-j) <= f.Preceding
				default: // RANGE UNBOUNDED: up to the last peer
					in = compareSortKeys(spec.OrderBy, o, row) <= 0
				}
				if in {
					frame = append(frame, o)
				}
			}
			vals := slices.Clone(row)
			for _, c := range spec.Calls {
				vals = append(vals, aggBatch(c, frame))
			}
			out = append(out, types.Row{Values: vals})
		}
	}
	return out
}

// TestSortedOverRandom: over a random changelog (retractions, retractions
// of absent rows, NULLs and duplicates), for every frame and order,
// restoring at random points gives the uninterrupted run, and the
// changelog it emits materializes to a batch computation over the rows
// left, for every aggregate function.
func TestSortedOverRandom(t *testing.T) {
	for seed := range uint64(12) {
		r := rand.New(rand.NewPCG(seed, 35))
		var evs []opEvent
		for _, row := range aggRandomChangelog(r, 150) {
			evs = append(evs, opEvent{row: &row})
		}
		evs = append(evs, opEvent{wm: MaxWatermark})
		for _, f := range []jobgraph.OverFrame{{Rows: true, Unbounded: true}, {Rows: true, Preceding: 2}, {Rows: true}, {Unbounded: true}} {
			for _, order := range [][]jobgraph.SortKey{{{Col: 1, NullsFirst: true}}, {{Col: 3, Desc: true}, {Col: 2, NullsFirst: true}}} {
				spec := &jobgraph.SortedOver{PartitionKeys: []int{0}, OrderBy: order, Frame: f, Calls: allAggCalls()}
				build := func(oc OpContext) (Operator, error) { return newSortedOverOp(spec, allAggSchema, oc) }
				checkRestore(t, r, build, evs)
				rows, _ := opCollect(t, build, evs)
				require.Equal(t, materialize(t, sortedOverBatch(spec, evs)), materialize(t, rows), "seed %d frame %+v order %+v", seed, f, order)
			}
		}
	}
}
