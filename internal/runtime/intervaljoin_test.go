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

// TestIntervalJoin runs testdata/intervaljoin:
//
//	interval kind=inner|left|right|full lower=MS upper=MS [proc] [residual=L,R]
//	    joins on column 0 of each side; the time is column 1 of each side;
//	    residual=a,b adds "left col a < right col b"; then "left col ..."
//	    and "right col ..." lines
func TestIntervalJoin(t *testing.T) {
	runOpTest(t, "testdata/intervaljoin", map[string]func(*testing.T, *datadriven.TestData, *opHarness){
		"interval": func(t *testing.T, d *datadriven.TestData, h *opHarness) {
			h.ports = opCols(t, d.Input, func(l string) { t.Fatalf("unknown line %q", l) })
			spec := &jobgraph.IntervalJoin{Kind: joinKinds[argString(d, "kind", "inner")],
				LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1, ProcTime: d.HasArg("proc"),
				LowerBound: parseMillis(t, argString(d, "lower", "0")), UpperBound: parseMillis(t, argString(d, "upper", "0")),
				Left: h.ports[0], Right: h.ports[1]}
			if r := argInts(t, d, "residual"); len(r) == 2 {
				spec.Residual = residualLess(t, h.ports[0], h.ports[1], r[0], r[1])
			}
			h.build = func(oc OpContext) (Operator, error) { return newIntervalJoinOp(spec, oc) }
		},
	})
}

var (
	ijLeft  = types.NewSchema(types.Field{Name: "k", Type: types.String}, types.Field{Name: "ts", Type: types.Timestamp(3)}, types.Field{Name: "a", Type: types.Int})
	ijRight = types.NewSchema(types.Field{Name: "k", Type: types.String}, types.Field{Name: "ts", Type: types.Timestamp(3)}, types.Field{Name: "b", Type: types.Int})
)

// timeJoinEvents returns n random rows on both ports over three keys (and
// NULL keys), each at least ahead ms after the watermark, with watermarks
// on both ports lagging the largest time; then the final watermarks.
func timeJoinEvents(r *rand.Rand, n int, ahead int64) []opEvent {
	var evs []opEvent
	wm, maxTs := int64(0), int64(0)
	for rows := 0; rows < n; {
		if r.IntN(6) == 0 && maxTs > wm {
			wm += 1 + int64(r.IntN(int(maxTs-wm)))
			evs = append(evs, opEvent{port: 0, wm: wm * 1e6}, opEvent{port: 1, wm: wm * 1e6})
			continue
		}
		k := types.NewString(string(rune('a' + r.IntN(3))))
		if r.IntN(15) == 0 {
			k = types.Null
		}
		ts := wm + ahead + int64(r.IntN(8))
		maxTs = max(maxTs, ts)
		row := types.Row{Kind: types.Insert, Values: []types.Value{k, types.NewTimestampMillis(ts), types.NewInt(int64(r.IntN(5)))}}
		evs = append(evs, opEvent{port: r.IntN(2), row: &row})
		rows++
	}
	return append(evs, opEvent{port: 0, wm: MaxWatermark}, opEvent{port: 1, wm: MaxWatermark})
}

// TestIntervalJoinRandom: every kind restores to the uninterrupted run,
// and, with no late rows, the output equals a nested-loop join over both
// inputs with the unmatched rows of outer sides padded.
func TestIntervalJoinRandom(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 6))
		for _, b := range [][2]int64{{-2, 1}, {0, 0}, {1, 3}, {-4, -1}} {
			evs := timeJoinEvents(r, 100, 5)
			for _, kind := range []jobgraph.JoinKind{jobgraph.InnerJoin, jobgraph.LeftJoin, jobgraph.RightJoin, jobgraph.FullJoin} {
				spec := &jobgraph.IntervalJoin{Kind: kind, LeftKeys: []int{0}, RightKeys: []int{0}, LeftTime: 1, RightTime: 1,
					LowerBound: b[0] * 1e6, UpperBound: b[1] * 1e6, Left: ijLeft, Right: ijRight}
				if seed%2 == 1 {
					spec.Residual = residualLess(t, ijLeft, ijRight, 2, 2)
				}
				build := func(oc OpContext) (Operator, error) { return newIntervalJoinOp(spec, oc) }
				checkRestore(t, r, build, evs)
				rows, _ := opCollect(t, build, evs)
				var sides [2][][]types.Value
				for _, ev := range evs {
					if ev.row != nil {
						sides[ev.port] = append(sides[ev.port], ev.row.Values)
					}
				}
				var want []types.Row
				matched := [2]map[int]bool{{}, {}}
				for i, l := range sides[0] {
					for j, rr := range sides[1] {
						if l[0].IsNull() || !types.Equal(l[0], rr[0]) {
							continue
						}
						if d := l[1].Int() - rr[1].Int(); d < spec.LowerBound || d > spec.UpperBound {
							continue
						}
						if seed%2 == 1 && l[2].Int() >= rr[2].Int() {
							continue
						}
						matched[0][i], matched[1][j] = true, true
						want = append(want, types.Row{Values: append(slices.Clone(l), rr...)})
					}
				}
				nulls := []types.Value{types.Null, types.Null, types.Null}
				for i, l := range sides[0] {
					if (kind == jobgraph.LeftJoin || kind == jobgraph.FullJoin) && !matched[0][i] {
						want = append(want, types.Row{Values: append(slices.Clone(l), nulls...)})
					}
				}
				for j, rr := range sides[1] {
					if (kind == jobgraph.RightJoin || kind == jobgraph.FullJoin) && !matched[1][j] {
						want = append(want, types.Row{Values: append(slices.Clone(nulls), rr...)})
					}
				}
				require.Equal(t, materialize(t, want), materialize(t, rows), "seed %d bounds %v %s", seed, b, kind)
			}
		}
	}
}
