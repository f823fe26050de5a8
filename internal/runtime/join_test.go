package runtime

import (
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/types"
)

// The join tests use left (k BIGINT, a STRING) and right (k BIGINT, b
// STRING) joined on k; the residual, when asked for, is a < b.

var (
	joinLeft  = types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "a", Type: types.String})
	joinRight = types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "b", Type: types.String})
)

var joinKinds = map[string]jobgraph.JoinKind{
	"inner": jobgraph.InnerJoin, "left": jobgraph.LeftJoin, "right": jobgraph.RightJoin,
	"full": jobgraph.FullJoin, "semi": jobgraph.SemiJoin, "anti": jobgraph.AntiJoin,
}

func joinSpec(t testing.TB, kind jobgraph.JoinKind, residual, nullSafe bool) *jobgraph.Join {
	spec := &jobgraph.Join{
		Kind: kind, LeftKeys: []int{0}, RightKeys: []int{0},
		Left: joinLeft, Right: joinRight,
	}
	if nullSafe {
		spec.NullSafe = []bool{true}
	}
	if residual {
		a, err := expr.Col(1, "a", types.String)
		require.NoError(t, err)
		b, err := expr.Col(3, "b", types.String)
		require.NoError(t, err)
		spec.Residual, err = expr.Binary("<", a, b)
		require.NoError(t, err)
	}
	return spec
}

func parseJoinValue(s string) types.Value {
	if s == "NULL" {
		return types.Null
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return types.NewInt(n)
	}
	return types.NewString(s)
}

var joinRowKinds = map[string]types.RowKind{"+I": types.Insert, "-U": types.UpdateBefore, "+U": types.UpdateAfter, "-D": types.Delete}

// TestJoin runs testdata/join:
//
//	join kind=inner|left|right|full|semi|anti [residual] [null-safe] [max-keys=N]
//	    builds the operator over a fresh KV
//	feed
//	L|R +I|-U|+U|-D v1 v2
//	    feeds rows and prints what the operator emits
//	restore
//	    flushes, and builds a new operator over the same KV
//	watermark port=0|1 wm=N
//	    prints the forwarded watermarks
func TestJoin(t *testing.T) {
	datadriven.RunTest(t, "testdata/join", func(t *testing.T, d *datadriven.TestData) string {
		return joinCmd(t, d)
	})
}

type joinHarness struct {
	spec    *jobgraph.Join
	kv      *state.Memory
	maxKeys int
	op      *joinOp
	out     *collectOut
}

var curJoin *joinHarness

func (h *joinHarness) build(t testing.TB) {
	h.out = &collectOut{}
	op, err := newJoinOp(h.spec, OpContext{NS: "job/join-1", KV: h.kv, MaxKeys: h.maxKeys, Out: h.out})
	require.NoError(t, err)
	h.op = op
}

func joinCmd(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "join":
		var kind string
		d.ScanArgs(t, "kind", &kind)
		k, ok := joinKinds[kind]
		if !ok {
			d.Fatalf(t, "unknown kind %q", kind)
		}
		h := &joinHarness{spec: joinSpec(t, k, d.HasArg("residual"), d.HasArg("null-safe")), kv: state.NewMemory()}
		if d.HasArg("max-keys") {
			d.ScanArgs(t, "max-keys", &h.maxKeys)
		}
		h.build(t)
		curJoin = h
		return ""
	case "feed":
		h := curJoin
		var b strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			f := strings.Fields(line)
			if len(f) != 4 {
				d.Fatalf(t, "bad row %q", line)
			}
			port := map[string]int{"L": 0, "R": 1}[f[0]]
			kind, ok := joinRowKinds[f[1]]
			if !ok {
				d.Fatalf(t, "bad kind in %q", line)
			}
			row := types.Row{Kind: kind, Values: []types.Value{parseJoinValue(f[2]), parseJoinValue(f[3])}}
			require.NoError(t, h.op.Process(port, row))
			if out := h.out.take(); out != "" {
				fmt.Fprintf(&b, "%s:\n%s", line, indent(out))
			}
			if h.maxKeys > 0 {
				require.NoError(t, h.op.Flush())
			}
		}
		return b.String()
	case "restore":
		require.NoError(t, curJoin.op.Flush())
		curJoin.build(t)
		return ""
	case "watermark":
		var port int
		var wm int64
		d.ScanArgs(t, "port", &port)
		d.ScanArgs(t, "wm", &wm)
		require.NoError(t, curJoin.op.Watermark(port, wm))
		out := fmt.Sprint(curJoin.out.wms)
		curJoin.out.wms = nil
		return out
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "")
}

// joinEvent is one input row of a generated run.
type joinEvent struct {
	port int
	row  types.Row
}

