package runtime

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/internal/expr"
	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/internal/state"
	"github.com/eddy-sql/eddy/types"
)

// opHarness runs one operator for the datadriven tests of the OVER, Top-N,
// deduplication, interval join, temporal join and temporal sort operators
// (testdata/over, rank, dedup, intervaljoin, temporaljoin, temporalsort).
// Times in the files are milliseconds: TIMESTAMP values are written and
// printed as milliseconds since the epoch, watermarks and the clock too.
//
// Commands, besides the "new" command of each test:
//
//	feed                 lines "[L|R] +I v1 v2 ..." (NULL for null; L/R pick
//	                     port 0/1 of a join); prints the rows emitted
//	watermark ts=MS [port=N]  advances the watermark of a port (both ports
//	                     of a join without port=); prints the rows emitted
//	                     and the forwarded watermark
//	proctime ts=MS       sets the clock and calls OnProcessingTime; prints
//	                     the rows emitted
//	restore              flushes, then builds a new operator over the same KV
//	flush                flushes
//	late                 prints the late-row counter
//	state                prints the number of KV entries
type opHarness struct {
	ports   []*types.Schema
	kv      *state.Memory
	clock   *ManualClock
	late    atomic.Int64
	out     *collectOut
	maxKeys int
	build   func(oc OpContext) (Operator, error)
	op      Operator
}

func newOpHarness() *opHarness {
	return &opHarness{kv: state.NewMemory(), clock: &ManualClock{T: time.UnixMilli(0)}, out: &collectOut{}}
}

func (h *opHarness) oc() OpContext {
	return OpContext{NS: "job/op", KV: h.kv, Clock: h.clock, MaxKeys: h.maxKeys, Out: h.out, Late: &h.late}
}

func (h *opHarness) rebuild() error {
	op, err := h.build(h.oc())
	h.op = op
	return err
}

// opCols parses "col NAME TYPE" lines, with an optional "left"/"right"
// prefix for two-input operators, into one schema per port; other lines
// go to extra.
func opCols(t testing.TB, input string, extra func(line string)) []*types.Schema {
	ports := []*types.Schema{{}, {}}
	used := 1
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		port := 0
		if side, rest, ok := strings.Cut(line, " "); ok && (side == "left" || side == "right") {
			if side == "right" {
				port = 1
			}
			used = 2
			line = rest
		}
		f := strings.Fields(line)
		if f[0] != "col" {
			extra(line)
			continue
		}
		ports[port].Fields = append(ports[port].Fields, types.Field{Name: f[1], Type: types.MustParseType(strings.Join(f[2:], " "))})
	}
	return ports[:used]
}

// opValue parses a value of type typ; TIMESTAMPs are milliseconds.
func opValue(t testing.TB, s string, typ types.Type) types.Value {
	if s != "NULL" && (typ.ID == types.TypeTimestamp || typ.ID == types.TypeTimestampLTZ) {
		ms, err := strconv.ParseInt(s, 10, 64)
		require.NoError(t, err)
		return types.NewTimestampMillis(ms)
	}
	return parseAggValue(t, s, typ)
}

// opRow parses "[L|R] KIND v1 v2 ..." and returns the port and the row.
func (h *opHarness) opRow(t testing.TB, line string) (int, types.Row) {
	f := strings.Fields(line)
	port := 0
	switch f[0] {
	case "L":
		f = f[1:]
	case "R":
		port, f = 1, f[1:]
	}
	kind, ok := joinRowKinds[f[0]]
	require.True(t, ok, "row kind of %q", line)
	schema := h.ports[port]
	require.Len(t, f[1:], schema.Len(), "values of %q", line)
	row := types.Row{Kind: kind}
	for i, s := range f[1:] {
		row.Values = append(row.Values, opValue(t, s, schema.Fields[i].Type))
	}
	return port, row
}

// take renders the emitted rows one per line, timestamps as milliseconds,
// and clears them.
func (h *opHarness) take() string {
	var b strings.Builder
	for _, r := range h.out.rows {
		b.WriteString(r.Kind.String() + "[")
		for i, v := range r.Values {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(opFormat(v))
		}
		b.WriteString("]\n")
	}
	h.out.rows = h.out.rows[:0]
	return b.String()
}

func opFormat(v types.Value) string {
	switch {
	case v.IsNull():
		return "NULL"
	case v.Kind() == types.KindTimestamp:
		return strconv.FormatInt(v.Millis(), 10)
	}
	return v.String()
}

