package ptftest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// The ORDER BY tests read ROW<k STRING, ts TIMESTAMP(3), score INT, name
// STRING> partitioned by k, ts being the time attribute.
const sortTable = "ROW<k STRING, ts TIMESTAMP(3), score INT, name STRING>"

// sortDef emits every row it sees as (name, time(), table watermark,
// function watermark) and, with timers, registers an unnamed timer at the
// row's ts; OnTimer emits ("timer", its time, -, watermark).
func sortDef(timers bool) *ptf.Definition {
	return &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic, ptf.OptionalPartitionBy)},
		Output: "ROW<name STRING, t TIMESTAMP(3), table_wm TIMESTAMP(3), wm TIMESTAMP(3)>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			tm, _ := ctx.Time()
			tw, _ := ctx.TableWatermark()
			cw, _ := ctx.CurrentWatermark()
			ctx.Collect(in.Row.Get("name"), tsOrNull(tm), tsOrNull(tw), tsOrNull(cw))
			if timers {
				return ctx.RegisterOnTimeUnnamed(in.Row.Get("ts").Time())
			}
			return nil
		},
		OnTimer: func(ctx *ptf.Context) error {
			tm, _ := ctx.Time()
			cw, _ := ctx.CurrentWatermark()
			ctx.Collect(types.NewString("timer"), tsOrNull(tm), types.Null, tsOrNull(cw))
			return nil
		},
	}
}

// newSorted returns a harness for def over sortTable partitioned by k and
// ordered by order.
func newSorted(t *testing.T, def *ptf.Definition, order []string, opts ...ptftest.Option) *ptftest.Harness {
	t.Helper()
	opts = append([]ptftest.Option{ptftest.Table("input", sortTable,
		ptftest.PartitionBy("k"), ptftest.TimeAttribute("ts"), ptftest.OrderBy(order...))}, opts...)
	h, err := ptftest.New(def, opts...)
	require.NoError(t, err)
	return h
}

// sendSorted feeds a row at t0 plus sec seconds; score < 0 is NULL.
func sendSorted(t *testing.T, h *ptftest.Harness, k string, sec int, score int, name string) {
	t.Helper()
	s := types.Null
	if score >= 0 {
		s = types.NewInt(int64(score))
	}
	require.NoError(t, h.Insert("input", types.NewString(k), types.NewTimestampTime(at(time.Duration(sec)*time.Second)), s, types.NewString(name)))
}

// names returns the name column of the rows emitted since the last take.
func names(h *ptftest.Harness) []string {
	var out []string
	for _, r := range h.TakeOutput() {
		out = append(out, r.Values[1].Str())
	}
	return out
}

func sec(n int) time.Time { return at(time.Duration(n) * time.Second) }

func TestOrderBySortsWhenTheWatermarkPasses(t *testing.T) {
	h := newSorted(t, sortDef(false), []string{"ts"})
	sendSorted(t, h, "a", 5, 0, "a5")
	sendSorted(t, h, "a", 3, 0, "a3")
	sendSorted(t, h, "b", 4, 0, "b4")
	sendSorted(t, h, "a", 1, 0, "a1")
	sendSorted(t, h, "b", 2, 0, "b2")
	require.Empty(t, h.Output(), "rows wait for the watermark")

	require.NoError(t, h.Watermark(sec(3)))
	// Keys flush in order of their earliest row; each key's rows <= 3 in
	// time order.
	require.Equal(t, []string{"a1", "a3", "b2"}, names(h))

	require.NoError(t, h.Watermark(sec(4)))
	require.Equal(t, []string{"b4"}, names(h))

	require.NoError(t, h.End())
	require.Equal(t, []string{"a5"}, names(h))
}

func TestOrderByDropsLateRows(t *testing.T) {
	h := newSorted(t, sortDef(false), []string{"ts"})
	require.NoError(t, h.Watermark(sec(5)))
	sendSorted(t, h, "a", 4, 0, "before")
	sendSorted(t, h, "a", 5, 0, "at")
	sendSorted(t, h, "a", 6, 0, "after")
	require.NoError(t, h.Insert("input", types.NewString("a"), types.Null, types.Null, types.NewString("null-time")))
	require.NoError(t, h.End())
	require.Equal(t, []string{"after"}, names(h), "rows at or before the watermark and rows without time are dropped")
}

