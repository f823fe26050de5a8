package examples_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/wasm"
	"github.com/eddy-sql/eddy/internal/wasm/wasmtest"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/ptf/ptftest"
	"github.com/eddy-sql/eddy/types"
)

// TestExamples runs the scripts in testdata/ against the examples through
// the ptftest harness. Regenerate the expectations with -rewrite and review
// the diff.
//
// Commands (timestamps are written 2026-08-01T09:00:00, UTC):
//
//	new fn=<Name>                  start a harness; the input block declares the call:
//	  table <arg> ROW<...> [partition-by=a,b] [time=col] [upsert=k] [retract]
//	  arg <name> <value>             a scalar argument, parsed as its declared type
//	  on-time <col>...  |  uid <id>  |  ttl <duration>  |  required insert|upsert|retract
//	  Prints the output schema and changelog mode, or the error.
//	process table=<arg>            feed the input lines (values separated by ", ",
//	                               optionally prefixed by +I, -U, +U or -D); prints
//	                               the output rows and errors
//	watermark at=<ts> [table=<arg>]  advance the watermark; prints fired timers and rows
//	end                            send the maximum watermark
//	advance by=<duration>          move processing time forward (state TTL); prints the
//	                               processing-time timers that fire and their rows
//	timers key=<v>[,<v>...]        the pending timers of a key
//	state entry=<name> key=<v>     a value-state entry of a key as JSON, or "absent"
//	set-state entry=<name> key=<v> set it from the JSON input
//	clear-state entry=<name> key=<v>
//	snapshot name=<s>  |  restore name=<s>
//	collected                      the rows as the function collected them (no prefix)
func TestExamples(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		d := &driver{defs: examples.All(), snaps: map[string][]byte{}}
		datadriven.RunTest(t, path, d.run)
	})
}

// driver runs datadriven scripts against one harness at a time.
type driver struct {
	defs   map[string]*ptf.Definition
	def    *ptf.Definition
	h      *ptftest.Harness
	tables map[string]*tableDecl
	first  *tableDecl
	snaps  map[string][]byte
}

// tableDecl is a table argument as the script declared it.
type tableDecl struct {
	schema *types.Schema
	keys   []types.Type
}

func (d *driver) run(t *testing.T, td *datadriven.TestData) string {
	if td.Cmd != "new" && d.h == nil {
		td.Fatalf(t, "%s before new", td.Cmd)
	}
	switch td.Cmd {
	case "new":
		return d.newHarness(t, td)
	case "process":
		return d.process(t, td)
	case "watermark":
		at := parseTime(t, td, argString(t, td, "at"))
		before := len(d.h.Fired())
		var err error
		if td.HasArg("table") {
			err = d.h.TableWatermark(argString(t, td, "table"), at)
		} else {
			err = d.h.Watermark(at)
		}
		return orNone(d.fired(before) + d.output(err))
	case "end":
		before := len(d.h.Fired())
		err := d.h.End()
		return orNone(d.fired(before) + d.output(err))
	case "advance":
		by, err := time.ParseDuration(argString(t, td, "by"))
		if err != nil {
			td.Fatalf(t, "%v", err)
		}
		before := len(d.h.Fired())
		err = d.h.AdvanceTime(by)
		return "now: " + d.h.Now().Format(time.RFC3339Nano) + "\n" + d.fired(before) + d.output(err)
	case "timers":
		var b strings.Builder
		for _, tm := range d.h.Timers(d.key(t, td)...) {
			fmt.Fprintf(&b, "%s %s%s\n", timerName(tm.Name), fmtTime(tm.Time), domainNote(tm.Domain))
		}
		return orNone(b.String())
	case "state":
		v, ok, err := d.h.State(d.entry(t, td), d.key(t, td)...)
		if err != nil {
			return "error: " + err.Error()
		}
		if !ok {
			return "absent"
		}
		b, err := json.Marshal(v)
		if err != nil {
			td.Fatalf(t, "%v", err)
		}
		return string(b)
	case "set-state":
		e := d.entry(t, td)
		v := e.NewState() // a *T, filled from the JSON input
		err := json.Unmarshal([]byte(td.Input), v)
		if err == nil {
			err = d.h.SetState(e, v, d.key(t, td)...)
		}
		return okOrError(err)
	case "clear-state":
		return okOrError(d.h.ClearState(d.entry(t, td), d.key(t, td)...))
	case "snapshot":
		snap, err := d.h.Snapshot()
		d.snaps[argString(t, td, "name")] = snap
		return okOrError(err)
	case "restore":
		snap, ok := d.snaps[argString(t, td, "name")]
		if !ok {
			td.Fatalf(t, "no snapshot %q", argString(t, td, "name"))
		}
		return okOrError(d.h.Restore(snap))
	case "collected":
		var b strings.Builder
		for _, c := range d.h.Collected() {
			fmt.Fprintf(&b, "%s%v\n", c.Kind, c.Values)
		}
		return orNone(b.String())
	}
	td.Fatalf(t, "unknown command %q", td.Cmd)
	return ""
}