func opMillis(wm int64) string {
	switch wm {
	case MaxWatermark:
		return "max"
	case MinWatermark:
		return "min"
	}
	return strconv.FormatInt(wm/1e6, 10)
}

// run handles the commands shared by the operator tests.
func (h *opHarness) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "feed":
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			port, row := h.opRow(t, line)
			if err := h.op.Process(port, row); err != nil {
				return h.take() + "error: " + err.Error() + "\n"
			}
			if h.maxKeys > 0 {
				require.NoError(t, h.op.Flush())
			}
		}
		return h.take()
	case "watermark":
		var ts string
		d.ScanArgs(t, "ts", &ts)
		wm := MaxWatermark
		if ts != "max" {
			ms, err := strconv.ParseInt(ts, 10, 64)
			require.NoError(t, err)
			wm = ms * 1e6
		}
		ports := []int{0}
		if d.HasArg("port") {
			var p int
			d.ScanArgs(t, "port", &p)
			ports = []int{p}
		} else if len(h.ports) == 2 {
			ports = []int{0, 1}
		}
		for _, p := range ports {
			if err := h.op.Watermark(p, wm); err != nil {
				return h.take() + "error: " + err.Error() + "\n"
			}
		}
		s := h.take()
		var wms []string
		for _, w := range h.out.wms {
			wms = append(wms, opMillis(w))
		}
		h.out.wms = nil
		return s + "wm=" + strings.Join(wms, ",") + "\n"
	case "proctime":
		var ms int64
		d.ScanArgs(t, "ts", &ms)
		h.clock.T = time.UnixMilli(ms)
		p, ok := h.op.(procTimeOperator)
		require.True(t, ok, "%T has no processing-time callback", h.op)
		if err := p.OnProcessingTime(h.clock.T.UnixNano()); err != nil {
			return h.take() + "error: " + err.Error() + "\n"
		}
		return h.take()
	case "restore":
		require.NoError(t, h.op.Flush())
		if err := h.rebuild(); err != nil {
			return "error: " + err.Error()
		}
		return "ok"
	case "flush":
		require.NoError(t, h.op.Flush())
		return "ok"
	case "late":
		return fmt.Sprint(h.late.Load())
	case "state":
		require.NoError(t, h.op.Flush())
		return fmt.Sprintf("%d entries", h.kv.Len())
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

// runOpTest runs a datadriven file whose "new" commands (any command named
// in builders) create the harness.
func runOpTest(t *testing.T, file string, builders map[string]func(t *testing.T, d *datadriven.TestData, h *opHarness)) {
	var h *opHarness
	datadriven.RunTest(t, file, func(t *testing.T, d *datadriven.TestData) string {
		if b, ok := builders[d.Cmd]; ok {
			h = newOpHarness()
			if d.HasArg("maxkeys") {
				d.ScanArgs(t, "maxkeys", &h.maxKeys)
			}
			b(t, d, h)
			if err := h.rebuild(); err != nil {
				return "error: " + err.Error()
			}
			return "ok"
		}
		require.NotNil(t, h, "no operator yet")
		return h.run(t, d)
	})
}

// argInts parses a comma list of column positions.
func argInts(t testing.TB, d *datadriven.TestData, key string) []int {
	var out []int
	for _, a := range d.CmdArgs {
		if a.Key == key {
			for _, v := range a.Vals {
				for _, x := range strings.Split(v, ",") {
					out = append(out, aggAtoi(t, x))
				}
			}
		}
	}
	return out
}

// argString returns the value of key, or def.
func argString(d *datadriven.TestData, key, def string) string {
	for _, a := range d.CmdArgs {
		if a.Key == key && len(a.Vals) > 0 {
			return a.Vals[0]
		}
	}
	return def
}

// parseSortKeys parses "1:desc:nullsfirst,2" (the default NULL order is
// Flink's: first for ASC, last for DESC).
func parseSortKeys(t testing.TB, d *datadriven.TestData, key string) []jobgraph.SortKey {
	var keys []jobgraph.SortKey
	for _, a := range d.CmdArgs {
		if a.Key != key {
			continue
		}
		for _, v := range strings.Split(strings.Join(a.Vals, ","), ",") {
			f := strings.Split(v, ":")
			k := jobgraph.SortKey{Col: aggAtoi(t, f[0])}
			k.NullsFirst = true
			for _, m := range f[1:] {
				switch m {
				case "desc":
					k.Desc, k.NullsFirst = true, false
				case "nullsfirst":
					k.NullsFirst = true
				case "nullslast":
					k.NullsFirst = false
				default:
					t.Fatalf("unknown sort modifier %q", m)
				}
			}
			keys = append(keys, k)
		}
	}
	return keys
}

