package engine_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eddy-sql/eddy/internal/sql/plan"
	"github.com/stretchr/testify/require"
)

const (
	// catalogueFile lists the entries of reference §8.1, embedded so that
	// the check runs without the reference.
	catalogueFile = "testdata/function_catalogue.txt"
	// referenceFile is the Flink SQL reference (../shared/reference from
	// the module root); when present, catalogueFile must be its §8.1.
	referenceFile = "../../../shared/reference/flink-sql-reference.md"
	// syntaxFile runs the operators and special forms; a "# §8 <entry>"
	// line names the entry the next block covers.
	syntaxFile = "testdata/sql/function_syntax"
	// functionsDoc lists, under "## Not supported", what is not.
	functionsDoc = "../../docs/functions.md"
)

type catalogueEntry struct{ family, text string }

// TestFunctionCatalogue checks that every function of the Flink SQL
// reference §8.1 is either supported, as a built-in function Eddy
// resolves by name (SHOW FUNCTIONS; the tests per family are
// internal/expr/testdata/fn_* and testdata/sql/aggregates) or as syntax
// with a block in testdata/sql/function_syntax, or listed in
// docs/functions.md under "Not supported" with a reason. It also checks
// that the embedded list is the reference's (when the reference is there;
// EDDY_REWRITE_CATALOGUE=1 rewrites the list from it) and that the
// not-supported list names nothing Eddy supports.
func TestFunctionCatalogue(t *testing.T) {
	entries := readCatalogue(t)
	if md, err := os.ReadFile(referenceFile); err == nil {
		ref, err := referenceCatalogue(string(md))
		require.NoError(t, err)
		if os.Getenv("EDDY_REWRITE_CATALOGUE") != "" {
			writeCatalogue(t, ref)
			entries = ref
		}
		require.Equal(t, ref, entries, "%s is not the reference's §8.1; EDDY_REWRITE_CATALOGUE=1 rewrites it", catalogueFile)
	} else {
		t.Logf("%s not found (%v): checking the embedded list only", referenceFile, err)
	}
	require.Greater(t, len(entries), 250, "the entries of §8.1")

	syntax := syntaxEntries(t)
	for text := range syntax {
		require.True(t, slices.ContainsFunc(entries, func(e catalogueEntry) bool { return e.text == text }),
			"%s covers %q, which is not an entry of §8.1", syntaxFile, text)
	}
	unsupported, whole := notSupportedItems(t)
	for _, item := range whole {
		name := strings.TrimSuffix(item, "()")
		if !isIdent(name) {
			continue
		}
		_, builtin := plan.LookupBuiltin(name)
		require.False(t, builtin, "%s lists %s as not supported, but it is a built-in function", functionsDoc, item)
	}

	var byName, bySyntax, listed int
	var missing []string
	for _, e := range entries {
		names := entryNames(e.text)
		switch {
		case syntax[e.text]:
			bySyntax++
		case len(names) > 0 && allBuiltin(names):
			byName++
		case listedAsUnsupported(e.text, names, unsupported):
			listed++
		default:
			missing = append(missing, fmt.Sprintf("%s: %s", e.family, e.text))
		}
	}
	t.Logf("§8.1: %d entries; %d built-in by name, %d syntax covered by %s, %d listed as not supported",
		len(entries), byName, bySyntax, syntaxFile, listed)
	require.Empty(t, missing, "§8.1 entries that are neither supported nor listed in %s under \"Not supported\"", functionsDoc)
}

func readCatalogue(t *testing.T) []catalogueEntry {
	raw, err := os.ReadFile(catalogueFile)
	require.NoError(t, err)
	var out []catalogueEntry
	for line := range strings.Lines(string(raw)) {
		line = strings.TrimRight(line, "\n")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fam, text, ok := strings.Cut(line, "\t")
		require.True(t, ok, "%s: %q has no tab", catalogueFile, line)
		out = append(out, catalogueEntry{fam, text})
	}
	return out
}

func writeCatalogue(t *testing.T, entries []catalogueEntry) {
	raw, err := os.ReadFile(catalogueFile)
	require.NoError(t, err)
	var b strings.Builder
	for line := range strings.Lines(string(raw)) {
		if !strings.HasPrefix(line, "#") {
			break
		}
		b.WriteString(line)
	}
	for _, e := range entries {
		b.WriteString(e.family + "\t" + e.text + "\n")
	}
	require.NoError(t, os.WriteFile(catalogueFile, []byte(b.String()), 0o644))
}

