package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/engine"
	"github.com/eddy-sql/eddy/internal/wasm/wasmtest"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/eddy-sql/eddy/types"
)

const guestPkg = "./internal/wasm/testdata/guest"

// openWasmEngine opens an engine on a fresh data directory whose compiled
// modules go to the tests' shared cache.
func openWasmEngine(t *testing.T, dir string, reg *ptf.Registry) *engine.Engine {
	t.Helper()
	if reg == nil {
		reg = ptf.NewRegistry()
	}
	eng, err := engine.Open(t.Context(), engine.Options{DataDir: dir, Registry: reg, WasmCacheDir: wasmtest.CacheDir()})
	require.NoError(t, err)
	return eng
}

// script runs the statements of src as eddy sql -f does and returns the
// rows of each statement that returned rows, with its stream.
type result struct {
	rs   *cli.RowStream
	rows []types.Row
	mode string
}

func runScript(t *testing.T, eng *engine.Engine, src string) []result {
	t.Helper()
	var out []result
	for _, st := range cli.Split(src) {
		ctx, cancel := context.WithTimeout(t.Context(), statementTimeout)
		res, err := eng.Execute(ctx, st.Text, false)
		require.NoError(t, err, "statement at %v:\n%s", st.Pos, st.Text)
		if res.Rows != nil {
			var rows []types.Row
			for {
				r, ok, err := res.Rows.Next(ctx)
				require.NoError(t, err)
				if !ok {
					break
				}
				rows = append(rows, r)
			}
			res.Rows.Close()
			mode := "table"
			if m := strings.ToLower(eng.Config()[cli.ResultModeKey]); m == "changelog" || m == "tableau" {
				mode = "changelog"
			}
			out = append(out, result{res.Rows, rows, mode})
		}
		cancel()
	}
	return out
}

var createFunction = regexp.MustCompile(`(?is)(CREATE\s+FUNCTION\s+\w+\s+AS\s+'examples\.(\w+)')`)

// exampleModule returns the module of the example function name as `make
// wasm-examples` builds it, build/wasm/<name>.wasm of the repository, or,
// when that was not built, the same package built by the test.
func exampleModule(t *testing.T, name string) []byte {
	t.Helper()
	root, err := wasmtest.Root()
	require.NoError(t, err)
	path := filepath.Join(root, "build", "wasm", name+".wasm")
	if b, err := os.ReadFile(path); err == nil {
		t.Logf("%s from %s", name, path)
		return b
	}
	t.Logf("no %s (make wasm-examples): building ./examples/wasm/%s", path, name)
	return wasmtest.Module(t, "./examples/wasm/"+name)
}

// TestAcceptanceWithArtifacts runs the acceptance scripts with every
// example function loaded from an artifact instead of built in: each
// CREATE FUNCTION Name AS 'examples.Name' gets USING JAR
// 'eddy-artifact://<id>' for an artifact of build/wasm/Name.wasm (the
// function's own module, as make wasm-examples builds it), on an engine
// whose binary has no functions at all. The results must match the
// .expected files as the compiled-in run does.
func TestAcceptanceWithArtifacts(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "acceptance")
	scripts, _ := filepath.Glob(filepath.Join(dir, "*.sql"))
	if len(scripts) == 0 {
		t.Skip("no acceptance scripts beside the checkout (../shared/acceptance): skipped")
	}
	for _, path := range scripts {
		name := strings.TrimSuffix(filepath.Base(path), ".sql")
		t.Run(name, func(t *testing.T) {
			eng := openWasmEngine(t, t.TempDir(), nil)
			defer func() { require.NoError(t, eng.Close()) }()
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			ids := map[string]string{}
			for _, m := range createFunction.FindAllStringSubmatch(string(src), -1) {
				fn := m[2]
				if ids[fn] != "" {
					continue
				}
				a, err := eng.CreateArtifact(t.Context(), fn, "examples."+fn, exampleModule(t, fn))
				require.NoError(t, err)
				require.Equal(t, []string{"examples." + fn}, a.Latest().Functions, "build/wasm/%s.wasm exports", fn)
				ids[fn] = a.ID
			}
			require.NotEmpty(t, ids, "the script binds no example function")
			rewritten := createFunction.ReplaceAllStringFunc(string(src), func(m string) string {
				return m + " USING JAR 'eddy-artifact://" + ids[createFunction.FindStringSubmatch(m)[2]] + "'"
			})
			expected, err := os.ReadFile(filepath.Join(dir, name+".expected"))
			require.NoError(t, err)
			blocks, err := parseExpected(string(expected))
			require.NoError(t, err)
			results := runScript(t, eng, rewritten)
			require.Len(t, results, len(blocks), "one result per # result: block")
			for i, r := range results {
				header, cells := resultCells(r.rs, r.rows, r.mode)
				require.NoError(t, compareBlock(blocks[i], r.mode, header, cells), "result %d of %s", i+1, name)
			}
		})
	}
}

