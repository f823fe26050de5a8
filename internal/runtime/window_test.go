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

// winHarness runs one window operator for the datadriven tests.
type winHarness struct {
	kind    string // tvf, agg, rank, dedup, join
	spec    any
	in      [2]*types.Schema
	out     *collectOut
	outType []types.Type
	kv      *state.Memory
	clock   *ManualClock
	late    atomic.Int64
	op      Operator
}

func (h *winHarness) oc() OpContext {
	return OpContext{NS: "win", KV: h.kv, Clock: h.clock, Out: h.out, Late: &h.late}
}

func (h *winHarness) build() error {
	var err error
	switch s := h.spec.(type) {
	case *jobgraph.WindowTVF:
		h.op, err = newWindowTVFOp(s, h.in[0], h.oc())
	case *jobgraph.WindowAggregate:
		h.op, err = newWindowAggOp(s, h.in[0], h.oc())
	case *jobgraph.WindowRank:
		h.op, err = newWindowRankOp(s, h.in[0], h.oc())
	case *jobgraph.WindowDeduplicate:
		h.op, err = newWindowDedupOp(s, h.in[0], h.oc())
	case *jobgraph.WindowJoin:
		h.op, err = newWindowJoinOp(s, h.oc())
	}
	return err
}

// take renders the emitted rows, one per line, with the output types
// (timestamps of 1970-01-01 without their date), then the watermarks
// forwarded.
func (h *winHarness) take() string {
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
			t := types.String
			if i < len(h.outType) {
				t = h.outType[i]
			}
			b.WriteString(strings.TrimPrefix(types.Format(v, t), "1970-01-01 "))
		}
		b.WriteString("]\n")
	}
	h.out.rows = h.out.rows[:0]
	for _, w := range h.out.wms {
		fmt.Fprintf(&b, "watermark %s\n", winFormatTime(w))
	}
	h.out.wms = nil
	return b.String()
}

func winFormatTime(ns int64) string {
	switch ns {
	case MaxWatermark:
		return "max"
	case MinWatermark:
		return "min"
	}
	return strings.TrimPrefix(types.Format(types.NewTimestamp(ns), types.Timestamp(3)), "1970-01-01 ")
}

// winParseTime parses "max", "HH:MM:SS[.fff]" (on 1970-01-01) or
// "YYYY-MM-DDTHH:MM:SS[.fff]", as UTC, into engine nanoseconds.
func winParseTime(t testing.TB, s string) int64 {
	if s == "max" {
		return MaxWatermark
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999", "15:04:05.999"} {
		if tm, err := time.Parse(layout, s); err == nil {
			if layout == "15:04:05.999" {
				tm = tm.AddDate(1970, 0, 0)
			}
			return tm.UnixNano()
		}
	}
	t.Fatalf("bad time %q", s)
	return 0
}

func winDuration(t testing.TB, s string) int64 {
	d, err := time.ParseDuration(s)
	require.NoError(t, err, "duration %q", s)
	return int64(d)
}

func winInts(t testing.TB, vals []string) []int {
	var out []int
	for _, v := range vals {
		for _, f := range strings.Split(v, ",") {
			if f != "" {
				out = append(out, aggAtoi(t, f))
			}
		}
	}
	return out
}

// winParseRow parses "+I v1 v2 ..." by the schema's column types
// (timestamps as winParseTime reads them).
func winParseRow(t testing.TB, schema *types.Schema, line string) types.Row {
	f := strings.Fields(line)
	kind, ok := joinRowKinds[f[0]]
	require.True(t, ok, "row kind of %q", line)
	require.Len(t, f[1:], schema.Len(), "values of %q", line)
	row := types.Row{Kind: kind}
	for i, s := range f[1:] {
		typ := schema.Fields[i].Type
		if s != "NULL" && typ.IsTimestamp() {
			row.Values = append(row.Values, types.NewTimestamp(winParseTime(t, s)))
			continue
		}
		row.Values = append(row.Values, parseAggValue(t, s, typ))
	}
	return row
}

