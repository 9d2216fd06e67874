package agg

import (
	"math"
	"math/rand"
	"testing"
	"unsafe"

	"streamql/catalog"
	"streamql/executor/vector"
)

// TestNarrowStatesAllocateNothing: a State is 32 bytes, and the functions
// whose state is a count, a 128-bit sum or one number (COUNT, COUNT(*), SUM
// and AVG of BIGINT, MIN, MAX, FIRST_VALUE and LAST_VALUE of a number) hold
// no more: their first value allocates nothing (issue 26: a group's state
// proportional to its functions, not one wide struct per call).
func TestNarrowStatesAllocateNothing(t *testing.T) {
	if n := unsafe.Sizeof(State{}); n > 32 {
		t.Fatalf("State is %d bytes, want at most 32", n)
	}
	iv, dv, bv := ivec(5, 3, 9), dvec(2.5, -1.0, 7.0), vector.NewVec(catalog.Boolean)
	bv.B[0] = true
	narrow := []Spec{{Func: CountStar}, {Func: Count, Arg: catalog.Double}, {Func: Sum, Arg: catalog.BigInt},
		{Func: Avg, Arg: catalog.BigInt}, {Func: Min, Arg: catalog.Double}, {Func: Max, Arg: catalog.BigInt},
		{Func: First, Arg: catalog.Timestamp}, {Func: Last, Arg: catalog.Boolean}, {Func: Sum, Arg: catalog.BigInt, Retracting: true}}
	for _, sp := range narrow {
		v := dv
		switch sp.Arg {
		case catalog.BigInt, catalog.Timestamp:
			v = iv
		case catalog.Boolean:
			v = bv
		}
		allocs := testing.AllocsPerRun(50, func() {
			var st State
			st.Add(&sp, v, 0, 0)
			st.AddOp(OpOf(&sp), &sp, v, 1, 1)
			var o State
			o.Add(&sp, v, 2, 2)
			st.Merge(&sp, &o)
			if sp.Func == CountStar || sp.Func == Count || sp.Func == Sum || sp.Func == Avg { // (MIN and MAX retract when Retracting, kept)
				st.Retract(&sp, v, 1)
			}
		})
		if allocs != 0 {
			t.Errorf("%v(%v): %v allocations for a new state", sp.Func, sp.Arg, allocs)
		}
		if StateBytes(&sp) != FixedBytes {
			t.Errorf("%v(%v): charged %d bytes, want %d", sp.Func, sp.Arg, StateBytes(&sp), FixedBytes)
		}
	}
	for _, sp := range []Spec{{Func: Sum, Arg: catalog.Double}, {Func: Min, Arg: catalog.Varchar},
		{Func: Count, Arg: catalog.BigInt, Distinct: true}, {Func: Min, Arg: catalog.BigInt, Retracting: true}} {
		if StateBytes(&sp) <= FixedBytes {
			t.Errorf("%v(%v): charged %d bytes, want its wide part too", sp.Func, sp.Arg, StateBytes(&sp))
		}
	}
}

// TestLayoutsAgainstBatch: the compact layouts (narrow states, the distinct
// words in a sorted list and past listMax in a map, and the wide part kept
// across Reset) give the results of a batch computation over the whole
// input, written here without the package: COUNT, COUNT(DISTINCT) of each
// fixed-width type (SPEC 2.4: DOUBLE as Java's Double.equals, all NaNs one
// value, 0.0 and -0.0 two), SUM of BIGINT, MIN and MAX of BIGINT and DOUBLE;
// each state is split into two merged ones, and reused after Reset; the
// retractable ones (SPEC 2.8) then retract a random part of their rows and
// must give the batch result of the rest.
func TestLayoutsAgainstBatch(t *testing.T) {
	rng := rand.New(rand.NewSource(26))
	type col struct {
		typ catalog.Type
		v   *vector.Vec
	}
	for round := 0; round < 60; round++ {
		n := 1 + rng.Intn(vector.Cap)
		domain := int64([]int{3, 50, 700, 1 << 20}[rng.Intn(4)])
		iv, tv, dv, bv := vector.NewVec(catalog.BigInt), vector.NewVec(catalog.Timestamp), vector.NewVec(catalog.Double), vector.NewVec(catalog.Boolean)
		for i := 0; i < n; i++ {
			if rng.Intn(10) == 0 {
				iv.Null[i], tv.Null[i], dv.Null[i], bv.Null[i] = true, true, true, true
				continue
			}
			x := rng.Int63n(domain) - domain/2
			iv.I[i], tv.I[i], bv.B[i] = x, x*1000, x%2 == 0
			switch rng.Intn(8) {
			case 0:
				dv.F[i] = math.Float64frombits(0x7ff8000000000000 | uint64(rng.Intn(3)))
			case 1:
				dv.F[i] = math.Copysign(0, -1)
			case 2:
				dv.F[i] = math.Inf(1 - 2*rng.Intn(2))
			default:
				dv.F[i] = float64(x) / 4
			}
		}
		gone := make([]bool, n)
		for i := range gone {
			gone[i] = rng.Intn(3) == 0
		}
		cols := []col{{catalog.BigInt, iv}, {catalog.Timestamp, tv}, {catalog.Double, dv}, {catalog.Boolean, bv}}
		for _, c := range cols {
			specs := []Spec{{Func: Count, Arg: c.typ}, {Func: Count, Arg: c.typ, Distinct: true}}
			switch c.typ {
			case catalog.BigInt:
				specs = append(specs, Spec{Func: Sum, Arg: c.typ}, Spec{Func: Min, Arg: c.typ}, Spec{Func: Max, Arg: c.typ},
					Spec{Func: Min, Arg: c.typ, Retracting: true}, Spec{Func: Count, Arg: c.typ, Distinct: true, Retracting: true})
			case catalog.Double:
				specs = append(specs, Spec{Func: Min, Arg: c.typ}, Spec{Func: Max, Arg: c.typ}, Spec{Func: Max, Arg: c.typ, Retracting: true})
			}
			for _, sp := range specs {
				want := batch(sp, c.v, n, nil)
				// split into two states and merged (the parallel aggregate's
				// partials), a state reused after Reset
				var a, b, r State
				cut := rng.Intn(n + 1)
				if !sp.Retracting {
					for i := 0; i < n; i++ {
						r.Add(&sp, c.v, n-1-i, int64(i)) // something else first
					}
					r.Reset()
				}
				for i := 0; i < n; i++ {
					if i < cut {
						a.AddOp(OpOf(&sp), &sp, c.v, i, int64(i))
					} else {
						b.Add(&sp, c.v, i, int64(i))
					}
					r.Add(&sp, c.v, i, int64(i))
				}
				if !sp.Retracting {
					a.Merge(&sp, &b)
					checkBatch(t, round, "merged", sp, &a, want)
				}
				checkBatch(t, round, "reused", sp, &r, want)
				if !sp.Retractable() || (sp.Distinct || sp.Func == Min || sp.Func == Max) && !sp.Retracting {
					continue
				}
				for i := 0; i < n; i++ {
					if gone[i] {
						r.Retract(&sp, c.v, i)
					}
				}
				checkBatch(t, round, "retracted", sp, &r, batch(sp, c.v, n, gone))
			}
		}
	}
}

