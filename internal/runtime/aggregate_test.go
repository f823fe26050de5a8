package runtime

import (
	"fmt"
	"math/rand/v2"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/cockroachdb/datadriven"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// aggHarness runs an aggregate operator for the datadriven tests.
type aggHarness struct {
	spec   *jobgraph.Aggregate
	schema *types.Schema
	kv     *state.Memory
	clock  *ManualClock
	out    *collectOut
	op     *aggregateOp
	max    int
}

func (h *aggHarness) build() error {
	op, err := newAggregateOp(h.spec, h.schema, OpContext{NS: "agg", KV: h.kv, Clock: h.clock, MaxKeys: h.max, Out: h.out})
	h.op = op
	return err
}

// take renders the emitted rows one per line as "+I[a, 1, NULL]", with
// the output column types, and clears them.
func (h *aggHarness) take() string {
	var ts []types.Type
	for _, k := range h.spec.Keys {
		ts = append(ts, h.schema.Fields[k].Type)
	}
	for _, c := range h.spec.Calls {
		ts = append(ts, c.Type)
	}
	var b strings.Builder
	for _, r := range h.out.rows {
		b.WriteString(r.Kind.String() + "[")
		for i, v := range r.Values {
			if i > 0 {
				b.WriteString(", ")
			}
			if v.IsNull() {
				b.WriteString("NULL")
				continue
			}
			b.WriteString(types.Format(v, ts[i]))
		}
		b.WriteString("]\n")
	}
	h.out.rows = h.out.rows[:0]
	return b.String()
}

// TestAggregateDataDriven runs testdata/aggregate. Commands:
//
//	new keys=0,1 [maxkeys=N] [ttl=DURATION]   then lines "col NAME TYPE" and
//	    "call FUNC [ARG,ARG] [distinct] [keepnulls] [filter=COL] : TYPE"
//	feed            lines "+I v1 v2 ..." (NULL for null); prints the output
//	watermark ts=N  prints the forwarded watermarks
//	flush           flushes the state
//	restore         flushes, then builds a new operator over the same KV
//	advance d=DURATION  moves the processing-time clock
func TestAggregateDataDriven(t *testing.T) {
	var h *aggHarness
	datadriven.RunTest(t, "testdata/aggregate", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "new":
			h = &aggHarness{spec: &jobgraph.Aggregate{}, schema: &types.Schema{}, kv: state.NewMemory(),
				clock: &ManualClock{T: time.Unix(0, 0)}, out: &collectOut{}}
			for _, a := range d.CmdArgs {
				switch a.Key {
				case "keys":
					for _, v := range a.Vals {
						h.spec.Keys = append(h.spec.Keys, aggAtoi(t, v))
					}
				case "maxkeys":
					h.max = aggAtoi(t, a.Vals[0])
				case "dropub":
					h.spec.DropUpdateBefore = true
				case "ttl":
					dur, err := time.ParseDuration(a.Vals[0])
					require.NoError(t, err)
					h.spec.StateTTL = int64(dur)
				}
			}
			for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
				verb, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
				switch verb {
				case "col":
					name, typ, _ := strings.Cut(rest, " ")
					h.schema.Fields = append(h.schema.Fields, types.Field{Name: name, Type: types.MustParseType(typ)})
				case "call":
					h.spec.Calls = append(h.spec.Calls, parseAggCall(t, rest))
				default:
					t.Fatalf("unknown line %q", line)
				}
			}
			if err := h.build(); err != nil {
				return "error: " + err.Error()
			}
			return "ok"
		case "feed":
			for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
				row := parseAggRow(t, h.schema, line)
				if err := h.op.Process(0, row); err != nil {
					return "error: " + err.Error()
				}
				if h.max > 0 { // flush after every row so that eviction happens
					require.NoError(t, h.op.Flush())
				}
			}
			return h.take()
		case "watermark":
			var ts int64
			d.ScanArgs(t, "ts", &ts)
			require.NoError(t, h.op.Watermark(0, ts))
			s := fmt.Sprint(h.out.wms)
			h.out.wms = nil
			return s
		case "flush":
			require.NoError(t, h.op.Flush())
			return "ok"
		case "restore":
			require.NoError(t, h.op.Flush())
			require.NoError(t, h.build())
			return "ok"
		case "advance":
			var s string
			d.ScanArgs(t, "d", &s)
			dur, err := time.ParseDuration(s)
			require.NoError(t, err)
			h.clock.Advance(dur)
			return "ok"
		}
		t.Fatalf("unknown command %q", d.Cmd)
		return ""
	})
}

