package table_test

import (
	"os"
	"testing"

	"github.com/eddy-sql/eddy/internal/docexample"
	"github.com/stretchr/testify/require"
)

// TestDocExamples checks that every Go block of docs/writing-functions.md
// marked <!-- example: ExampleX --> is a run of lines of that Example in
// example_test.go, so that the documentation shows code CI runs.
func TestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/writing-functions.md")
	require.NoError(t, err)
	src, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	r, err := docexample.Check(doc, src, "table/example_test.go", "example")
	require.NoError(t, err)
	require.GreaterOrEqual(t, r.Blocks, 7, "the Table API section shows the examples")
	require.Empty(t, r.Problems, "docs/writing-functions.md")
	require.Empty(t, r.Unshown, "examples not shown in docs/writing-functions.md")
}