// batch is the reference: sp over rows 0..n-1 of v but the gone ones, as
// one pass over the rows, no accumulator. ok is false for NULL.
type batchResult struct {
	null bool
	i    int64
	f    float64
}

func batch(sp Spec, v *vector.Vec, n int, gone []bool) batchResult {
	var r batchResult
	count := int64(0)
	distinct := map[[2]uint64]bool{}
	var sum int64
	var best *int
	for i := 0; i < n; i++ {
		if v.Null[i] || gone != nil && gone[i] {
			continue
		}
		count++
		var key [2]uint64
		switch sp.Arg {
		case catalog.Double:
			if x := v.F[i]; x != x {
				key = [2]uint64{1, 0} // every NaN one value
			} else {
				key = [2]uint64{0, math.Float64bits(x)} // 0.0 and -0.0 apart
			}
		case catalog.Boolean:
			if v.B[i] {
				key[1] = 1
			}
		default:
			key[1] = uint64(v.I[i])
		}
		distinct[key] = true
		if sp.Arg == catalog.BigInt {
			sum += v.I[i]
		}
		if (sp.Func == Min || sp.Func == Max) && (best == nil || beats(sp, v, i, *best)) {
			k := i
			best = &k
		}
	}
	switch {
	case sp.Func == Count && sp.Distinct:
		r.i = int64(len(distinct))
	case sp.Func == Count:
		r.i = count
	case count == 0:
		r.null = true
	case sp.Func == Sum:
		r.i = sum
	case sp.Arg == catalog.Double:
		r.f = v.F[*best]
	default:
		r.i = v.I[*best]
	}
	return r
}

// beats reports whether row i of v is strictly below (MIN) or above (MAX)
// row j: integers as numbers, doubles in Java's Double.compare order
// (-Inf < ... < -0.0 < 0.0 < ... < Inf < NaN).
func beats(sp Spec, v *vector.Vec, i, j int) bool {
	rank := func(x float64) (int, float64) {
		switch {
		case x != x:
			return 3, 0
		case x == 0 && math.Signbit(x):
			return 1, 0
		case x == 0:
			return 2, 0
		}
		return 1 + int(math.Copysign(1, x)), x // negatives 0, positives 2
	}
	less := false
	if sp.Arg == catalog.Double {
		ri, xi := rank(v.F[i])
		rj, xj := rank(v.F[j])
		less = ri < rj || ri == rj && xi < xj
		if sp.Func == Max {
			less = rj < ri || ri == rj && xj < xi
		}
		return less
	}
	if sp.Func == Max {
		return v.I[i] > v.I[j]
	}
	return v.I[i] < v.I[j]
}

func checkBatch(t *testing.T, round int, how string, sp Spec, st *State, want batchResult) {
	t.Helper()
	out := vector.NewVec(sp.ResultType())
	st.Result(&sp, out, 0)
	same := out.Null[0] == want.null
	if same && !want.null {
		if out.F != nil && sp.ResultType() == catalog.Double {
			same = sameFloat(out.F[0], want.f)
		} else {
			same = out.I[0] == want.i
		}
	}
	if !same {
		t.Fatalf("round %d, %s %v(%v distinct=%v retracting=%v): got %+v (null %v), want %+v", round, how, sp.Func, sp.Arg, sp.Distinct, sp.Retracting, out, out.Null[0], want)
	}
}