func aggAtoi(t testing.TB, s string) int {
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

// parseAggCall parses "FUNC [ARG,ARG] [distinct] [keepnulls] [filter=COL] : TYPE".
func parseAggCall(t testing.TB, s string) jobgraph.AggCall {
	left, typ, ok := strings.Cut(s, " : ")
	require.True(t, ok, "call %q has no type", s)
	f := strings.Fields(left)
	c := jobgraph.AggCall{Func: jobgraph.AggFunc(f[0]), Filter: -1, Type: types.MustParseType(typ)}
	for _, w := range f[1:] {
		switch {
		case w == "distinct":
			c.Distinct = true
		case w == "keepnulls":
			c.KeepNulls = true
		case strings.HasPrefix(w, "filter="):
			c.Filter = aggAtoi(t, strings.TrimPrefix(w, "filter="))
		default:
			for _, a := range strings.Split(w, ",") {
				c.Args = append(c.Args, aggAtoi(t, a))
			}
		}
	}
	return c
}

// parseAggRow parses "+I v1 v2 ..." by the schema's column types.
func parseAggRow(t testing.TB, schema *types.Schema, line string) types.Row {
	f := strings.Fields(line)
	kinds := map[string]types.RowKind{"+I": types.Insert, "-U": types.UpdateBefore, "+U": types.UpdateAfter, "-D": types.Delete}
	kind, ok := kinds[f[0]]
	require.True(t, ok, "row kind of %q", line)
	require.Len(t, f[1:], schema.Len(), "values of %q", line)
	row := types.Row{Kind: kind}
	for i, s := range f[1:] {
		row.Values = append(row.Values, parseAggValue(t, s, schema.Fields[i].Type))
	}
	return row
}

func parseAggValue(t testing.TB, s string, typ types.Type) types.Value {
	if s == "NULL" {
		return types.Null
	}
	switch {
	case typ.IsInteger():
		return types.NewInt(int64(aggAtoi(t, s)))
	case typ.ID == types.TypeFloat || typ.ID == types.TypeDouble:
		f, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err)
		return types.NewFloat(f)
	case typ.ID == types.TypeDecimal:
		d, err := types.ParseDecimal(s)
		require.NoError(t, err)
		d, err = types.RoundDecimal(d, typ.Precision, typ.Scale)
		require.NoError(t, err)
		return types.NewDecimal(d)
	case typ.ID == types.TypeBoolean:
		return types.NewBool(s == "true")
	}
	return types.NewString(s)
}

// allAggCalls is one call of every function over rows ROW<k STRING, v
// INT, d DOUBLE, s STRING, b BOOLEAN, c DECIMAL(10, 2)>.
func allAggCalls() []jobgraph.AggCall {
	call := func(f jobgraph.AggFunc, t types.Type, args ...int) jobgraph.AggCall {
		return jobgraph.AggCall{Func: f, Args: args, Filter: -1, Type: t}
	}
	calls := []jobgraph.AggCall{
		call(jobgraph.AggCountStar, types.BigInt.NonNull()),
		call(jobgraph.AggCount, types.BigInt.NonNull(), 1),
		call(jobgraph.AggSum, types.Int, 1),
		call(jobgraph.AggSum0, types.Int, 1),
		call(jobgraph.AggAvg, types.Int, 1),
		call(jobgraph.AggAvg, types.Double, 2),
		call(jobgraph.AggSum, types.Decimal(38, 2), 5),
		call(jobgraph.AggAvg, types.Decimal(38, 6), 5),
		call(jobgraph.AggMin, types.Int, 1),
		call(jobgraph.AggMax, types.String, 3),
		call(jobgraph.AggFirstValue, types.String, 3),
		call(jobgraph.AggLastValue, types.Int, 1),
		call(jobgraph.AggListAgg, types.String, 3),
		call(jobgraph.AggStddevSamp, types.Double, 2),
		call(jobgraph.AggVarPop, types.Double, 1),
		call(jobgraph.AggBoolAnd, types.Boolean, 4),
		call(jobgraph.AggBoolOr, types.Boolean, 4),
		call(jobgraph.AggCollect, types.MultisetOf(types.String).NonNull(), 3),
		call(jobgraph.AggArrayAgg, types.ArrayOf(types.Int), 1),
		call(jobgraph.AggJSONArrayAgg, types.String.NonNull(), 3),
	}
	arr := call(jobgraph.AggArrayAgg, types.ArrayOf(types.String), 3)
	arr.KeepNulls = true
	jarr := call(jobgraph.AggJSONArrayAgg, types.String.NonNull(), 3)
	jarr.KeepNulls = true
	dcoll := call(jobgraph.AggCollect, types.MultisetOf(types.Int).NonNull(), 1)
	dcoll.Distinct = true
	user := call("TestSumCount", types.String.NonNull(), 1, 3)
	user.User, user.KeepNulls = testUserAgg{}, true
	calls = append(calls, arr, jarr, dcoll, user)
	d := call(jobgraph.AggCount, types.BigInt.NonNull(), 3)
	d.Distinct = true
	fl := call(jobgraph.AggSum, types.Int, 1)
	fl.Filter = 4
	md := call(jobgraph.AggMax, types.Int, 1)
	md.Distinct, md.Filter = true, 4
	return append(calls, d, fl, md)
}

