package engine_test

import (
	"os"
	"strings"
	"testing"

	"github.com/eddy-sql/eddy/internal/cli"
	"github.com/eddy-sql/eddy/internal/devkafka"
	"github.com/stretchr/testify/require"
)

// TestConnectorsDoc runs the SQL examples of docs/connectors.md in order in
// one session (paths under /tmp/eddy-docs go to a scratch directory, the
// broker 127.0.0.1:9092 is an in-process Kafka) and checks that what a
// ```text block after an example shows is what its 'print' tables printed.
func TestConnectorsDoc(t *testing.T) {
	raw, err := os.ReadFile("../../docs/connectors.md")
	require.NoError(t, err)
	kc, err := devkafka.Start(t.Context(), devkafka.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { kc.Close() })
	h := newHarness(t, true)
	subst := strings.NewReplacer("/tmp/eddy-docs", t.TempDir(), "127.0.0.1:9092", kc.Bootstrap())
	blocks := fencedBlocks(string(raw))
	ran := 0
	for i, b := range blocks {
		if b.info != "sql" {
			continue
		}
		for _, st := range cli.Split(subst.Replace(b.text)) {
			res, err := h.execute(t, st)
			require.NoError(t, err, "docs/connectors.md example %d: %s", i, st.Text)
			if res.Rows != nil {
				ctx := t.Context()
				for {
					_, ok, err := res.Rows.Next(ctx)
					require.NoError(t, err, st.Text)
					if !ok {
						break
					}
				}
				closeStream(res.Rows)
			}
			ran++
		}
		if i+1 < len(blocks) && blocks[i+1].info == "text" {
			_, err := h.execute(t, cli.Statement{Text: "SHOW CATALOGS"}) // catch up
			require.NoError(t, err)
			require.Equal(t, blocks[i+1].text, h.stdout.take(), "what example %d prints", i)
		}
	}
	require.Greater(t, ran, 10, "the examples ran")
}

type fenced struct{ info, text string }

// fencedBlocks returns the ``` blocks of a markdown text.
func fencedBlocks(md string) []fenced {
	var out []fenced
	var cur *fenced
	for line := range strings.Lines(md) {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "```") {
			if cur == nil {
				cur = &fenced{info: strings.TrimPrefix(trimmed, "```")}
			} else {
				out = append(out, *cur)
				cur = nil
			}
			continue
		}
		if cur != nil {
			cur.text += line
		}
	}
	return out
}
