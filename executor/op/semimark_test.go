package op

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"streamql/catalog"
	"streamql/executor/vector"
)

// markAcct is an Account that sums what it is charged.
type markAcct struct{ n int64 }

func (a *markAcct) Grow(n int64) error { a.n += n; return nil }

// TestSemiJoinMarkMode: the marks of SemiJoin's Mark mode equal SPEC 2.2's
// rule computed here over the whole inputs, for random right batches (NULL
// and NaN keys, -0.0, rows failing the build condition, late rows, NULL
// watermarks) and left rows: a right row enters when its condition holds
// and its time is not below the greatest watermark of the rows before it;
// a left row (k, t) is marked TRUE when an entered row has its key (NULL
// and NaN equal nothing, -0 = 0) and, with event time, a time <= t; NOT IN
// (NullAware) gives NULL instead of FALSE over a non-empty right side when
// the row's condition holds and its key or any entered key is NULL. The
// state is charged the encoded bytes of each distinct key plus
// MarkKeyOverhead.
func TestSemiJoinMarkMode(t *testing.T) {
	types := []catalog.Type{catalog.BigInt, catalog.Double, catalog.Boolean, catalog.BigInt, catalog.BigInt}
	type rrow struct {
		k       int64
		kNull   bool
		d       float64
		cond    bool
		t, wm   int64
		wmNull  bool
		dNull   bool
		entered bool
	}
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 9))
		timed, nullAware := seed%2 == 0, seed%4 >= 2
		spec := SemiSpec{Mark: true, Anti: nullAware, NullAware: nullAware, Types: [2][]catalog.Type{nil, types},
			Keys: [2][]int{nil, {0, 1}}, Time: [2]int{-1, -1}, RightCond: 2, RightWM: -1}
		if timed {
			spec.Time[1], spec.RightWM = 3, 4
		}
		acct := &markAcct{}
		j, err := NewSemiJoin(spec, nil, acct)
		if err != nil {
			t.Fatal(err)
		}
		double := func() float64 {
			switch r.IntN(6) {
			case 0:
				return math.NaN()
			case 1:
				return math.Copysign(0, -1)
			}
			return float64(r.IntN(3))
		}
		var right []rrow
		for range r.IntN(4) {
			b := vector.NewBatch(types)
			for i := range 1 + r.IntN(30) {
				x := rrow{k: int64(r.IntN(6)), kNull: r.IntN(10) == 0, d: double(), dNull: r.IntN(12) == 0, cond: r.IntN(5) > 0,
					t: int64(r.IntN(50)), wmNull: r.IntN(4) == 0}
				x.wm = x.t - int64(r.IntN(10))
				right = append(right, x)
				b.Cols[0].I[i], b.Cols[0].Null[i] = x.k, x.kNull
				b.Cols[1].F[i], b.Cols[1].Null[i] = x.d, x.dNull
				b.Cols[2].B[i] = x.cond
				b.Cols[3].I[i] = x.t
				b.Cols[4].I[i], b.Cols[4].Null[i] = x.wm, x.wmNull
				b.N++
			}
			if err := j.Push(context.Background(), 1, b); err != nil {
				t.Fatal(err)
			}
		}
		// the reference: which rows entered, the distinct keys' earliest
		// times and bytes
		var wm int64
		wmSet, rightNull, entered := false, false, 0
		type key struct {
			k int64
			d float64
		}
		earliest := map[key]int64{}
		for i := range right {
			x := &right[i]
			if x.cond && (!timed || !wmSet || x.t >= wm) {
				x.entered = true
				entered++
				rightNull = rightNull || x.kNull || x.dNull
				if !x.kNull && !x.dNull && !math.IsNaN(x.d) {
					kk := key{x.k, x.d + 0}
					if e, ok := earliest[kk]; !ok || (timed && x.t < e) {
						earliest[kk] = x.t
						if !timed {
							earliest[kk] = 0
						}
					}
				}
			}
			if timed && !x.wmNull && (!wmSet || x.wm > wm) {
				wm, wmSet = x.wm, true
			}
		}
		if got, want := acct.n, int64(len(earliest)*(16+MarkKeyOverhead)); got != want {
			t.Fatalf("seed %d: charged %d bytes, want %d", seed, got, want)
		}
		if rows, keys := j.MarkCounts(); rows != int64(entered) || keys != int64(len(earliest)) {
			t.Fatalf("seed %d: counts %d rows %d keys, want %d and %d", seed, rows, keys, entered, len(earliest))
		}
		if gwm, gset, _ := j.RightWatermark(); gset != wmSet || gwm != wm {
			t.Fatalf("seed %d: watermark %d %v, want %d %v", seed, gwm, gset, wm, wmSet)
		}
		// left rows
		kv, dv, cv := vector.NewVec(catalog.BigInt), vector.NewVec(catalog.Double), vector.NewVec(catalog.Boolean)
		lt := make([]int64, vector.Cap)
		var sel []int32
		for i := range 200 {
			kv.I[i], kv.Null[i] = int64(r.IntN(7)), r.IntN(10) == 0
			dv.F[i], dv.Null[i] = double(), r.IntN(12) == 0
			cv.B[i], cv.Null[i] = r.IntN(5) > 0, r.IntN(10) == 0
			lt[i] = int64(r.IntN(60))
			if r.IntN(3) > 0 {
				sel = append(sel, int32(i))
			}
		}
		var tcol []int64
		if timed {
			tcol = lt
		}
		mark := vector.NewVec(catalog.Boolean)
		j.Marks([]*vector.Vec{kv, dv}, cv, tcol, sel, mark)
		for _, i := range sel {
			cond := cv.B[i] && !cv.Null[i]
			null := kv.Null[i] || dv.Null[i]
			match := false
			if !null && !math.IsNaN(dv.F[i]) {
				e, ok := earliest[key{kv.I[i], dv.F[i] + 0}]
				match = ok && (!timed || e <= lt[i])
			}
			want, wantNull := cond && match, false
			if nullAware && entered > 0 && cond && !match && (null || rightNull) {
				wantNull = true
			}
			if mark.B[i] != want || mark.Null[i] != wantNull {
				t.Fatalf("seed %d: left row %d (k %d null %v, d %v null %v, cond %v, t %d): mark %v null %v, want %v null %v",
					seed, i, kv.I[i], kv.Null[i], dv.F[i], dv.Null[i], cond, lt[i], mark.B[i], mark.Null[i], want, wantNull)
			}
		}
	}
}
