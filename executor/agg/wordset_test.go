package agg

import (
	"math/rand"
	"sort"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// TestWordSetAgainstMap: the distinct words' set (sorted list of 4- or
// 8-byte words, then a hash table of either) against a Go map: every add's
// answer, the count and the words held, over sets that cross listMax, that
// hold the word 0 (a table's empty slot) and words of 32 bits or more
// arriving before, while and after the set is a table, reused after
// emptied.
func TestWordSetAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewSource(16))
	for round := 0; round < 300; round++ {
		var s wordSet
		for reuse := 0; reuse < 2; reuse++ {
			ref := map[uint64]bool{}
			n := rng.Intn(3 * listMax)
			domain := uint64([]int{2, 40, 600, 5000, 1 << 30}[rng.Intn(5)])
			wideAt := -1 // when the words of 32 bits or more start
			if rng.Intn(2) == 0 {
				wideAt = rng.Intn(n + 1)
			}
			for i := 0; i < n; i++ {
				k := uint64(rng.Int63n(int64(domain)))
				if wideAt >= 0 && i >= wideAt && rng.Intn(3) == 0 {
					k = rng.Uint64() | 1<<40
					if rng.Intn(4) == 0 {
						k = 1 << 32
					}
				}
				if got, want := s.add(k), !ref[k]; got != want {
					t.Fatalf("round %d: add(%d) after %d words said %v, want %v", round, k, len(ref), got, want)
				}
				ref[k] = true
			}
			if s.len() != len(ref) {
				t.Fatalf("round %d: %d words, want %d", round, s.len(), len(ref))
			}
			var got []uint64
			s.each(func(k uint64) { got = append(got, k) })
			if len(got) != len(ref) {
				t.Fatalf("round %d: each gave %d words, want %d", round, len(got), len(ref))
			}
			for _, k := range got {
				if !ref[k] {
					t.Fatalf("round %d: each gave %d, never added", round, k)
				}
				delete(ref, k)
			}
			if !s.hashed {
				if !sort.SliceIsSorted(got, func(i, j int) bool { return got[i] < got[j] }) {
					t.Fatalf("round %d: the list is not sorted", round)
				}
			}
			s = s.emptied()
		}
	}
}

// TestDistinctIdsBytesPerWord pins COUNT(DISTINCT)'s state for issue 26's
// q16 (10,000 groups, eight distinct sets each of about 30 bidder or
// auction ids): the State's wide part at most 128 bytes (it was 272 with
// the DOUBLE sums and LISTAGG's fields inline), a small set's ids in 4
// bytes each plus at most a quarter of room (8 bytes and up to double
// before), and a large set (past listMax) in at most 11 bytes an id (a
// table of 4-byte words at most three quarters and at least three eighths
// full; Go's map took about 24). What Bytes reports is what is held.
func TestDistinctIdsBytesPerWord(t *testing.T) {
	if wideBytes > 128 {
		t.Fatalf("wide part %d bytes, want at most 128", wideBytes)
	}
	sp := Spec{Func: Count, Arg: catalog.BigInt, Distinct: true}
	if got := StateBytes(&sp); got != FixedBytes+wideBytes {
		t.Fatalf("COUNT(DISTINCT) charged %d before its values, want %d", got, FixedBytes+wideBytes)
	}
	rng := rand.New(rand.NewSource(9))
	v := vector.NewVec(catalog.BigInt)
	for _, size := range []int{30, 100, 400, 5000, 40000} {
		var st State
		var grown int64
		for i := 0; i < size; i++ {
			v.I[0] = 1000 + int64(i)*7 + rng.Int63n(7)
			v.Null[0] = false
			grown += st.Add(&sp, v, 0, int64(i))
		}
		if st.Count() != int64(size) {
			t.Fatalf("%d ids: count %d", size, st.Count())
		}
		if grown != st.Bytes() {
			t.Errorf("%d ids: Add reported %d bytes grown, Bytes says %d", size, grown, st.Bytes())
		}
		perWord := float64(st.Bytes()) / float64(size)
		limit := 4*1.25 + 4*4.0/float64(size) // (a list's first room is 4 words)
		if size > listMax {
			limit = 4 / 0.375
		}
		if perWord > limit {
			t.Errorf("%d ids: %.2f bytes an id, want at most %.2f", size, perWord, limit)
		}
	}
}
