package nexmark

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func runCommand(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := Command(&out, &errOut)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	err := cmd.ExecuteContext(t.Context())
	return out.String(), errOut.String(), err
}

func TestBenchCommand(t *testing.T) {
	out, progress, err := runCommand(t, "nexmark", "--queries", "q0,q3,q5,q6", "--events", "20000", "--dir", t.TempDir())
	require.NoError(t, err, out)
	require.Contains(t, progress, "running q0 (Pass through) over 20000 events")
	lines := strings.Split(out, "\n")
	require.Regexp(t, `^query\s+events/s/core\s+events/s\s+p50\s+p99\s+state\s+allocs/event\s+rows$`, lines[0])
	// q0: 18400 bids pass through; q3 joins and keeps state.
	num := `[0-9.]+`
	require.Regexp(t, regexp.MustCompile(`^q0\s+`+num+`k\s+`+num+`k\s+\S+\s+\S+\s+0 B\s+`+num+`\s+18400$`), lines[1])
	require.Regexp(t, regexp.MustCompile(`^q3\s+`+num+`k\s+`+num+`k\s+\S+\s+\S+\s+`+num+` (KiB|MiB)\s+`+num+`\s+\d+$`), lines[2])
	// q5: two HOP window aggregates joined on their windows.
	require.Regexp(t, regexp.MustCompile(`^q5\s+`+num+`k\s+`+num+`k\s+\S+\s+\S+\s+`+num+` (B|KiB|MiB)\s+`+num+`\s+\d+$`), lines[3])
	// q6: the sorted OVER over the updating Top-1 (decision 0035).
	require.Regexp(t, regexp.MustCompile(`^q6\s+`+num+`k\s+`+num+`k\s+\S+\s+\S+\s+`+num+` (KiB|MiB)\s+`+num+`\s+\d+$`), lines[4])
	require.NotContains(t, out, "Not run")
	require.Contains(t, out, "20000 events per query at 10000000 events/s of event time, GOMAXPROCS 1")
}

func TestBenchMeasures(t *testing.T) {
	r, err := Bench(t.Context(), "q2", BenchOptions{Events: 20000, TPS: 10_000_000, Dir: t.TempDir()})
	require.NoError(t, err)
	require.Equal(t, "q2", r.Query)
	require.Positive(t, r.CPU)
	require.Positive(t, r.Wall)
	require.Positive(t, r.Rows)
	require.Positive(t, r.P99)
	require.GreaterOrEqual(t, r.P99, r.P50)
	require.Positive(t, r.Allocs)
	require.Zero(t, r.StateBytes, "a filter keeps no state")
}

func TestCheckCommand(t *testing.T) {
	out, _, err := runCommand(t, "nexmark", "--check", "--queries", "q2,q9,q13", "--events", "5000", "--tps", "1000", "--markdown")
	require.NoError(t, err)
	require.Contains(t, out, "| query | result |\n|---|---|\n")
	require.Regexp(t, `\| q2 \| matches the reference \(\d+ rows\) \|`, out)
	require.Regexp(t, `\| q9 \| matches the reference \(\d+ rows\) \|`, out)
	require.Regexp(t, `\| q13 \| matches the reference \(\d+ rows\) \|`, out)
}

func TestSelectQueries(t *testing.T) {
	qs, err := selectQueries("")
	require.NoError(t, err)
	for _, q := range qs {
		require.True(t, q.Runs())
	}
	qs, err = selectQueries("all")
	require.NoError(t, err)
	require.Len(t, qs, 23)
	qs, err = selectQueries("q1, 7,Q20")
	require.NoError(t, err)
	require.Equal(t, []string{"q1", "q7", "q20"}, []string{qs[0].Name, qs[1].Name, qs[2].Name})
	_, err = selectQueries("q23")
	require.ErrorContains(t, err, `unknown query "q23"`)
	_, _, err = runCommand(t, "nexmark", "--events", "0")
	require.ErrorContains(t, err, "--events and --tps must be at least 1")
}
