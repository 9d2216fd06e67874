package aggregate

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestGroupCellLines: a groupCell is two whole 64-byte cache lines, the
// group's fields a change reads (its key, accumulator slice, live,
// mini-batch's mark, had and pre) and its accumulator (issue 24: a group's
// loads are the updating GROUP BY's cache misses; issue 26 item 4: 128 bytes,
// where it was 320 with the key values, replay and TTL fields in it).
func TestGroupCellLines(t *testing.T) {
	var c groupCell
	if n := unsafe.Sizeof(c); n != 128 {
		t.Fatalf("groupCell is %d bytes, want 128 (two 64-byte lines)", n)
	}
}

// TestGroupIndexDenseThenFlat: the updating GROUP BY's typed index finds
// every group put in it, by a map written here, while its keys fit the
// dense table (from 0 up), after a far or negative key moved them to the
// flat index, and again after a reset; a key never put finds nothing.
func TestGroupIndexDenseThenFlat(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 14))
	for round := range 20 {
		x := newGroupIndex(false)
		for pass := range 2 {
			want := map[uint64]*aggGroup{}
			n := 1 + r.IntN(5000)
			for j := range n {
				k := uint64(r.IntN(1 + round*1000))
				if j > n/2 && r.IntN(50) == 0 {
					k = []uint64{1 << 40, ^uint64(r.IntN(9)), denseFree + uint64(r.IntN(denseFree))}[r.IntN(3)]
				}
				if want[k] == nil {
					g := &aggGroup{}
					want[k] = g
					x.put(k, g)
				}
				if g := x.get(k, nil); g != want[k] {
					t.Fatalf("round %d, pass %d: key %d finds %p, want %p (dense %v)", round, pass, k, g, want[k], x.isDense)
				}
				if g := x.get(k+1<<50, nil); g != nil {
					t.Fatalf("round %d: key %d, never put, finds a group", round, k+1<<50)
				}
			}
			for k, g := range want {
				if x.get(k, nil) != g {
					t.Fatalf("round %d, pass %d: key %d lost (dense %v)", round, pass, k, x.isDense)
				}
			}
			x.reset()
			if !x.isDense {
				t.Fatal("reset left the index flat")
			}
		}
	}
}
