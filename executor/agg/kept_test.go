package agg

import (
	"bytes"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// TestKeptAgainstList: MIN, MAX, FIRST_VALUE, LAST_VALUE, LISTAGG and
// COUNT(DISTINCT) of a Retracting spec (SPEC 2.8: they keep the values they
// need), fed random additions and retractions of every scalar type through
// both add paths, give after every step what a list of the values held
// gives: the list appends each added value and a retraction removes the
// earliest equal value it holds (Flink's *WithRetractAggFunction; a value
// not held is ignored); MIN and MAX sort the list, FIRST and LAST are its
// ends, LISTAGG joins its printed values, COUNT(DISTINCT) counts them. The
// bytes each step returns add up to the state's Bytes.
func TestKeptAgainstList(t *testing.T) {
	funcs := []Func{Min, Max, First, Last, ListAgg, Count}
	types := []catalog.Type{catalog.BigInt, catalog.Double, catalog.Varchar, catalog.Boolean, catalog.Timestamp}
	doubles := []float64{math.NaN(), math.Float64frombits(0x7ff8000000000001), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1.5, -2, 1e300}
	rng := rand.New(rand.NewSource(3))
	for round := 0; round < 80; round++ {
		n := 1 + rng.Intn(120)
		distinct := 1 + rng.Intn(12)
		for _, typ := range types {
			v := vector.NewVec(typ)
			for i := 0; i < n; i++ {
				x := rng.Intn(distinct)
				switch typ {
				case catalog.BigInt, catalog.Timestamp:
					v.I[i] = int64(x-distinct/2) * 1e15
					if x == 0 {
						v.I[i] = math.MinInt64
					}
				case catalog.Double:
					v.F[i] = doubles[x%len(doubles)]
				case catalog.Boolean:
					v.B[i] = x%2 == 0
				case catalog.Varchar:
					v.S[i] = []byte(strings.Repeat("ab", x%4) + string(rune('a'+x)))
				}
				v.Null[i] = rng.Intn(10) == 0
			}
			for _, f := range funcs {
				sp := Spec{Func: f, Arg: typ, Sep: "|", Distinct: f == Count, Retracting: true}
				var st State
				var held []int // the reference: rows of v held, in arrival order
				var charged int64
				op := OpOf(&sp)
				got := vector.NewVec(sp.ResultType())
				for step := 0; step < 2*n; step++ {
					i := rng.Intn(n)
					if rng.Intn(3) > 0 || len(held) == 0 {
						if step%2 == 0 {
							charged += st.AddOp(op, &sp, v, i, int64(step))
						} else {
							charged += st.Add(&sp, v, i, int64(step))
						}
						if !v.Null[i] {
							held = append(held, i)
						}
					} else {
						if rng.Intn(2) == 0 {
							i = held[rng.Intn(len(held))]
						}
						charged += st.Retract(&sp, v, i)
						if !v.Null[i] {
							if k := slices.IndexFunc(held, func(j int) bool { return sameValue(typ, v, i, j) }); k >= 0 {
								held = slices.Delete(held, k, k+1)
							}
						}
					}
					got.Arena = got.Arena[:0]
					st.Result(&sp, got, 0)
					want := listResult(&sp, v, held)
					if g := resultText(sp.ResultType(), got); g != want {
						t.Fatalf("round %d %v(%v) step %d: got %s, the list of %d values gives %s", round, f, typ, step, g, len(held), want)
					}
					if charged != st.Bytes() {
						t.Fatalf("round %d %v(%v) step %d: steps charged %d bytes, the state holds %d", round, f, typ, step, charged, st.Bytes())
					}
				}
			}
		}
	}
}

// sameValue: rows i and j of v hold one value as grouping compares (DOUBLE:
// every NaN one value, -0.0 apart from 0.0), written apart from keptKey.
func sameValue(t catalog.Type, v *vector.Vec, i, j int) bool {
	switch t {
	case catalog.Double:
		a, b := v.F[i], v.F[j]
		if math.IsNaN(a) || math.IsNaN(b) {
			return math.IsNaN(a) && math.IsNaN(b)
		}
		return a == b && math.Signbit(a) == math.Signbit(b)
	case catalog.Boolean:
		return v.B[i] == v.B[j]
	case catalog.Varchar:
		return bytes.Equal(v.S[i], v.S[j])
	}
	return v.I[i] == v.I[j]
}

// less orders as SPEC 2.4's MIN and MAX (DOUBLE: Java's Double.compare).
func less(t catalog.Type, v *vector.Vec, i, j int) bool {
	switch t {
	case catalog.Double:
		a, b := v.F[i], v.F[j]
		switch {
		case math.IsNaN(a):
			return false
		case math.IsNaN(b):
			return true
		case a == b:
			return math.Signbit(a) && !math.Signbit(b)
		}
		return a < b
	case catalog.Boolean:
		return !v.B[i] && v.B[j]
	case catalog.Varchar:
		return bytes.Compare(v.S[i], v.S[j]) < 0
	}
	return v.I[i] < v.I[j]
}

func listResult(sp *Spec, v *vector.Vec, held []int) string {
	if sp.Func == Count {
		var ds []int
		for _, i := range held {
			if !slices.ContainsFunc(ds, func(j int) bool { return sameValue(sp.Arg, v, i, j) }) {
				ds = append(ds, i)
			}
		}
		return strconv.Itoa(len(ds))
	}
	if len(held) == 0 {
		return "NULL"
	}
	one := func(i int) string { return string(vector.AppendValue(nil, sp.Arg, v, i)) }
	switch sp.Func {
	case Min, Max:
		best := held[0]
		for _, i := range held[1:] {
			if sp.Func == Min && less(sp.Arg, v, i, best) || sp.Func == Max && less(sp.Arg, v, best, i) {
				best = i
			}
		}
		return one(best)
	case First:
		return one(held[0])
	case Last:
		return one(held[len(held)-1])
	}
	var parts []string
	for _, i := range held {
		parts = append(parts, one(i))
	}
	return strings.Join(parts, "|")
}

func resultText(t catalog.Type, v *vector.Vec) string {
	if v.Null[0] {
		return "NULL"
	}
	return string(vector.AppendValue(nil, t, v, 0))
}