func TestCreateFunctionUsingArtifact(t *testing.T) {
	reg := ptf.NewRegistry()
	require.NoError(t, examples.Register(reg))
	eng := openWasmEngine(t, t.TempDir(), reg)
	defer func() { require.NoError(t, eng.Close()) }()
	a, err := eng.CreateArtifact(t.Context(), "order_status_ptf", "", wasmtest.Module(t, guestPkg))
	require.NoError(t, err)
	require.Contains(t, a.Latest().Functions, "examples.OrderStatusTracker")

	exec := func(sql string) (*cli.Result, error) { return eng.Execute(t.Context(), sql, false) }
	for _, tc := range []struct{ sql, want string }{
		{"CREATE FUNCTION F AS 'examples.OrderStatusTracker' USING JAR 'confluent-artifact://cfa-123456'",
			"USING JAR is not supported for 'confluent-artifact://cfa-123456'"},
		{"CREATE FUNCTION F AS 'examples.OrderStatusTracker' USING JAR 'eddy-artifact://cfa-123456'",
			`Invalid artifact reference 'eddy-artifact://cfa-123456'`},
		{"CREATE FUNCTION F AS 'examples.OrderStatusTracker' USING JAR 'eddy-artifact://art-000000000000'",
			"Artifact art-000000000000 does not exist"},
		{"CREATE FUNCTION F AS 'examples.Nope' USING JAR 'eddy-artifact://" + a.ID + "'",
			"Artifact " + a.ID + " (order_status_ptf) ver-1 has no function 'examples.Nope'"},
		{"CREATE FUNCTION F AS 'examples.OrderStatusTracker' USING JAR 'eddy-artifact://" + a.ID + "/ver-7'",
			"has no version ver-7"},
	} {
		_, err := exec(tc.sql)
		require.Error(t, err, tc.sql)
		require.Contains(t, err.Error(), tc.want)
	}
	_, err = exec("CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker' USING JAR 'eddy-artifact://" + a.ID + "/ver-1'")
	require.NoError(t, err)
	res, err := exec("DESCRIBE FUNCTION OrderStatusTracker")
	require.NoError(t, err)
	var info []string
	for {
		r, ok, err := res.Rows.Next(t.Context())
		require.NoError(t, err)
		if !ok {
			break
		}
		info = append(info, r.Values[0].Str()+"="+r.Values[1].Str())
	}
	require.Contains(t, info, "artifact=eddy-artifact://"+a.ID+"/ver-1")
	require.Contains(t, info, "description=Tracks each order's status from lifecycle events and emits an upsert changelog.")

	// The artifact is used by a running query of the session: not deleted.
	_, err = exec("CREATE TABLE ev (order_id INT NOT NULL, event_type STRING)")
	require.NoError(t, err)
	_, err = exec("INSERT INTO ev VALUES (1, 'PLACED')")
	require.NoError(t, err)
	_, err = exec("CREATE TABLE st (PRIMARY KEY (order_id) NOT ENFORCED) AS SELECT order_id, status FROM OrderStatusTracker(input => TABLE ev PARTITION BY order_id)")
	require.NoError(t, err)
	err = eng.DeleteArtifact(a.ID, nil)
	require.ErrorIs(t, err, engine.ErrArtifactInUse)
	require.ErrorContains(t, err, "used by a running query of this session")
}