func TestOrderByKeepsArrivalOrderForTies(t *testing.T) {
	h := newSorted(t, sortDef(false), []string{"ts"})
	for i, n := range []string{"x", "y", "z"} {
		sendSorted(t, h, "a", 2, 9-i, n)
		sendSorted(t, h, "a", 1, i, n+"1")
	}
	require.NoError(t, h.End())
	require.Equal(t, []string{"x1", "y1", "z1", "x", "y", "z"}, names(h))
}

func TestOrderBySecondaryColumns(t *testing.T) {
	feed := func(h *ptftest.Harness) {
		sendSorted(t, h, "a", 2, 5, "late5")
		sendSorted(t, h, "a", 1, 5, "five")
		sendSorted(t, h, "a", 1, -1, "null")
		sendSorted(t, h, "a", 1, 9, "nine")
		sendSorted(t, h, "a", 1, 1, "one")
		sendSorted(t, h, "a", 1, 5, "five-again")
	}
	for _, tc := range []struct {
		order []string
		want  []string
	}{
		// ASC defaults to NULLS LAST, DESC to NULLS FIRST (Flink).
		{[]string{"ts", "score"}, []string{"one", "five", "five-again", "nine", "null", "late5"}},
		{[]string{"ts", "score DESC"}, []string{"null", "nine", "five", "five-again", "one", "late5"}},
		{[]string{"ts ASC", "score ASC NULLS FIRST"}, []string{"null", "one", "five", "five-again", "nine", "late5"}},
		{[]string{"ts", "score DESC NULLS LAST"}, []string{"nine", "five", "five-again", "one", "null", "late5"}},
		{[]string{"ts", "score desc", "name desc"}, []string{"null", "nine", "five-again", "five", "one", "late5"}},
	} {
		h := newSorted(t, sortDef(false), tc.order)
		feed(h)
		require.NoError(t, h.Watermark(sec(2)))
		require.Equal(t, tc.want, names(h), "%v", tc.order)
	}
}

func TestOrderByFlushesBeforeTimersWithThePreviousWatermark(t *testing.T) {
	h := newSorted(t, sortDef(true), []string{"ts"})
	require.NoError(t, h.Watermark(sec(1)))
	sendSorted(t, h, "a", 3, 0, "a3")
	sendSorted(t, h, "a", 2, 0, "a2")
	sendSorted(t, h, "b", 2, 0, "b2")
	require.NoError(t, h.Watermark(sec(5)))
	require.Equal(t, rows(
		// Eval during the flush: time() is the ORDER BY column, both
		// watermarks are still the previous one.
		"+I[a, a2, 2026-08-01 09:00:02.000, 2026-08-01 09:00:01.000, 2026-08-01 09:00:01.000]",
		"+I[a, a3, 2026-08-01 09:00:03.000, 2026-08-01 09:00:01.000, 2026-08-01 09:00:01.000]",
		"+I[b, b2, 2026-08-01 09:00:02.000, 2026-08-01 09:00:01.000, 2026-08-01 09:00:01.000]",
		// Then the timers registered by the flushed rows fire at the new
		// watermark.
		"+I[a, timer, 2026-08-01 09:00:02.000, <NULL>, 2026-08-01 09:00:05.000]",
		"+I[b, timer, 2026-08-01 09:00:02.000, <NULL>, 2026-08-01 09:00:05.000]",
		"+I[a, timer, 2026-08-01 09:00:03.000, <NULL>, 2026-08-01 09:00:05.000]",
	), take(h))
}

func TestOrderBySurvivesSnapshotAndRestore(t *testing.T) {
	h := newSorted(t, sortDef(false), []string{"ts"})
	sendSorted(t, h, "a", 3, 0, "a3")
	sendSorted(t, h, "a", 2, 0, "a2-first")
	sendSorted(t, h, "b", 1, 0, "b1")
	require.NoError(t, h.Watermark(sec(1)))
	require.Equal(t, []string{"b1"}, names(h))

	snap, err := h.Snapshot()
	require.NoError(t, err)
	sendSorted(t, h, "a", 2, 0, "lost") // after the checkpoint: gone on restore
	require.NoError(t, h.Restore(snap))

	// Watermarks start again from none; new rows with the time of a
	// restored one come after it.
	sendSorted(t, h, "a", 2, 0, "a2-second")
	sendSorted(t, h, "c", 1, 0, "c1")
	require.NoError(t, h.Watermark(sec(2)))
	require.Equal(t, []string{"c1", "a2-first", "a2-second"}, names(h))
	require.NoError(t, h.End())
	require.Equal(t, []string{"a3"}, names(h))

	// Flushed rows are gone from the state.
	snap, err = h.Snapshot()
	require.NoError(t, err)
	require.NoError(t, h.Restore(snap))
	require.NoError(t, h.End())
	require.Empty(t, h.TakeOutput())
}

