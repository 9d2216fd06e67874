package agg

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

func dvec(vals ...any) *vector.Vec {
	v := vector.NewVec(catalog.Double)
	for i, x := range vals {
		if x == nil {
			v.Null[i] = true
			continue
		}
		v.F[i] = x.(float64)
	}
	return v
}

func ivec(vals ...any) *vector.Vec {
	v := vector.NewVec(catalog.BigInt)
	for i, x := range vals {
		if x == nil {
			v.Null[i] = true
			continue
		}
		v.I[i] = int64(x.(int))
	}
	return v
}

func run(sp Spec, v *vector.Vec, n int) *vector.Vec {
	var st State
	for i := 0; i < n; i++ {
		st.Add(&sp, v, i, int64(i))
	}
	out := vector.NewVec(sp.ResultType())
	st.Result(&sp, out, 0)
	return out
}

var negZero = math.Copysign(0, -1)

func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// TestDoubleRules: SPEC 2.4's value rules of SUM, AVG, MIN, MAX, VAR over DOUBLE.
func TestDoubleRules(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name string
		f    Func
		vals []any
		want any // float64, or nil for NULL
	}{
		{"sum exact, not 0", Sum, []any{1e100, 1.0, -1e100}, 1.0},
		{"sum 0.1 x3", Sum, []any{0.1, 0.1, 0.1}, 0.30000000000000004},
		{"sum fsum", Sum, []any{0.1, 0.2, 0.3, -0.6}, 5.551115123125783e-17 * 0}, // exact: 0.1+0.2+0.3-0.6 in doubles
		{"sum all -0.0", Sum, []any{negZero, negZero}, negZero},
		{"sum -0.0 and 0.0", Sum, []any{negZero, 0.0}, 0.0},
		{"sum nulls skipped", Sum, []any{nil, 2.5, nil}, 2.5},
		{"sum only nulls", Sum, []any{nil, nil}, nil},
		{"sum nan", Sum, []any{1.0, math.NaN()}, math.NaN()},
		{"sum both inf", Sum, []any{inf, -inf}, math.NaN()},
		{"sum one inf", Sum, []any{inf, 1.0}, inf},
		{"sum overflow", Sum, []any{math.MaxFloat64, math.MaxFloat64}, inf},
		{"sum overflow back", Sum, []any{math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64}, math.MaxFloat64},
		{"avg", Avg, []any{1.0, 2.0}, 1.5},
		{"avg -0.0", Avg, []any{negZero}, negZero},
		{"avg huge", Avg, []any{math.MaxFloat64, math.MaxFloat64}, math.MaxFloat64},
		{"min -0.0 < 0.0", Min, []any{0.0, negZero}, negZero},
		{"max nan", Max, []any{1.0, math.NaN(), inf}, math.NaN()},
		{"min nan last", Min, []any{math.NaN(), 3.0}, 3.0},
		{"var_pop one", VarPop, []any{5.0}, 0.0},
		{"var_samp one", VarSamp, []any{5.0}, nil},
		{"var_samp one nan", VarSamp, []any{math.NaN()}, nil},
		{"var_pop", VarPop, []any{1.0, 2.0, 3.0, 4.0}, 1.25},
		{"var_samp", VarSamp, []any{1.0, 2.0, 3.0, 4.0}, 5.0 / 3.0},
		{"var inf", VarPop, []any{-inf, 1.0}, inf},
		{"stddev_pop", StddevPop, []any{2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}, 2.0},
		{"var cancel", VarPop, []any{1e9 + 1, 1e9 + 2, 1e9 + 3}, 2.0 / 3.0},
		// squares that underflow: the exact variance is 0 or below half the
		// smallest double, so 0.0, never -0.0
		{"var equal tiny", VarPop, []any{1e-200, 1e-200}, 0.0},
		{"var_samp equal tiny", VarSamp, []any{1e-160, 1e-160}, 0.0},
		{"var_samp tiny", VarSamp, []any{1e-200, 2e-200}, 0.0},
		{"stddev_samp tiny", StddevSamp, []any{1e-200, 2e-200}, 0.0},
		{"stddev_pop subnormal", StddevPop, []any{5e-324, 1e-323}, 0.0},
		{"var negative tiny", VarPop, []any{-1e-200, -1e-200, -1e-200}, 0.0},
	}
	cases[2].want = 0.0 // 0.1 + 0.2 + 0.3 - 0.6 over the exact doubles
	{
		r := new(big.Rat)
		for _, x := range []float64{0.1, 0.2, 0.3, -0.6} {
			r.Add(r, new(big.Rat).SetFloat64(x))
		}
		f, _ := r.Float64()
		cases[2].want = f
	}
	for _, c := range cases {
		sp := Spec{Func: c.f, Arg: catalog.Double}
		out := run(sp, dvec(c.vals...), len(c.vals))
		if c.want == nil {
			if !out.Null[0] {
				t.Errorf("%s: got %v, want NULL", c.name, out.F[0])
			}
			continue
		}
		if out.Null[0] || !sameFloat(out.F[0], c.want.(float64)) {
			t.Errorf("%s: got %v (null %v), want %v", c.name, out.F[0], out.Null[0], c.want)
		}
	}
}

