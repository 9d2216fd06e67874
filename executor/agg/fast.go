package agg

import (
	"math"

	"streamql/catalog"
	"streamql/executor/vector"
)

// Op is the accumulator path that AddOp takes for one Spec, chosen once per
// aggregate call (OpOf) so that a row's add does not re-dispatch on the
// function, its argument's type and DISTINCT (SPEC 2.4's value rules are the
// same on every path).
type Op uint8

// The paths of AddOp.
const (
	OpGeneric   Op = iota // everything else: Add
	OpCountStar           // COUNT(*)
	OpCount               // COUNT(x), not DISTINCT
	OpMinF                // MIN of DOUBLE
	OpMaxF                // MAX of DOUBLE
	OpMinI                // MIN of BIGINT or TIMESTAMP
	OpMaxI                // MAX of BIGINT or TIMESTAMP
	OpSumF                // SUM or AVG of DOUBLE, not DISTINCT
	OpSumI                // SUM or AVG of BIGINT, not DISTINCT
)

// OpOf returns the path AddOp takes for sp.
func OpOf(sp *Spec) Op {
	if sp.Func == CountStar {
		return OpCountStar
	}
	if sp.Distinct || keeps(sp) {
		return OpGeneric
	}
	integer := sp.Arg == catalog.BigInt || sp.Arg == catalog.Timestamp
	switch sp.Func {
	case Count:
		return OpCount
	case Min, Max:
		switch {
		case sp.Arg == catalog.Double && sp.Func == Min:
			return OpMinF
		case sp.Arg == catalog.Double:
			return OpMaxF
		case integer && sp.Func == Min:
			return OpMinI
		case integer:
			return OpMaxI
		}
	case Sum, Avg:
		if sp.Arg == catalog.BigInt {
			return OpSumI
		}
		if sp.Arg == catalog.Double {
			return OpSumF
		}
	}
	return OpGeneric
}

// AddOp is Add (row i of v, arrival number seq) through the path op = OpOf(sp):
// the same state and the same bytes grown (0 except for the partial sums of
// OpSumF and OpGeneric), with less work per row.
func (st *State) AddOp(op Op, sp *Spec, v *vector.Vec, i int, seq int64) int64 {
	if op == OpCountStar {
		st.n++
		return 0
	}
	if v.Null[i] {
		return 0
	}
	switch op {
	case OpCount:
		st.n++
	case OpMinF:
		st.minF(v.F[i])
	case OpMaxF:
		st.maxF(v.F[i])
	case OpMinI:
		st.minI(v.I[i])
	case OpMaxI:
		st.maxI(v.I[i])
	case OpSumI:
		st.sumI(v.I[i])
	case OpSumF:
		return st.sumF(v.F[i])
	default:
		return st.Add(sp, v, i, seq)
	}
	return 0
}

// AddBatch is AddOp for many rows, one path chosen once for all of them:
// row rows[k] of v, arrival number seqs[k], is added to the call's
// accumulator at (its Layout's At) in the row's group's States states[k],
// in order. It returns the bytes the states grew by. The states are the
// same and grow the same as with one Layout.Add per row (the rows of one
// state come in the same order).
func AddBatch(op Op, sp *Spec, v *vector.Vec, at Slot, states [][]State, rows []int32, seqs []int64) int64 {
	rows, seqs = rows[:len(states)], seqs[:len(states)]
	c := at.S
	var grew int64
	switch op {
	case OpCountStar:
		for k := range states {
			*states[k][c].word(at.Lane)++
		}
	case OpCount:
		for k, i := range rows {
			if !v.Null[i] {
				*states[k][c].word(at.Lane)++
			}
		}
	case OpMinF:
		for k, i := range rows {
			if !v.Null[i] {
				states[k][c].minF(v.F[i])
			}
		}
	case OpMaxF:
		for k, i := range rows {
			if !v.Null[i] {
				states[k][c].maxF(v.F[i])
			}
		}
	case OpMinI:
		for k, i := range rows {
			if !v.Null[i] {
				states[k][c].minI(v.I[i])
			}
		}
	case OpMaxI:
		for k, i := range rows {
			if !v.Null[i] {
				states[k][c].maxI(v.I[i])
			}
		}
	case OpSumI:
		for k, i := range rows {
			if !v.Null[i] {
				states[k][c].sumI(v.I[i])
			}
		}
	case OpSumF:
		for k, i := range rows {
			if !v.Null[i] {
				grew += states[k][c].sumF(v.F[i])
			}
		}
	default:
		for k, i := range rows {
			grew += states[k][c].AddOp(op, sp, v, int(i), seqs[k])
		}
	}
	return grew
}

