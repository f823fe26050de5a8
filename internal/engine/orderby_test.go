package engine_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// orderTrace counts the rows of each key.
type orderTrace struct {
	N int64 `json:"n"`
}

var orderTraceState = ptf.NewValue[orderTrace]("trace")

// orderByFunctions are registered as "test.<Name>" for testdata/orderby.
var orderByFunctions = map[string]*ptf.Definition{
	// TraceOrder passes every row through with its position in its
	// partition (1, 2, ...) and the function's watermark when it ran.
	"TraceOrder": {
		Doc:    "Passes rows through with their per-key position and the watermark.",
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic, ptf.OptionalPartitionBy, ptf.PassColumnsThrough)},
		Output: "ROW<seq BIGINT, wm TIMESTAMP(3)>",
		State:  []ptf.StateEntry{orderTraceState},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			st := orderTraceState.Get(ctx)
			st.N++
			wm := types.Null
			if w, ok := ctx.CurrentWatermark(); ok {
				wm = types.NewTimestampTime(w)
			}
			ctx.Collect(types.NewInt(st.N), wm)
			return nil
		},
	},
	// RowEcho has row semantics.
	"RowEcho": {
		Doc:    "Echoes rows (row semantics).",
		Args:   []ptf.Arg{ptf.Table("input", ptf.PassColumnsThrough)},
		Output: "ROW<seen BOOLEAN>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			ctx.Collect(types.NewBool(true))
			return nil
		},
	},
}

// TestOrderBy runs the datadriven files in testdata/orderby (ORDER BY of
// table arguments, reference §10) like TestSQL, with the test functions
// above registered besides the examples.
func TestOrderBy(t *testing.T) {
	datadriven.Walk(t, "testdata/orderby", func(t *testing.T, path string) {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, disk := range []bool{true, false} {
			name := map[bool]string{true: "disk", false: "mem"}[disk]
			t.Run(name, func(t *testing.T) {
				if !disk && reopens(string(src)) {
					t.Skip("the file reopens the data directory")
				}
				h := newHarness(t, disk)
				for n, def := range orderByFunctions {
					require.NoError(t, h.reg.Register("test."+n, def))
				}
				datadriven.RunTest(t, path, h.run)
			})
		}
	})
}

// TestOrderByResume: rows buffered by a job are state; a job resumed from
// its last checkpoint flushes them when the watermark passes them.
func TestOrderByResume(t *testing.T) {
	for _, par := range []string{"1", "4"} {
		t.Run("parallelism="+par, func(t *testing.T) {
			reg := ptf.NewRegistry()
			for n, def := range orderByFunctions {
				require.NoError(t, reg.Register("test."+n, def))
			}
			ctx := t.Context()
			e, err := engine.Open(ctx, engine.Options{DataDir: t.TempDir(), Registry: reg})
			require.NoError(t, err)
			t.Cleanup(func() { _ = e.Close() })
			datagenExec(t, e,
				`CREATE FUNCTION TraceOrder AS 'test.TraceOrder'`,
				`CREATE TABLE readings (sensor STRING, ts TIMESTAMP(3), note STRING,
				   WATERMARK FOR ts AS ts - INTERVAL '10' SECOND) DISTRIBUTED BY (sensor) INTO 2 BUCKETS`,
				`CREATE TABLE traced (sensor STRING, ts TIMESTAMP(3), note STRING, seq BIGINT) DISTRIBUTED INTO 1 BUCKETS`,
				`INSERT INTO readings VALUES
				   ('s1', TIMESTAMP '2026-08-01 09:00:05', 'a'),
				   ('s1', TIMESTAMP '2026-08-01 09:00:01', 'b'),
				   ('s2', TIMESTAMP '2026-08-01 09:00:12', 'c'),
				   ('s1', TIMESTAMP '2026-08-01 09:00:03', 'd')`)
			const insert = `INSERT INTO traced SELECT sensor, ts, note, seq
				FROM TraceOrder(input => TABLE readings PARTITION BY sensor ORDER BY ts, uid => 'trace')`
			props := map[string]string{"parallelism.default": par}
			run := func(resume bool) {
				out, err := e.Run(ctx, insert, engine.RunOptions{JobID: "orderby", Resume: resume, Properties: props, CheckpointInterval: 10 * time.Millisecond})
				require.NoError(t, err)
				require.NoError(t, out.Job.Sync(ctx))
				out.Job.Cancel()
				_ = out.Job.Wait()
			}
			run(false)
			// Each bucket's watermark is its own largest ts minus 10 s; the
			// table's is the minimum, 09:00:02 once both have data: b only.
			const query = `SELECT sensor, ts, note, seq FROM traced`
			require.Equal(t, [][]string{{"s1", "2026-08-01 09:00:01.000", "b", "1"}}, datagenExec(t, e, query))

			datagenExec(t, e, `INSERT INTO readings VALUES
				('s1', TIMESTAMP '2026-08-01 09:00:40', 'e'),
				('s2', TIMESTAMP '2026-08-01 09:00:30', 'f'),
				('s1', TIMESTAMP '2026-08-01 09:00:04', 'late')`)
			// Resumed, the watermark starts from none and reaches 09:00:20:
			// the buffered d, a and c come out; f and e wait.
			run(true)
			got := datagenExec(t, e, query)
			require.ElementsMatch(t, [][]string{
				{"s1", "2026-08-01 09:00:01.000", "b", "1"},
				{"s1", "2026-08-01 09:00:03.000", "d", "2"},
				{"s1", "2026-08-01 09:00:05.000", "a", "3"},
				{"s2", "2026-08-01 09:00:12.000", "c", "1"},
			}, got)
		})
	}
}

// TestOrderByParallel: with four subtasks, every key still sees its rows in
// time order.
func TestOrderByParallel(t *testing.T) {
	h := newHarness(t, true)
	for n, def := range orderByFunctions {
		require.NoError(t, h.reg.Register("test."+n, def))
	}
	var values []string
	// 20 keys, 10 rows each with times 9, 8, ..., 0 seconds: all arrive
	// before the watermark (the largest time minus 1 minute) passes them.
	for i := range 10 {
		for k := range 20 {
			values = append(values, fmt.Sprintf("('k%d', TIMESTAMP '2026-08-01 09:00:00' + INTERVAL '%d' SECOND, 'r%d')", k, 9-i, 9-i))
		}
	}
	datagenExec(t, h.eng,
		`SET 'parallelism.default' = '4'`,
		`CREATE FUNCTION TraceOrder AS 'test.TraceOrder'`,
		`CREATE TABLE readings (sensor STRING, ts TIMESTAMP(3), note STRING,
		   WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE) DISTRIBUTED BY (sensor) INTO 4 BUCKETS`,
		`INSERT INTO readings VALUES `+strings.Join(values, ", "))
	rows := datagenExec(t, h.eng, `SELECT sensor, note, seq FROM TraceOrder(input => TABLE readings PARTITION BY sensor ORDER BY ts)`)
	require.Len(t, rows, 200)
	next := map[string]int{}
	for _, r := range rows {
		require.Equal(t, fmt.Sprintf("r%d", next[r[0]]), r[1], "key %s", r[0])
		next[r[0]]++
		require.Equal(t, fmt.Sprint(next[r[0]]), r[2])
	}
}
