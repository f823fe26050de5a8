package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/eddy-sql/eddy/udf"
	"github.com/stretchr/testify/require"
)

// statementTimeout bounds every statement, so that a hanging job fails the
// test instead of blocking it.
const statementTimeout = 2 * time.Minute

// TestSQL runs the datadriven files in testdata/sql and testdata/acceptance
// end to end through engine.Execute. Every file runs on a fresh engine in
// each configuration:
//
//	disk  on a data directory
//	mem   in memory (skipped for files that reopen the data directory)
//	p4    acceptance files only: on a data directory with
//	      'parallelism.default' = '4', so keys interleave in any order;
//	      a query with expected= is checked only per key against its
//	      .expected block, everything else against the file
//
// Commands:
//
//	exec         run the statements of the input in order, as a script
//	             does; print each one's message ("ok" for the generic
//	             success message) or its rows, and stop at the first
//	             error, printed as "error (CODE) at L:C: message" with
//	             the position relative to the input and "hint: ..."
//	error        like exec, but the last statement must fail and every
//	             earlier one succeed; prints only the error
//	query [mode=table|changelog] [expected=NAME:N]
//	             run one statement that returns rows and print its columns,
//	             its key and its rows: in changelog mode every change in
//	             arrival order ("+I[101, PENDING]"), in table mode the
//	             materialized table sorted (upsert by RowStream.Key, or a
//	             multiset without a key). The mode defaults to the session's
//	             result mode. With expected, the rows must also match block
//	             N of testdata/expected/NAME.expected under the rules of the
//	             acceptance README (rows compared per key), whatever
//	             -rewrite does.
//	             With fails, reading the rows must fail: the rows before
//	             the failure and the error are printed.
//	reopen       close the engine and open the same data directory again
//	stdout       wait for the running statements to catch up (as the next
//	             statement of a script does) and print what 'print'
//	             tables printed since the last stdout, then what went to
//	             standard error after "stderr:"
//	clock advance=DURATION
//	             wait for the running statements to catch up, then move
//	             the engine's processing-time clock (state TTL, PROCTIME())
//	             forward and print the new time. A file that has a clock
//	             command runs on a clock that starts at 2026-08-01 09:00
//	             UTC and moves only so; the others on the system clock.
func TestSQL(t *testing.T) {
	for _, dir := range []string{"testdata/sql", "testdata/acceptance"} {
		datadriven.Walk(t, dir, func(t *testing.T, path string) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			clocked := hasCommand(string(src), "clock")
			t.Run("disk", func(t *testing.T) {
				datadriven.RunTest(t, path, newClockedHarness(t, true, clocked).run)
			})
			t.Run("mem", func(t *testing.T) {
				if reopens(string(src)) {
					t.Skip("the file reopens the data directory")
				}
				datadriven.RunTest(t, path, newClockedHarness(t, false, clocked).run)
			})
			if dir != "testdata/acceptance" {
				return
			}
			t.Run("p4", func(t *testing.T) {
				h := newHarness(t, true)
				_, err := h.eng.Execute(t.Context(), "SET 'parallelism.default' = '4'", false)
				require.NoError(t, err)
				// The file itself is checked (and rewritten) by the runs
				// above; this one reads a copy.
				datadriven.RunTestFromString(t, string(src), h.runPerKey)
			})
		})
	}
}

// runPerKey runs a command like run, but leaves a query with expected= to
// the per-key check against its .expected block.
func (h *harness) runPerKey(t *testing.T, d *datadriven.TestData) string {
	out := h.run(t, d)
	if d.Cmd == "query" && d.HasArg("expected") {
		return d.Expected
	}
	return out
}

func reopens(src string) bool { return hasCommand(src, "reopen") }

// hasCommand reports whether a datadriven file has a cmd command.
func hasCommand(src, cmd string) bool {
	for line := range strings.Lines(src) {
		if f := strings.Fields(line); len(f) > 0 && f[0] == cmd {
			return true
		}
	}
	return false
}

// harness is one engine under test.
type harness struct {
	dir  string
	reg  *ptf.Registry
	udfs *udf.Registry
	eng  *engine.Engine
	// clock is the engine's clock when the file moves it (nil: the
	// system clock).
	clock *setClock
	// stdout and stderr capture what 'print' tables print.
	stdout, stderr syncBuffer
}

// syncBuffer is a buffer safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// take returns what was written and empties the buffer.
func (b *syncBuffer) take() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf.String()
	b.buf.Reset()
	return s
}

func newHarness(t *testing.T, disk bool) *harness { return newClockedHarness(t, disk, false) }

// newClockedHarness is newHarness, on a clock the file moves when clocked.
func newClockedHarness(t *testing.T, disk, clocked bool) *harness {
	h := &harness{reg: ptf.NewRegistry(), udfs: udf.NewRegistry()}
	if clocked {
		h.clock = &setClock{t: time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)}
	}
	require.NoError(t, examples.Register(h.reg))
	require.NoError(t, registerTestFunctions(h.reg))
	require.NoError(t, examples.RegisterUserFunctions(h.udfs))
	require.NoError(t, registerTestUserFunctions(h.udfs))
	if disk {
		h.dir = t.TempDir()
	}
	h.open(t)
	t.Cleanup(func() {
		require.NoError(t, h.eng.Close(), "closing the engine")
	})
	return h
}

