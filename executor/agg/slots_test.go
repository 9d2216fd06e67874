package agg

import (
	"math/rand"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// TestPackedCountsAgainstBatch: an aggregate's calls through a Layout (its
// counts packed three to a State, issue 24) give the results of the batch
// reference (batch, TestLayoutsAgainstBatch's, written without the
// package; COUNT(*) as the rows not gone), over random call lists: added
// row by row (Layout.Add) then a batch at a time (AddBatch) into two groups
// then merged (Layout.Merge; into one, for the retracting ones), and after a random part of the rows is
// retracted (Layout.Retract, SPEC 2.8). The layout takes one State per
// other call and one per three counts that no MIN or MAX holds.
func TestPackedCountsAgainstBatch(t *testing.T) {
	rng := rand.New(rand.NewSource(24))
	pool := []Spec{{Func: CountStar}, {Func: Count, Arg: catalog.BigInt}, {Func: Count, Arg: catalog.BigInt, Distinct: true},
		{Func: Sum, Arg: catalog.BigInt}, {Func: Min, Arg: catalog.BigInt}, {Func: Max, Arg: catalog.BigInt}}
	for round := 0; round < 200; round++ {
		retracting := rng.Intn(2) == 0
		specs := make([]*Spec, 1+rng.Intn(9))
		counts, others, free := 0, 0, 0
		for c := range specs {
			sp := pool[rng.Intn(len(pool))]
			sp.Retracting = retracting
			if sp.Func == CountStar {
				sp.Arg = 0
			}
			specs[c] = &sp
			if packed(&sp) {
				counts++
			} else {
				others++
			}
			if hosts(&sp) {
				free++
			}
		}
		l := NewLayout(specs)
		if want := others + (max(counts-free, 0)+countLanes-1)/countLanes; l.Slots != want {
			t.Fatalf("round %d: %d States, want %d", round, l.Slots, want)
		}
		n := 1 + rng.Intn(vector.Cap)
		v := vector.NewVec(catalog.BigInt)
		gone := make([]bool, n)
		for i := 0; i < n; i++ {
			v.Null[i] = rng.Intn(5) == 0
			v.I[i] = rng.Int63n(40) - 20
			gone[i] = rng.Intn(3) == 0
		}
		a, b := make([]State, l.Slots), make([]State, l.Slots)
		cut := rng.Intn(n + 1)
		var rows []int32
		var seqs []int64
		var bs [][]State
		into := b // (a retracting state is not merged: SPEC 2.8's updating aggregate is not split)
		if retracting {
			into = a
		}
		for i := cut; i < n; i++ {
			rows, seqs, bs = append(rows, int32(i)), append(seqs, int64(i)), append(bs, into)
		}
		for c, sp := range specs {
			for i := 0; i < cut; i++ {
				l.Add(a, c, OpOf(sp), sp, v, i, int64(i))
			}
			AddBatch(OpOf(sp), sp, v, l.At(c), bs, rows, seqs)
		}
		l.Merge(specs, a, b)
		check := func(how string, gone []bool) {
			for c, sp := range specs {
				var want batchResult
				if sp.Func == CountStar {
					want.i = int64(n)
					for _, g := range gone {
						if g {
							want.i--
						}
					}
				} else {
					want = batch(*sp, v, n, gone)
				}
				out := vector.NewVec(sp.ResultType())
				l.Result(a, c, sp, out, 0)
				if out.Null[0] != want.null || !want.null && out.I[0] != want.i {
					t.Fatalf("round %d, %s call %d %v(distinct=%v retracting=%v): got %d (null %v), want %+v", round, how, c, sp.Func, sp.Distinct, sp.Retracting, out.I[0], out.Null[0], want)
				}
			}
		}
		check("merged", nil)
		if !retracting {
			continue
		}
		for c, sp := range specs {
			for i := 0; i < n; i++ {
				if gone[i] {
					l.Retract(a, c, sp, v, i)
				}
			}
		}
		check("retracted", gone)
	}
}

// TestPackedCountsAllocateNothing: adding, retracting and reading a
// packed count allocates nothing, and a group's States are charged
// FixedBytes per State of counts (the first count in MAX's State).
func TestPackedCountsAllocateNothing(t *testing.T) {
	specs := []*Spec{{Func: CountStar}, {Func: Count, Arg: catalog.BigInt}, {Func: Sum, Arg: catalog.BigInt},
		{Func: CountStar}, {Func: Max, Arg: catalog.Double}, {Func: Count, Arg: catalog.BigInt, Retracting: true}}
	l := NewLayout(specs)
	if l.Slots != 3 {
		t.Fatalf("%d States, want 3", l.Slots)
	}
	if got, want := l.Bytes(specs), 3*FixedBytes; got != want {
		t.Fatalf("charged %d bytes, want %d", got, want)
	}
	if at := l.At(0); at.S != 1 || at.Lane != 2 {
		t.Fatalf("COUNT(*) at %+v, want in MAX's State (1), lane 2", at)
	}
	iv, dv, ov, od := ivec(5, 3, 9), dvec(2.5, -1.0, 7.0), vector.NewVec(catalog.BigInt), vector.NewVec(catalog.Double)
	st := make([]State, l.Slots)
	allocs := testing.AllocsPerRun(50, func() {
		for c, sp := range specs {
			v, out := iv, ov
			if sp.Arg == catalog.Double {
				v, out = dv, od
			}
			l.Add(st, c, OpOf(sp), sp, v, 0, 0)
			l.Add(st, c, OpOf(sp), sp, v, 1, 1)
			if sp.Func != Max { // (a MIN or MAX retracts only when Retracting: kept)
				l.Retract(st, c, sp, v, 1)
			}
			l.Result(st, c, sp, out, 0)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}