// winWindow reads the window arguments of a "new" command.
func winWindow(t testing.TB, d *datadriven.TestData) (jobgraph.Window, jobgraph.Windowing) {
	w := jobgraph.Window{TimeColumn: -1}
	ws := jobgraph.Windowing{}
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "window":
			w.Kind = map[string]jobgraph.WindowKind{"TUMBLE": jobgraph.Tumble, "HOP": jobgraph.Hop,
				"CUMULATE": jobgraph.Cumulate, "SESSION": jobgraph.Session}[a.Vals[0]]
		case "size":
			w.Size = winDuration(t, a.Vals[0])
		case "slide":
			w.Slide = winDuration(t, a.Vals[0])
		case "step":
			w.Step = winDuration(t, a.Vals[0])
		case "offset":
			w.Offset = winDuration(t, a.Vals[0])
		case "gap":
			w.Gap = winDuration(t, a.Vals[0])
		case "time":
			if a.Vals[0] != "proc" {
				w.TimeColumn = aggAtoi(t, a.Vals[0])
			}
		case "zone":
			w.TimeZone = a.Vals[0]
		case "partition":
			w.PartitionKeys = winInts(t, a.Vals)
		case "attached":
			cols := winInts(t, a.Vals)
			ws.Attached, ws.WindowStart, ws.WindowEnd = true, cols[0], cols[1]
		}
	}
	ws.Window = w
	return w, ws
}

// TestWindowDataDriven runs testdata/window/*. Commands:
//
//	new op=tvf|agg|rank|dedup|join window=TUMBLE|HOP|CUMULATE|SESSION
//	    [size= slide= step= offset= gap=DURATION] [time=COL|proc] [zone=Z]
//	    [partition=COLS] [attached=START,END]
//	    agg: keys=COLS; rank: partition-keys=COLS order=COL[:desc][:nullsfirst],...
//	    rank=ROW_NUMBER|RANK|DENSE_RANK start=N end=N [output-rank];
//	    dedup: keys=COLS keep=first|last tcol=COL;
//	    join: join=inner|left|right|full|semi|anti lkeys= rkeys= lwin=S,E rwin=S,E [residual=a<b]
//	  then lines "col NAME TYPE" ("left"/"right" for joins) and, for agg,
//	  "call FUNC [ARGS] [distinct] [filter=COL] : TYPE"
//	feed [port=N]   lines "+I v1 v2 ..."; prints the rows emitted
//	watermark ts=TIME [port=N]   prints the rows fired and the watermark forwarded
//	proctime t=TIME moves the clock, calls OnProcessingTime; prints the rows fired
//	restore         flushes, then builds a new operator over the same KV
//	late            prints the late-row counter
func TestWindowDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/window", func(t *testing.T, path string) {
		var h *winHarness
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "new":
				h = newWinHarness(t, d)
				if err := h.build(); err != nil {
					return "error: " + err.Error()
				}
				return "ok"
			case "feed":
				port := 0
				if d.HasArg("port") {
					d.ScanArgs(t, "port", &port)
				}
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					if err := h.op.Process(port, winParseRow(t, h.in[port], line)); err != nil {
						return h.take() + "error: " + err.Error()
					}
				}
				return h.take()
			case "watermark":
				var ts string
				d.ScanArgs(t, "ts", &ts)
				port := 0
				if d.HasArg("port") {
					d.ScanArgs(t, "port", &port)
				}
				if err := h.op.Watermark(port, winParseTime(t, ts)); err != nil {
					return h.take() + "error: " + err.Error()
				}
				return h.take()
			case "proctime":
				var ts string
				d.ScanArgs(t, "t", &ts)
				h.clock.T = time.Unix(0, winParseTime(t, ts)).UTC()
				if p, ok := h.op.(procTimeOperator); ok {
					if err := p.OnProcessingTime(h.clock.T.UnixNano()); err != nil {
						return h.take() + "error: " + err.Error()
					}
				}
				return h.take()
			case "restore":
				require.NoError(t, h.op.Flush())
				require.NoError(t, h.build())
				return "ok"
			case "flush":
				require.NoError(t, h.op.Flush())
				return "ok"
			case "late":
				return strconv.FormatInt(h.late.Load(), 10)
			case "state":
				return fmt.Sprint(h.kv.Len())
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