func (h *harness) open(t *testing.T) {
	opts := engine.Options{DataDir: h.dir, Registry: h.reg, UDFs: h.udfs, Stdout: &h.stdout, Stderr: &h.stderr}
	if h.clock != nil {
		opts.Clock = h.clock
	}
	eng, err := engine.Open(t.Context(), opts)
	require.NoError(t, err)
	h.eng = eng
}

func (h *harness) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "exec":
		return h.exec(t, d, false)
	case "error":
		return h.exec(t, d, true)
	case "query":
		return h.query(t, d)
	case "reopen":
		require.NoError(t, h.eng.Close(), "closing the engine")
		h.open(t)
		return "ok"
	case "clock":
		var by string
		d.ScanArgs(t, "advance", &by)
		step, err := time.ParseDuration(by)
		if err != nil {
			d.Fatalf(t, "advance=%s: %v", by, err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), statementTimeout)
		defer cancel()
		require.NoError(t, h.eng.Sync(ctx), "waiting for the running statements")
		h.clock.advance(step)
		return h.clock.Now().Format(time.DateTime) + "\n"
	case "stdout":
		// Any statement of a script first syncs the running ones.
		if _, err := h.execute(t, cli.Statement{Text: "SHOW CATALOGS"}); err != nil {
			return formatError(err, sqlerr.Pos{})
		}
		out := h.stdout.take()
		if e := h.stderr.take(); e != "" {
			out += "stderr:\n" + e
		}
		if out == "" {
			return "(nothing printed)\n"
		}
		return out
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

// execute runs one statement of the input with a timeout.
func (h *harness) execute(t *testing.T, st cli.Statement) (*cli.Result, error) {
	ctx, cancel := context.WithTimeout(t.Context(), statementTimeout)
	defer cancel()
	return h.eng.Execute(ctx, st.Text, false)
}

func (h *harness) exec(t *testing.T, d *datadriven.TestData, wantErr bool) string {
	stmts := cli.Split(d.Input)
	if len(stmts) == 0 {
		d.Fatalf(t, "no statement")
	}
	var b strings.Builder
	for i, st := range stmts {
		res, err := h.execute(t, st)
		if err != nil {
			if wantErr && i != len(stmts)-1 {
				d.Fatalf(t, "statement %d of %d failed before the last: %v", i+1, len(stmts), err)
			}
			return b.String() + formatError(err, st.Pos)
		}
		if wantErr {
			closeResult(res)
			continue
		}
		b.WriteString(h.render(t, d, res, h.resultMode()))
	}
	if wantErr {
		d.Fatalf(t, "expected an error, but every statement succeeded")
	}
	return b.String()
}

func (h *harness) query(t *testing.T, d *datadriven.TestData) string {
	stmts := cli.Split(d.Input)
	if len(stmts) != 1 {
		d.Fatalf(t, "query takes exactly one statement, got %d", len(stmts))
	}
	mode := h.resultMode()
	if d.HasArg("mode") {
		d.ScanArgs(t, "mode", &mode)
	}
	res, err := h.execute(t, stmts[0])
	if err != nil {
		return formatError(err, stmts[0].Pos)
	}
	if res.Rows == nil {
		d.Fatalf(t, "the statement returned no rows, only the message %q", res.Message)
	}
	rs := res.Rows
	if d.HasArg("fails") {
		return drainError(t, d, rs)
	}
	rows := drain(t, d, rs)
	if d.HasArg("expected") {
		var spec string
		d.ScanArgs(t, "expected", &spec)
		if err := checkExpected(spec, mode, rs, rows); err != nil {
			d.Fatalf(t, "the result does not match %s: %v", spec, err)
		}
	}
	return formatRows(rs, rows, mode)
}

// resultMode returns the session's result mode as the SQL client reads it.
func (h *harness) resultMode() string {
	if m := strings.ToLower(h.eng.Config()[cli.ResultModeKey]); m == "changelog" || m == "tableau" {
		return "changelog"
	}
	return "table"
}

// render prints a result of exec: its rows, or its message.
func (h *harness) render(t *testing.T, d *datadriven.TestData, res *cli.Result, mode string) string {
	if res == nil {
		d.Fatalf(t, "nil result without error")
	}
	var b strings.Builder
	if res.Message != "" {
		msg := strings.TrimPrefix(res.Message, "\n")
		if msg == "Execute statement succeeded." {
			msg = "ok"
		}
		b.WriteString(msg + "\n")
	}
	if res.Rows != nil {
		b.WriteString(formatRows(res.Rows, drain(t, d, res.Rows), mode))
	}
	return b.String()
}

