package op

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"streamql/executor/vector"
)

// TestJoinResidualAgainstReference: a join with JoinSpec.Residual (an outer
// join's other ON terms, SPEC 2.7) joins only the pairs it accepts, pads a
// row none of whose pairs it accepts, and gives the same output for every
// batch size and interleaving of its inputs, for every kind, regular and
// interval (300 seeds each); the final table equals the nested-loop
// reference (referenceJoinWhere) that applies the same condition to the
// same pairs.
func TestJoinResidualAgainstReference(t *testing.T) {
	// the condition: the two values' last digits differ (values are l<i>, r<i>)
	accept := func(lv, rv string) bool { return lv[len(lv)-1] != rv[len(rv)-1] }
	for _, base := range joinSpecs {
		spec := base
		spec.Residual = func(b *vector.Batch, i int, _ [2]int64) bool {
			return accept(string(b.Cols[2].S[i]), string(b.Cols[len(joinTypes)+2].S[i]))
		}
		t.Run(fmt.Sprintf("%s/interval=%v", spec.Kind, spec.Interval), func(t *testing.T) {
			for seed := range uint64(300) {
				r := rand.New(rand.NewPCG(seed, 29))
				in := [2][]testRow{genSide(r, "l", 1+r.IntN(40), 25), genSide(r, "r", 1+r.IntN(40), 25)}
				var first []string
				for run := range 2 {
					e := runJoin(t, spec, in, 25, rand.New(rand.NewPCG(seed, uint64(run))))
					if run == 0 {
						first = e.out
						got := finalTable(t, e.out)
						want, _, _ := referenceJoinWhere(spec, in, accept)
						if !slices.Equal(got, want) {
							t.Fatalf("seed %d: final table\n%s\nwant\n%s", seed, strings.Join(got, "\n"), strings.Join(want, "\n"))
						}
					} else if !slices.Equal(e.out, first) {
						t.Fatalf("seed %d: another interleaving gave another output (SPEC 2.7: deterministic)", seed)
					}
				}
			}
		})
	}
}