var allAggSchema = types.NewSchema(
	types.Field{Name: "k", Type: types.String}, types.Field{Name: "v", Type: types.Int},
	types.Field{Name: "d", Type: types.Double}, types.Field{Name: "s", Type: types.String},
	types.Field{Name: "b", Type: types.Boolean}, types.Field{Name: "c", Type: types.Decimal(10, 2)})

// aggRandomChangelog returns n rows of a valid changelog over a few keys: a
// retraction removes a row inserted earlier, and now and then a row that
// was never inserted (which the operator must ignore).
func aggRandomChangelog(r *rand.Rand, n int) []types.Row {
	var live []types.Row
	var rows []types.Row
	for len(rows) < n {
		if len(live) > 0 && r.IntN(3) == 0 {
			i := r.IntN(len(live))
			row := live[i]
			live = append(live[:i], live[i+1:]...)
			kind := types.Delete
			if r.IntN(2) == 0 {
				kind = types.UpdateBefore
			}
			rows = append(rows, types.Row{Kind: kind, Values: row.Values})
			continue
		}
		maybeNull := func(v types.Value) types.Value {
			if r.IntN(6) == 0 {
				return types.Null
			}
			return v
		}
		vals := []types.Value{
			types.NewString(string(rune('a' + r.IntN(5)))),
			maybeNull(types.NewInt(int64(r.IntN(7) - 2))),
			maybeNull(types.NewFloat(float64(r.IntN(9)) / 4)),
			maybeNull(types.NewString(string(rune('p' + r.IntN(4))))),
			maybeNull(types.NewBool(r.IntN(2) == 0)),
			maybeNull(types.NewDecimal(aggMustDecimal(fmt.Sprintf("%d.%02d", r.IntN(5), r.IntN(100))))),
		}
		row := types.Row{Kind: types.Insert, Values: vals}
		if r.IntN(10) == 0 { // a retraction of a row never inserted
			rows = append(rows, types.Row{Kind: types.Delete, Values: vals})
			continue
		}
		if r.IntN(2) == 0 {
			row.Kind = types.UpdateAfter
		}
		live = append(live, row)
		rows = append(rows, row)
	}
	return rows
}

func aggMustDecimal(s string) *apd.Decimal {
	d, err := types.ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

// aggRun feeds rows to a new aggregate; restoreAt lists the row indexes
// before which the operator flushes and is rebuilt over the same KV.
func aggRun(t testing.TB, spec *jobgraph.Aggregate, rows []types.Row, maxKeys int, restoreAt map[int]bool) string {
	kv := state.NewMemory()
	out := &collectOut{}
	oc := OpContext{NS: "agg", KV: kv, Clock: &ManualClock{}, MaxKeys: maxKeys, Out: out}
	op, err := newAggregateOp(spec, allAggSchema, oc)
	require.NoError(t, err)
	for i, row := range rows {
		if restoreAt[i] {
			require.NoError(t, op.Flush())
			op, err = newAggregateOp(spec, allAggSchema, oc)
			require.NoError(t, err)
		}
		require.NoError(t, op.Process(0, row))
		if maxKeys > 0 {
			require.NoError(t, op.Flush())
		}
	}
	return out.take()
}

// TestAggregateRestoreAndEviction: restoring from flushed state at any
// point, and evicting with MaxKeys=2, give the output of an uninterrupted
// run, for every function.
func TestAggregateRestoreAndEviction(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 1))
		rows := aggRandomChangelog(r, 300)
		for _, keys := range [][]int{{0}, nil} {
			spec := &jobgraph.Aggregate{Keys: keys, Calls: allAggCalls()}
			want := aggRun(t, spec, rows, 0, nil)
			require.NotEmpty(t, want)
			half := map[int]bool{len(rows) / 2: true}
			require.Equal(t, want, aggRun(t, spec, rows, 0, half), "restore at half, seed %d", seed)
			every := map[int]bool{}
			for i := range rows {
				if r.IntN(10) == 0 {
					every[i] = true
				}
			}
			require.Equal(t, want, aggRun(t, spec, rows, 0, every), "restore at random rows, seed %d", seed)
			require.Equal(t, want, aggRun(t, spec, rows, 2, nil), "MaxKeys=2, seed %d", seed)
		}
	}
}

