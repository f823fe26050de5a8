package docexample

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"sort"
	"strings"
)

// Result is what Check found.
type Result struct {
	// Blocks is the number of marked blocks in the document.
	Blocks int
	// Problems lists the blocks that name an unknown example or are not
	// a run of its lines.
	Problems []string
	// Unshown lists the Example functions of the source that no block
	// shows, sorted.
	Unshown []string
}

// Check reads the blocks of doc marked <!-- marker: ExampleX --> and
// compares each with the body of ExampleX in src, a Go file named
// srcName; blank lines and indentation do not count.
func Check(doc, src []byte, srcName, marker string) (Result, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, srcName, src, 0)
	if err != nil {
		return Result{}, fmt.Errorf("parsing %s: %w", srcName, err)
	}
	bodies := map[string][]string{}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && strings.HasPrefix(fn.Name.Name, "Example") && fn.Body != nil {
			start, end := fset.Position(fn.Body.Pos()).Offset, fset.Position(fn.Body.End()).Offset
			bodies[fn.Name.Name] = lines(string(src[start:end]))
		}
	}
	re := regexp.MustCompile("(?s)<!-- " + regexp.QuoteMeta(marker) + ": (\\w+) -->\n```go\n(.*?)```")
	var r Result
	shown := map[string]bool{}
	for _, b := range re.FindAllStringSubmatch(string(doc), -1) {
		r.Blocks++
		name, code := b[1], b[2]
		body, ok := bodies[name]
		switch {
		case !ok:
			r.Problems = append(r.Problems, fmt.Sprintf("a block refers to %s, which is not in %s", name, srcName))
		case !containsRun(body, lines(code)):
			r.Problems = append(r.Problems, fmt.Sprintf("the block marked %s is not part of that example:\n%s", name, code))
		default:
			shown[name] = true
		}
	}
	for name := range bodies {
		if !shown[name] {
			r.Unshown = append(r.Unshown, name)
		}
	}
	sort.Strings(r.Unshown)
	return r, nil
}

// lines returns the non-blank lines of src, trimmed.
func lines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// containsRun reports whether needle occurs in hay as consecutive lines.
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
