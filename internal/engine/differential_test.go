//go:build duckdb

package engine_test

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// The differential test runs random queries over random tables through
// Eddy and through DuckDB and compares the final results as multisets. It
// needs cgo and the duckdb build tag (make differential):
//
//	go test -tags duckdb -run TestDifferential -count=1 ./internal/engine/
//	go test -tags duckdb -run TestDifferential ./internal/engine/ -args -diff.seed=7 -diff.count=5000 -diff.budget=10m
//	go test -tags duckdb -run TestDifferential ./internal/engine/ -args -diff.seed=7 -diff.query=123 -v
var (
	diffSeed   = flag.Uint64("diff.seed", 1, "seed of the data and the queries")
	diffCount  = flag.Int("diff.count", 2000, "number of queries")
	diffBudget = flag.Duration("diff.budget", 120*time.Second, "stop starting new queries after this long")
	diffQuery  = flag.Int("diff.query", -1, "run only the query with this number (to reproduce a failure)")
	diffPar    = flag.Int("diff.parallelism", 1, "Eddy's 'parallelism.default'")
)

// diffMaxUnsupported is the fraction of queries Eddy may reject as
// unsupported before the test fails: the generator is to stay within what
// Eddy supports.
const diffMaxUnsupported = 0.05

func TestDifferential(t *testing.T) {
	ctx := t.Context()
	eng, err := engine.Open(ctx, engine.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, eng.Close()) })
	db, err := sql.Open("duckdb", "")
	require.NoError(t, err)
	db.SetMaxOpenConns(1) // one in-memory database
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	for _, st := range duckPrelude {
		_, err := db.ExecContext(ctx, st)
		require.NoError(t, err, st)
	}
	res, err := eng.Execute(ctx, fmt.Sprintf("SET 'parallelism.default' = '%d'", *diffPar), false)
	require.NoError(t, err)
	closeResult(res)

	data := rand.New(rand.NewPCG(*diffSeed, 0xda7a))
	for _, tb := range diffTables {
		eddySQL, duckSQL := setup(data, tb)
		for _, st := range eddySQL {
			res, err := eng.Execute(ctx, st, false)
			require.NoError(t, err, "eddy: %s", st)
			closeResult(res)
		}
		for _, st := range duckSQL {
			_, err = db.ExecContext(ctx, st)
			require.NoError(t, err, "duckdb: %s", st)
		}
	}

	has := map[string]bool{}
	for name, q := range diffFeatures {
		if _, err := eddyRows(ctx, eng, q); err != nil {
			t.Logf("Eddy cannot run %s yet; left out: %v", name, err)
			continue
		}
		has[name] = true
	}
	start := time.Now()
	var ran, unsupported, duckErrors, nonEmpty, rows int
	reasons := map[string]int{}
	for i := range *diffCount {
		if *diffQuery >= 0 && i != *diffQuery {
			continue
		}
		if time.Since(start) > *diffBudget {
			t.Logf("time budget of %v spent after %d queries", *diffBudget, ran)
			break
		}
		g := &gen{r: rand.New(rand.NewPCG(*diffSeed, uint64(i))), has: has}
		q := g.statement()
		eddySQL, duckSQL := dialects(q)
		ran++
		want, err := duckRows(ctx, db, duckSQL)
		if err != nil {
			// The generator wrote something DuckDB rejects: a generator
			// bug, unless the data make it fail (none should).
			t.Errorf("seed %d query %d: DuckDB fails: %v\n%s", *diffSeed, i, err, duckSQL)
			duckErrors++
			continue
		}
		got, err := eddyRows(ctx, eng, eddySQL)
		if e, ok := sqlerr.As(err); ok && e.Code == sqlerr.Unsupported {
			unsupported++
			reasons[e.Message]++
			continue
		}
		if err != nil {
			t.Fatalf("seed %d query %d: Eddy fails: %v\n%s\n-diff.seed=%d -diff.query=%d",
				*diffSeed, i, err, eddySQL, *diffSeed, i)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d query %d: results differ\n%s\n%s\n-diff.seed=%d -diff.query=%d",
				*diffSeed, i, eddySQL, diffRows(got, want), *diffSeed, i)
		}
		rows += len(got)
		if len(got) > 0 {
			nonEmpty++
		}
		if *diffQuery >= 0 {
			t.Logf("%s\n%d rows:\n%s", eddySQL, len(got), strings.Join(got, "\n"))
		}
	}
	t.Logf("seed %d: %d queries in %v (%d with rows, %d rows in all), %d unsupported by Eddy, %d rejected by DuckDB",
		*diffSeed, ran, time.Since(start).Round(time.Millisecond), nonEmpty, rows, unsupported, duckErrors)
	for msg, n := range reasons {
		t.Logf("  unsupported %d×: %s", n, msg)
	}
	if ran > 20 && float64(unsupported) > diffMaxUnsupported*float64(ran) {
		t.Errorf("%d of %d queries are unsupported by Eddy: more than %.0f%%", unsupported, ran, 100*diffMaxUnsupported)
	}
}

// duckPrelude makes DuckDB's dialect meet Flink's where the generator needs
// it.
var duckPrelude = []string{
	// AVG of an INT is an INT in Flink: the sum divided by the count,
	// truncated toward zero.
	"CREATE MACRO avg_int(x) AS CAST(trunc(avg(x)) AS INTEGER)",
}