// TestAggregateStateCleared: a group whose rows are all retracted leaves
// no state behind after a flush.
func TestAggregateStateCleared(t *testing.T) {
	kv := state.NewMemory()
	spec := &jobgraph.Aggregate{Keys: []int{0}, Calls: allAggCalls()}
	op, err := newAggregateOp(spec, allAggSchema, OpContext{NS: "agg", KV: kv, Out: &collectOut{}})
	require.NoError(t, err)
	rows := aggRandomChangelog(rand.New(rand.NewPCG(7, 7)), 200)
	for _, row := range rows {
		require.NoError(t, op.Process(0, row))
	}
	for _, row := range rows { // retract every row inserted
		if !row.Kind.IsRetraction() {
			require.NoError(t, op.Process(0, types.Row{Kind: types.Delete, Values: row.Values}))
		}
	}
	require.NoError(t, op.Flush())
	require.Zero(t, kv.Len(), "no state left")
	require.Zero(t, op.cache.len())
}

func TestAggregateBadSpec(t *testing.T) {
	s := types.NewSchema(types.Field{Name: "a", Type: types.Int})
	for _, spec := range []*jobgraph.Aggregate{
		{Keys: []int{1}},
		{Calls: []jobgraph.AggCall{{Func: "MEDIAN", Args: []int{0}, Filter: -1, Type: types.Int}}},
		{Calls: []jobgraph.AggCall{{Func: jobgraph.AggSum, Args: []int{3}, Filter: -1, Type: types.Int}}},
		{Calls: []jobgraph.AggCall{{Func: jobgraph.AggSum, Filter: -1, Type: types.Int}}},
		{Calls: []jobgraph.AggCall{{Func: jobgraph.AggSum, Args: []int{0}, Filter: -1, Type: types.String}}},
	} {
		_, err := newAggregateOp(spec, s, OpContext{NS: "agg", KV: state.NewMemory(), Out: &collectOut{}})
		require.Error(t, err, "%+v", spec)
	}
}

// aggNullOut discards what an operator emits.
type aggNullOut struct{ n int }

func (o *aggNullOut) Emit(types.Row) error  { o.n++; return nil }
func (o *aggNullOut) Watermark(int64) error { return nil }

