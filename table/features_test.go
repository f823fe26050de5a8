package table_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/table"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// Test-only functions exercising PTF features through SQL.
var (
	// once has no table argument: Eval runs exactly once.
	once = &ptf.Definition{
		Args:   []ptf.Arg{ptf.Scalar("n", "INT")},
		Output: "ROW<msg STRING, n INT>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			ctx.Collect(types.NewString("once"), ctx.Arg("n"))
			return nil
		},
	}
	// typed declares its table's type; rows are cast by position.
	typed = &ptf.Definition{
		Args:   []ptf.Arg{ptf.TypedTable("input", "ROW<k BIGINT, amount DOUBLE>", ptf.SetSemantic)},
		Output: "ROW<doubled DOUBLE, kind STRING>",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			a := in.Row.Get("amount")
			ctx.Collect(types.NewFloat(a.Float()*2), types.NewString(fmt.Sprint(a.Kind() == types.KindFloat)))
			return nil
		},
	}
	// args takes ROW, MAP and INTERVAL scalars and an optional one.
	args = &ptf.Definition{
		Args: []ptf.Arg{
			ptf.Table("input"),
			ptf.Scalar("r", "ROW<a INT, b STRING>"),
			ptf.Scalar("m", "MAP<STRING, INT>"),
			ptf.Scalar("i", "INTERVAL DAY TO SECOND"),
			ptf.OptionalScalar("opt", "STRING"),
		},
		Output: "STRING",
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			r, m, i := ctx.Arg("r"), ctx.Arg("m"), ctx.Arg("i")
			ctx.Collect(types.NewString(fmt.Sprintf("%s|%d|%s|%v|%v",
				r.Fields()[1].Str(), len(m.Map()), i.Duration(), ctx.Arg("opt").IsNull(), in.Row.Get("x"))))
			return nil
		},
	}
	// global counts all rows in one partition (OPTIONAL_PARTITION_BY).
	globalCount = ptf.NewValue[struct{ N int64 }]("count")
	global      = &ptf.Definition{
		Args:   []ptf.Arg{ptf.Table("input", ptf.SetSemantic, ptf.OptionalPartitionBy)},
		Output: "BIGINT",
		State:  []ptf.StateEntry{globalCount},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			s := globalCount.Get(ctx)
			s.N++
			ctx.Collect(types.NewInt(s.N))
			return nil
		},
	}
)

func featureEnv(t *testing.T) *table.Environment {
	ctx := context.Background()
	env, err := table.New(ctx, table.WithFunctions(map[string]*ptf.Definition{
		"test.Once": once, "test.Typed": typed, "test.Args": args, "test.Global": global,
	}))
	require.NoError(t, err)
	t.Cleanup(func() { env.Close() })
	for _, s := range []string{
		"CREATE FUNCTION Once AS 'test.Once'",
		"CREATE FUNCTION Typed AS 'test.Typed'",
		"CREATE FUNCTION Args AS 'test.Args'",
		"CREATE FUNCTION GlobalCount AS 'test.Global'",
		"CREATE TABLE t (k INT, amount INT, x STRING)",
		"INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b'), (1, 30, 'c')",
		"CREATE TABLE amounts (k INT, amount INT)",
		"INSERT INTO amounts VALUES (1, 10), (2, 20), (1, 30)",
	} {
		_, err := env.ExecuteSQL(ctx, s)
		require.NoError(t, err, s)
	}
	return env
}

func rowsOf(t *testing.T, env *table.Environment, sql string) ([]string, []string) {
	ctx := context.Background()
	res, err := env.ExecuteSQL(ctx, sql)
	require.NoError(t, err, sql)
	rows, err := res.Collect(ctx)
	require.NoError(t, err)
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint(r.Kind, r.Values))
	}
	return res.Schema().Names(), out
}

func TestFunctionWithoutTablesRunsOnce(t *testing.T) {
	env := featureEnv(t)
	cols, rows := rowsOf(t, env, "SELECT * FROM Once(n => 7)")
	require.Equal(t, []string{"msg", "n"}, cols)
	require.Equal(t, []string{"+I [once 7]"}, rows)
}