// drain reads a bounded stream to its end and closes it.
func drain(t *testing.T, d *datadriven.TestData, rs *cli.RowStream) []types.Row {
	defer closeStream(rs)
	ctx, cancel := context.WithTimeout(t.Context(), statementTimeout)
	defer cancel()
	var rows []types.Row
	for {
		r, ok, err := rs.Next(ctx)
		if err != nil {
			d.Fatalf(t, "reading the result: %v", err)
		}
		if !ok {
			return rows
		}
		rows = append(rows, r)
	}
}

// drainError reads a stream that must fail and prints the rows before the
// failure and the error.
func drainError(t *testing.T, d *datadriven.TestData, rs *cli.RowStream) string {
	defer closeStream(rs)
	ctx, cancel := context.WithTimeout(t.Context(), statementTimeout)
	defer cancel()
	var b strings.Builder
	for {
		r, ok, err := rs.Next(ctx)
		if err != nil {
			b.WriteString("error: " + err.Error() + "\n")
			return b.String()
		}
		if !ok {
			d.Fatalf(t, "the query was to fail, but it ended normally")
		}
		b.WriteString(r.Kind.String() + formatValues(rs.Schema, r.Values) + "\n")
	}
}

func closeResult(res *cli.Result) {
	if res != nil && res.Rows != nil {
		closeStream(res.Rows)
	}
}

func closeStream(rs *cli.RowStream) {
	if rs.Close != nil {
		rs.Close()
	}
}

// formatError prints an error with its position shifted from the statement
// to the test input.
func formatError(err error, stmtPos sqlerr.Pos) string {
	e, ok := sqlerr.As(err)
	if !ok {
		return fmt.Sprintf("error (not a *sqlerr.Error): %v\n", err)
	}
	s := fmt.Sprintf("error (%s)", e.Code)
	if e.Pos.IsValid() {
		s += " at " + sqlerr.Offset(e.Pos, stmtPos).String()
	}
	s += ": " + e.Message + "\n"
	if e.Hint != "" {
		s += "hint: " + e.Hint + "\n"
	}
	return s
}

// formatRows prints the columns, the key and the rows of a result.
func formatRows(rs *cli.RowStream, rows []types.Row, mode string) string {
	var b strings.Builder
	var cols []string
	for _, f := range rs.Schema.Fields {
		cols = append(cols, f.Name+" "+f.Type.String())
	}
	fmt.Fprintf(&b, "columns: %s\n", strings.Join(cols, ", "))
	if len(rs.Key) > 0 {
		var keys []string
		for _, k := range rs.Key {
			keys = append(keys, rs.Schema.Fields[k].Name)
		}
		fmt.Fprintf(&b, "key: %s\n", strings.Join(keys, ", "))
	}
	switch {
	case rs.Static:
		for _, r := range rows {
			b.WriteString(formatValues(rs.Schema, r.Values) + "\n")
		}
	case mode == "changelog":
		for _, r := range rows {
			b.WriteString(r.Kind.String() + formatValues(rs.Schema, r.Values) + "\n")
		}
	default:
		table := materialize(rs, rows)
		if len(table) == 0 {
			b.WriteString("(empty)\n")
		}
		for _, cells := range table {
			b.WriteString("[" + strings.Join(cells, ", ") + "]\n")
		}
	}
	return b.String()
}

// formatCells formats the values of a row with the schema's column types;
// missing values (a key-only delete) are NULL.
func formatCells(s *types.Schema, vals []types.Value) []string {
	out := make([]string, s.Len())
	for i, f := range s.Fields {
		v := types.Null
		if i < len(vals) {
			v = vals[i]
		}
		out[i] = types.Format(v, f.Type)
	}
	return out
}

func formatValues(s *types.Schema, vals []types.Value) string {
	return "[" + strings.Join(formatCells(s, vals), ", ") + "]"
}

// materialize applies a changelog to a table and returns its rows' cells,
// sorted: an upsert table by RowStream.Key, or a multiset without a key.
func materialize(rs *cli.RowStream, rows []types.Row) [][]string {
	live := map[string][]string{} // key -> row (upsert)
	count := map[string]int{}     // row -> multiplicity (multiset)
	cellsOf := map[string][]string{}
	for _, r := range rows {
		cells := formatCells(rs.Schema, r.Values)
		row := strings.Join(cells, "\x00")
		add := r.Kind == types.Insert || r.Kind == types.UpdateAfter
		if len(rs.Key) == 0 {
			cellsOf[row] = cells
			if add {
				count[row]++
			} else if count[row] > 0 {
				count[row]--
			}
			continue
		}
		var key []string
		for _, k := range rs.Key {
			key = append(key, cells[k])
		}
		k := strings.Join(key, "\x00")
		if add {
			live[k] = cells
		} else {
			delete(live, k)
		}
	}
	var out [][]string
	for _, cells := range live {
		out = append(out, cells)
	}
	for r, n := range count {
		for range n {
			out = append(out, cellsOf[r])
		}
	}
	slices.SortFunc(out, func(a, b []string) int { return slices.Compare(a, b) })
	return out
}

// expectedPath is where `query expected=NAME:N` finds NAME.expected.
func expectedPath(name string) string {
	return filepath.Join("testdata", "expected", name+".expected")
}
