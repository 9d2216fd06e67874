// Package editdist is the Levenshtein distance that "did you mean" messages
// use (unknown flags, unknown functions).
package editdist

import "strings"

// Distance is the Levenshtein distance of a and b, in bytes: the fewest
// single-byte insertions, deletions and substitutions that turn a into b.
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

// DidYouMean returns "did you mean 'x'? " for the name x of names nearest to
// key (case-insensitive) when it is at most two edits away (a typo such as
// 'fromat'), else "". The first nearest name wins a tie. Unknown stream options
// (catalog) and unknown SET keys (internal/session) use it.
func DidYouMean(key string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := Distance(strings.ToLower(key), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return "did you mean '" + best + "'? "
}