// BenchmarkAggregate: COUNT(*), SUM(v) GROUP BY k over 1M insert-only rows
// and 100k keys, against a hand-written map loop doing the same work.
func BenchmarkAggregate(b *testing.B) {
	const rowsN, keysN = 1_000_000, 100_000
	schema := types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "v", Type: types.BigInt})
	// The input is generated from pointer-free arrays into one reused row
	// (the operator keeps values, not the slice), so that the garbage
	// collector does not scan a large input heap.
	ks, vs := make([]int64, rowsN), make([]int64, rowsN)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range ks {
		ks[i], vs[i] = int64(r.IntN(keysN)), int64(r.IntN(1000))
	}
	row := types.Row{Values: make([]types.Value, 2)}
	spec := &jobgraph.Aggregate{Keys: []int{0}, Calls: []jobgraph.AggCall{
		{Func: jobgraph.AggCountStar, Filter: -1, Type: types.BigInt.NonNull()},
		{Func: jobgraph.AggSum, Args: []int{1}, Filter: -1, Type: types.BigInt},
	}}
	// events/cpu-s divides by the process's CPU time, a steadier measure
	// than wall time on a shared machine.
	report := func(b *testing.B, allocs uint64, cpu time.Duration) {
		events := float64(b.N) * rowsN
		b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
		b.ReportMetric(events/cpu.Seconds(), "events/cpu-s")
		b.ReportMetric(float64(allocs)/events, "allocs/event")
	}
	b.Run("operator", func(b *testing.B) {
		var allocs uint64
		var cpu time.Duration
		for b.Loop() {
			out := &aggNullOut{}
			op, err := newAggregateOp(spec, schema, OpContext{NS: "agg", KV: state.NewMemory(), Out: out})
			if err != nil {
				b.Fatal(err)
			}
			before, cpu0 := aggMemAllocs(), aggCPUTime()
			for i := range ks {
				row.Values[0], row.Values[1] = types.NewInt(ks[i]), types.NewInt(vs[i])
				if err := op.Process(0, row); err != nil {
					b.Fatal(err)
				}
			}
			cpu += aggCPUTime() - cpu0
			allocs += aggMemAllocs() - before
		}
		report(b, allocs, cpu)
	})
	b.Run("gomap", func(b *testing.B) {
		type acc struct{ count, sum int64 }
		var allocs uint64
		var cpu time.Duration
		for b.Loop() {
			before, cpu0 := aggMemAllocs(), aggCPUTime()
			m := map[int64]*acc{}
			out := &aggNullOut{}
			for i := range ks {
				row.Values[0], row.Values[1] = types.NewInt(ks[i]), types.NewInt(vs[i])
				k := row.Values[0].Int()
				a := m[k]
				if a == nil {
					a = &acc{}
					m[k] = a
				}
				a.count++
				a.sum += row.Values[1].Int()
				_ = out.Emit(types.Row{Values: []types.Value{row.Values[0], types.NewInt(a.count), types.NewInt(a.sum)}})
			}
			cpu += aggCPUTime() - cpu0
			allocs += aggMemAllocs() - before
		}
		report(b, allocs, cpu)
	})
}

// aggCPUTime returns the user and system CPU time of the process.
func aggCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func aggMemAllocs() uint64 {
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.Mallocs
}

// TestAggregateMatchesBatch: the operator's changelog is consistent (a
// retraction removes exactly the row emitted last for its key, +I only
// for absent keys) and, applied, equals a batch computation over the rows
// still live, for the functions whose result does not depend on arrival
// order.
func TestAggregateMatchesBatch(t *testing.T) {
	calls := allAggCalls()
	orderDependent := map[jobgraph.AggFunc]bool{jobgraph.AggFirstValue: true, jobgraph.AggLastValue: true, jobgraph.AggListAgg: true,
		jobgraph.AggArrayAgg: true, jobgraph.AggJSONArrayAgg: true}
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 3))
		var rows []types.Row
		for _, row := range aggRandomChangelog(r, 400) {
			if row.Kind.IsRetraction() && !slices.ContainsFunc(rows, func(x types.Row) bool { return !x.Kind.IsRetraction() && equalValues(x.Values, row.Values) }) {
				continue // a bogus retraction would decrement a group's row count
			}
			rows = append(rows, row)
		}
		// Rows still live: the multiset of inserted minus retracted rows.
		var live [][]types.Value
		for _, row := range rows {
			if !row.Kind.IsRetraction() {
				live = append(live, row.Values)
				continue
			}
			i := slices.IndexFunc(live, func(v []types.Value) bool { return equalValues(v, row.Values) })
			live = slices.Delete(live, i, i+1)
		}
		spec := &jobgraph.Aggregate{Keys: []int{0}, Calls: calls}
		out := &collectOut{}
		op, err := newAggregateOp(spec, allAggSchema, OpContext{NS: "agg", KV: state.NewMemory(), Out: out})
		require.NoError(t, err)
		for _, row := range rows {
			require.NoError(t, op.Process(0, row))
		}
		got := map[string][]types.Value{}
		for _, row := range out.rows {
			k := row.Values[0].Str()
			prev, ok := got[k]
			switch row.Kind {
			case types.Insert:
				require.False(t, ok, "+I for a present key %s", k)
				got[k] = row.Values
			case types.UpdateAfter:
				require.False(t, ok, "+U without -U for key %s", k)
				got[k] = row.Values
			default:
				require.True(t, ok, "%s for an absent key %s", row.Kind, k)
				require.Equal(t, prev, row.Values, "retraction of key %s", k)
				delete(got, k)
			}
		}
		groups := map[string][][]types.Value{}
		for _, v := range live {
			groups[v[0].Str()] = append(groups[v[0].Str()], v)
		}
		require.Len(t, got, len(groups), "seed %d", seed)
		for k, g := range groups {
			for i, c := range calls {
				if orderDependent[c.Func] {
					continue
				}
				want := aggBatch(c, g)
				require.True(t, types.Equal(want, got[k][i+1]), "seed %d key %s call %d %s: want %v, got %v", seed, k, i, c.Func, want, got[k][i+1])
			}
		}
	}
}

