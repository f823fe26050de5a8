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

// parseOverFrame parses rows:N, rows:unbounded, range:MS, range:unbounded.
func parseOverFrame(t testing.TB, s string) jobgraph.OverFrame {
	unit, bound, _ := strings.Cut(s, ":")
	f := jobgraph.OverFrame{Rows: unit == "rows", Unbounded: bound == "unbounded"}
	if !f.Unbounded {
		f.Preceding = int64(aggAtoi(t, bound))
		if !f.Rows {
			f.Preceding *= 1e6
		}
	}
	return f
}

// TestOverAggregate runs testdata/over:
//
//	over [part=0] order=N [proc] frame=rows:N|rows:unbounded|range:MS|range:unbounded
//	    then "col NAME TYPE" and "call FUNC [ARG,ARG] [distinct] [filter=COL] : TYPE" lines
func TestOverAggregate(t *testing.T) {
	runOpTest(t, "testdata/over", map[string]func(*testing.T, *datadriven.TestData, *opHarness){
		"over": func(t *testing.T, d *datadriven.TestData, h *opHarness) {
			spec := &jobgraph.OverAggregate{PartitionKeys: argInts(t, d, "part"), ProcTime: d.HasArg("proc"),
				Frame: parseOverFrame(t, argString(d, "frame", "range:unbounded"))}
			d.ScanArgs(t, "order", &spec.OrderBy)
			h.ports = opCols(t, d.Input, func(l string) {
				verb, rest, _ := strings.Cut(l, " ")
				if verb != "call" {
					t.Fatalf("unknown line %q", l)
				}
				spec.Calls = append(spec.Calls, parseAggCall(t, rest))
			})
			h.build = func(oc OpContext) (Operator, error) { return newOverOp(spec, h.ports[0], oc) }
		},
	})
}

// overSchema is allAggSchema with a rowtime column ts (position 6).
var overSchema = types.NewSchema(append(slices.Clone(allAggSchema.Fields), types.Field{Name: "ts", Type: types.Timestamp(3)})...)

// overEvents returns n random rows over allAggSchema's keys, with a time
// after the watermark (never late), and watermarks that lag the largest
// time; then the final watermark.
func overEvents(r *rand.Rand, n int) []opEvent {
	var evs []opEvent
	wm, maxTs := int64(0), int64(0)
	for rows := 0; rows < n; {
		if r.IntN(6) == 0 && maxTs > wm {
			wm += 1 + int64(r.IntN(int(maxTs-wm)))
			evs = append(evs, opEvent{wm: wm * 1e6})
			continue
		}
		vals := slices.Clone(aggRandomChangelog(r, 1)[0].Values)
		ts := wm + 1 + int64(r.IntN(6))
		maxTs = max(maxTs, ts)
		row := types.Row{Kind: types.Insert, Values: append(vals, types.NewTimestampMillis(ts))}
		evs = append(evs, opEvent{row: &row})
		rows++
	}
	return append(evs, opEvent{wm: MaxWatermark})
}

// overBatch computes each row's calls over its frame from the whole
// partition in (time, arrival) order.
func overBatch(spec *jobgraph.OverAggregate, evs []opEvent) []types.Row {
	parts := map[string][][]types.Value{}
	for _, ev := range evs {
		if ev.row != nil {
			k := ev.row.Values[0].Str()
			parts[k] = append(parts[k], ev.row.Values)
		}
	}
	var out []types.Row
	for _, rows := range parts {
		slices.SortStableFunc(rows, func(a, b []types.Value) int { return types.Compare(a[6], b[6]) })
		for i, row := range rows {
			var frame [][]types.Value
			f := spec.Frame
			for j, o := range rows {
				t, ot := row[6].Int(), o[6].Int()
				var in bool
				switch {
				case f.Rows && f.Unbounded:
					in = j <= i
				case f.Rows:
					in = j <= i && int64(i-j) <= f.Preceding
				case f.Unbounded:
					in = ot <= t
				default:
					in = ot <= t && ot >= t-f.Preceding
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

// TestOverRandom: for every frame, restoring gives the uninterrupted run,
// and every row's results equal a batch computation over its frame, for
// every aggregate function.
func TestOverRandom(t *testing.T) {
	for seed := range uint64(15) {
		r := rand.New(rand.NewPCG(seed, 5))
		evs := overEvents(r, 120)
		for _, f := range []jobgraph.OverFrame{{Rows: true, Unbounded: true}, {Rows: true, Preceding: 2}, {Rows: true},
			{Unbounded: true}, {Preceding: 3e6}, {Preceding: 0}} {
			spec := &jobgraph.OverAggregate{PartitionKeys: []int{0}, OrderBy: 6, Frame: f, Calls: allAggCalls()}
			build := func(oc OpContext) (Operator, error) { return newOverOp(spec, overSchema, oc) }
			checkRestore(t, r, build, evs)
			rows, late := opCollect(t, build, evs)
			require.Zero(t, late)
			require.Equal(t, materialize(t, overBatch(spec, evs)), materialize(t, rows), "seed %d frame %+v", seed, f)
		}
	}
}
