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

// TestTemporalJoin runs testdata/temporaljoin:
//
//	temporal kind=inner|left [residual=L,R]
//	    joins on column 0 of each side FOR SYSTEM_TIME AS OF the left
//	    column 1, the right side's version time being its column 1; then
//	    "left col ..." and "right col ..." lines
func TestTemporalJoin(t *testing.T) {
	runOpTest(t, "testdata/temporaljoin", map[string]func(*testing.T, *datadriven.TestData, *opHarness){
		"temporal": func(t *testing.T, d *datadriven.TestData, h *opHarness) {
			h.ports = opCols(t, d.Input, func(l string) { t.Fatalf("unknown line %q", l) })
			spec := &jobgraph.TemporalJoin{Kind: joinKinds[argString(d, "kind", "inner")],
				LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1, Left: h.ports[0], Right: h.ports[1]}
			if r := argInts(t, d, "residual"); len(r) == 2 {
				spec.Residual = residualLess(t, h.ports[0], h.ports[1], r[0], r[1])
			}
			h.build = func(oc OpContext) (Operator, error) { return newTemporalJoinOp(spec, oc) }
		},
	})
}

// TestTemporalJoinRandom: restoring gives the uninterrupted run, and, with
// no late rows, each left row joins the right version of its key with the
// largest time at or before its own (the last arrived among equal times),
// none when that version is a deletion.
func TestTemporalJoinRandom(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 7))
		evs := timeJoinEvents(r, 120, 1)
		for _, ev := range evs {
			if ev.row != nil && ev.port == 1 && r.IntN(4) == 0 {
				ev.row.Kind = types.Delete
			}
		}
		for _, kind := range []jobgraph.JoinKind{jobgraph.InnerJoin, jobgraph.LeftJoin} {
			spec := &jobgraph.TemporalJoin{Kind: kind, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1,
				Left: ijLeft, Right: ijRight}
			if seed%2 == 1 {
				spec.Residual = residualLess(t, ijLeft, ijRight, 2, 2)
			}
			build := func(oc OpContext) (Operator, error) { return newTemporalJoinOp(spec, oc) }
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
				var best *types.Row
				for _, rv := range evs {
					if rv.row == nil || rv.port != 1 || l[0].IsNull() || !types.Equal(rv.row.Values[0], l[0]) {
						continue
					}
					if rt := rv.row.Values[1].Int(); rt <= l[1].Int() && (best == nil || rt >= best.Values[1].Int()) {
						best = rv.row
					}
				}
				switch {
				case best != nil && best.Kind != types.Delete && (seed%2 == 0 || l[2].Int() < best.Values[2].Int()):
					want = append(want, types.Row{Values: append(slices.Clone(l), best.Values...)})
				case kind == jobgraph.LeftJoin:
					want = append(want, types.Row{Values: append(slices.Clone(l), nulls...)})
				}
			}
			require.Equal(t, materialize(t, want), materialize(t, rows), "seed %d %s", seed, kind)
		}
	}
}
