package parser_test

import (
	"path/filepath"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/eddy-sql/eddy/internal/sql/ast"
	"github.com/eddy-sql/eddy/internal/sql/parser"
	"github.com/eddy-sql/eddy/internal/sqlerr"
)

// FuzzParse checks that the parser never panics, that every error is a
// positioned *sqlerr.Error, and that for input that parses, Format output
// parses again and formats to the same text.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob("testdata/parse/*")
	if err != nil {
		f.Fatal(err)
	}
	for _, path := range files {
		datadriven.RunTestAny(f, path, func(_ testing.TB, d *datadriven.TestData) string {
			f.Add(d.Input)
			return d.Expected
		})
	}
	f.Fuzz(func(t *testing.T, src string) {
		stmts, err := parser.ParseScript(src)
		if err != nil {
			e, ok := sqlerr.As(err)
			if !ok || !e.Pos.IsValid() || e.Message == "" {
				t.Fatalf("bad error %#v for %q", err, src)
			}
			return
		}
		for _, s := range stmts {
			out := ast.Format(s)
			again, err := parser.ParseStatement(out)
			if err != nil {
				t.Fatalf("formatted statement does not parse: %v\ninput:  %q\noutput: %q", err, src, out)
			}
			if out2 := ast.Format(again); out2 != out {
				t.Fatalf("format is not stable:\ninput: %q\nfirst:  %q\nsecond: %q", src, out, out2)
			}
		}
		parser.Split(src)
	})
}