var (
	familyLine = regexp.MustCompile(`^- \*\*(.+?)\*\* \((\d+)\): (.*)$`)
	backticked = regexp.MustCompile("`([^`]*)`")
	// funcName is a function name in an entry: an upper-case word before
	// a parenthesis.
	funcName = regexp.MustCompile(`(?:^|[\s(])([A-Z][A-Z0-9_]*)\s*\(`)
)

// referenceCatalogue extracts the entries of §8.1 from the reference:
// each family line lists its entries in backticks, with their count.
func referenceCatalogue(md string) ([]catalogueEntry, error) {
	_, sec, ok := strings.Cut(md, "\n### 8.1")
	if !ok {
		return nil, fmt.Errorf("the reference has no §8.1")
	}
	sec, _, _ = strings.Cut(sec, "\n### ")
	var out []catalogueEntry
	for line := range strings.Lines(sec) {
		m := familyLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		items := backticked.FindAllStringSubmatch(m[3], -1)
		if len(items) != n {
			return nil, fmt.Errorf("§8.1 %s: %d entries, the heading says %d", m[1], len(items), n)
		}
		for _, it := range items {
			out = append(out, catalogueEntry{m[1], it[1]})
		}
	}
	return out, nil
}

// syntaxEntries returns the entries named by "# §8 " lines of syntaxFile.
// The lines name the entries the next test block covers, which must
// succeed: its expected output is not an error.
func syntaxEntries(t *testing.T) map[string]bool {
	raw, err := os.ReadFile(syntaxFile)
	require.NoError(t, err)
	out := map[string]bool{}
	var pending []string
	inOutput, first := false, false
	for line := range strings.Lines(string(raw)) {
		line = strings.TrimRight(line, "\n")
		switch {
		case inOutput && line == "":
			inOutput = false
		case inOutput && first:
			first = false
			require.False(t, len(pending) > 0 && strings.HasPrefix(line, "error"), "%s: the block covering %q fails: %s", syntaxFile, pending, line)
			for _, p := range pending {
				out[p] = true
			}
			pending = nil
		case line == "----":
			inOutput, first = true, true
		default:
			if text, ok := strings.CutPrefix(line, "# §8 "); ok {
				pending = append(pending, text)
			}
		}
	}
	require.Empty(t, pending, "%s ends with §8 lines without a block", syntaxFile)
	return out
}

// notSupportedItems returns the backticked items of the first column of
// the table under "## Not supported" in functionsDoc, and those of the
// rows whose first column has nothing else (a row such as "`PRINTF`
// conversions `%g`" says what part of a function is missing).
func notSupportedItems(t *testing.T) (all, whole []string) {
	raw, err := os.ReadFile(functionsDoc)
	require.NoError(t, err)
	_, sec, ok := strings.Cut(string(raw), "\n## Not supported\n")
	require.True(t, ok, "%s has no \"## Not supported\" section", functionsDoc)
	sec, _, _ = strings.Cut(sec, "\n## ")
	for line := range strings.Lines(sec) {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Function") {
			continue
		}
		first := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")[1]
		var items []string
		for _, m := range backticked.FindAllStringSubmatch(first, -1) {
			items = append(items, strings.ReplaceAll(m[1], "\x00", "|"))
		}
		all = append(all, items...)
		if strings.Trim(backticked.ReplaceAllString(first, ""), " ,") == "" {
			whole = append(whole, items...)
		}
	}
	require.NotEmpty(t, all)
	return all, whole
}

func entryNames(text string) []string {
	var out []string
	for _, m := range funcName.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

func allBuiltin(names []string) bool {
	for _, n := range names {
		if _, ok := plan.LookupBuiltin(n); !ok {
			return false
		}
	}
	return true
}

var identRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

func isIdent(s string) bool { return identRE.MatchString(s) }

// listedAsUnsupported reports whether an item of the not-supported list
// names the entry: a prefix ending in * of one of its function names, one
// of its names (with or without parentheses), or a part of its text.
func listedAsUnsupported(text string, names, items []string) bool {
	for _, it := range items {
		if prefix, ok := strings.CutSuffix(it, "*"); ok && isIdent(strings.TrimSuffix(prefix, "_")) {
			if slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, prefix) }) {
				return true
			}
			continue
		}
		if slices.Contains(names, strings.TrimSuffix(it, "()")) || strings.Contains(text, it) {
			return true
		}
	}
	return false
}