// genJoinEvents returns n events over a few keys (some NULL) where
// retractions only remove rows fed before, and updates come as -U/+U.
func genJoinEvents(r *rand.Rand, n int) []joinEvent {
	var live [2][][]types.Value
	var evs []joinEvent
	val := func() []types.Value {
		k := types.NewInt(int64(r.IntN(4)))
		if r.IntN(10) == 0 {
			k = types.Null
		}
		return []types.Value{k, types.NewString(string(rune('a' + r.IntN(4))))}
	}
	for len(evs) < n {
		p := r.IntN(2)
		switch {
		case len(live[p]) > 0 && r.IntN(3) == 0: // delete
			i := r.IntN(len(live[p]))
			evs = append(evs, joinEvent{p, types.Row{Kind: types.Delete, Values: live[p][i]}})
			live[p] = slices.Delete(live[p], i, i+1)
		case len(live[p]) > 0 && r.IntN(3) == 0: // update
			i := r.IntN(len(live[p]))
			nv := val()
			evs = append(evs, joinEvent{p, types.Row{Kind: types.UpdateBefore, Values: live[p][i]}},
				joinEvent{p, types.Row{Kind: types.UpdateAfter, Values: nv}})
			live[p][i] = nv
		default:
			v := val()
			evs = append(evs, joinEvent{p, types.Row{Kind: types.Insert, Values: v}})
			live[p] = append(live[p], v)
		}
	}
	return evs
}

// runJoin feeds evs to a join and returns its output; it flushes every
// flushEvery events (0: never) and, when restore, builds a new operator
// over the KV after each flush.
func runJoin(t testing.TB, spec *jobgraph.Join, evs []joinEvent, maxKeys, flushEvery int, restore bool) []types.Row {
	h := &joinHarness{spec: spec, kv: state.NewMemory(), maxKeys: maxKeys}
	h.build(t)
	var rows []types.Row
	for i, ev := range evs {
		require.NoError(t, h.op.Process(ev.port, ev.row))
		if flushEvery > 0 && (i+1)%flushEvery == 0 {
			require.NoError(t, h.op.Flush())
			if restore {
				rows = append(rows, h.out.rows...)
				h.build(t)
			}
		}
	}
	return append(rows, h.out.rows...)
}