// TestBigintRules: exact BIGINT SUM (NULL outside int64, also when it comes back),
// AVG as DOUBLE, COUNT.
func TestBigintRules(t *testing.T) {
	max, min := math.MaxInt64, math.MinInt64
	cases := []struct {
		name string
		f    Func
		vals []any
		want any
	}{
		{"sum", Sum, []any{1, 2, nil, 4}, int64(7)},
		{"sum overflow", Sum, []any{max, 1}, nil},
		{"sum back in range", Sum, []any{max, 1, -1}, int64(max)},
		{"sum min", Sum, []any{min, 0}, int64(min)},
		{"sum under", Sum, []any{min, -1}, nil},
		{"count", Count, []any{1, nil, 3}, int64(2)},
		{"count star", CountStar, []any{1, nil, 3}, int64(3)},
		{"count none", Count, []any{nil}, int64(0)},
		{"avg", Avg, []any{1, 2, 4}, 7.0 / 3.0},
		{"avg big", Avg, []any{max, max}, float64(max)},
		{"min", Min, []any{3, nil, -2}, int64(-2)},
		{"var_pop int", VarPop, []any{max, min}, func() float64 {
			// exact: mean -0.5, deviations ±(2^63 - 0.5)
			d := new(big.Rat).SetFrac(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(1)), big.NewInt(2))
			d.Mul(d, d)
			f, _ := d.Float64()
			return f
		}()},
	}
	for _, c := range cases {
		sp := Spec{Func: c.f, Arg: catalog.BigInt}
		out := run(sp, ivec(c.vals...), len(c.vals))
		switch w := c.want.(type) {
		case nil:
			if !out.Null[0] {
				t.Errorf("%s: got %v, want NULL", c.name, out.I[0])
			}
		case int64:
			if out.Null[0] || out.I[0] != w {
				t.Errorf("%s: got %v (null %v), want %v", c.name, out.I[0], out.Null[0], w)
			}
		case float64:
			if out.Null[0] || !sameFloat(out.F[0], w) {
				t.Errorf("%s: got %v (null %v), want %v", c.name, out.F[0], out.Null[0], w)
			}
		}
	}
}

