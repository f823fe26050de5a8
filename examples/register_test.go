package examples_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/eddy-sql/eddy/examples"
	"github.com/eddy-sql/eddy/ptf"
	"github.com/stretchr/testify/require"
)

var seedNames = []string{
	"OrderStatusTracker", "ThresholdFilter", "Median", "InactivityAlert", "TtlCountdown",
	"MtControlStream", "PassThroughEnrich", "ChangelogAuditor", "RunningMax",
	"IdleAlert", // not in the seed: processing-time timers, an Eddy extension
}

// TestRegister: every seed function is registered as examples.<Name>, once.
func TestRegister(t *testing.T) {
	r := ptf.NewRegistry()
	require.NoError(t, examples.Register(r))
	var want []string
	for _, n := range seedNames {
		want = append(want, "examples."+n)
		def, ok := r.Lookup("examples." + n)
		require.True(t, ok, n)
		require.Same(t, examples.All()[n], def, n)
		require.NotEmpty(t, def.Doc, n)
	}
	require.ElementsMatch(t, want, r.IDs())
	require.ErrorContains(t, examples.Register(r), "already registered")
}

var camel = regexp.MustCompile(`([a-z])([A-Z])`)

// TestEveryExampleHasTestdata: each example has a script in testdata/ that
// starts a harness on it.
func TestEveryExampleHasTestdata(t *testing.T) {
	for name := range examples.All() {
		file := strings.ToLower(camel.ReplaceAllString(name, "${1}_$2")) + ".txt"
		b, err := os.ReadFile(filepath.Join("testdata", file))
		require.NoError(t, err, name)
		require.Contains(t, string(b), "new fn="+name+"\n", file)
	}
}
