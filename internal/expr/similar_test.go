package expr

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSimilarTo checks the translation of SIMILAR TO patterns (Calcite's
// Like.sqlToRegexSimilar) by what they match.
func TestSimilarTo(t *testing.T) {
	for _, c := range []struct {
		pat  string
		esc  rune
		s    string
		want bool
	}{
		{"abc", 0, "abc", true},
		{"abc", 0, "abcd", false}, // the whole string
		{"a%", 0, "a\nb", true},   // % crosses lines
		{"a_c", 0, "abc", true},
		{"a_c", 0, "ac", false},
		{"(ab|cd)+", 0, "abcdab", true},
		{"a{2,3}", 0, "aaaa", false},
		{"a?b*", 0, "bbb", true},
		{"[a-c]+", 0, "cab", true},
		{"[^a-c]", 0, "d", true},
		{"[[:DIGIT:]]+x", 0, "42x", true},
		{"[[:UPPER:]][[:LOWER:]]*", 0, "Hello", true},
		{"a.c", 0, "axc", true}, // '.' passes through, as in Calcite
		{"1$", 0, "1$", true},
		{`a\b`, 0, `a\b`, true},
		{"100!%", '!', "100%", true},
		{"100!%", '!', "1000", false},
		{"a!!b", '!', "a!b", true},
		{"[a!-]+", '!', "a-a", true},
	} {
		re, err := compileSimilar(c.pat, c.esc)
		require.NoError(t, err, c.pat)
		require.Equal(t, c.want, re.MatchString(c.s), "%q SIMILAR TO %q (regex %s)", c.s, c.pat, re)
	}
	for _, c := range []struct {
		pat string
		esc rune
	}{{"a]", 0}, {"[ab", 0}, {"[[:FOO:]]", 0}, {"ab!", '!'}, {"a!b", '!'}, {"[a%]", 0}} {
		_, err := compileSimilar(c.pat, c.esc)
		require.Error(t, err, c.pat)
	}
}