// minF, maxF, minI and maxI add x to MIN or MAX.
func (st *State) minF(x float64) {
	if st.n == 0 || lessDouble(x, st.fval()) {
		st.setF(x)
	}
	st.n++
}

func (st *State) maxF(x float64) {
	if st.n == 0 || lessDouble(st.fval(), x) {
		st.setF(x)
	}
	st.n++
}

// sumI adds the BIGINT x to SUM's exact sum (agg.addInt) and counts it.
func (st *State) sumI(x int64) {
	st.n++
	st.addInt(x)
}

func (st *State) minI(x int64) {
	if st.n == 0 || x < st.value() {
		st.setI(x)
	}
	st.n++
}

func (st *State) maxI(x int64) {
	if st.n == 0 || x > st.value() {
		st.setI(x)
	}
	st.n++
}

// sumF adds the DOUBLE x to SUM or AVG (SPEC 2.4: exact partial sums) and
// returns the bytes the partials grew by.
func (st *State) sumF(x float64) int64 {
	if st.wide == nil {
		st.wide = &wide{sums: new(sums)}
	}
	st.n++
	if x-x != 0 || x == 0 { // NaN, ±Inf and ±0.0 take the general rules
		before := cap(st.s1)
		st.addDouble(x, false)
		return int64(8 * (cap(st.s1) - before))
	}
	st.nonNegZero = true
	st.nnzN++
	if st.addFix(x) {
		return 0
	}
	before := cap(st.s1)
	if st.big1 == nil && math.Abs(x) < 0x1p1020 && (len(st.s1) == 0 || math.Abs(st.s1[len(st.s1)-1]) < 0x1p1020) {
		st.s1 = addPartialSmall(st.s1, x)
		if len(st.s1) > 3 {
			st.s1 = compress(st.s1)
		}
	} else {
		st.s1 = addPartial(st.s1, &st.big1, x)
	}
	return int64(8 * (cap(st.s1) - before))
}

// lessDouble is CompareDouble(a, b) < 0, with the common case (distinct
// numbers) first.
func lessDouble(a, b float64) bool {
	if a < b {
		return true
	}
	if a > b {
		return false
	}
	return CompareDouble(a, b) < 0
}

// addPartialSmall is addPartial of the finite, non-zero x into the partials p
// when neither |x| nor the largest partial (the last) reaches 2^1020: no sum
// in the loop can then overflow (each is at most |x| plus twice the largest
// partial, below 2^1022), so the overflow check and the ordering of each pair
// go: Knuth's two-sum gives the same rounded sum and exact error as the
// ordered fast two-sum, so the partials are the same as addPartial's.
func addPartialSmall(p []float64, x float64) []float64 {
	k := 0
	for j := 0; j < len(p); j++ {
		y := p[j]
		hi := x + y
		bp := hi - x
		lo := (x - (hi - bp)) + (y - bp)
		if lo != 0 {
			p[k] = lo
			k++
		}
		x = hi
	}
	return append(p[:k], x)
}

// compress rewrites the non-overlapping partials p (increasing magnitude, each
// below 2^1020, so no sum overflows) as an expansion of the same exact value
// with as few parts as Shewchuk's Compress gives (usually 2 or 3, where
// addPartial leaves 4 to 6 for one-decimal values), still non-overlapping and
// increasing, in place. Two-sum throughout, so every step is exact.
func compress(p []float64) []float64 {
	m := len(p)
	if m < 2 {
		return p
	}
	var g [64]float64
	if m > len(g) {
		return p
	}
	q := p[m-1]
	bottom := m - 1
	for i := m - 2; i >= 0; i-- {
		hi, lo := twoSum(q, p[i])
		if lo != 0 {
			g[bottom] = hi
			bottom--
			q = lo
		} else {
			q = hi
		}
	}
	g[bottom] = q
	top := 0
	for i := bottom + 1; i < m; i++ {
		hi, lo := twoSum(g[i], q)
		if lo != 0 {
			p[top] = lo
			top++
		}
		q = hi
	}
	p[top] = q
	return p[:top+1]
}

// twoSum returns a + b rounded and the exact error (Knuth).
func twoSum(a, b float64) (float64, float64) {
	hi := a + b
	bp := hi - a
	return hi, (a - (hi - bp)) + (b - bp)
}
