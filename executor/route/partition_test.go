package route

import (
	"math/rand/v2"
	"slices"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// TestPartition checks the router's branchless split of a WHERE's rows
// against the plain one: rows where the WHERE is TRUE (not FALSE, not NULL,
// SPEC 2) go to taken, the others to left, both in input order, after what
// the slices held.
func TestPartition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	w := vector.NewVec(catalog.Boolean)
	for range 2000 {
		n := r.IntN(vector.Cap + 1)
		var rest []int32
		for i := range n {
			w.B[i], w.Null[i] = r.IntN(2) == 0, r.IntN(5) == 0
			if r.IntN(3) > 0 {
				rest = append(rest, int32(i))
			}
		}
		pre := []int32{-1, -2}[:r.IntN(3)]
		wantT, wantL := slices.Clone(pre), []int32(nil)
		for _, i := range rest {
			if w.B[i] && !w.Null[i] {
				wantT = append(wantT, i)
			} else {
				wantL = append(wantL, i)
			}
		}
		taken := append(make([]int32, 0, vector.Cap+2), pre...)
		left := make([]int32, 0, vector.Cap)
		gotT, gotL := partition(taken, left, rest, w)
		if !slices.Equal(gotT, wantT) || !slices.Equal(gotL, wantL) {
			t.Fatalf("rest %v: taken %v left %v, want %v and %v", rest, gotT, gotL, wantT, wantL)
		}
	}
}