// testUserAgg is a user-defined aggregate for the tests: the sum of its
// first argument and the count of non-NULL second arguments, rendered
// "sum/count"; its accumulator is encoded as that text.
type testUserAgg struct{}

type testUserAcc struct{ sum, n int64 }

func (testUserAgg) CreateAccumulator() (any, error) { return &testUserAcc{}, nil }

func (testUserAgg) Accumulate(acc any, args []types.Value) error {
	a := acc.(*testUserAcc)
	a.sum += args[0].Int() // NULL reads as 0
	if !args[1].IsNull() {
		a.n++
	}
	return nil
}

func (testUserAgg) Retract(acc any, args []types.Value) error {
	a := acc.(*testUserAcc)
	a.sum -= args[0].Int()
	if !args[1].IsNull() {
		a.n--
	}
	return nil
}

func (testUserAgg) Merge(acc, other any) error {
	a, o := acc.(*testUserAcc), other.(*testUserAcc)
	a.sum, a.n = a.sum+o.sum, a.n+o.n
	return nil
}

func (testUserAgg) Value(acc any) (types.Value, error) {
	a := acc.(*testUserAcc)
	return types.NewString(fmt.Sprintf("%d/%d", a.sum, a.n)), nil
}

func (testUserAgg) EncodeAccumulator(acc any) ([]byte, error) {
	a := acc.(*testUserAcc)
	return fmt.Appendf(nil, "%d/%d", a.sum, a.n), nil
}

func (testUserAgg) DecodeAccumulator(b []byte) (any, error) {
	a := &testUserAcc{}
	_, err := fmt.Sscanf(string(b), "%d/%d", &a.sum, &a.n)
	return a, err
}

// aggBatch computes call over rows directly.
func aggBatch(c jobgraph.AggCall, rows [][]types.Value) types.Value {
	s := &accState{}
	fn, err := newAggFunc(&c, allAggSchema)
	if err != nil {
		panic(err)
	}
	var vals []types.Value
	seen := map[string]bool{}
	for _, row := range rows {
		if c.Filter >= 0 && !row[c.Filter].Bool() {
			continue
		}
		if c.Func == jobgraph.AggCountStar {
			vals = append(vals, types.Null)
			continue
		}
		if c.User != nil {
			if err := fn.add(s, []types.Value{row[c.Args[0]], row[c.Args[1]]}); err != nil {
				panic(err)
			}
			continue
		}
		v := row[c.Args[0]]
		if v.IsNull() && !c.KeepNulls {
			continue
		}
		if c.Distinct {
			if k := v.String(); seen[k] {
				continue
			} else {
				seen[k] = true
			}
		}
		vals = append(vals, v)
	}
	if c.User != nil {
		return fn.value(s)
	}
	switch c.Func {
	case jobgraph.AggCountStar, jobgraph.AggCount:
		return types.NewInt(int64(len(vals)))
	case jobgraph.AggMin, jobgraph.AggMax:
		if len(vals) == 0 {
			return types.Null
		}
		f := slices.MinFunc[[]types.Value]
		if c.Func == jobgraph.AggMax {
			f = slices.MaxFunc[[]types.Value]
		}
		return f(vals, types.Compare)
	case jobgraph.AggBoolAnd, jobgraph.AggBoolOr:
		if len(vals) == 0 {
			return types.Null
		}
		all, any := true, false
		for _, v := range vals {
			all, any = all && v.Bool(), any || v.Bool()
		}
		return types.NewBool(c.Func == jobgraph.AggBoolAnd && all || c.Func == jobgraph.AggBoolOr && any)
	}
	// Sums, averages and variances: accumulate only, no retraction.
	for _, v := range vals {
		if err := fn.add(s, []types.Value{v}); err != nil {
			panic(err)
		}
	}
	return fn.value(s)
}

