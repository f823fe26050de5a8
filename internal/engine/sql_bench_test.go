package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"

	"github.com/eddy-sql/eddy/internal/connector/datagen"
	"github.com/eddy-sql/eddy/types"
)

// The SQL-core benchmarks: a GROUP BY and a two-way join over 1M events
// already in log tables, measured from submitting the CTAS until the job
// committed everything, each beside a hand-written Go loop doing the same
// work in the same run. Run them with
//
//	go test -run '^$' -bench 'GroupBy|JoinTwo' -benchtime 1x ./internal/engine/
//
// cpu-ns/event is the process CPU time per event (1e9/cpu-ns/event is the
// throughput per core of CPU time).

const sqlBenchKeys = 100_000

// sqlBenchRows are the (k, v) rows of the GROUP BY benchmark, and the
// INSERT statements that load them into table name.
var sqlBenchRows = sync.OnceValue(func() [][2]int64 {
	r := rand.New(rand.NewPCG(7, 11))
	rows := make([][2]int64, pipelineEvents)
	for i := range rows {
		rows[i] = [2]int64{int64(r.IntN(sqlBenchKeys)), int64(r.IntN(1000))}
	}
	return rows
})

func sqlBenchLoad(b *testing.B, e *Engine, table string, rows [][2]int64) {
	b.Helper()
	pipelineExec(b, e, fmt.Sprintf("CREATE TABLE %s (k BIGINT NOT NULL, v BIGINT NOT NULL) DISTRIBUTED INTO 1 BUCKETS", table))
	var sb strings.Builder
	for lo := 0; lo < len(rows); lo += pipelineChunk {
		sb.Reset()
		fmt.Fprintf(&sb, "INSERT INTO %s VALUES ", table)
		for i := lo; i < min(lo+pipelineChunk, len(rows)); i++ {
			if i > lo {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, "(%d,%d)", rows[i][0], rows[i][1])
		}
		pipelineExec(b, e, sb.String())
	}
}

