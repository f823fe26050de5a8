package parser_test

import (
	"testing"

	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/parser"
	"github.com/eddy-sql/eddy/types"
	"github.com/stretchr/testify/require"
)

// TestTreeShape checks the fields the planner consumes on a CTAS over a
// PTF call and a CREATE TABLE with every column kind.
func TestTreeShape(t *testing.T) {
	stmts, err := parser.ParseScript(`
CREATE TABLE src (
  id INT NOT NULL,
  rate DECIMAL(10, 4) COMMENT 'r',
  total AS rate * 2,
  ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,
  PRIMARY KEY (id) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) DISTRIBUTED BY HASH(id) INTO 2 BUCKETS WITH ('connector' = 'kafka');
CREATE TABLE sink (PRIMARY KEY (id) NOT ENFORCED) AS
SELECT * FROM Tracker(input => TABLE src PARTITION BY id, on_time => DESCRIPTOR(ts), n => 3);
CREATE FUNCTION f AS 'x' USING JAR 'a.jar'`)
	require.NoError(t, err)
	require.Len(t, stmts, 3)

	src := stmts[0].(*ast.CreateTable)
	require.Equal(t, []string{"src"}, src.Name.Names())
	require.Len(t, src.Columns, 4)
	id, rate, total, ts := src.Columns[0], src.Columns[1], src.Columns[2], src.Columns[3]
	require.Equal(t, ast.PhysicalColumn, id.Kind)
	require.Equal(t, "INT NOT NULL", id.Type.Text)
	require.Equal(t, types.Int.NonNull(), id.Type.Type)
	require.Equal(t, types.Decimal(10, 4), rate.Type.Type)
	require.Equal(t, "r", rate.Comment.Value)
	require.Equal(t, ast.ComputedColumn, total.Kind)
	require.Nil(t, total.Type)
	require.IsType(t, &ast.Binary{}, total.Expr)
	require.Equal(t, ast.MetadataColumn, ts.Kind)
	require.Equal(t, "timestamp", ts.MetadataKey.Value)
	require.True(t, ts.Virtual)
	require.Equal(t, types.TimestampLTZ(3), ts.Type.Type)
	require.Equal(t, "id", src.PrimaryKey.Columns[0].Name)
	require.False(t, src.PrimaryKey.Inline)
	require.Equal(t, "ts", src.Watermark.Column.Name)
	require.Equal(t, "HASH", src.Distribution.Algorithm)
	require.Equal(t, 2, src.Distribution.Buckets)
	require.Equal(t, "connector", src.Options[0].Key.Value)

	out := stmts[1].(*ast.CreateTable)
	require.Empty(t, out.Columns)
	require.NotNil(t, out.PrimaryKey)
	sel := out.Query.(*ast.Select)
	fn := sel.From.(*ast.TableFunc)
	require.Equal(t, "Tracker", fn.Name.Last().Name)
	require.Len(t, fn.Args, 3)
	ta := fn.Args[0].Value.(*ast.TableArg)
	require.Equal(t, "input", fn.Args[0].Name.Name)
	require.Equal(t, "src", ta.Name.Last().Name)
	require.Equal(t, "id", ta.PartitionBy[0].Name)
	require.Equal(t, 55, ta.PartitionBy[0].Pos().Col)
	require.Equal(t, 11, ta.PartitionBy[0].Pos().Line)
	d := fn.Args[1].Value.(*ast.Descriptor)
	require.Equal(t, "ts", d.Columns[0].Name)
	n := fn.Args[2].Value.(*ast.NumericLit)
	require.Equal(t, ast.IntegerNum, n.Kind)

	f := stmts[2].(*ast.CreateFunction)
	require.Equal(t, "x", f.Identifier.Value)
	require.Equal(t, "a.jar", f.Resources[0].Path.Value)
}