func TestOrderByWithOnTimeEmitsRowtime(t *testing.T) {
	h := newSorted(t, sortDef(false), []string{"ts"}, ptftest.OnTime("ts"))
	require.Equal(t, "k STRING, name STRING, t TIMESTAMP(3), table_wm TIMESTAMP(3), wm TIMESTAMP(3), rowtime TIMESTAMP(3) NOT NULL", schemaString(h))
	sendSorted(t, h, "a", 2, 0, "a2")
	sendSorted(t, h, "a", 1, 0, "a1")
	require.NoError(t, h.End())
	require.Equal(t, rows(
		"+I[a, a1, 2026-08-01 09:00:01.000, <NULL>, <NULL>, 2026-08-01 09:00:01.000]",
		"+I[a, a2, 2026-08-01 09:00:02.000, <NULL>, <NULL>, 2026-08-01 09:00:02.000]",
	), take(h))
}

func TestOrderByBufferTTL(t *testing.T) {
	h := newSorted(t, sortDef(false), []string{"ts"}, ptftest.DefaultTTL(time.Minute))
	sendSorted(t, h, "a", 1, 0, "old")
	h.AdvanceTime(30 * time.Second)
	sendSorted(t, h, "a", 2, 0, "young")
	h.AdvanceTime(40 * time.Second)
	require.NoError(t, h.End())
	require.Equal(t, []string{"young"}, names(h), "a buffered row expires after 'table.exec.state.ttl'")
}

func TestOrderByWithoutPartitionBy(t *testing.T) {
	h, err := ptftest.New(sortDef(false), ptftest.Table("input", sortTable,
		ptftest.TimeAttribute("ts"), ptftest.OrderBy("ts", "name")))
	require.NoError(t, err)
	sendSorted(t, h, "b", 1, 0, "y")
	sendSorted(t, h, "a", 1, 0, "x")
	sendSorted(t, h, "a", 0, 0, "z")
	require.NoError(t, h.End())
	var got []string
	for _, r := range h.TakeOutput() {
		got = append(got, r.Values[0].Str())
	}
	require.Equal(t, []string{"z", "x", "y"}, got)
}

// TestOrderByPerTable: only the ordered table is buffered, and it flushes
// on its own watermark.
func TestOrderByPerTable(t *testing.T) {
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("sorted", ptf.SetSemantic), ptf.Table("direct", ptf.SetSemantic)},
		Output: "ROW<arg STRING, name STRING, table_wm TIMESTAMP(3), wm TIMESTAMP(3)>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			tw, _ := ctx.TableWatermark()
			cw, _ := ctx.CurrentWatermark()
			ctx.Collect(types.NewString(in.Arg), in.Row.Get("name"), tsOrNull(tw), tsOrNull(cw))
			return nil
		},
	}
	h, err := ptftest.New(def,
		ptftest.Table("sorted", sortTable, ptftest.PartitionBy("k"), ptftest.TimeAttribute("ts"), ptftest.OrderBy("ts")),
		ptftest.Table("direct", sortTable, ptftest.PartitionBy("k"), ptftest.TimeAttribute("ts")))
	require.NoError(t, err)
	ins := func(arg string, s int, name string) {
		require.NoError(t, h.Insert(arg, types.NewString("a"), types.NewTimestampTime(sec(s)), types.Null, types.NewString(name)))
	}
	ins("sorted", 2, "s2")
	ins("sorted", 1, "s1")
	ins("direct", 2, "d2")
	ins("direct", 1, "d1")
	require.NoError(t, h.TableWatermark("direct", sec(5)))
	require.NoError(t, h.TableWatermark("sorted", sec(1)))
	require.Equal(t, rows(
		"+I[a, a, direct, d2, <NULL>, <NULL>]",
		"+I[a, a, direct, d1, <NULL>, <NULL>]",
		"+I[a, a, sorted, s1, <NULL>, <NULL>]",
	), take(h))
	require.NoError(t, h.TableWatermark("sorted", sec(3)))
	require.Equal(t, rows(
		"+I[a, a, sorted, s2, 2026-08-01 09:00:01.000, 2026-08-01 09:00:01.000]",
	), take(h))
}

