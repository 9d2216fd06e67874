package source

import (
	"math/rand/v2"
	"slices"
	"testing"

	"streamql/catalog"
	"streamql/executor/records"
	"streamql/executor/vector"
)

// TestDropRows: random batches with the connector's own malformed rows, a
// random set of rows dropped, each replaced by a malformed row. The
// reference walks the batch as it came, row by row: the connector's
// malformed rows before row i, then row i's drop if it is dropped; the kept
// rows stay in order, and each malformed row's Index counts the kept rows
// before it.
func TestDropRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		n := rng.IntN(20)
		b := vector.NewBatch([]catalog.Type{catalog.BigInt})
		b.Pos = make([]int64, vector.Cap)
		for i := range n {
			b.Cols[0].I[i], b.Pos[i] = int64(i), int64(100+i)
		}
		b.N = n
		before := rng.IntN(3)
		var bad []records.BadRow
		for k := range before {
			bad = append(bad, records.BadRow{Reason: "earlier", Line: int64(k)})
		}
		var own []int // the good rows before each of the connector's malformed rows
		for range rng.IntN(5) {
			own = append(own, rng.IntN(n+1))
		}
		slices.Sort(own)
		for k, j := range own {
			bad = append(bad, records.BadRow{Index: j, Reason: "own", Line: int64(k)})
		}
		var keep []int32
		var dropAt []int
		for i := range n {
			if rng.IntN(3) == 0 {
				dropAt = append(dropAt, i)
			} else {
				keep = append(keep, int32(i))
			}
		}
		var drops []records.BadRow
		for d, i := range dropAt {
			drops = append(drops, records.BadRow{Index: i - d, Reason: "drop", Line: int64(d)})
		}
		// the reference
		want := append([]records.BadRow(nil), bad[:before]...)
		var wantAt []int
		kept, a, d := 0, 0, 0
		for i := 0; i <= n; i++ {
			for a < len(own) && own[a] == i {
				want = append(want, records.BadRow{Index: kept, Reason: "own", Line: int64(a)})
				wantAt = append(wantAt, -1)
				a++
			}
			if i == n {
				break
			}
			if d < len(dropAt) && dropAt[d] == i {
				want = append(want, drops[d])
				wantAt = append(wantAt, d)
				d++
			} else {
				kept++
			}
		}
		at := DropRows(b, &bad, before, keep, drops, dropAt, nil)
		same := slices.EqualFunc(bad, want, func(x, y records.BadRow) bool {
			return x.Index == y.Index && x.Reason == y.Reason && x.Line == y.Line
		})
		if !same || !slices.Equal(at, wantAt) {
			t.Fatalf("round %d: malformed %+v, want %+v; at %v, want %v", round, bad, want, at, wantAt)
		}
		if b.N != len(keep) {
			t.Fatalf("round %d: %d rows, want %d", round, b.N, len(keep))
		}
		for k, i := range keep {
			if b.Cols[0].I[k] != int64(i) || b.Pos[k] != int64(100+i) {
				t.Fatalf("round %d: row %d is %d (pos %d), want %d", round, k, b.Cols[0].I[k], b.Pos[k], i)
			}
		}
	}
}
