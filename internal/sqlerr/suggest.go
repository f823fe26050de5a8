package sqlerr

// Distance is the Levenshtein distance of two short strings, used to
// suggest a close name in hints ("did you mean 'x'?").
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Closest returns the name of known closest to s by Distance when it is
// fewer than within edits away, else "" (for "did you mean" hints).
func Closest(s string, known []string, within int) string {
	best, bd := "", within
	for _, k := range known {
		if d := Distance(s, k); d < bd {
			best, bd = k, d
		}
	}
	return best
}
