package runtime

import (
	"fmt"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// countSpec is a call over ROW<k BIGINT, ts TIMESTAMP(3)> partitioned by
// k, on_time ts, whose function counts rows per key in value state, emits
// (k, count) and sets a timer 10 s after each row; the timer emits
// (k, -count).
func countSpec() *jobgraph.PTF {
	schema := types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "ts", Type: types.Timestamp(3)})
	count := ptf.NewValue[int64]("count")
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<n BIGINT>",
		State:  []ptf.StateEntry{count},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			c := count.Get(ctx)
			*c++
			ctx.Collect(types.NewInt(*c))
			at, _ := ctx.Time()
			return ctx.RegisterOnTime("t", at.Add(10*time.Second))
		},
		OnTimer: func(ctx *ptf.Context) error {
			ctx.Collect(types.NewInt(-*count.Get(ctx)))
			return nil
		},
	}
	out := types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "n", Type: types.BigInt})
	return &jobgraph.PTF{
		Name: "count", UID: "count", Def: def, Produced: ptf.InsertOnly(),
		Tables:  []jobgraph.PTFTable{{Arg: "input", SetSemantic: true, Keys: []int{0}, TimeColumn: 1, Schema: schema, Delivered: ptf.InsertOnly()}},
		FuncOut: types.NewSchema(types.Field{Name: "n", Type: types.BigInt}),
		Out:     out,
	}
}

// TestCacheEviction: with a bound of 8 cached keys, 100 keys go through
// the operator over several checkpoints; every checkpoint evicts down to
// at most 4 keys, and the results (counts from value state, timers firing
// for evicted keys) are those of an unbounded cache.
func TestCacheEviction(t *testing.T) {
	run := func(maxKeys int) ([]string, int) {
		be := state.NewMemory()
		clock := &ManualClock{T: time.Unix(0, 0)}
		var out []string
		op, err := newPTFOp(countSpec(), "ns", be, clock, func(r types.Row) error {
			out = append(out, fmt.Sprint(r.Values[0].Int(), ":", r.Values[1].Int()))
			return nil
		}, withMaxKeys(maxKeys))
		require.NoError(t, err)
		most := 0
		for round := range int64(3) {
			for k := range int64(100) {
				ts := (round*100 + k) * int64(time.Second)
				row := types.Row{Values: []types.Value{types.NewInt(k), types.NewTimestamp(ts)}}
				require.NoError(t, op.processRow(0, &row))
				most = max(most, op.nkeys)
				if k%25 == 24 {
					require.NoError(t, op.flush()) // a checkpoint
					if maxKeys > 0 {
						require.LessOrEqual(t, op.nkeys, maxKeys/2, "after a checkpoint")
					}
				}
			}
			// Fire the timers of the round (some keys were evicted).
			require.NoError(t, op.advance(0, (round*100+100)*int64(time.Second)))
			require.NoError(t, op.flush())
		}
		require.NoError(t, op.advance(0, MaxWatermark)) // the last timers
		return out, most
	}
	want, _ := run(0)
	got, most := run(8)
	require.Equal(t, want, got)
	// 300 rows and 282 timers: the named timer of keys 91..99 set in rounds
	// 0 and 1 (due after the round's watermark) is replaced by the next
	// round's before it fires.
	require.Len(t, got, 582)
	require.Contains(t, got, "99:3")
	require.Contains(t, got, "99:-3")
	require.LessOrEqual(t, most, 8+25, "the cache holds at most the bound plus one checkpoint's keys")
}

// TestNormalizerEviction: a normalizer bounded to 8 keys gives the same
// retract changelog as an unbounded one over 50 keys and 4 checkpoints.
func TestNormalizerEviction(t *testing.T) {
	run := func(maxKeys int) []string {
		n, err := newNormalizer("norm", []int{0}, state.NewMemory(), maxKeys, nil, 0)
		require.NoError(t, err)
		var out []string
		for round := range 4 {
			for k := range int64(50) {
				kind := types.UpdateAfter
				if (k+int64(round))%7 == 0 {
					kind = types.Delete
				}
				rows, err := n.process(types.Row{Kind: kind, Values: []types.Value{types.NewInt(k), types.NewInt(int64(round) * k % 3)}}, nil)
				require.NoError(t, err)
				for _, r := range rows {
					out = append(out, r.Kind.String()+fmt.Sprint(r.Values[0].Int(), ",", r.Values[1].Int()))
				}
			}
			require.NoError(t, n.flush())
			if maxKeys > 0 {
				require.LessOrEqual(t, len(n.cache), maxKeys/2)
			}
		}
		return out
	}
	want := run(0)
	require.Equal(t, want, run(8))
	kinds := map[string]int{}
	for _, r := range want {
		kinds[r[:2]]++
	}
	require.Positive(t, kinds["-U"], "updates of evicted keys find their last row")
	require.Positive(t, kinds["-D"], "deletes of evicted keys find their last row")
}
