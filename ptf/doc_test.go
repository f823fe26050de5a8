package ptf_test

import (
	"os"
	"testing"

	"github.com/eddy-sql/eddy/internal/docexample"
)

// TestDocExamples checks that every Go block of docs/writing-functions.md
// marked <!-- ptf example: ExampleX --> is a run of lines of that Example
// in example_test.go, so that the documentation shows code CI runs (as
// table's TestDocExamples does for the Table API section).
func TestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/writing-functions.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	r, err := docexample.Check(doc, src, "ptf/example_test.go", "ptf example")
	if err != nil {
		t.Fatal(err)
	}
	if r.Blocks == 0 {
		t.Fatal("docs/writing-functions.md shows no ptf example")
	}
	for _, p := range r.Problems {
		t.Error("docs/writing-functions.md: " + p)
	}
}