func newWinHarness(t *testing.T, d *datadriven.TestData) *winHarness {
	h := &winHarness{kv: state.NewMemory(), clock: &ManualClock{T: time.Unix(0, 0).UTC()}, out: &collectOut{},
		in: [2]*types.Schema{{}, {}}}
	var op string
	d.ScanArgs(t, "op", &op)
	h.kind = op
	w, ws := winWindow(t, d)
	var calls []jobgraph.AggCall
	for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
		verb, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch verb {
		case "col", "left", "right":
			name, typ, _ := strings.Cut(rest, " ")
			s := h.in[0]
			if verb == "right" {
				s = h.in[1]
			}
			s.Fields = append(s.Fields, types.Field{Name: name, Type: types.MustParseType(typ)})
		case "call":
			calls = append(calls, parseAggCall(t, rest))
		case "":
		default:
			t.Fatalf("unknown line %q", line)
		}
	}
	arg := func(key string) []string {
		for _, a := range d.CmdArgs {
			if a.Key == key {
				return a.Vals
			}
		}
		return nil
	}
	inTypes := func(s *types.Schema) []types.Type {
		var ts []types.Type
		for _, f := range s.Fields {
			ts = append(ts, f.Type)
		}
		return ts
	}
	timeType := types.Timestamp(3)
	if w.TimeColumn >= 0 && w.TimeColumn < h.in[0].Len() {
		timeType = h.in[0].Fields[w.TimeColumn].Type
	} else if w.TimeColumn < 0 {
		timeType = types.TimestampLTZ(3)
	}
	winTypes := func() []types.Type {
		var ts []types.Type
		for _, f := range jobgraph.WindowColumns(timeType) {
			ts = append(ts, f.Type)
		}
		return ts
	}
	switch op {
	case "tvf":
		h.spec = &jobgraph.WindowTVF{Window: w}
		h.outType = append(inTypes(h.in[0]), winTypes()...)
	case "agg":
		spec := &jobgraph.WindowAggregate{Keys: winInts(t, arg("keys")), Calls: calls, Windowing: ws}
		h.spec = spec
		for _, k := range spec.Keys {
			h.outType = append(h.outType, h.in[0].Fields[k].Type)
		}
		for _, c := range calls {
			h.outType = append(h.outType, c.Type)
		}
		h.outType = append(h.outType, winTypes()...)
	case "rank":
		spec := &jobgraph.WindowRank{Windowing: ws, PartitionKeys: winInts(t, arg("partition-keys")),
			OutputRank: d.HasArg("output-rank")}
		for _, o := range arg("order") {
			parts := strings.Split(o, ":")
			k := jobgraph.SortKey{Col: aggAtoi(t, parts[0])}
			for _, p := range parts[1:] {
				k.Desc = k.Desc || p == "desc"
				k.NullsFirst = k.NullsFirst || p == "nullsfirst"
			}
			spec.OrderBy = append(spec.OrderBy, k)
		}
		spec.Func = map[string]jobgraph.RankFunc{"ROW_NUMBER": jobgraph.RowNumber, "RANK": jobgraph.RankNumber,
			"DENSE_RANK": jobgraph.DenseRank}[arg("rank")[0]]
		spec.Start, spec.End = int64(aggAtoi(t, arg("start")[0])), int64(aggAtoi(t, arg("end")[0]))
		h.spec = spec
		h.outType = append(inTypes(h.in[0]), types.BigInt.NonNull())
	case "dedup":
		h.spec = &jobgraph.WindowDeduplicate{Windowing: ws, Keys: winInts(t, arg("keys")),
			KeepLast: arg("keep")[0] == "last", TimeColumn: aggAtoi(t, arg("tcol")[0])}
		h.outType = inTypes(h.in[0])
	case "join":
		lw, rw := winInts(t, arg("lwin")), winInts(t, arg("rwin"))
		spec := &jobgraph.WindowJoin{Kind: joinKinds[arg("join")[0]], Window: w,
			LeftStart: lw[0], LeftEnd: lw[1], RightStart: rw[0], RightEnd: rw[1],
			LeftKeys: winInts(t, arg("lkeys")), RightKeys: winInts(t, arg("rkeys")), Left: h.in[0], Right: h.in[1]}
		if r := arg("residual"); r != nil {
			// "a<b": column a of the left side less than column b of the right.
			l, rr, _ := strings.Cut(r[0], "<")
			li, ri := h.in[0].Index(l), h.in[1].Index(rr)
			a, err := expr.Col(li, l, h.in[0].Fields[li].Type)
			require.NoError(t, err)
			b, err := expr.Col(h.in[0].Len()+ri, rr, h.in[1].Fields[ri].Type)
			require.NoError(t, err)
			spec.Residual, err = expr.Binary("<", a, b)
			require.NoError(t, err)
		}
		h.spec = spec
		h.outType = append(inTypes(h.in[0]), inTypes(h.in[1])...)
		if spec.Kind == jobgraph.SemiJoin || spec.Kind == jobgraph.AntiJoin {
			h.outType = inTypes(h.in[0])
		}
	default:
		t.Fatalf("unknown op %q", op)
	}
	return h
}
