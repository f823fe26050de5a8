package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/eddy-sql/eddy/types"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/render/NAME.golden byte for byte, or
// rewrites the file with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "render", name+".golden")
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	require.Equal(t, string(want), string(got))
}

var orderSchema = types.NewSchema(
	types.Field{Name: "order_id", Type: types.Int.NonNull()},
	types.Field{Name: "status", Type: types.String},
)

func order(kind types.RowKind, id int64, status string) types.Row {
	return types.Row{Kind: kind, Values: []types.Value{types.NewInt(id), types.NewString(status)}}
}

// orderChanges is the changelog of the upsert tutorial's order_status
// table (acceptance/order_status.expected).
var orderChanges = []types.Row{
	order(types.Insert, 101, "PENDING"),
	order(types.Insert, 102, "PENDING"),
	order(types.Insert, 103, "PENDING"),
	order(types.Delete, 102, "PENDING"),
	order(types.UpdateBefore, 101, "PENDING"),
	order(types.UpdateAfter, 101, "SHIPPED"),
	order(types.UpdateBefore, 101, "SHIPPED"),
	order(types.UpdateAfter, 101, "DELIVERED"),
}

// sliceStream returns a bounded stream of rows.
func sliceStream(s *types.Schema, key []int, rows []types.Row) *RowStream {
	i := 0
	return &RowStream{
		Schema: s,
		Key:    key,
		Next: func(ctx context.Context) (types.Row, bool, error) {
			if err := ctx.Err(); err != nil {
				return types.Row{}, false, err
			}
			if i == len(rows) {
				return types.Row{}, false, nil
			}
			i++
			return rows[i-1], true, nil
		},
	}
}

func TestRender(t *testing.T) {
	ctx := t.Context()
	mixed := types.NewSchema(
		types.Field{Name: "id", Type: types.BigInt},
		types.Field{Name: "name", Type: types.String},
		types.Field{Name: "ok", Type: types.Boolean},
		types.Field{Name: "ts", Type: types.Timestamp(3)},
	)
	mixedRows := []types.Row{
		{Values: []types.Value{types.NewInt(1), types.NewString("Zoë 東京"), types.NewBool(true), types.NewTimestampMillis(1785574800123)}},
		{Values: []types.Value{types.NewInt(-20), types.NewString("two\nlines\t!"), types.Null, types.Null}},
	}
	for _, tc := range []struct {
		name string
		mode resultMode
		res  *Result
	}{
		{"changelog", resultChangelog, &Result{Rows: sliceStream(orderSchema, []int{0}, orderChanges)}},
		{"tableau", resultTableau, &Result{Rows: sliceStream(orderSchema, nil, orderChanges[:1])}},
		{"table_upsert", resultTable, &Result{Rows: sliceStream(orderSchema, []int{0}, orderChanges)}},
		{"table_one_row", resultTable, &Result{Rows: sliceStream(orderSchema, nil, orderChanges[:1])}},
		{"table_empty", resultTable, &Result{Rows: sliceStream(orderSchema, []int{0}, orderChanges[3:4])}},
		{"changelog_empty", resultChangelog, &Result{Rows: sliceStream(orderSchema, nil, nil)}},
		{"mixed", resultTable, &Result{Rows: sliceStream(mixed, nil, mixedRows)}},
		{"message", resultTable, &Result{Message: "Execute statement succeeded."}},
		{"static", resultChangelog, &Result{Rows: &RowStream{
			Static: true,
			Schema: types.NewSchema(types.Field{Name: "table name", Type: types.String}),
			Next:   sliceStream(nil, nil, []types.Row{strRow("orders"), strRow("order_status")}).Next,
		}}},
		{"explain", resultTable, &Result{Rows: &RowStream{
			Static: true,
			Schema: types.NewSchema(types.Field{Name: "plan", Type: types.String}),
			Next:   sliceStream(nil, nil, []types.Row{strRow("== Plan ==\nSink\n+- Calc\n   +- Scan\n")}).Next,
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, printResult(ctx, &b, tc.res, tc.mode, false, 0))
			golden(t, tc.name, b.Bytes())
		})
	}
}

func strRow(s string) types.Row { return types.Row{Values: []types.Value{types.NewString(s)}} }

// TestStreamChanges covers the interactive changelog output, whose column
// widths come from the types (INT 11, STRING 30) before any row is seen.
func TestStreamChanges(t *testing.T) {
	long := append([]types.Row{}, orderChanges[:2]...)
	long = append(long, order(types.Insert, 104, "a status that is longer than thirty characters"))
	var b bytes.Buffer
	require.NoError(t, streamChanges(t.Context(), &b, sliceStream(orderSchema, nil, long), false))
	golden(t, "stream", b.Bytes())

	b.Reset()
	require.NoError(t, streamChanges(t.Context(), &b, sliceStream(orderSchema, nil, nil), false))
	require.Equal(t, "Empty set\n", b.String())
}

func TestTruncate(t *testing.T) {
	require.Equal(t, "abc", truncate("abc", 3))
	require.Equal(t, "a...", truncate("abcde", 4))
	require.Equal(t, "東...", truncate("東京都です", 6))
	require.Equal(t, "..", truncate("abc", 2))
}

func TestTypeWidth(t *testing.T) {
	for _, tc := range []struct {
		t    types.Type
		want int
	}{
		{types.TinyInt, 4}, {types.SmallInt, 6}, {types.Int, 11}, {types.BigInt, 20},
		{types.Decimal(10, 4), 12}, {types.Boolean, 5}, {types.Date, 10},
		{types.Time(0), 8}, {types.Time(3), 12},
		{types.Timestamp(3), 23}, {types.TimestampLTZ(0), 19},
		{types.VarChar(5), 5}, {types.String, maxColumnWidth}, {types.Double, maxColumnWidth},
	} {
		require.Equal(t, tc.want, typeWidth(tc.t), "%+v", tc.t)
	}
}