func TestTypedTableArgumentIsCast(t *testing.T) {
	env := featureEnv(t)
	// The INT column amount is cast to DOUBLE for Eval; the key prefix
	// keeps the table's column name.
	cols, rows := rowsOf(t, env, "SELECT * FROM Typed(input => TABLE amounts PARTITION BY k)")
	require.Equal(t, []string{"k", "doubled", "kind"}, cols)
	require.Equal(t, []string{"+I [1 20.0 true]", "+I [2 40.0 true]", "+I [1 60.0 true]"}, rows)
}

func TestTypedTableArgumentMismatch(t *testing.T) {
	env := featureEnv(t)
	_, err := env.ExecuteSQL(context.Background(), "SELECT * FROM Typed(input => TABLE t PARTITION BY k)")
	require.ErrorContains(t, err, "expects a typed table")
}

func TestRowMapIntervalAndOptionalScalars(t *testing.T) {
	env := featureEnv(t)
	_, rows := rowsOf(t, env, "SELECT * FROM Args(input => TABLE t, r => ROW(1, 'bee'), m => MAP['a', 1, 'b', 2], i => INTERVAL '5' SECOND)")
	require.Equal(t, []string{"+I [bee|2|5s|true|a]", "+I [bee|2|5s|true|b]", "+I [bee|2|5s|true|c]"}, rows)
}

func TestOptionalPartitionBy(t *testing.T) {
	env := featureEnv(t)
	cols, rows := rowsOf(t, env, "SELECT * FROM GlobalCount(input => TABLE t)")
	require.Equal(t, []string{"EXPR$0"}, cols)
	require.Equal(t, []string{"+I [1]", "+I [2]", "+I [3]"}, rows)
}

// The same keyed pipeline gives the same per-key output with parallelism
// 1 and 4.
func TestParallelismKeepsPerKeyResults(t *testing.T) {
	ctx := context.Background()
	perKey := func(par string) map[string][]string {
		env, err := table.New(ctx)
		require.NoError(t, err)
		defer env.Close()
		for _, s := range []string{
			"SET 'parallelism.default' = '" + par + "'",
			"CREATE FUNCTION PassThroughEnrich AS 'examples.PassThroughEnrich'",
			"CREATE TABLE clicks (user_id INT, url STRING) DISTRIBUTED BY (user_id) INTO 3 BUCKETS",
		} {
			_, err := env.ExecuteSQL(ctx, s)
			require.NoError(t, err)
		}
		var vals string
		for i := 0; i < 300; i++ {
			if i > 0 {
				vals += ", "
			}
			vals += fmt.Sprintf("(%d, '/p%d')", i%17, i)
		}
		_, err = env.ExecuteSQL(ctx, "INSERT INTO clicks VALUES "+vals)
		require.NoError(t, err)
		_, rows := rowsOf(t, env, "SELECT * FROM PassThroughEnrich(input => TABLE clicks PARTITION BY user_id)")
		require.Len(t, rows, 300)
		m := map[string][]string{}
		res, _ := env.ExecuteSQL(ctx, "SELECT * FROM PassThroughEnrich(input => TABLE clicks PARTITION BY user_id)")
		all, err := res.Collect(ctx)
		require.NoError(t, err)
		for _, r := range all {
			k := r.Values[0].String()
			m[k] = append(m[k], fmt.Sprint(r.Values))
		}
		return m
	}
	require.Equal(t, perKey("1"), perKey("4"))
}

