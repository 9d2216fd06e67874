package agg

import (
	"math"
	"math/bits"

	"streamql/catalog"
	"streamql/executor/vector"
)

// Retract takes row i of v (the argument's values; ignored by COUNT(*)) back
// out of the state, as if it had never been added (SPEC 2.8: a -U or -D row
// reaching an aggregate). sp must be Retractable (plan.AggSpec.Retractable),
// and its Retracting set for MIN, MAX, FIRST_VALUE, LAST_VALUE, LISTAGG and
// COUNT(DISTINCT), whose states then keep their values (kept.go). For the
// sums the value must have been added before (a retraction of a value never
// added leaves a state no addition gives); the kept values ignore it. The
// sums stay exact: a BIGINT sum is a 128-bit integer, a DOUBLE sum the partial sums of the finite values plus the counts of
// NaN, +Infinity, -Infinity and of values other than -0.0 (SPEC 2.4's rules
// hold after retractions). It returns the bytes the state grew by.
func (st *State) Retract(sp *Spec, v *vector.Vec, i int) int64 {
	if sp.Func == CountStar {
		st.n--
		return 0
	}
	if v.Null[i] {
		return 0
	}
	st.widen(sp)
	if keeps(sp) {
		var kb [16]byte
		return st.keepRetract(sp, v, i, kb[:0])
	}
	st.n--
	switch sp.Func {
	case Count:
		return 0
	}
	before := st.partials()
	if sp.Arg == catalog.BigInt {
		x := v.I[i]
		st.subInt(x)
		if sp.Func >= VarPop {
			st.subSquare(x)
		}
	} else {
		st.subDouble(v.F[i], sp.Func >= VarPop)
	}
	return 8 * (st.partials() - before)
}

// subInt subtracts x from the 128-bit sum.
func (st *State) subInt(x int64) {
	var borrow uint64
	st.lo, borrow = bits.Sub64(st.lo, uint64(x), 0)
	ext := int64(0)
	if x < 0 {
		ext = -1
	}
	st.hi -= ext + int64(borrow)
}

// subSquare subtracts x² of the BIGINT x from s2 exactly (addSquare's
// pieces, negated).
func (st *State) subSquare(x int64) {
	u := uint64(x)
	if x < 0 {
		u = -u
	}
	phi, plo := bits.Mul64(u, u)
	st.s2 = addPartial(st.s2, &st.big2, -float64(phi>>32)*0x1p96)
	st.s2 = addPartial(st.s2, &st.big2, -float64(phi&0xffffffff)*0x1p64)
	st.s2 = addPartial(st.s2, &st.big2, -float64(plo>>32)*0x1p32)
	st.s2 = addPartial(st.s2, &st.big2, -float64(plo&0xffffffff))
}

// subDouble takes x out of s1 (and x² out of s2 when sq), with the counts of
// SPEC 2.4's special values.
func (st *State) subDouble(x float64, sq bool) {
	switch {
	case math.IsNaN(x):
		st.nanN--
		st.nan = st.nanN > 0
		return
	case math.IsInf(x, 1):
		st.pinfN--
		st.pinf = st.pinfN > 0
		return
	case math.IsInf(x, -1):
		st.ninfN--
		st.ninf = st.ninfN > 0
		return
	}
	if x != 0 || !math.Signbit(x) {
		st.nnzN--
		st.nonNegZero = st.nnzN > 0
	}
	st.addFinite(x, sq, true)
}