// TestDistinctAndText: COUNT(DISTINCT) as grouping compares; LISTAGG of printed
// values with its separator; FIRST/LAST in arrival order, also across a merge.
func TestDistinctAndText(t *testing.T) {
	sp := Spec{Func: Count, Arg: catalog.Double, Distinct: true}
	out := run(sp, dvec(math.NaN(), math.Float64frombits(0x7ff8000000000001), 0.0, negZero, 0.0, nil), 6)
	if out.I[0] != 3 {
		t.Errorf("COUNT(DISTINCT): got %d, want 3 (NaN, 0.0, -0.0)", out.I[0])
	}
	la := Spec{Func: ListAgg, Arg: catalog.Double, Sep: " > "}
	out = run(la, dvec(1.0, nil, 1e7, 0.59), 4)
	if got := string(out.S[0]); got != "1.0 > 1.0E7 > 0.59" {
		t.Errorf("LISTAGG: got %q", got)
	}
	// a merge interleaves by arrival number
	var a, b State
	v := dvec(1.0, 2.0, 3.0, 4.0)
	a.Add(&la, v, 0, 0)
	b.Add(&la, v, 1, 1)
	a.Add(&la, v, 2, 2)
	b.Add(&la, v, 3, 3)
	a.Merge(&la, &b)
	res := vector.NewVec(catalog.Varchar)
	a.Result(&la, res, 0)
	if got := string(res.S[0]); got != "1.0 > 2.0 > 3.0 > 4.0" {
		t.Errorf("merged LISTAGG: got %q", got)
	}
	for _, f := range []Func{First, Last} {
		sp := Spec{Func: f, Arg: catalog.Double}
		var a, b State
		b.Add(&sp, v, 0, 0)
		a.Add(&sp, v, 1, 1)
		b.Add(&sp, v, 3, 3)
		a.Add(&sp, v, 2, 2)
		a.Merge(&sp, &b)
		r := vector.NewVec(catalog.Double)
		a.Result(&sp, r, 0)
		want := map[Func]float64{First: 1, Last: 4}[f]
		if r.F[0] != want {
			t.Errorf("merged %s: got %v, want %v", f, r.F[0], want)
		}
	}
}

// TestOrderIndependence is the property of SPEC 2.4: SUM, AVG and the variances
// of DOUBLE give the exact value rounded once, whatever the order of the rows and
// however they are split into merged states; checked against a big.Rat reference.
func TestOrderIndependence(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	gen := func() float64 {
		switch rng.Intn(6) {
		case 0:
			return math.Ldexp(rng.Float64(), rng.Intn(2000)-1000) * float64(1-2*rng.Intn(2))
		case 1:
			return float64(rng.Intn(100) - 50)
		case 2:
			return math.Ldexp(1, 1023) * float64(1-2*rng.Intn(2))
		default:
			return rng.NormFloat64() * 1e6
		}
	}
	for iter := 0; iter < 300; iter++ {
		n := 1 + rng.Intn(40)
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = gen()
		}
		// reference, written separately from the package: exact rationals
		s1, s2 := new(big.Rat), new(big.Rat)
		for _, x := range vals {
			r := new(big.Rat).SetFloat64(x)
			s1.Add(s1, r)
			s2.Add(s2, new(big.Rat).Mul(r, r))
		}
		nr := new(big.Rat).SetInt64(int64(n))
		wantSum, _ := s1.Float64()
		wantAvg, _ := new(big.Rat).Quo(s1, nr).Float64()
		vp := new(big.Rat).Sub(s2, new(big.Rat).Quo(new(big.Rat).Mul(s1, s1), nr))
		wantVar, _ := new(big.Rat).Quo(vp, nr).Float64()
		for _, c := range []struct {
			f    Func
			want float64
		}{{Sum, wantSum}, {Avg, wantAvg}, {VarPop, wantVar}} {
			sp := Spec{Func: c.f, Arg: catalog.Double}
			perm := rng.Perm(n)
			cut := rng.Intn(n + 1)
			var a, b State
			v := vector.NewVec(catalog.Double)
			for k, p := range perm {
				v.F[k] = vals[p]
				if k < cut {
					a.Add(&sp, v, k, int64(k))
				} else {
					b.Add(&sp, v, k, int64(k))
				}
			}
			a.Merge(&sp, &b)
			out := vector.NewVec(catalog.Double)
			a.Result(&sp, out, 0)
			if !sameFloat(out.F[0], c.want) {
				t.Fatalf("%s of %v: got %v, want %v", c.f, vals, out.F[0], c.want)
			}
		}
	}
}