// parseMillis parses a duration in milliseconds ("-10", "5") to
// nanoseconds.
func parseMillis(t testing.TB, s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return n * 1e6
}

// residualLess builds "left col a < right col b" over the concatenated
// row of two schemas, for join residuals.
func residualLess(t testing.TB, left, right *types.Schema, a, b int) expr.Expr {
	x, err := expr.Col(a, left.Fields[a].Name, left.Fields[a].Type)
	require.NoError(t, err)
	y, err := expr.Col(left.Len()+b, right.Fields[b].Name, right.Fields[b].Type)
	require.NoError(t, err)
	e, err := expr.Binary("<", x, y)
	require.NoError(t, err)
	return e
}

// opEvent is one input of an operator in the randomized tests: a row on
// a port, a watermark on a port (row nil), or, with proc set, a
// processing-time callback at proc.
type opEvent struct {
	port int
	row  *types.Row
	wm   int64
	proc int64
}

// runOpEvents feeds events to an operator built by build over a fresh KV
// and returns what it emitted, rows and watermarks, one per line. Before
// the events whose index is in restoreAt, the operator flushes and is
// rebuilt over the same KV; with maxKeys > 0 it flushes after every event
// so that keys are evicted and read back.
func runOpEvents(t testing.TB, build func(OpContext) (Operator, error), events []opEvent, restoreAt map[int]bool, maxKeys int) string {
	kv := state.NewMemory()
	clock := &ManualClock{T: time.UnixMilli(0)}
	out := &collectOut{}
	var late atomic.Int64
	oc := OpContext{NS: "job/op", KV: kv, Clock: clock, MaxKeys: maxKeys, Out: out, Late: &late}
	op, err := build(oc)
	require.NoError(t, err)
	var b strings.Builder
	drain := func() {
		for _, r := range out.rows {
			fmt.Fprintf(&b, "%s%v\n", r.Kind, r.Values)
		}
		for _, w := range out.wms {
			fmt.Fprintf(&b, "wm %d\n", w)
		}
		out.rows, out.wms = out.rows[:0], out.wms[:0]
	}
	for i, ev := range events {
		if restoreAt[i] {
			require.NoError(t, op.Flush())
			op, err = build(oc)
			require.NoError(t, err)
		}
		switch {
		case ev.proc != 0:
			clock.T = time.Unix(0, ev.proc)
			require.NoError(t, op.(procTimeOperator).OnProcessingTime(ev.proc))
		case ev.row != nil:
			require.NoError(t, op.Process(ev.port, *ev.row))
		default:
			require.NoError(t, op.Watermark(ev.port, ev.wm))
		}
		if maxKeys > 0 {
			require.NoError(t, op.Flush())
		}
		drain()
	}
	fmt.Fprintf(&b, "late %d\n", late.Load())
	return b.String()
}

// checkRestore runs events uninterrupted, restored at half, restored at
// random points, and with at most two cached keys, and requires the same
// output from all; it returns it.
func checkRestore(t testing.TB, r interface{ IntN(int) int }, build func(OpContext) (Operator, error), events []opEvent) string {
	want := runOpEvents(t, build, events, nil, 0)
	require.Equal(t, want, runOpEvents(t, build, events, map[int]bool{len(events) / 2: true}, 0), "restore at half")
	every := map[int]bool{}
	for i := range events {
		if r.IntN(8) == 0 {
			every[i] = true
		}
	}
	require.Equal(t, want, runOpEvents(t, build, events, every, 0), "restore at random events")
	require.Equal(t, want, runOpEvents(t, build, events, nil, 2), "MaxKeys=2")
	return want
}

// opCollect feeds events (no restore) and returns the emitted rows.
func opCollect(t testing.TB, build func(OpContext) (Operator, error), events []opEvent) ([]types.Row, int64) {
	out := &collectOut{}
	var late atomic.Int64
	clock := &ManualClock{T: time.UnixMilli(0)}
	op, err := build(OpContext{NS: "job/op", KV: state.NewMemory(), Clock: clock, Out: out, Late: &late})
	require.NoError(t, err)
	for _, ev := range events {
		switch {
		case ev.proc != 0:
			clock.T = time.Unix(0, ev.proc)
			require.NoError(t, op.(procTimeOperator).OnProcessingTime(ev.proc))
		case ev.row != nil:
			require.NoError(t, op.Process(ev.port, *ev.row))
		default:
			require.NoError(t, op.Watermark(ev.port, ev.wm))
		}
	}
	return out.rows, late.Load()
}