// materialize applies a changelog and returns the remaining rows, sorted.
func materialize(t testing.TB, rows []types.Row) []string {
	m := map[string]int{}
	for _, r := range rows {
		s := fmt.Sprint(r.Values)
		if r.Kind.IsRetraction() {
			m[s]--
			require.GreaterOrEqual(t, m[s], 0, "retraction of an absent row %s", s)
		} else {
			m[s]++
		}
	}
	var out []string
	for s, n := range m {
		for range n {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

// batchJoin joins the final contents of both sides with nested loops.
func batchJoin(t testing.TB, spec *jobgraph.Join, evs []joinEvent) []string {
	var sides [2][][]types.Value
	for _, ev := range evs {
		if ev.row.Kind.IsRetraction() {
			i := slices.IndexFunc(sides[ev.port], func(v []types.Value) bool { return equalValues(v, ev.row.Values) })
			sides[ev.port] = slices.Delete(sides[ev.port], i, i+1)
		} else {
			sides[ev.port] = append(sides[ev.port], ev.row.Values)
		}
	}
	match := func(l, r []types.Value) bool {
		lk, rk := l[0], r[0]
		if lk.IsNull() || rk.IsNull() {
			if len(spec.NullSafe) == 0 || !lk.IsNull() || !rk.IsNull() {
				return false
			}
		} else if !types.Equal(lk, rk) {
			return false
		}
		if spec.Residual == nil {
			return true
		}
		v, err := spec.Residual.Eval(append(slices.Clone(l), r...))
		require.NoError(t, err)
		return !v.IsNull() && v.Bool()
	}
	nulls := []types.Value{types.Null, types.Null}
	var out []string
	rightMatched := make([]bool, len(sides[1]))
	for _, l := range sides[0] {
		n := 0
		for i, r := range sides[1] {
			if match(l, r) {
				n++
				rightMatched[i] = true
				if spec.Kind != jobgraph.SemiJoin && spec.Kind != jobgraph.AntiJoin {
					out = append(out, fmt.Sprint(append(slices.Clone(l), r...)))
				}
			}
		}
		switch {
		case spec.Kind == jobgraph.SemiJoin && n > 0, spec.Kind == jobgraph.AntiJoin && n == 0:
			out = append(out, fmt.Sprint(l))
		case n == 0 && (spec.Kind == jobgraph.LeftJoin || spec.Kind == jobgraph.FullJoin):
			out = append(out, fmt.Sprint(append(slices.Clone(l), nulls...)))
		}
	}
	if spec.Kind == jobgraph.RightJoin || spec.Kind == jobgraph.FullJoin {
		for i, r := range sides[1] {
			if !rightMatched[i] {
				out = append(out, fmt.Sprint(append(slices.Clone(nulls), r...)))
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestJoinRandom checks, for every kind, that the materialized output of
// generated updating inputs equals a batch join of their final contents,
// and that flush + restore and eviction with MaxKeys=2 change nothing in
// the output.
func TestJoinRandom(t *testing.T) {
	for name, kind := range joinKinds {
		for _, residual := range []bool{false, true} {
			for _, nullSafe := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/residual=%v/nullsafe=%v", name, residual, nullSafe), func(t *testing.T) {
					spec := joinSpec(t, kind, residual, nullSafe)
					for seed := range uint64(20) {
						evs := genJoinEvents(rand.New(rand.NewPCG(seed, 7)), 60)
						want := runJoin(t, spec, evs, 0, 0, false)
						require.Equal(t, batchJoin(t, spec, evs), materialize(t, want), "seed %d", seed)
						// Restore after half the rows.
						half := runJoin(t, spec, evs, 0, len(evs)/2, true)
						require.Equal(t, want, half, "restore, seed %d", seed)
						// Restore after every row, and evict with MaxKeys=2.
						require.Equal(t, want, runJoin(t, spec, evs, 0, 1, true), "restore each row, seed %d", seed)
						require.Equal(t, want, runJoin(t, spec, evs, 2, 1, false), "max keys 2, seed %d", seed)
					}
				})
			}
		}
	}
}

func TestJoinRestoreStateRoundTrip(t *testing.T) {
	rows := []joinRow{
		{vals: []types.Value{types.NewInt(1), types.NewString("x")}, count: 2, assoc: 3},
		{vals: []types.Value{types.Null, types.NewString("")}, count: 1},
	}
	var scratch []byte
	b := appendJoinRows(nil, rows, &scratch)
	got, err := decodeJoinRows(b)
	require.NoError(t, err)
	require.Equal(t, len(rows), len(got))
	for i := range rows {
		require.True(t, equalValues(rows[i].vals, got[i].vals))
		require.Equal(t, rows[i].count, got[i].count)
		require.Equal(t, rows[i].assoc, got[i].assoc)
	}
	_, err = decodeJoinRows(b[:len(b)-1])
	require.Error(t, err)
}

// discardOut counts emitted rows.
type discardOut struct{ n int }

func (d *discardOut) Emit(types.Row) error  { d.n++; return nil }
func (d *discardOut) Watermark(int64) error { return nil }

const joinBenchRows = 1_000_000

// joinBenchInput returns the rows of both sides: key i once on each side,
// interleaved left, right.
func joinBenchInput() [2][]types.Row {
	var in [2][]types.Row
	for s := range in {
		in[s] = make([]types.Row, joinBenchRows)
		for i := range in[s] {
			in[s][i] = types.Row{Kind: types.Insert, Values: []types.Value{types.NewInt(int64(i)), types.NewString("v")}}
		}
	}
	return in
}

// BenchmarkJoin joins two 1M-row append streams where each key appears
// once per side; Go map is a hand-written map join for comparison.
func BenchmarkJoin(b *testing.B) {
	in := joinBenchInput()
	report := func(b *testing.B, mallocs uint64) {
		events := float64(b.N) * 2 * joinBenchRows
		b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
		b.ReportMetric(float64(mallocs)/events, "allocs/event")
	}
	b.Run("operator", func(b *testing.B) {
		spec := joinSpec(b, jobgraph.InnerJoin, false, false)
		b.ReportAllocs()
		var ms memStats
		for range b.N {
			b.StopTimer()
			out := &discardOut{}
			op, err := newJoinOp(spec, OpContext{NS: "bench/join", KV: state.NewMemory(), Out: out})
			require.NoError(b, err)
			ms.start()
			b.StartTimer()
			for i := range joinBenchRows {
				if err := op.Process(0, in[0][i]); err != nil {
					b.Fatal(err)
				}
				if err := op.Process(1, in[1][i]); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			ms.stop()
			require.Equal(b, joinBenchRows, out.n)
			b.StartTimer()
		}
		report(b, ms.mallocs)
	})
	b.Run("go-map", func(b *testing.B) {
		b.ReportAllocs()
		var ms memStats
		for range b.N {
			ms.start()
			var sides [2]map[int64][][]types.Value
			sides[0], sides[1] = map[int64][][]types.Value{}, map[int64][][]types.Value{}
			n := 0
			for i := range joinBenchRows {
				for s := range 2 {
					row := in[s][i]
					k := row.Values[0].Int()
					sides[s][k] = append(sides[s][k], row.Values)
					for _, o := range sides[1-s][k] {
						vals := make([]types.Value, 0, 4)
						if s == 0 {
							vals = append(append(vals, row.Values...), o...)
						} else {
							vals = append(append(vals, o...), row.Values...)
						}
						_ = vals
						n++
					}
				}
			}
			ms.stop()
			require.Equal(b, joinBenchRows, n)
		}
		report(b, ms.mallocs)
	})
}

// memStats sums the mallocs between start and stop calls.
type memStats struct {
	at      uint64
	mallocs uint64
}

func (m *memStats) start() {
	var s goruntime.MemStats
	goruntime.ReadMemStats(&s)
	m.at = s.Mallocs
}

func (m *memStats) stop() {
	var s goruntime.MemStats
	goruntime.ReadMemStats(&s)
	m.mallocs += s.Mallocs - m.at
}
