package table_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/table"
	"github.com/stretchr/testify/require"
)

func setup(t testing.TB, env *table.Environment) {
	ctx := context.Background()
	for _, s := range []string{
		`CREATE TABLE temperature_readings (sensor_id INT, temperature DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)`,
		`INSERT INTO temperature_readings VALUES
		  (1, 20.0, TIMESTAMP '2026-08-01 10:00:00'), (1, 22.0, TIMESTAMP '2026-08-01 10:00:01'),
		  (2, 30.0, TIMESTAMP '2026-08-01 10:00:02'), (1, 21.0, TIMESTAMP '2026-08-01 10:00:03')`,
	} {
		_, err := env.ExecuteSQL(ctx, s)
		require.NoError(t, err)
	}
}

// The Table API call builds the same statement as the seed's SQL and gives
// the same rows.
func TestProcessMatchesSQL(t *testing.T) {
	ctx := context.Background()
	env, err := table.New(ctx)
	require.NoError(t, err)
	defer env.Close()
	setup(t, env)

	call := env.From("temperature_readings").PartitionBy("sensor_id").
		Process(examples.Median, table.Lit(3).As("numTrailing"), table.Lit("median-v1").As("uid"))
	q, err := call.SQL(ctx)
	require.NoError(t, err)
	require.Equal(t, "SELECT * FROM Median(input => TABLE temperature_readings PARTITION BY (sensor_id), numTrailing => 3, uid => 'median-v1')", q)

	res, err := call.Execute(ctx)
	require.NoError(t, err)
	rows, err := res.Collect(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"sensor_id", "temperature", "median"}, res.Schema().Names())
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprint(r.Kind, r.Values))
	}
	require.Equal(t, []string{"+I [1 20.0 20.0]", "+I [1 22.0 21.0]", "+I [2 30.0 30.0]", "+I [1 21.0 21.0]"}, got)

	sqlRes, err := env.ExecuteSQL(ctx, q)
	require.NoError(t, err)
	sqlRows, err := sqlRes.Collect(ctx)
	require.NoError(t, err)
	require.Equal(t, rows, sqlRows)
}

func TestProcessErrors(t *testing.T) {
	ctx := context.Background()
	env, err := table.New(ctx)
	require.NoError(t, err)
	defer env.Close()
	setup(t, env)
	// A set-semantic table argument needs PARTITION BY.
	_, err = env.From("temperature_readings").Process(examples.Median, table.Lit(3).As("numTrailing")).Execute(ctx)
	require.ErrorContains(t, err, "requires a PARTITION BY clause")
	_, err = env.From("nope").PartitionBy("x").Process(examples.Median, table.Lit(3).As("numTrailing")).Execute(ctx)
	require.ErrorContains(t, err, "Table 'nope' not found")
}

func ExampleTable_Process() {
	ctx := context.Background()
	env, _ := table.New(ctx)
	defer env.Close()
	_, _ = env.ExecuteSQL(ctx, "CREATE TABLE clicks (user_id INT, url STRING)")
	_, _ = env.ExecuteSQL(ctx, "INSERT INTO clicks VALUES (1234, '/home'), (1234, '/shop'), (5678, '/home')")
	res, err := env.From("clicks").PartitionBy("user_id").Process(examples.PassThroughEnrich).Execute(ctx)
	if err != nil {
		panic(err)
	}
	rows, _ := res.Collect(ctx)
	fmt.Println(res.Schema().Names())
	for _, r := range rows {
		fmt.Println(r.Kind, r.Values)
	}
	// Output:
	// [user_id url EXPR$0]
	// +I [1234 /home 1]
	// +I [1234 /shop 2]
	// +I [5678 /home 1]
}
