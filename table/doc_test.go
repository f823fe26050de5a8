package table_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// normLines returns the non-blank lines of src, trimmed.
func normLines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func containsRun(hay, needle []string) bool {
	for i := 0; i+len(needle) <= len(hay); i++ {
		ok := true
		for j := range needle {
			if hay[i+j] != needle[j] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// TestDocExamples checks that every Go block of docs/writing-functions.md
// marked <!-- example: ExampleX --> is a run of lines of that Example in
// example_test.go, so that the documentation shows code CI runs.
func TestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/writing-functions.md")
	require.NoError(t, err)
	src, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "example_test.go", src, 0)
	require.NoError(t, err)
	bodies := map[string][]string{}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && strings.HasPrefix(fn.Name.Name, "Example") {
			bodies[fn.Name.Name] = normLines(string(src[fset.Position(fn.Body.Pos()).Offset:fset.Position(fn.Body.End()).Offset]))
		}
	}
	blocks := regexp.MustCompile("(?s)<!-- example: (\\w+) -->\n```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	require.GreaterOrEqual(t, len(blocks), 7, "the Table API section shows the examples")
	shown := map[string]bool{}
	for _, b := range blocks {
		name, code := b[1], b[2]
		body, ok := bodies[name]
		require.True(t, ok, "docs/writing-functions.md refers to %s, which is not in table/example_test.go", name)
		require.True(t, containsRun(body, normLines(code)), "the block marked %s is not part of that example:\n%s", name, code)
		shown[name] = true
	}
	for name := range bodies {
		require.True(t, shown[name], "%s is not shown in docs/writing-functions.md", name)
	}
}