// sqlBenchRun loads the tables, then measures the CTAS and checks the
// result table against want (k -> "k,a,b").
func sqlBenchRun(b *testing.B, events int, load func(e *Engine), ctas string, want map[int64]string) {
	ctx := context.Background()
	m := pipelineMeter{events: events}
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		e := pipelineEngine(ctx, b)
		load(e)
		pipelineSettle(b, e)
		records0 := e.logRecords()
		lsm0 := e.db.Pebble().Metrics()
		m.begin(b)
		// The job's goroutines inherit the label (pprof -tagfocus phase=pipeline).
		pprof.Do(ctx, pprof.Labels("phase", "pipeline"), func(context.Context) {
			pipelineExec(b, e, ctas)
			pipelineExec(b, e, "SHOW TABLES") // syncs: waits until the job committed everything
		})
		m.end(b)
		pipelineLogLSM(b, lsm0, e.db.Pebble().Metrics())
		if testing.Verbose() {
			b.Logf("sink log records: %d", e.logRecords()-records0)
		}
		res, err := e.Execute(ctx, "SELECT * FROM totals", false)
		if err != nil {
			b.Fatal(err)
		}
		got := map[int64]string{}
		for {
			r, ok, err := res.Rows.Next(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if !ok {
				break
			}
			k := r.Values[0].Int()
			if r.Kind.IsRetraction() {
				delete(got, k)
				continue
			}
			got[k] = fmt.Sprintf("%d,%d,%d", k, r.Values[1].Int(), r.Values[2].Int())
		}
		res.Rows.Close()
		if len(got) != len(want) {
			b.Fatalf("result has %d keys, the hand loop %d", len(got), len(want))
		}
		for k, w := range want {
			if got[k] != w {
				b.Fatalf("key %d: engine %q, hand loop %q", k, got[k], w)
			}
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
}

// groupByHand is SELECT k, COUNT(*), SUM(v) GROUP BY k as a map loop; it
// emits the changelog an aggregate emits (a row per input) into out.
func groupByHand(rows [][2]int64, out [][3]int64) (map[int64]string, [][3]int64) {
	type acc struct{ n, s int64 }
	m := make(map[int64]*acc)
	for _, r := range rows {
		a := m[r[0]]
		if a == nil {
			a = &acc{}
			m[r[0]] = a
		}
		a.n++
		a.s += r[1]
		out = append(out, [3]int64{r[0], a.n, a.s})
	}
	want := make(map[int64]string, len(m))
	for k, a := range m {
		want[k] = fmt.Sprintf("%d,%d,%d", k, a.n, a.s)
	}
	return want, out
}

// BenchmarkGroupByEngine: SELECT k, COUNT(*), SUM(v) FROM events GROUP BY
// k over 1M events and 100k keys into an upsert table.
func BenchmarkGroupByEngine(b *testing.B) {
	rows := sqlBenchRows()
	want, _ := groupByHand(rows, nil)
	sqlBenchRun(b, len(rows), func(e *Engine) { sqlBenchLoad(b, e, "events", rows) },
		`CREATE TABLE totals (PRIMARY KEY (k) NOT ENFORCED) DISTRIBUTED INTO 1 BUCKETS AS
SELECT k, COUNT(*) AS n, SUM(v) AS s FROM events GROUP BY k`, want)
}

// BenchmarkGroupByEngineMiniBatch is BenchmarkGroupByEngine with Flink's
// Nexmark mini-batch setting (2 s, 50000 rows): each group emits once per
// bundle instead of once per row.
func BenchmarkGroupByEngineMiniBatch(b *testing.B) {
	rows := sqlBenchRows()
	want, _ := groupByHand(rows, nil)
	sqlBenchRun(b, len(rows), func(e *Engine) {
		sqlBenchLoad(b, e, "events", rows)
		pipelineExec(b, e, "SET 'table.exec.mini-batch.enabled' = 'true'")
		pipelineExec(b, e, "SET 'table.exec.mini-batch.allow-latency' = '2 s'")
		pipelineExec(b, e, "SET 'table.exec.mini-batch.size' = '50000'")
	}, `CREATE TABLE totals (PRIMARY KEY (k) NOT ENFORCED) DISTRIBUTED INTO 1 BUCKETS AS
SELECT k, COUNT(*) AS n, SUM(v) AS s FROM events GROUP BY k`, want)
}

// BenchmarkGroupByHandLoop is the same aggregation as a map loop.
func BenchmarkGroupByHandLoop(b *testing.B) {
	rows := sqlBenchRows()
	var m pipelineMeter
	out := make([][3]int64, 0, len(rows))
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		m.begin(b)
		_, out = groupByHand(rows, out[:0])
		m.end(b)
	}
	m.report(b)
}

// joinBenchRows are two streams of 500k rows each (1M events) whose keys
// are a permutation of 0..499999 each: every key joins once.
var joinBenchRows = sync.OnceValues(func() ([][2]int64, [][2]int64) { return joinRows(pipelineEvents / 2) })

// joinBenchRows1M are two streams of 1M rows each (2M events), as
// joinBenchRows.
var joinBenchRows1M = sync.OnceValues(func() ([][2]int64, [][2]int64) { return joinRows(pipelineEvents) })

func joinRows(n int) ([][2]int64, [][2]int64) {
	r := rand.New(rand.NewPCG(3, 5))
	a, c := make([][2]int64, n), make([][2]int64, n)
	for i, k := range r.Perm(n) {
		a[i] = [2]int64{int64(k), int64(i)}
	}
	for i, k := range r.Perm(n) {
		c[i] = [2]int64{int64(k), int64(2 * i)}
	}
	return a, c
}

func joinHand(a, c [][2]int64, out [][3]int64) (map[int64]string, [][3]int64) {
	left := make(map[int64]int64, len(a))
	right := make(map[int64]int64, len(c))
	// Interleaved arrival, as the engine reads the two logs.
	for i := range a {
		if y, ok := right[a[i][0]]; ok {
			out = append(out, [3]int64{a[i][0], a[i][1], y})
		}
		left[a[i][0]] = a[i][1]
		if x, ok := left[c[i][0]]; ok {
			out = append(out, [3]int64{c[i][0], x, c[i][1]})
		}
		right[c[i][0]] = c[i][1]
	}
	want := make(map[int64]string, len(out))
	for _, o := range out {
		want[o[0]] = fmt.Sprintf("%d,%d,%d", o[0], o[1], o[2])
	}
	return want, out
}

// BenchmarkJoinTwoStreamsEngine: an inner join of two append streams of
// 500k rows each (1M events), and of 1M rows each (2M events: issue 11's
// two 1M-row streams), on a key every row matches once.
func BenchmarkJoinTwoStreamsEngine(b *testing.B) {
	b.Run("500k", func(b *testing.B) { benchmarkJoinTwoStreams(b, joinBenchRows) })
	b.Run("1M", func(b *testing.B) { benchmarkJoinTwoStreams(b, joinBenchRows1M) })
}

// benchmarkJoinTwoStreams runs the join over the streams of rows: one
// event per row of either side.
func benchmarkJoinTwoStreams(b *testing.B, rows func() ([][2]int64, [][2]int64)) {
	a, c := rows()
	want, _ := joinHand(a, c, nil)
	sqlBenchRun(b, len(a)+len(c), func(e *Engine) {
		sqlBenchLoad(b, e, "lefts", a)
		sqlBenchLoad(b, e, "rights", c)
	}, `CREATE TABLE totals (PRIMARY KEY (k) NOT ENFORCED) DISTRIBUTED INTO 1 BUCKETS AS
SELECT l.k, l.v AS x, r.v AS y FROM lefts l JOIN rights r ON l.k = r.k`, want)
}

// BenchmarkJoinTwoStreamsHandLoop is the same join as two maps.
func BenchmarkJoinTwoStreamsHandLoop(b *testing.B) {
	b.Run("500k", func(b *testing.B) { benchmarkJoinHand(b, joinBenchRows) })
	b.Run("1M", func(b *testing.B) { benchmarkJoinHand(b, joinBenchRows1M) })
}

func benchmarkJoinHand(b *testing.B, rows func() ([][2]int64, [][2]int64)) {
	a, c := rows()
	m := pipelineMeter{events: len(a) + len(c)}
	out := make([][3]int64, 0, len(a))
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		m.begin(b)
		_, out = joinHand(a, c, out[:0])
		m.end(b)
	}
	m.report(b)
}

