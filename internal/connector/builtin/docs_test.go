package builtin_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/eddy-sql/eddy/internal/connector/builtin"
	"github.com/stretchr/testify/require"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the generated part of docs/connectors.md")

const (
	docsPath  = "../../../docs/connectors.md"
	beginMark = "<!-- BEGIN GENERATED: go test ./internal/connector/builtin -rewrite -->\n"
	endMark   = "<!-- END GENERATED -->\n"
)

// TestConnectorDocs keeps the options reference of docs/connectors.md
// equal to the connectors' declarations.
func TestConnectorDocs(t *testing.T) {
	b, err := os.ReadFile(docsPath)
	require.NoError(t, err)
	doc := string(b)
	start := strings.Index(doc, beginMark)
	end := strings.Index(doc, endMark)
	require.True(t, start >= 0 && end > start, "docs/connectors.md needs the markers %q and %q", beginMark, endMark)
	want := builtin.Registry().Markdown()
	have := doc[start+len(beginMark) : end]
	if *rewrite {
		doc = doc[:start+len(beginMark)] + want + doc[end:]
		require.NoError(t, os.WriteFile(docsPath, []byte(doc), 0o644))
		return
	}
	if want != have {
		w, h := strings.Split(want, "\n"), strings.Split(have, "\n")
		i := 0
		for i < len(w) && i < len(h) && w[i] == h[i] {
			i++
		}
		line := func(ls []string) string {
			if i < len(ls) {
				return ls[i]
			}
			return "(end)"
		}
		t.Fatalf("docs/connectors.md is out of date (run go test ./internal/connector/builtin -rewrite); generated line %d:\n%s\ndocs have:\n%s", i+1, line(w), line(h))
	}
}

func TestRegistry(t *testing.T) {
	require.Equal(t, []string{"blackhole", "datagen", "filesystem", "kafka", "nexmark", "print", "upsert-kafka"}, builtin.Registry().Identifiers())
}
