package table_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/wasm/wasmtest"
	"github.com/eddy-sql/eddy/table"
	"github.com/stretchr/testify/require"
)

// A function uploaded as an artifact runs through Process like a
// compiled-in one, with the same rows.
func TestProcessArtifactFunction(t *testing.T) {
	ctx := context.Background()
	env, err := table.New(ctx, table.WithWasmCacheDir(wasmtest.CacheDir()))
	require.NoError(t, err)
	defer env.Close()
	setup(t, env)

	a, err := env.UploadArtifact(ctx, "examples", wasmtest.Module(t, "./internal/wasm/testdata/guest"))
	require.NoError(t, err)
	require.Equal(t, "ver-1", a.Version)
	require.Contains(t, a.Functions, "examples.Median")
	median, err := env.ArtifactFunction(ctx, a.ID, "examples.Median")
	require.NoError(t, err)

	collect := func(call *table.Table) []string {
		res, err := call.Execute(ctx)
		require.NoError(t, err)
		rows, err := res.Collect(ctx)
		require.NoError(t, err)
		var out []string
		for _, r := range rows {
			out = append(out, fmt.Sprint(r.Kind, r.Values))
		}
		return out
	}
	fromArtifact := env.From("temperature_readings").PartitionBy("sensor_id").Process(median, table.Lit(3).As("numTrailing"))
	q, err := fromArtifact.SQL(ctx)
	require.NoError(t, err)
	require.Equal(t, "SELECT * FROM Median_0(input => TABLE temperature_readings PARTITION BY (sensor_id), numTrailing => 3)", q)
	compiledIn := env.From("temperature_readings").PartitionBy("sensor_id").Process(examples.Median, table.Lit(3).As("numTrailing"))
	require.Equal(t, collect(compiledIn), collect(fromArtifact))

	again, err := env.UploadArtifact(ctx, "examples", wasmtest.Module(t, "./internal/wasm/testdata/guest"))
	require.NoError(t, err)
	require.Equal(t, a.ID, again.ID)
	require.Equal(t, "ver-2", again.Version, "uploading under the same name adds a version")
}