func TestOrderByTableSemantics(t *testing.T) {
	var got ptf.TableSemantics
	def := &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic)},
		Output: "ROW<n INT>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			got, _ = ctx.TableSemantics("input")
			return nil
		},
	}
	h := newSorted(t, def, []string{"ts", "score DESC", "name NULLS FIRST"})
	sendSorted(t, h, "a", 1, 0, "x")
	require.NoError(t, h.End())
	require.Equal(t, []int{1, 2, 3}, got.OrderBy)
	require.Equal(t, []bool{false, true, false}, got.OrderByDesc)
	require.Equal(t, []bool{false, true, true}, got.OrderByNullsFirst)
}

// TestOrderByValidation: the planner's checks (reference §10, D12–D17);
// SQL positions are checked in internal/engine/testdata/sql/orderby.
func TestOrderByValidation(t *testing.T) {
	const prefix = "Invalid ORDER BY clause for table argument 'input'. "
	set := sortDef(false)
	row := &ptf.Definition{Args: []ptf.Arg{ptf.Table("input")}, Output: "ROW<n INT>", Eval: set.Eval}
	for _, tc := range []struct {
		def   *ptf.Definition
		order []string
		opts  []ptftest.Option
		time  string
		want  string
	}{
		{def: row, order: []string{"ts"}, time: "ts", want: "Only tables with set semantics may be ordered. Invalid ORDER BY clause in the 0-th operand of table function 'f'"},
		{order: []string{"nope"}, time: "ts", want: "Invalid column 'nope' for ORDER BY clause. Available columns are: [k, ts, score, name]"},
		{order: []string{"score"}, time: "ts", want: prefix + "The first ORDER BY column must be a TIMESTAMP or TIMESTAMP_LTZ column (up to precision 3). However, column 'score' has data type 'INT'."},
		{order: []string{"ts DESC"}, time: "ts", want: prefix + "The first ORDER BY column on a timestamp column must be in ascending order."},
		{order: []string{"ts NULLS FIRST"}, time: "ts", want: prefix + "The first ORDER BY column on a timestamp column must be in ascending order."},
		{order: []string{"ts", "score", "ts"}, time: "ts", want: prefix + "Column 'ts' appears more than once in ORDER BY."},
		{order: []string{"ts"}, want: prefix + "The first ORDER BY column 'ts' is not a valid time attribute. Only columns with a watermark declaration qualify for ORDER BY."},
		{order: []string{"ts"}, time: "ts", opts: []ptftest.Option{ptftest.OnTime("t2")}, want: prefix + "When both ORDER BY and the 'on_time' argument are defined, the referenced timestamp columns must match."},
		{order: []string{"ts sideways"}, time: "ts", want: `invalid ORDER BY item "ts sideways"`},
	} {
		def := tc.def
		if def == nil {
			def = set
		}
		tableType := sortTable
		if len(tc.opts) > 0 {
			tableType = "ROW<k STRING, ts TIMESTAMP(3), score INT, name STRING, t2 TIMESTAMP(3)>"
		}
		topts := []ptftest.TableOption{ptftest.OrderBy(tc.order...)}
		if def == set {
			topts = append(topts, ptftest.PartitionBy("k"))
		}
		if tc.time != "" {
			topts = append(topts, ptftest.TimeAttribute(tc.time))
		}
		_, err := ptftest.New(def, append([]ptftest.Option{ptftest.Table("input", tableType, topts...)}, tc.opts...)...)
		require.ErrorContains(t, err, tc.want, "%v", tc.order)
	}
}

func schemaString(h *ptftest.Harness) string {
	s := ""
	for i, f := range h.Schema().Fields {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %s", f.Name, f.Type)
	}
	return s
}