func (d *driver) newHarness(t *testing.T, td *datadriven.TestData) string {
	name := argString(t, td, "fn")
	def, ok := d.defs[name]
	if !ok {
		td.Fatalf(t, "unknown function %q", name)
	}
	d.def, d.h, d.first = def, nil, nil
	d.tables = map[string]*tableDecl{}
	opts := []ptftest.Option{ptftest.Name(name)}
	for _, line := range lines(td.Input) {
		word, rest, _ := strings.Cut(line, " ")
		switch word {
		case "table":
			opts = append(opts, d.table(t, td, rest))
		case "arg":
			argName, text, _ := strings.Cut(rest, " ")
			opts = append(opts, ptftest.Arg(argName, d.scalar(t, td, argName, text)))
		case "on-time":
			opts = append(opts, ptftest.OnTime(strings.Fields(rest)...))
		case "uid":
			opts = append(opts, ptftest.UID(rest))
		case "ttl":
			ttl, err := time.ParseDuration(rest)
			if err != nil {
				td.Fatalf(t, "%v", err)
			}
			opts = append(opts, ptftest.DefaultTTL(ttl))
		case "required":
			modes := map[string]ptf.ChangelogMode{"insert": ptf.InsertOnly(), "upsert": ptf.Upsert(), "retract": ptf.Retract()}
			m, ok := modes[rest]
			if !ok {
				td.Fatalf(t, "unknown mode %q", rest)
			}
			opts = append(opts, ptftest.Required(m))
		default:
			td.Fatalf(t, "unknown declaration %q", line)
		}
	}
	h, err := ptftest.New(def, opts...)
	if err != nil {
		return "error: " + err.Error()
	}
	d.h = h
	var cols []string
	for _, f := range h.Schema().Fields {
		cols = append(cols, f.Name+" "+f.Type.String())
	}
	return fmt.Sprintf("schema: %s\nmode: %s", strings.Join(cols, ", "), h.ChangelogMode())
}

// table parses "<arg> ROW<...> [options]".
func (d *driver) table(t *testing.T, td *datadriven.TestData, decl string) ptftest.Option {
	arg, rest, _ := strings.Cut(decl, " ")
	end := closingBracket(rest)
	if !strings.HasPrefix(rest, "ROW<") || end < 0 {
		td.Fatalf(t, "table %s: want a ROW<...> type, got %q", arg, rest)
	}
	rowType := rest[:end+1]
	typ, err := types.ParseType(rowType)
	if err != nil {
		td.Fatalf(t, "table %s: %v", arg, err)
	}
	tab := &tableDecl{schema: types.NewSchema(typ.Fields...)}
	var topts []ptftest.TableOption
	for _, o := range strings.Fields(rest[end+1:]) {
		k, v, _ := strings.Cut(o, "=")
		switch k {
		case "partition-by":
			cols := strings.Split(v, ",")
			for _, c := range cols {
				i := tab.schema.Index(c)
				if i < 0 {
					td.Fatalf(t, "table %s: no column %q", arg, c)
				}
				tab.keys = append(tab.keys, tab.schema.Fields[i].Type)
			}
			topts = append(topts, ptftest.PartitionBy(cols...))
		case "time":
			topts = append(topts, ptftest.TimeAttribute(v))
		case "upsert":
			topts = append(topts, ptftest.Upsert(strings.Split(v, ",")...))
		case "retract":
			topts = append(topts, ptftest.Retract())
		default:
			td.Fatalf(t, "table %s: unknown option %q", arg, o)
		}
	}
	d.tables[arg] = tab
	if d.first == nil {
		d.first = tab
	}
	return ptftest.Table(arg, rowType, topts...)
}