// dialects returns a generated query as Eddy and DuckDB are to run it.
func dialects(q string) (eddy, duck string) {
	return strings.ReplaceAll(q, "AVG_INT(", "AVG("), q
}

// eddyRows runs a query in Eddy and returns its final table: the changelog
// materialized (upserted by the result's key, or as a multiset), each row
// rendered by renderEddy, sorted.
func eddyRows(ctx context.Context, eng *engine.Engine, q string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, statementTimeout)
	defer cancel()
	res, err := eng.Execute(ctx, q, false)
	if err != nil {
		return nil, err
	}
	if res.Rows == nil {
		return nil, fmt.Errorf("no rows, only the message %q", res.Message)
	}
	rs := res.Rows
	defer closeStream(rs)
	live := map[string]string{} // key -> row, with a key
	count := map[string]int{}   // row -> multiplicity, without
	for {
		r, ok, err := rs.Next(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		row := renderEddy(rs, r.Values)
		add := r.Kind == types.Insert || r.Kind == types.UpdateAfter
		if len(rs.Key) > 0 {
			var key []string
			for _, k := range rs.Key {
				key = append(key, renderValue(r.Values[k]))
			}
			if k := strings.Join(key, "|"); add {
				live[k] = row
			} else {
				delete(live, k)
			}
			continue
		}
		if add {
			count[row]++
		} else if count[row]--; count[row] < 0 {
			return nil, fmt.Errorf("%s retracts a row that is not there: %s", r.Kind, row)
		}
	}
	var out []string
	for _, row := range live {
		out = append(out, row)
	}
	for row, n := range count {
		for range n {
			out = append(out, row)
		}
	}
	slices.Sort(out)
	return out, nil
}

func renderEddy(rs *cli.RowStream, vals []types.Value) string {
	cells := make([]string, rs.Schema.Len())
	for i := range cells {
		v := types.Null
		if i < len(vals) {
			v = vals[i]
		}
		cells[i] = renderValue(v)
	}
	return "[" + strings.Join(cells, ", ") + "]"
}

func renderValue(v types.Value) string {
	switch v.Kind() {
	case types.KindNull:
		return "NULL"
	case types.KindInt:
		return strconv.FormatInt(v.Int(), 10)
	case types.KindFloat:
		return renderFloat(v.Float())
	case types.KindString:
		return strconv.Quote(v.Str())
	case types.KindBool:
		return strconv.FormatBool(v.Bool())
	case types.KindDecimal:
		return renderDecimal(v.Decimal().Text('f'))
	}
	return "?" + v.String()
}

// renderFloat prints a double rounded to 12 significant digits, so that the
// last bits of a sum in a different order do not count.
func renderFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', 12, 64)
	if s == "-0" {
		s = "0"
	}
	return s
}

// renderDecimal prints a decimal number without trailing zeros.
func renderDecimal(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// duckRows runs a query in DuckDB and returns its rows rendered as
// renderEddy does, sorted.
func duckRows(ctx context.Context, db *sql.DB, q string) ([]string, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out []string
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = renderDuck(v)
		}
		out = append(out, "["+strings.Join(cells, ", ")+"]")
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

func renderDuck(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64:
		return fmt.Sprint(v)
	case *big.Int:
		return v.String()
	case float32:
		return renderFloat(float64(v))
	case float64:
		return renderFloat(v)
	case string:
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	case fmt.Stringer:
		return renderDecimal(v.String())
	}
	return fmt.Sprintf("?%T(%v)", v, v)
}

// diffRows prints both results side by side, marking the rows that only
// one of them has.
func diffRows(eddy, duck []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Eddy (%d rows), DuckDB (%d rows); rows only in one are marked (rows in both only for small results):\n", len(eddy), len(duck))
	i, j := 0, 0
	for i < len(eddy) || j < len(duck) {
		switch {
		case j == len(duck) || i < len(eddy) && eddy[i] < duck[j]:
			fmt.Fprintf(&b, "  only Eddy:   %s\n", eddy[i])
			i++
		case i == len(eddy) || duck[j] < eddy[i]:
			fmt.Fprintf(&b, "  only DuckDB: %s\n", duck[j])
			j++
		default:
			if len(eddy)+len(duck) <= 100 {
				fmt.Fprintf(&b, "  both:        %s\n", eddy[i])
			}
			i++
			j++
		}
	}
	return b.String()
}

// TestDifferentialGenerator checks that DuckDB accepts every query shape of
// the generator, also those that wait for Eddy (diffFeatures).
func TestDifferentialGenerator(t *testing.T) {
	ctx := t.Context()
	db, err := sql.Open("duckdb", "")
	require.NoError(t, err)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	for _, st := range duckPrelude {
		_, err := db.ExecContext(ctx, st)
		require.NoError(t, err, st)
	}
	data := rand.New(rand.NewPCG(*diffSeed, 0xda7a))
	for _, tb := range diffTables {
		_, duckSQL := setup(data, tb)
		for _, st := range duckSQL {
			_, err = db.ExecContext(ctx, st)
			require.NoError(t, err, st)
		}
	}
	has := map[string]bool{}
	for name := range diffFeatures {
		has[name] = true
	}
	for i := range 1000 {
		g := &gen{r: rand.New(rand.NewPCG(*diffSeed, uint64(i))), has: has}
		_, duckSQL := dialects(g.statement())
		_, err := duckRows(ctx, db, duckSQL)
		require.NoError(t, err, "query %d: %s", i, duckSQL)
	}
}
