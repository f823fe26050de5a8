package cli

import (
	"fmt"
	"io"
	"strings"

	v1 "github.com/eddy-sql/eddy/api/v1"
)

// WriteSpecDiff writes how a deployed spec differs from a new one as a
// unified diff, one file per part that differs: the statement's SQL and its
// properties (sorted KEY=VALUE lines).
func WriteSpecDiff(w io.Writer, name string, old, new v1.Spec) {
	a, b := normalizeSQL(old.Statement), normalizeSQL(new.Statement)
	if a != b {
		writeUnifiedDiff(w, name+" statement (deployed)", name+" statement (new)", splitLines(a), splitLines(b))
	}
	pa, pb := sortedPairs(old.Properties), sortedPairs(new.Properties)
	if strings.Join(pa, "\n") != strings.Join(pb, "\n") {
		writeUnifiedDiff(w, name+" properties (deployed)", name+" properties (new)", pa, pb)
	}
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
}

// edit is one line of a line diff: ' ' kept, '-' only in a, '+' only in b.
type edit struct {
	op   byte
	a, b int // line indexes in a and b (the next ones, for insertions and deletions)
	text string
}

// maxDiffCells bounds the LCS table; beyond it the differing middle is
// shown as removed and added wholesale.
const maxDiffCells = 4 << 20

// lineDiff returns the edits that turn a into b: the common prefix and
// suffix, and a longest common subsequence of the middle.
func lineDiff(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []edit
	for i := range pre {
		out = append(out, edit{' ', i, i, a[i]})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > maxDiffCells {
		for i, l := range ma {
			out = append(out, edit{'-', pre + i, pre, l})
		}
		for j, l := range mb {
			out = append(out, edit{'+', pre + len(ma), pre + j, l})
		}
	} else {
		out = append(out, lcsDiff(ma, mb, pre)...)
	}
	for k := range suf {
		i, j := len(a)-suf+k, len(b)-suf+k
		out = append(out, edit{' ', i, j, a[i]})
	}
	return out
}

// lcsDiff diffs a and b (whose first lines are line off of the documents)
// by dynamic programming over the longest common subsequence.
func lcsDiff(a, b []string, off int) []edit {
	n, m := len(a), len(b)
	// l[i][j] is the LCS length of a[i:] and b[j:].
	l := make([][]int32, n+1)
	for i := range l {
		l[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var out []edit
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, edit{' ', off + i, off + j, a[i]})
			i++
			j++
		case j < m && (i == n || l[i][j+1] > l[i+1][j]):
			out = append(out, edit{'+', off + i, off + j, b[j]})
			j++
		default:
			out = append(out, edit{'-', off + i, off + j, a[i]})
			i++
		}
	}
	return out
}

// diffContext is how many unchanged lines surround a change in a hunk.
const diffContext = 3

// writeUnifiedDiff writes the diff of a and b in the unified format.
func writeUnifiedDiff(w io.Writer, nameA, nameB string, a, b []string) {
	edits := lineDiff(a, b)
	fmt.Fprintf(w, "--- %s\n+++ %s\n", nameA, nameB)
	for start := 0; start < len(edits); {
		// Find the next change; the hunk starts diffContext lines before.
		first := start
		for first < len(edits) && edits[first].op == ' ' {
			first++
		}
		if first == len(edits) {
			return
		}
		lo := max(start, first-diffContext)
		// Extend the hunk while the next change is within 2*diffContext.
		hi, keep := first, 0
		for k := first; k < len(edits); k++ {
			if edits[k].op != ' ' {
				hi, keep = k, 0
				continue
			}
			if keep++; keep > 2*diffContext {
				break
			}
		}
		hi = min(len(edits), hi+1+diffContext)
		writeHunk(w, edits[lo:hi])
		start = hi
	}
}

func writeHunk(w io.Writer, h []edit) {
	na, nb := 0, 0
	for _, e := range h {
		if e.op != '+' {
			na++
		}
		if e.op != '-' {
			nb++
		}
	}
	fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(h[0].a, na), hunkRange(h[0].b, nb))
	for _, e := range h {
		fmt.Fprintf(w, "%c%s\n", e.op, e.text)
	}
}

// hunkRange renders "start,count" as diff -u does: 1-based, ",count"
// omitted for 1 and "start-1,0" for an empty range.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}