// A call over another call's output runs as a chain in one statement; the
// second call can use the first one's rowtime as its on_time, and its
// timers fire as the watermark passes through the first call.
func TestChainedCalls(t *testing.T) {
	ctx := context.Background()
	env, err := table.New(ctx)
	require.NoError(t, err)
	defer env.Close()
	for _, s := range []string{
		"CREATE FUNCTION PassThroughEnrich AS 'examples.PassThroughEnrich'",
		"CREATE FUNCTION InactivityAlert AS 'examples.InactivityAlert'",
		"CREATE TABLE user_events (user_id INT, event_time TIMESTAMP(3), WATERMARK FOR event_time AS event_time)",
		`INSERT INTO user_events VALUES (1, TIMESTAMP '2026-08-01 09:00:00'), (2, TIMESTAMP '2026-08-01 09:00:10'),
		  (1, TIMESTAMP '2026-08-01 09:00:30'), (1, TIMESTAMP '2026-08-01 09:02:00')`,
	} {
		_, err := env.ExecuteSQL(ctx, s)
		require.NoError(t, err, s)
	}
	cols, rows := rowsOf(t, env, `SELECT * FROM InactivityAlert(
		input => (SELECT user_id, rowtime FROM PassThroughEnrich(input => TABLE user_events PARTITION BY user_id,
		                                                         on_time => DESCRIPTOR(event_time))) PARTITION BY user_id,
		on_time => DESCRIPTOR(rowtime))`)
	require.Equal(t, []string{"user_id", "alert_type", "idle_ms", "rowtime"}, cols)
	require.ElementsMatch(t, []string{"+I [2 inactive 60000 2026-08-01 09:01:10.000]", "+I [1 inactive 60000 2026-08-01 09:03:00.000]"}, rows)

	// Two calls of one function need their own uids.
	_, err = env.ExecuteSQL(ctx, `SELECT * FROM PassThroughEnrich(input => (SELECT * FROM PassThroughEnrich(input => TABLE user_events PARTITION BY user_id)) PARTITION BY user_id)`)
	require.ErrorContains(t, err, "Duplicate unique identifier 'PassThroughEnrich'")
	_, rows = rowsOf(t, env, `SELECT user_id, EXPR$00 FROM PassThroughEnrich(input => (SELECT user_id, EXPR$0 FROM PassThroughEnrich(input => TABLE user_events PARTITION BY user_id, uid => 'first')) PARTITION BY user_id, uid => 'second')`)
	require.ElementsMatch(t, []string{"+I [1 1]", "+I [1 2]", "+I [1 3]", "+I [2 1]"}, rows)
}

// Several co-partitioned tables: each Eval call sees one row of one table,
// keys are shared (state per key across tables), every table's key columns
// lead the output, and more than 20 tables are refused.
func TestManyCoPartitionedTables(t *testing.T) {
	ctx := context.Background()
	seen := ptf.NewValue[struct{ Tables string }]("seen")
	var args []ptf.Arg
	for i := 0; i < 3; i++ {
		args = append(args, ptf.Table(fmt.Sprintf("t%d", i), ptf.SetSemantic))
	}
	three := &ptf.Definition{
		Args: args, Output: "ROW<seen STRING>", State: []ptf.StateEntry{seen},
		Eval: func(ctx *ptf.Context, in ptf.Input) error {
			s := seen.Get(ctx)
			s.Tables += in.Arg
			ctx.Collect(types.NewString(s.Tables))
			return nil
		},
	}
	var many []ptf.Arg
	for i := 0; i < 21; i++ {
		many = append(many, ptf.Table(fmt.Sprintf("t%d", i), ptf.SetSemantic))
	}
	tooMany := &ptf.Definition{Args: many, Output: "BIGINT", Eval: func(*ptf.Context, ptf.Input) error { return nil }}
	env, err := table.New(ctx, table.WithFunctions(map[string]*ptf.Definition{"test.Three": three, "test.TooMany": tooMany}))
	require.NoError(t, err)
	defer env.Close()
	for _, s := range []string{
		"CREATE FUNCTION Three AS 'test.Three'",
		"CREATE FUNCTION TooMany AS 'test.TooMany'",
		"CREATE TABLE a (k INT, v STRING)", "CREATE TABLE b (k INT, w STRING)", "CREATE TABLE c (k INT, x STRING)",
		"INSERT INTO a VALUES (1, 'a1')", "INSERT INTO b VALUES (1, 'b1'), (2, 'b2')", "INSERT INTO c VALUES (1, 'c1')",
	} {
		_, err := env.ExecuteSQL(ctx, s)
		require.NoError(t, err, s)
	}
	cols, rows := rowsOf(t, env, "SELECT * FROM Three(t0 => TABLE a PARTITION BY k, t1 => TABLE b PARTITION BY k, t2 => TABLE c PARTITION BY k)")
	require.Equal(t, []string{"k", "k0", "k1", "seen"}, cols)
	// Inputs interleave in the order the rows were written.
	require.Equal(t, []string{"+I [1 1 1 t0]", "+I [1 1 1 t0t1]", "+I [2 2 2 t1]", "+I [1 1 1 t0t1t2]"}, rows)

	var targs []string
	for i := 0; i < 21; i++ {
		targs = append(targs, fmt.Sprintf("t%d => TABLE a PARTITION BY k", i))
	}
	_, err = env.ExecuteSQL(ctx, "SELECT * FROM TooMany("+strings.Join(targs, ", ")+")")
	require.ErrorContains(t, err, "Unsupported table argument count. Currently, the number of input tables is limited to 20.")
}