// aggKeepOut keeps the emitted slices themselves and copies of them, to
// check that the operator never changes a slice it emitted.
type aggKeepOut struct{ rows, copies []types.Row }

func (o *aggKeepOut) Emit(r types.Row) error {
	o.rows = append(o.rows, r)
	o.copies = append(o.copies, types.Row{Kind: r.Kind, Values: slices.Clone(r.Values)})
	return nil
}

func (o *aggKeepOut) Watermark(int64) error { return nil }

// TestAggregateSlabBoundary: results suppressed at every position of a
// slab chunk (freeing rows next to a chunk boundary) leave the emitted
// rows intact, and each -U repeats the key's last +I/+U.
func TestAggregateSlabBoundary(t *testing.T) {
	schema := types.NewSchema(types.Field{Name: "k", Type: types.BigInt}, types.Field{Name: "v", Type: types.BigInt})
	spec := &jobgraph.Aggregate{Keys: []int{0}, Calls: []jobgraph.AggCall{{Func: jobgraph.AggMax, Args: []int{1}, Filter: -1, Type: types.BigInt}}}
	out := &aggKeepOut{}
	op, err := newAggregateOp(spec, schema, OpContext{NS: "agg", KV: state.NewMemory(), Out: out})
	require.NoError(t, err)
	// A third group makes the rows handed out odd, so that an update's
	// two rows straddle chunk boundaries.
	require.NoError(t, op.Process(0, types.Row{Values: []types.Value{types.NewInt(2), types.NewInt(0)}}))
	for i := range 5 * slabRows {
		// Key 0 grows (-U/+U), key 1 repeats (suppressed), in runs of
		// varying length so that suppressions fall everywhere in a chunk.
		k, v := int64(0), int64(i)
		if i%3 != 0 && i%7 != 0 {
			k, v = 1, 0
		}
		require.NoError(t, op.Process(0, types.Row{Values: []types.Value{types.NewInt(k), types.NewInt(v)}}))
	}
	require.Equal(t, out.copies, out.rows, "emitted rows unchanged")
	last := map[int64][]types.Value{}
	for _, r := range out.rows {
		k := r.Values[0].Int()
		if r.Kind == types.UpdateBefore {
			require.Equal(t, last[k], r.Values)
		}
		last[k] = r.Values
	}
	require.Greater(t, len(out.rows), 2*slabRows)
}

// TestAggregateDropUpdateBefore: without -U rows (an upsert consumer) the
// aggregate emits exactly the other changes of its retract changelog, with
// COUNT(*) among the calls (which lets it skip the row before an added
// row: the result changes anyway) and without.
func TestAggregateDropUpdateBefore(t *testing.T) {
	all := allAggCalls()
	noCount := slices.DeleteFunc(slices.Clone(all), func(c jobgraph.AggCall) bool { return c.Func == jobgraph.AggCountStar })
	require.Less(t, len(noCount), len(all), "allAggCalls has a COUNT(*)")
	// MIN and MAX alone: an added row often leaves the result as it was.
	extremes := slices.DeleteFunc(slices.Clone(all), func(c jobgraph.AggCall) bool {
		return c.Func != jobgraph.AggMin && c.Func != jobgraph.AggMax
	})
	for _, calls := range [][]jobgraph.AggCall{all, noCount, extremes} {
		for seed := range uint64(10) {
			r := rand.New(rand.NewPCG(seed, 9))
			rows := aggRandomChangelog(r, 300)
			run := func(dropUB bool) []types.Row {
				out := &collectOut{}
				spec := &jobgraph.Aggregate{Keys: []int{0}, Calls: calls, DropUpdateBefore: dropUB}
				op, err := newAggregateOp(spec, allAggSchema, OpContext{NS: "agg", KV: state.NewMemory(), Out: out})
				require.NoError(t, err)
				for _, row := range rows {
					require.NoError(t, op.Process(0, row))
				}
				return out.rows
			}
			want := slices.DeleteFunc(run(false), func(r types.Row) bool { return r.Kind == types.UpdateBefore })
			got := run(true)
			require.Len(t, got, len(want), "seed %d", seed)
			for i := range want {
				require.Equal(t, want[i].Kind, got[i].Kind, "seed %d change %d", seed, i)
				require.True(t, equalValues(want[i].Values, got[i].Values), "seed %d change %d: %v vs %v", seed, i, want[i].Values, got[i].Values)
			}
		}
	}
}