func closingBracket(s string) int {
	depth := 0
	for i, c := range s {
		switch c {
		case '<':
			depth++
		case '>':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

func (d *driver) scalar(t *testing.T, td *datadriven.TestData, name, text string) types.Value {
	for _, a := range d.def.Args {
		if a.Name == name && !a.IsTable() {
			typ, err := types.ParseType(a.Type)
			if err != nil {
				td.Fatalf(t, "argument %s: %v", name, err)
			}
			return parseValue(t, td, typ, text)
		}
	}
	td.Fatalf(t, "function has no scalar argument %q", name)
	return types.Null
}

var kinds = map[string]types.RowKind{"+I": types.Insert, "-U": types.UpdateBefore, "+U": types.UpdateAfter, "-D": types.Delete}

func (d *driver) process(t *testing.T, td *datadriven.TestData) string {
	arg := argString(t, td, "table")
	tab, ok := d.tables[arg]
	if !ok {
		td.Fatalf(t, "unknown table %q", arg)
	}
	var b strings.Builder
	for _, line := range lines(td.Input) {
		kind := types.Insert
		if k, ok := kinds[line[:min(2, len(line))]]; ok {
			kind, line = k, strings.TrimSpace(line[2:])
		}
		texts := strings.Split(line, ",")
		if len(texts) != tab.schema.Len() {
			td.Fatalf(t, "%q: want %d values", line, tab.schema.Len())
		}
		vals := make([]types.Value, len(texts))
		for i, s := range texts {
			vals[i] = parseValue(t, td, tab.schema.Fields[i].Type, strings.TrimSpace(s))
		}
		b.WriteString(d.output(d.h.Process(arg, kind, vals...)))
	}
	return orNone(b.String())
}

// output formats the rows emitted since the last call and err.
func (d *driver) output(err error) string {
	s := d.h.Format(d.h.TakeOutput())
	if err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\n") // drop panic stacks
		s += "error: " + msg + "\n"
	}
	return s
}

// fired formats the timers fired since the first before of them.
func (d *driver) fired(before int) string {
	var b strings.Builder
	for _, tm := range d.h.Fired()[before:] {
		fmt.Fprintf(&b, "fired %v %s %s%s\n", tm.Key, timerName(tm.Name), fmtTime(tm.Time), domainNote(tm.Domain))
	}
	return b.String()
}

func (d *driver) entry(t *testing.T, td *datadriven.TestData) ptf.StateEntry {
	name := argString(t, td, "entry")
	for _, e := range d.def.State {
		if e.StateName() == name {
			return e
		}
	}
	td.Fatalf(t, "function has no state entry %q", name)
	return nil
}

// key parses key=v1,v2 with the types of the first table's partition key.
func (d *driver) key(t *testing.T, td *datadriven.TestData) []types.Value {
	texts := strings.Split(argString(t, td, "key"), ",")
	if len(texts) != len(d.first.keys) {
		td.Fatalf(t, "the key has %d columns", len(d.first.keys))
	}
	vals := make([]types.Value, len(texts))
	for i, s := range texts {
		vals[i] = parseValue(t, td, d.first.keys[i], s)
	}
	return vals
}

// parseValue reads a value of type typ from test text: NULL, numbers,
// decimals, timestamps (2026-08-01 09:00:00), strings as is or in quotes.
func parseValue(t *testing.T, td *datadriven.TestData, typ types.Type, s string) types.Value {
	if s == "NULL" {
		return types.Null
	}
	var v types.Value
	var err error
	switch typ.ID {
	case types.TypeBoolean:
		var b bool
		b, err = strconv.ParseBool(s)
		v = types.NewBool(b)
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt:
		var n int64
		n, err = strconv.ParseInt(s, 10, 64)
		v = types.NewInt(n)
	case types.TypeFloat, types.TypeDouble:
		var f float64
		f, err = strconv.ParseFloat(s, 64)
		v = types.NewFloat(f)
	case types.TypeDecimal:
		dec, derr := types.ParseDecimal(s)
		if derr == nil {
			dec, derr = types.RoundDecimal(dec, typ.Precision, typ.Scale)
		}
		v, err = types.NewDecimal(dec), derr
	case types.TypeChar, types.TypeVarChar:
		v = types.NewString(strings.Trim(s, "'"))
	case types.TypeTimestamp, types.TypeTimestampLTZ:
		v, err = types.ParseTimestamp(strings.Replace(s, "T", " ", 1))
	default:
		td.Fatalf(t, "no test syntax for %s", typ)
	}
	if err != nil {
		td.Fatalf(t, "parsing %q as %s: %v", s, typ, err)
	}
	return v
}

func parseTime(t *testing.T, td *datadriven.TestData, s string) time.Time {
	v, err := types.ParseTimestamp(strings.Replace(s, "T", " ", 1))
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	return v.Time()
}

func argString(t *testing.T, td *datadriven.TestData, key string) string {
	var s string
	td.ScanArgs(t, key, &s)
	return s
}

func lines(s string) []string {
	var out []string
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

func timerName(n string) string {
	if n == "" {
		return "<unnamed>"
	}
	return n
}

// domainNote marks processing-time timers; event-time ones print bare.
func domainNote(d ptf.TimerDomain) string {
	if d == ptf.ProcessingTime {
		return " (processing time)"
	}
	return ""
}

func fmtTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05.000") }

func okOrError(err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return "ok"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// TestExamplesWASM runs the same scripts against the examples compiled to
// WebAssembly (one module with all of them, loaded by the engine's
// WebAssembly host): every output, error, timer and state line must be the
// same as compiled in.
func TestExamplesWASM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a WebAssembly module")
	}
	r, err := wasm.New(wasm.Options{CacheDir: wasmtest.CacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	m, err := r.Load(context.Background(), wasmtest.Module(t, "./internal/wasm/testdata/guest"), wasm.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]*ptf.Definition{}
	for name := range examples.All() {
		d, ok := m.Definition("examples." + name)
		if !ok {
			t.Fatalf("the module has no examples.%s", name)
		}
		defs[name] = d
	}
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		d := &driver{defs: defs, snaps: map[string][]byte{}}
		datadriven.RunTest(t, path, d.run)
	})
}
