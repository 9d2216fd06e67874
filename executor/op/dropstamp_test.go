package op

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"streamql/catalog"
)

// TestJoinDropStampSameRows: a join that does not hold its inputs' stamp
// columns (JoinSpec.DropStamp, the joined rows not carrying them: Pass)
// gives the same joined rows, in the same order, and the same late rows as
// the join that holds them, for interval and regular joins of every kind,
// random inputs, batch sizes and interleavings (the stamp still decides
// lateness, as each row comes); its state holds no stamp (the column all
// NULL, no bytes charged for it) and EachRow gives every stamp as NULL.
func TestJoinDropStampSameRows(t *testing.T) {
	seeds := seedCount(t, 200, 40)
	pass := []bool{true, true, true, false} // (joinTypes' stamp, column 3, not carried)
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 23))
		d := r.Int64N(40)
		in := [2][]testRow{genSide(r, "l", r.IntN(80), d), genSide(r, "r", r.IntN(80), d)}
		interval := seed%2 == 0
		for _, kind := range []JoinKind{Inner, Left, Right, Full} {
			spec := JoinSpec{Kind: kind, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{1, 1}, Stamp: [2]int{3, 3},
				Pass: [2][]bool{pass, pass}, Interval: interval, Lo: -20, Hi: 5}
			if !interval {
				spec.TTL = 25
			}
			name := fmt.Sprintf("seed %d %s (interval %v)", seed, kind, interval)
			held := runJoin(t, spec, in, d, rand.New(rand.NewPCG(uint64(seed), 1)))
			spec.DropStamp = [2]bool{true, true}
			dropped := runJoin(t, spec, in, d, rand.New(rand.NewPCG(uint64(seed), 1)))
			if !slices.Equal(held.out, dropped.out) {
				t.Fatalf("%s: without the stamps held\n%s\nwith them\n%s", name, strings.Join(dropped.out, "\n"), strings.Join(held.out, "\n"))
			}
			for s := range 2 {
				if !slices.Equal(held.late[s], dropped.late[s]) {
					t.Fatalf("%s: input %d's late rows %q without the stamps held, %q with them", name, s, dropped.late[s], held.late[s])
				}
			}
		}
	}
	// the state: no stamp held, 8 bytes a row fewer charged
	most := [2]int64{}
	for x, drop := range []bool{false, true} {
		spec := JoinSpec{Kind: Inner, Types: [2][]catalog.Type{joinTypes, joinTypes}, Keys: [2][]int{{0}, {0}}, Time: [2]int{1, 1}, Stamp: [2]int{3, 3},
			Pass: [2][]bool{pass, pass}, Interval: true, Lo: -1000, Hi: 1000, DropStamp: [2]bool{drop, drop}}
		acct := &countingAccount{}
		j, err := NewJoin(spec, &countEmitter{}, acct)
		if err != nil {
			t.Fatal(err)
		}
		rows := genRows("v", 50, 0, func(i int) (int64, int64) { return int64(i), int64(i) })
		if err := j.Push(t.Context(), 0, batchOf(rows)); err != nil {
			t.Fatal(err)
		}
		most[x] = acct.most
		stamps := 0
		j.EachRow(0, func(_ int64, _ int64, null bool) {
			if !null {
				stamps++
			}
		})
		if held := !j.side[0].rows.cols[3].allNull; held != !drop || (stamps > 0) != !drop {
			t.Fatalf("DropStamp %v: the state holds the stamp column: %v, EachRow gave %d stamps of 50 rows", drop, held, stamps)
		}
	}
	if most[0]-most[1] != 50*8 {
		t.Errorf("50 rows charged %d bytes holding their stamps, %d without: want 400 fewer", most[0], most[1])
	}
}
