package runtime

import (
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// TestDeduplicate runs testdata/dedup:
//
//	dedup keys=0 time=N|proc keep=first|last [dropub] [maxkeys=N]
//	    then "col NAME TYPE" lines
func TestDeduplicate(t *testing.T) {
	runOpTest(t, "testdata/dedup", map[string]func(*testing.T, *datadriven.TestData, *opHarness){
		"dedup": func(t *testing.T, d *datadriven.TestData, h *opHarness) {
			h.ports = opCols(t, d.Input, func(l string) { t.Fatalf("unknown line %q", l) })
			spec := &jobgraph.Deduplicate{Keys: argInts(t, d, "keys"), TimeColumn: -1,
				KeepLast: argString(d, "keep", "first") == "last", DropUpdateBefore: d.HasArg("dropub")}
			if tc := argString(d, "time", "proc"); tc != "proc" {
				spec.TimeColumn = aggAtoi(t, tc)
			}
			h.build = func(oc OpContext) (Operator, error) { return newDedupOp(spec, h.ports[0], oc) }
		},
	})
}

var dedupSchema = types.NewSchema(types.Field{Name: "k", Type: types.String},
	types.Field{Name: "ts", Type: types.Timestamp(3)}, types.Field{Name: "v", Type: types.Int})

// dedupEvents returns n random rows over five keys with watermarks that
// follow the largest time seen, some rows late and some with a NULL time,
// then the final watermark; wmAt[i] is the watermark row i arrived at.
func dedupEvents(r *rand.Rand, n int) ([]opEvent, []int64) {
	var evs []opEvent
	var wmAt []int64
	wm, maxTs := MinWatermark, int64(0)
	for len(evs) < n {
		if r.IntN(5) == 0 && maxTs > 0 {
			if w := (maxTs - int64(r.IntN(10))) * 1e6; w > wm {
				wm = w
				evs = append(evs, opEvent{wm: w})
				wmAt = append(wmAt, 0)
			}
			continue
		}
		base := max(wm/1e6, 0)
		ts := types.NewTimestampMillis(base + int64(r.IntN(15)) - 3)
		if r.IntN(20) == 0 {
			ts = types.Null
		}
		maxTs = max(maxTs, ts.Millis())
		row := types.Row{Kind: types.Insert, Values: []types.Value{
			types.NewString(string(rune('a' + r.IntN(5)))), ts, types.NewInt(int64(r.IntN(100)))}}
		evs = append(evs, opEvent{row: &row})
		wmAt = append(wmAt, wm)
	}
	evs = append(evs, opEvent{wm: MaxWatermark})
	return evs, append(wmAt, 0)
}

// TestDeduplicateRandom: every variant restores to the uninterrupted run,
// and its materialized output equals the row a batch computation keeps
// per key.
func TestDeduplicateRandom(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 9))
		evs, wmAt := dedupEvents(r, 150)
		for _, v := range []struct {
			keepLast bool
			timeCol  int
		}{{false, -1}, {true, -1}, {false, 1}, {true, 1}} {
			spec := &jobgraph.Deduplicate{Keys: []int{0}, KeepLast: v.keepLast, TimeColumn: v.timeCol}
			build := func(oc OpContext) (Operator, error) { return newDedupOp(spec, dedupSchema, oc) }
			checkRestore(t, r, build, evs)
			rows, _ := opCollect(t, build, evs)
			want := map[string][]types.Value{}
			for i, ev := range evs {
				if ev.row == nil {
					continue
				}
				vals := ev.row.Values
				k := vals[0].Str()
				cur, seen := want[k]
				ts, hasTime := rowTime(vals, 1)
				switch {
				case spec.ProcTime() && !v.keepLast:
					if !seen {
						want[k] = vals
					}
				case spec.ProcTime():
					want[k] = vals
				case !hasTime:
				case !v.keepLast:
					if ts >= wmAt[i] && (!seen || ts < cur[1].Int()) {
						want[k] = vals
					}
				default:
					if !seen || ts >= cur[1].Int() {
						want[k] = vals
					}
				}
			}
			var wantRows []types.Row
			for _, vals := range want {
				wantRows = append(wantRows, types.Row{Values: vals})
			}
			require.Equal(t, materialize(t, wantRows), materialize(t, rows), "seed %d variant %+v", seed, v)
			if !v.keepLast {
				for _, row := range rows {
					require.Equal(t, types.Insert, row.Kind, "keep first is insert-only")
				}
			}
		}
	}
}
