package ptf_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
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
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "example_test.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string][]string{}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && strings.HasPrefix(fn.Name.Name, "Example") {
			bodies[fn.Name.Name] = normLines(string(src[fset.Position(fn.Body.Pos()).Offset:fset.Position(fn.Body.End()).Offset]))
		}
	}
	blocks := regexp.MustCompile("(?s)<!-- ptf example: (\\w+) -->\n```go\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) == 0 {
		t.Fatal("docs/writing-functions.md shows no ptf example")
	}
	for _, b := range blocks {
		name, code := b[1], b[2]
		body, ok := bodies[name]
		if !ok {
			t.Errorf("docs/writing-functions.md refers to %s, which is not in ptf/example_test.go", name)
			continue
		}
		if !containsRun(body, normLines(code)) {
			t.Errorf("the block marked %s is not part of that example:\n%s", name, code)
		}
	}
}

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