// TestAddAllocs: the fixed-size accumulators allocate nothing per row in steady state.
func TestAddAllocs(t *testing.T) {
	v := dvec(1.5, 2.25, -3.0, 1e-3)
	iv := ivec(1, 2, 3, 4)
	for _, sp := range []Spec{{Func: CountStar}, {Func: Sum, Arg: catalog.Double}, {Func: Avg, Arg: catalog.Double},
		{Func: Min, Arg: catalog.Double}, {Func: Max, Arg: catalog.Double}, {Func: VarPop, Arg: catalog.Double},
		{Func: Sum, Arg: catalog.BigInt}, {Func: VarSamp, Arg: catalog.BigInt}} {
		var st State
		in := v
		if sp.Arg == catalog.BigInt {
			in = iv
		}
		for i := 0; i < 100; i++ {
			st.Add(&sp, in, i%4, int64(i))
		}
		seq := int64(0)
		allocs := testing.AllocsPerRun(100, func() {
			seq++
			st.Add(&sp, in, int(seq%4), seq)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per row", sp.Func, allocs)
		}
	}
}

// TestKeyToInvertsKey: a grouping key's bytes give back its value (the
// aggregate keeps a group's key values only as Key's bytes, issue 26 item
// 4): for random values of every key type, NULLs among them, Key then
// KeyTo writes the same value (a NaN as a NaN, -0.0 as -0.0), alone and
// as the keys of several columns framed by AppendKeyFramed, read back in
// order by NextFramed.
func TestKeyToInvertsKey(t *testing.T) {
	r := rand.New(rand.NewSource(26))
	types := []catalog.Type{catalog.BigInt, catalog.Timestamp, catalog.Double, catalog.Boolean, catalog.Varchar}
	in := make([]*vector.Vec, len(types))
	out := make([]*vector.Vec, len(types))
	for k, ty := range types {
		in[k], out[k] = vector.NewVec(ty), vector.NewVec(ty)
	}
	doubles := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64}
	for i := 0; i < vector.Cap; i++ {
		for k, ty := range types {
			v := in[k]
			v.Null[i] = r.Intn(6) == 0
			switch ty {
			case catalog.BigInt, catalog.Timestamp:
				v.I[i] = []int64{r.Int63() - r.Int63(), math.MinInt64, math.MaxInt64, 0, -1}[r.Intn(5)]
			case catalog.Double:
				v.F[i] = r.NormFloat64() * 1e6
				if r.Intn(3) == 0 {
					v.F[i] = doubles[r.Intn(len(doubles))]
				}
			case catalog.Boolean:
				v.B[i] = r.Intn(2) == 0
			case catalog.Varchar:
				b := make([]byte, r.Intn(20))
				for j := range b {
					b[j] = byte(r.Intn(256))
				}
				v.S[i] = b
			}
		}
	}
	same := func(ty catalog.Type, a, b *vector.Vec, i int) bool {
		if a.Null[i] || b.Null[i] {
			return a.Null[i] == b.Null[i]
		}
		switch ty {
		case catalog.BigInt, catalog.Timestamp:
			return a.I[i] == b.I[i]
		case catalog.Double:
			return math.IsNaN(a.F[i]) && math.IsNaN(b.F[i]) || math.Float64bits(a.F[i]) == math.Float64bits(b.F[i])
		case catalog.Boolean:
			return a.B[i] == b.B[i]
		}
		return string(a.S[i]) == string(b.S[i])
	}
	for i := 0; i < vector.Cap; i++ {
		var framed []byte
		for k, ty := range types {
			KeyTo(out[k], i, ty, Key(nil, ty, in[k], i))
			if !same(ty, in[k], out[k], i) {
				t.Fatalf("row %d, %v: Key then KeyTo gave another value", i, ty)
			}
			framed = AppendKeyFramed(framed, ty, in[k], i)
		}
		for k, ty := range types {
			var key []byte
			key, framed = NextFramed(framed)
			out[k].Null[i] = !in[k].Null[i] // (KeyTo must set it)
			KeyTo(out[k], i, ty, key)
			if !same(ty, in[k], out[k], i) {
				t.Fatalf("row %d, key %d (%v): the framed keys gave another value", i, k, ty)
			}
		}
		if len(framed) != 0 {
			t.Fatalf("row %d: %d bytes left after the framed keys", i, len(framed))
		}
	}
}