// groupByGenDDL is the generated table of the generated GROUP BY
// benchmarks: 1M rows, k uniform over 100k keys, v over 0..999.
const groupByGenDDL = `CREATE TABLE ev (k BIGINT NOT NULL, v BIGINT NOT NULL) WITH ('connector' = 'datagen',
  'number-of-rows' = '1000000', 'rows-per-second' = '1000000000',
  'fields.k.min' = '0', 'fields.k.max' = '99999', 'fields.v.min' = '0', 'fields.v.max' = '999')`

// BenchmarkGroupByGenerated is the GROUP BY of BenchmarkGroupByEngine as
// the Nexmark suite measures a query: rows from a generated table into a
// blackhole sink, so it costs the query (generating, routing, the
// aggregate with its state and checkpoints) without the logs of a stored
// input and result. The job must read every row and emit the hand loop's
// number of changes.
func BenchmarkGroupByGenerated(b *testing.B) {
	ctx := context.Background()
	want := groupByGenHand(b, nil)
	m := pipelineMeter{events: pipelineEvents}
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		e := pipelineEngine(ctx, b)
		pipelineExec(b, e, groupByGenDDL)
		pipelineExec(b, e, `CREATE TABLE totals (k BIGINT, n BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole')`)
		m.begin(b)
		var out *Outcome
		pprof.Do(ctx, pprof.Labels("phase", "pipeline"), func(context.Context) {
			var err error
			out, err = e.Run(ctx, `INSERT INTO totals SELECT k, COUNT(*), SUM(v) FROM ev GROUP BY k`, RunOptions{JobID: "bench-groupby"})
			if err != nil {
				b.Fatal(err)
			}
			if err := out.Job.Sync(ctx); err != nil {
				b.Fatal(err)
			}
		})
		m.end(b)
		mt := out.Job.Metrics()
		out.Job.Cancel()
		_ = out.Job.Wait()
		if mt.RecordsIn != pipelineEvents || mt.RecordsOut != int64(len(want)) {
			b.Fatalf("the job read %d rows and wrote %d changes; want %d and %d", mt.RecordsIn, mt.RecordsOut, pipelineEvents, len(want))
		}
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
}

// groupByGenHand generates the rows of groupByGenDDL with the connector's
// generator and aggregates them as groupByHand does, appending the
// changes to out.
func groupByGenHand(b *testing.B, out [][3]int64) [][3]int64 {
	g, err := datagen.New("ev", []types.Field{{Name: "k", Type: types.Type{ID: types.TypeBigInt}}, {Name: "v", Type: types.Type{ID: types.TypeBigInt}}},
		map[string]string{"number-of-rows": "1000000", "fields.k.min": "0", "fields.k.max": "99999", "fields.v.min": "0", "fields.v.max": "999"})
	if err != nil {
		b.Fatal(err)
	}
	type acc struct{ n, s int64 }
	m := make(map[int64]*acc)
	var row []types.Value
	for i := range int64(pipelineEvents) {
		row = g.Row(i, row[:0])
		k := row[0].Int()
		a := m[k]
		if a == nil {
			a = &acc{}
			m[k] = a
		}
		a.n++
		a.s += row[1].Int()
		out = append(out, [3]int64{k, a.n, a.s})
	}
	return out
}

// BenchmarkGroupByGeneratedHandLoop is BenchmarkGroupByGenerated as a
// loop over the same generator and a map.
func BenchmarkGroupByGeneratedHandLoop(b *testing.B) {
	var m pipelineMeter
	out := make([][3]int64, 0, pipelineEvents)
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for range b.N {
		m.begin(b)
		out = groupByGenHand(b, out[:0])
		m.end(b)
	}
	m.report(b)
}
