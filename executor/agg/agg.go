// Package agg holds the accumulators of SPEC 2.4's aggregate functions, with their
// value rules: NULL arguments skipped, exact BIGINT sums (NULL outside int64),
// DOUBLE sums, averages and variances computed on the exact values and rounded
// once (Shewchuk's non-overlapping partial sums, as Python's math.fsum; each x² is
// exactly hi + lo by math.FMA), MIN/MAX of DOUBLE in Java's Double.compare order,
// DISTINCT as grouping compares (Java's Double.equals), LISTAGG of printed values
// (SPEC 4). Every state can merge another (SPEC 2.4: merged sessions), and the
// order-independent ones give the same result whatever the order of Add and Merge.
// Over an updating input (SPEC 2.8) every state retracts: counts and sums
// exactly (retract.go), MIN, MAX, FIRST_VALUE, LAST_VALUE, LISTAGG and
// COUNT(DISTINCT) by keeping their values (kept.go, a Retracting spec).
//
// The fixed-size accumulators (COUNT, SUM, AVG, MIN, MAX of numbers, the
// variances) allocate nothing per row once their partial sums have room.
//
// A State is 32 bytes (issue 26: state proportional to the functions, not one
// wide struct per call): COUNT, SUM and AVG of BIGINT and MIN, MAX,
// FIRST_VALUE and LAST_VALUE of a number keep everything in it, so a slab of
// their States (the executor's groups) holds no pointer per group that
// points anywhere; the other functions allocate a wide part on their first
// value (needsWide), kept across Reset. StateBytes is what a State costs
// before it grows. An aggregate's Layout (slots.go, issue 24) packs its
// COUNT and COUNT(*) calls into one word each of a group's States.
//
// It imports catalog, executor/vector and planner/plan only: never the
// executor or its operators, which hold States in their groups.
package agg

import (
	"cmp"
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"unsafe"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// Func is an aggregate function of SPEC 2.4 (plan.AggFunc: the plan names it).
type Func = plan.AggFunc

// The aggregate functions of SPEC 2.4's table (plan's).
const (
	CountStar  = plan.AggCountStar
	Count      = plan.AggCount
	Sum        = plan.AggSum
	Avg        = plan.AggAvg
	Min        = plan.AggMin
	Max        = plan.AggMax
	First      = plan.AggFirst
	Last       = plan.AggLast
	ListAgg    = plan.AggListAgg
	VarPop     = plan.AggVarPop
	VarSamp    = plan.AggVarSamp
	StddevPop  = plan.AggStddevPop
	StddevSamp = plan.AggStddevSamp
)

// Spec is one aggregate call (plan.AggSpec): the function, its argument's
// type, DISTINCT and LISTAGG's separator.
type Spec = plan.AggSpec

// State is the accumulator of one aggregate for one group of one window. The
// zero value is an empty accumulator. A State is used with one Spec throughout.
//
// Its size depends on what the function needs (issue 26: a group's state
// proportional to its functions): the fixed part is the count, the 128-bit
// BIGINT sum or the MIN/MAX/FIRST/LAST value of a number (32 bytes, no
// pointer followed); everything else (the exact DOUBLE partial sums and their
// special values, a VARCHAR value, LISTAGG's values, COUNT(DISTINCT)'s set and
// a Retracting spec's kept values) is in a wide part allocated on the first
// value of a spec that needs it (needsWide), the sums and LISTAGG's values in
// parts of their own that only those functions allocate (newWide). COUNT, COUNT(*), SUM and AVG of
// BIGINT and MIN, MAX, FIRST_VALUE and LAST_VALUE of a number never allocate
// it, so a slab of their States holds no pointer per group but a nil one.
type State struct {
	n int64 // non-NULL values added (all rows for COUNT(*))
	// SUM, AVG and the variances of BIGINT: the sum, a 128-bit two's
	// complement integer hi:lo (exact for any number of int64 values below
	// 2^64). MIN, MAX, FIRST_VALUE and LAST_VALUE: hi is the value so far
	// (a BIGINT or TIMESTAMP, a DOUBLE's bits, a BOOLEAN as 0 or 1; a
	// VARCHAR's is wide.s) and, for FIRST/LAST, lo its arrival number (for
	// a merge; MIN and MAX leave lo alone: a Layout keeps a count there): a
	// spec uses one of the two, so they share the words (value, fval, seq
	// and the setters).
	hi int64
	lo uint64
	// the rest, nil unless needsWide(spec) and a value came
	*wide
}

// value, fval and bval are MIN, MAX, FIRST_VALUE and LAST_VALUE's value so
// far as a BIGINT (or TIMESTAMP), a DOUBLE and a BOOLEAN; seq its arrival
// number.
func (st *State) value() int64  { return st.hi }
func (st *State) fval() float64 { return math.Float64frombits(uint64(st.hi)) }
func (st *State) bval() bool    { return st.hi != 0 }
func (st *State) seq() int64    { return int64(st.lo) }

// setI and setF make x MIN's or MAX's value so far. They leave lo alone:
// MIN and MAX of a fixed-width type use n and hi only, so a Layout packs
// a count in their lo (slots.go, issue 24).
func (st *State) setI(x int64)   { st.hi = x }
func (st *State) setF(x float64) { st.hi = int64(math.Float64bits(x)) }

// wide is the part of a State that only some functions use (State's doc):
// itself only what a VARCHAR value, COUNT(DISTINCT) and a Retracting spec
// need, and pointers to the DOUBLE sums (sums) and LISTAGG's values
// (lagg), which only those functions allocate (issue 26: q16's eight
// COUNT(DISTINCT) per group took a 272-byte wide part each, now 112).
type wide struct {
	*sums // SUM, AVG and the variances (sp.Func.Numeric()), nil otherwise
	*lagg // LISTAGG, nil otherwise
	// MIN, MAX, FIRST_VALUE, LAST_VALUE of VARCHAR: an owned copy of the value
	s []byte
	// COUNT(DISTINCT x): the distinct values, keyed as grouping compares:
	// a VARCHAR's in set (its keys' bytes counted in setBytes), a
	// fixed-width type's as one word in words (wordset.go)
	set      map[string]struct{}
	setBytes int
	words    wordSet
	// the values a Retracting spec keeps (kept.go), nil otherwise
	kept *kept
}

// sums is the part of a wide State that SUM, AVG and the variances use.
type sums struct {
	// DOUBLE sums: s1 = Σx and s2 = Σx² as non-overlapping partials of the
	// finite values; big1/big2 take over once a partial sum would overflow.
	s1, s2     []float64
	big1, big2 *big.Rat
	// the fixed-point front of s1 (fixed.go): a 128-bit integer of units of
	// 2^−64, and how many values it holds
	fixLo      uint64
	fixHi      int64
	fixN       int32
	nan        bool
	pinf, ninf bool
	nonNegZero bool // a value other than -0.0 was added (SUM is -0.0 when every value is)
	// the special values' counts behind the flags above, so that a retraction
	// (Retract, SPEC 2.8) can clear a flag when its last value goes
	nanN, pinfN, ninfN, nnzN int64
}

// lagg is the part of a wide State that LISTAGG uses: the printed values
// back to back, their ends and arrival numbers.
type lagg struct {
	text []byte
	ends []int32
	seqs []int64
}

// needsWide reports whether sp's state uses its wide part (State's doc).
func needsWide(sp *Spec) bool {
	if sp.Distinct || keeps(sp) {
		return true
	}
	switch sp.Func {
	case CountStar, Count:
		return false
	case Sum, Avg:
		return sp.Arg != catalog.BigInt
	case Min, Max, First, Last:
		return sp.Arg == catalog.Varchar
	}
	return true
}

// widen allocates the wide part of a state of sp when it needs one, with
// its sums or lagg when sp's function uses them.
func (st *State) widen(sp *Spec) {
	if st.wide == nil && needsWide(sp) {
		st.wide = newWide(sp)
	}
}

// newWide returns an empty wide part for a state of sp.
func newWide(sp *Spec) *wide {
	w := new(wide)
	switch {
	case sp.Func.Numeric():
		w.sums = new(sums)
	case sp.Func == ListAgg:
		w.lagg = new(lagg)
	}
	return w
}

// Reset empties the state for reuse, keeping its buffers (and its wide part).
func (st *State) Reset() {
	w := st.wide
	*st = State{}
	if w != nil {
		*w = wide{sums: w.sums, lagg: w.lagg, s: w.s[:0], words: w.words.emptied()}
		if w.sums != nil {
			*w.sums = sums{s1: w.s1[:0], s2: w.s2[:0]}
		}
		if w.lagg != nil {
			*w.lagg = lagg{text: w.text[:0], ends: w.ends[:0], seqs: w.seqs[:0]}
		}
		st.wide = w
	}
}

// Add adds row i of v (the argument's values; ignored by COUNT(*)) to the state;
// seq is the row's arrival number (increasing), which orders FIRST_VALUE,
// LAST_VALUE and LISTAGG across merges. NULL arguments are skipped (SPEC 2.4).
// It returns the bytes the state grew by (for 'state.max-bytes', SPEC 1).
func (st *State) Add(sp *Spec, v *vector.Vec, i int, seq int64) int64 {
	if sp.Func == CountStar {
		st.n++
		return 0
	}
	if v.Null[i] {
		return 0
	}
	st.widen(sp)
	if keeps(sp) {
		var kb [16]byte
		return st.keepAdd(sp, v, i, kb[:0])
	}
	if fixedSize(sp) {
		st.add(sp, v, i, seq)
		return 0
	}
	if sp.Func.Numeric() { // only the partial sums grow
		before := st.partials()
		st.add(sp, v, i, seq)
		return 8 * (st.partials() - before)
	}
	before := st.caps()
	st.add(sp, v, i, seq)
	return st.caps() - before
}

// addWord adds the distinct value k to the state's set of words and
// reports whether it was new.
func (st *State) addWord(k uint64) bool { return st.words.add(k) }

// worded reports whether t's distinct values are kept as words (set8):
// BIGINT, TIMESTAMP, DOUBLE and BOOLEAN.
func worded(t catalog.Type) bool {
	switch t {
	case catalog.BigInt, catalog.Timestamp, catalog.Double, catalog.Boolean:
		return true
	}
	return false
}

// word returns row i of v (not NULL, of a type other than VARCHAR) as one
// word that two values share exactly when grouping compares them equal
// (Key's rule: DOUBLE as Java's Double.equals, every NaN one value).
func word(t catalog.Type, v *vector.Vec, i int) uint64 {
	switch t {
	case catalog.Double:
		f := v.F[i]
		if math.IsNaN(f) {
			f = math.NaN()
		}
		return math.Float64bits(f)
	case catalog.Boolean:
		if v.B[i] {
			return 1
		}
		return 0
	}
	return uint64(v.I[i])
}

// fixedSize reports whether sp's state never grows (COUNT, and MIN, MAX,
// FIRST_VALUE, LAST_VALUE of a type other than VARCHAR).
func fixedSize(sp *Spec) bool {
	switch sp.Func {
	case Count:
		return !sp.Distinct
	case Min, Max, First, Last:
		return sp.Arg != catalog.Varchar
	}
	return false
}

// partials is the capacity of the partial sums s1 and s2 (0 without a wide part).
func (st *State) partials() int64 {
	if st.wide == nil || st.sums == nil {
		return 0
	}
	return int64(cap(st.s1) + cap(st.s2))
}

// caps is the bytes of the state's growing buffers (distinct values counted by
// their keys).
func (st *State) caps() int64 {
	if st.wide == nil {
		return 0
	}
	n := int64(cap(st.s)+st.setBytes) + st.words.bytes()
	if st.sums != nil {
		n += int64(8 * (cap(st.s1) + cap(st.s2)))
	}
	if st.lagg != nil {
		n += int64(cap(st.text) + 4*cap(st.ends) + 8*cap(st.seqs))
	}
	if st.kept != nil {
		n += st.kept.bytes
	}
	return n
}

func (st *State) add(sp *Spec, v *vector.Vec, i int, seq int64) {
	if sp.Distinct && worded(sp.Arg) {
		if st.addWord(word(sp.Arg, v, i)) {
			st.n++
		}
		return
	}
	if sp.Distinct {
		if st.set == nil {
			st.set = map[string]struct{}{}
		}
		var kb [9]byte
		k := Key(kb[:0], sp.Arg, v, i)
		if _, ok := st.set[string(k)]; ok {
			return
		}
		st.set[string(k)] = struct{}{}
		st.setBytes += len(k) + 48
		st.n++
		return
	}
	first := st.n == 0
	st.n++
	switch sp.Func {
	case Count:
	case Sum, Avg, VarPop, VarSamp, StddevPop, StddevSamp:
		if sp.Arg == catalog.BigInt {
			st.addInt(v.I[i])
			if sp.Func >= VarPop {
				st.addSquare(v.I[i])
			}
			return
		}
		st.addDouble(v.F[i], sp.Func >= VarPop)
	case Min, Max:
		if first || better(sp, v, i, st) {
			st.set1(sp.Arg, v, i)
		}
	case First:
		if first {
			st.set1(sp.Arg, v, i)
			st.lo = uint64(seq)
		}
	case Last:
		st.set1(sp.Arg, v, i)
		st.lo = uint64(seq)
	case ListAgg:
		st.text = vector.AppendValue(st.text, sp.Arg, v, i)
		st.ends = append(st.ends, int32(len(st.text)))
		st.seqs = append(st.seqs, seq)
	}
}

// set1 makes row i of v (type t) the value so far (hi, or s for a
// VARCHAR); FIRST_VALUE and LAST_VALUE set its arrival number (lo)
// themselves, MIN and MAX keep none (setI).
func (st *State) set1(t catalog.Type, v *vector.Vec, i int) {
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		st.hi = v.I[i]
	case catalog.Double:
		st.hi = int64(math.Float64bits(v.F[i]))
	case catalog.Boolean:
		st.hi = 0
		if v.B[i] {
			st.hi = 1
		}
	case catalog.Varchar:
		st.s = append(st.s[:0], v.S[i]...)
	}
}

// better reports whether row i of v is below (MIN) or above (MAX) the state's value.
func better(sp *Spec, v *vector.Vec, i int, st *State) bool {
	c := 0
	switch sp.Arg {
	case catalog.BigInt, catalog.Timestamp:
		c = cmp.Compare(v.I[i], st.value())
	case catalog.Double:
		c = CompareDouble(v.F[i], st.fval())
	case catalog.Boolean:
		c = cmpBool(v.B[i], st.bval())
	case catalog.Varchar:
		c = cmpBytes(v.S[i], st.s)
	}
	if sp.Func == Min {
		return c < 0
	}
	return c > 0
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case b:
		return -1
	}
	return 1
}

func cmpBytes(a, b []byte) int {
	n := min(len(a), len(b))
	for k := 0; k < n; k++ {
		if a[k] != b[k] {
			if a[k] < b[k] {
				return -1
			}
			return 1
		}
	}
	return cmp.Compare(int64(len(a)), int64(len(b)))
}

// CompareDouble orders doubles as Java's Double.compare: -Infinity < … < -0.0 <
// 0.0 < … < Infinity < NaN, all NaNs equal (SPEC 2.4: MIN, MAX). It returns -1,
// 0 or 1.
func CompareDouble(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an || bn:
		if an && bn {
			return 0
		}
		if an {
			return 1
		}
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	// equal: -0.0 < 0.0
	as, bs := math.Signbit(a), math.Signbit(b)
	switch {
	case as == bs:
		return 0
	case as:
		return -1
	}
	return 1
}

// Key appends row i of v as grouping compares it (SPEC 2.4: text by bytes;
// DOUBLE as Java's Double.equals: all NaNs one value, 0.0 and -0.0 apart; NULL
// one value) to dst and returns it. Keys of one type compare equal exactly when
// their bytes do; a key is not prefixed by its length, so a caller that joins
// several VARCHAR keys must frame them (AppendKeyFramed).
func Key(dst []byte, t catalog.Type, v *vector.Vec, i int) []byte {
	if v.Null[i] {
		return append(dst, 0)
	}
	dst = append(dst, 1)
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		return appendU64(dst, uint64(v.I[i]))
	case catalog.Double:
		f := v.F[i]
		if math.IsNaN(f) {
			f = math.NaN()
		}
		return appendU64(dst, math.Float64bits(f))
	case catalog.Boolean:
		if v.B[i] {
			return append(dst, 1)
		}
		return append(dst, 0)
	case catalog.Varchar:
		return append(dst, v.S[i]...)
	}
	return dst
}

// AppendKeyFramed appends Key(t, v, i) preceded by its length, so that a
// sequence of keys (a GROUP BY of several columns) is one unambiguous byte string.
func AppendKeyFramed(dst []byte, t catalog.Type, v *vector.Vec, i int) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = Key(dst, t, v, i)
	n := uint32(len(dst) - at - 4)
	dst[at], dst[at+1], dst[at+2], dst[at+3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	return dst
}

// KeyTo writes the grouping key key (Key's bytes of one value of type t: a
// NULL tag, then the value) as row i of out, the inverse of Key: a VARCHAR's
// bytes are key's own (out points into them, as it would into a value the
// caller owns), a DOUBLE's NaN is the one NaN Key keeps. The aggregate keeps
// a group's key values only as these bytes (executor/aggregate: no copy of
// them as values).
func KeyTo(out *vector.Vec, i int, t catalog.Type, key []byte) {
	if len(key) == 0 || key[0] == 0 {
		out.Null[i] = true
		return
	}
	out.Null[i] = false
	b := key[1:]
	switch t {
	case catalog.BigInt, catalog.Timestamp:
		out.I[i] = int64(binary.BigEndian.Uint64(b))
	case catalog.Double:
		out.F[i] = math.Float64frombits(binary.BigEndian.Uint64(b))
	case catalog.Boolean:
		out.B[i] = b[0] != 0
	case catalog.Varchar:
		out.S[i] = b
	}
}

// NextFramed returns the first key of keys (AppendKeyFramed's bytes of
// several keys one after the other) and the bytes after it; keys must hold
// a whole framed key.
func NextFramed(keys []byte) (key, rest []byte) {
	n := binary.BigEndian.Uint32(keys)
	return keys[4 : 4+n], keys[4+n:]
}

func appendU64(dst []byte, u uint64) []byte {
	return append(dst, byte(u>>56), byte(u>>48), byte(u>>40), byte(u>>32), byte(u>>24), byte(u>>16), byte(u>>8), byte(u))
}

// addInt adds x to the 128-bit sum.
func (st *State) addInt(x int64) {
	var carry uint64
	st.lo, carry = bits.Add64(st.lo, uint64(x), 0)
	ext := int64(0)
	if x < 0 {
		ext = -1
	}
	st.hi += ext + int64(carry)
}

// addSquare adds x² of the BIGINT x to s2 exactly: the 128-bit square split
// into four 32-bit pieces, each an exact double (SPEC 2.4: the variance of BIGINT
// values is computed on their exact values too; S1 is the 128-bit sum).
func (st *State) addSquare(x int64) {
	u := uint64(x)
	if x < 0 {
		u = -u
	}
	phi, plo := bits.Mul64(u, u)
	st.s2 = addPartial(st.s2, &st.big2, float64(phi>>32)*0x1p96)
	st.s2 = addPartial(st.s2, &st.big2, float64(phi&0xffffffff)*0x1p64)
	st.s2 = addPartial(st.s2, &st.big2, float64(plo>>32)*0x1p32)
	st.s2 = addPartial(st.s2, &st.big2, float64(plo&0xffffffff))
}

// addDouble adds x to s1 (and x² to s2 when sq) with SPEC 2.4's special values.
func (st *State) addDouble(x float64, sq bool) {
	switch {
	case math.IsNaN(x):
		st.nan = true
		st.nanN++
		return
	case math.IsInf(x, 1):
		st.pinf = true
		st.pinfN++
		return
	case math.IsInf(x, -1):
		st.ninf = true
		st.ninfN++
		return
	}
	if x != 0 || !math.Signbit(x) {
		st.nonNegZero = true
		st.nnzN++
	}
	st.addFinite(x, sq, false)
}

// addFinite adds the finite x to s1 (and x² to s2 when sq), exactly; with
// retract it takes them out (Retract).
func (st *State) addFinite(x float64, sq, retract bool) {
	sign := 1.0
	if retract {
		sign = -1
	}
	st.s1 = addPartial(st.s1, &st.big1, sign*x)
	if sq {
		hi := x * x
		if math.IsInf(hi, 0) {
			r := new(big.Rat).SetFloat64(x)
			r.Mul(r, r)
			st.s2 = spill(st.s2, &st.big2)
			if retract {
				r.Neg(r)
			}
			st.big2.Add(st.big2, r)
			return
		}
		lo := math.FMA(x, x, -hi)
		st.s2 = addPartial(st.s2, &st.big2, sign*hi)
		st.s2 = addPartial(st.s2, &st.big2, sign*lo)
	}
}

// addPartial adds the finite x to the non-overlapping partials p (Shewchuk's
// algorithm, as Python's math.fsum); when a partial sum would overflow, the exact
// sum moves to *exact, which takes every later value.
func addPartial(p []float64, exact **big.Rat, x float64) []float64 {
	if *exact != nil {
		(*exact).Add(*exact, new(big.Rat).SetFloat64(x))
		return p
	}
	if x == 0 {
		return p
	}
	k := 0
	for j := 0; j < len(p); j++ {
		y := p[j]
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		if math.IsInf(hi, 0) {
			// the exact sum is p[:k] (new) + x + y + p[j+1:] (not yet visited)
			rest := append(p[:k], p[j+1:]...)
			p = spill(rest, exact)
			(*exact).Add(*exact, new(big.Rat).SetFloat64(x))
			(*exact).Add(*exact, new(big.Rat).SetFloat64(y))
			return p
		}
		lo := y - (hi - x)
		if lo != 0 {
			p[k] = lo
			k++
		}
		x = hi
	}
	return append(p[:k], x)
}

// spill moves the partials p into the exact sum *exact (created when nil).
func spill(p []float64, exact **big.Rat) []float64 {
	if *exact == nil {
		*exact = new(big.Rat)
	}
	for _, y := range p {
		(*exact).Add(*exact, new(big.Rat).SetFloat64(y))
	}
	return p[:0]
}

// exact returns the exact sum of p (and of *exact) as a rational.
func exactSum(p []float64, exact *big.Rat) *big.Rat {
	r := new(big.Rat)
	if exact != nil {
		r.Set(exact)
	}
	for _, y := range p {
		r.Add(r, new(big.Rat).SetFloat64(y))
	}
	return r
}

// smallSum returns the BIGINT sum when it is exact as a double (|sum| <= 2^53).
func (st *State) smallSum() (int64, bool) {
	s := int64(st.lo)
	if (st.hi == 0 && s >= 0 || st.hi == -1 && s < 0) && s <= 1<<53 && s >= -(1<<53) {
		return s, true
	}
	return 0, false
}

// bigSum returns the 128-bit BIGINT sum as a rational.
func (st *State) bigSum() *big.Rat {
	v := new(big.Int).SetInt64(st.hi)
	v.Lsh(v, 64)
	v.Add(v, new(big.Int).SetUint64(st.lo))
	return new(big.Rat).SetInt(v)
}

// Merge adds the state o (of the same Spec) into st, as if o's rows had been
// added to st (SPEC 2.4: sessions that merge). FIRST_VALUE, LAST_VALUE and LISTAGG
// follow the arrival numbers of the rows. A Retracting spec's states (an
// aggregate without a window) are never merged.
func (st *State) Merge(sp *Spec, o *State) {
	if o.n == 0 {
		return
	}
	st.widen(sp)
	st.flushFix()
	o.flushFix()
	if sp.Distinct && worded(sp.Arg) {
		o.words.each(func(k uint64) {
			if st.addWord(k) {
				st.n++
			}
		})
		return
	}
	if sp.Distinct {
		if st.set == nil {
			st.set = map[string]struct{}{}
		}
		for k := range o.set {
			if _, ok := st.set[k]; !ok {
				st.set[k] = struct{}{}
				st.setBytes += len(k) + 48
				st.n++
			}
		}
		return
	}
	empty := st.n == 0
	st.n += o.n
	switch sp.Func {
	case Sum, Avg, VarPop, VarSamp, StddevPop, StddevSamp:
		var carry uint64
		st.lo, carry = bits.Add64(st.lo, o.lo, 0)
		st.hi += o.hi + int64(carry)
		if o.wide == nil { // a BIGINT SUM or AVG: the 128-bit sum is all
			return
		}
		for _, y := range o.s1 {
			st.s1 = addPartial(st.s1, &st.big1, y)
		}
		if o.big1 != nil {
			st.s1 = spill(st.s1, &st.big1)
			st.big1.Add(st.big1, o.big1)
		}
		for _, y := range o.s2 {
			st.s2 = addPartial(st.s2, &st.big2, y)
		}
		if o.big2 != nil {
			st.s2 = spill(st.s2, &st.big2)
			st.big2.Add(st.big2, o.big2)
		}
		st.nan = st.nan || o.nan
		st.pinf = st.pinf || o.pinf
		st.ninf = st.ninf || o.ninf
		st.nonNegZero = st.nonNegZero || o.nonNegZero
		st.nanN, st.pinfN, st.ninfN, st.nnzN = st.nanN+o.nanN, st.pinfN+o.pinfN, st.ninfN+o.ninfN, st.nnzN+o.nnzN
	case Min, Max, First, Last:
		take := empty
		if !take {
			switch sp.Func {
			case First:
				take = o.seq() < st.seq()
			case Last:
				take = o.seq() > st.seq()
			default:
				take = betterState(sp, o, st)
			}
		}
		if take {
			st.hi = o.hi
			if sp.Func == First || sp.Func == Last { // (MIN and MAX keep no arrival number: setI)
				st.lo = o.lo
			}
			if o.wide != nil {
				st.s = append(st.s[:0], o.s...)
			}
		}
	case ListAgg:
		st.mergeText(o)
	}
}

func betterState(sp *Spec, o, st *State) bool {
	c := 0
	switch sp.Arg {
	case catalog.BigInt, catalog.Timestamp:
		c = cmp.Compare(o.value(), st.value())
	case catalog.Double:
		c = CompareDouble(o.fval(), st.fval())
	case catalog.Boolean:
		c = cmpBool(o.bval(), st.bval())
	case catalog.Varchar:
		c = cmpBytes(o.s, st.s)
	}
	if sp.Func == Min {
		return c < 0
	}
	return c > 0
}

// mergeText interleaves o's LISTAGG values with st's by arrival number.
func (st *State) mergeText(o *State) {
	var text []byte
	var ends []int32
	var seqs []int64
	a, b := 0, 0
	piece := func(s *State, k int) []byte {
		start := int32(0)
		if k > 0 {
			start = s.ends[k-1]
		}
		return s.text[start:s.ends[k]]
	}
	for a < len(st.seqs) || b < len(o.seqs) {
		if b >= len(o.seqs) || a < len(st.seqs) && st.seqs[a] < o.seqs[b] {
			text = append(text, piece(st, a)...)
			seqs = append(seqs, st.seqs[a])
			a++
		} else {
			text = append(text, piece(o, b)...)
			seqs = append(seqs, o.seqs[b])
			b++
		}
		ends = append(ends, int32(len(text)))
	}
	st.text, st.ends, st.seqs = text, ends, seqs
}

// Result writes the aggregate's value into row i of out (a vector of
// sp.ResultType()): SPEC 2.4's value rules; NULL over no non-NULL value (COUNT:
// 0). A VARCHAR result points into the state (or out's arena when joined), valid
// until the state changes.
func (st *State) Result(sp *Spec, out *vector.Vec, i int) {
	out.Null[i] = false
	switch sp.Func {
	case CountStar, Count:
		out.I[i] = st.n
		return
	}
	st.flushFix()
	if st.n == 0 {
		out.Null[i] = true
		return
	}
	if st.wide != nil && st.kept != nil && keeps(sp) {
		st.keptResult(sp, out, i)
		return
	}
	switch sp.Func {
	case Sum:
		if sp.Arg == catalog.BigInt {
			// fits in int64 when hi is the sign extension of lo
			if (st.hi == 0 && int64(st.lo) >= 0) || (st.hi == -1 && int64(st.lo) < 0) {
				out.I[i] = int64(st.lo)
			} else {
				out.Null[i] = true
			}
			return
		}
		out.F[i] = st.doubleSum()
	case Avg:
		if sp.Arg == catalog.BigInt {
			if s, ok := st.smallSum(); ok && st.n < 1<<53 {
				out.F[i] = float64(s) / float64(st.n) // both exact: one rounding
				return
			}
			r := st.bigSum()
			r.Quo(r, new(big.Rat).SetInt64(st.n))
			out.F[i], _ = r.Float64()
			return
		}
		if sp, ok := st.special(false); ok {
			out.F[i] = sp
			return
		}
		if !st.nonNegZero {
			out.F[i] = math.Copysign(0, -1)
			return
		}
		if st.big1 == nil && len(st.s1) <= 1 && st.n < 1<<53 {
			s := 0.0
			if len(st.s1) == 1 {
				s = st.s1[0]
			}
			out.F[i] = s / float64(st.n) // the exact sum is one double: one rounding
			return
		}
		if st.big1 == nil {
			if q, ok := quoRound(st.s1, st.n); ok {
				out.F[i] = q
				return
			}
		}
		r := exactSum(st.s1, st.big1)
		r.Quo(r, new(big.Rat).SetInt64(st.n))
		out.F[i], _ = r.Float64()
	case VarPop, VarSamp, StddevPop, StddevSamp:
		samp := sp.Func == VarSamp || sp.Func == StddevSamp
		if samp && st.n == 1 {
			out.Null[i] = true
			return
		}
		v := st.variance(sp, samp)
		if sp.Func == StddevPop || sp.Func == StddevSamp {
			v = math.Sqrt(v)
		}
		out.F[i] = v
	case Min, Max, First, Last:
		switch sp.Arg {
		case catalog.BigInt, catalog.Timestamp:
			out.I[i] = st.value()
		case catalog.Double:
			out.F[i] = st.fval()
		case catalog.Boolean:
			out.B[i] = st.bval()
		case catalog.Varchar:
			out.S[i] = st.s
		}
	case ListAgg:
		start := len(out.Arena)
		prev := int32(0)
		for k, e := range st.ends {
			if k > 0 {
				out.Arena = append(out.Arena, sp.Sep...)
			}
			out.Arena = append(out.Arena, st.text[prev:e]...)
			prev = e
		}
		out.S[i] = out.Arena[start:len(out.Arena):len(out.Arena)]
	}
}

// special gives the result when a NaN or an infinity occurred (SPEC 2.4: NaN for a
// NaN or both infinities, else the infinity; its square for VAR when sq).
func (st *State) special(sq bool) (float64, bool) {
	switch {
	case st.nan || st.pinf && st.ninf:
		return math.NaN(), true
	case st.pinf:
		return math.Inf(1), true
	case st.ninf:
		if sq {
			return math.Inf(1), true
		}
		return math.Inf(-1), true
	}
	return 0, false
}

// doubleSum is SUM of DOUBLE: the exact sum rounded once.
func (st *State) doubleSum() float64 {
	if v, ok := st.special(false); ok {
		return v
	}
	if !st.nonNegZero {
		return math.Copysign(0, -1)
	}
	if st.big1 == nil && len(st.s1) <= 1 {
		if len(st.s1) == 0 {
			return 0
		}
		return st.s1[0]
	}
	if st.big1 == nil {
		return fsumRound(st.s1)
	}
	f, _ := exactSum(st.s1, st.big1).Float64()
	return f
}

// variance is (S2 − S1²/n) / n (or / (n − 1) when samp), exact, rounded once.
func (st *State) variance(sp *Spec, samp bool) float64 {
	var s1 *big.Rat
	if sp.Arg == catalog.BigInt {
		s1 = st.bigSum()
	} else {
		if v, ok := st.special(true); ok {
			return v
		}
		s1 = exactSum(st.s1, st.big1)
	}
	s2 := exactSum(st.s2, st.big2)
	n := new(big.Rat).SetInt64(st.n)
	q := new(big.Rat).Mul(s1, s1)
	q.Quo(q, n)
	s2.Sub(s2, q)
	d := n
	if samp {
		d = new(big.Rat).SetInt64(st.n - 1)
	}
	s2.Quo(s2, d)
	if s2.Sign() <= 0 {
		// An exact variance is never negative. S2 is exact only while the
		// squares are normal doubles (|x| above about 1e-154): the squares of
		// tiny values underflow, S2 falls short and the difference may go
		// below zero, which would round to -0.0. The exact value there is
		// below the smallest double's half, so it rounds to 0.0.
		return 0
	}
	f, _ := s2.Float64()
	return f
}

// Bytes estimates the memory the state holds beyond its fixed size, for
// 'state.max-bytes' (SPEC 1): partial sums, copied text, LISTAGG values,
// distinct values.
func (st *State) Bytes() int64 { return st.caps() }

// Count returns the values the state holds net of retractions (all rows
// for COUNT(*)): the result of COUNT, and a read of the state's first word
// (the updating aggregate loads a batch's groups with it ahead of their
// changes, executor/aggregate/groupagg.go's prefind).
func (st *State) Count() int64 { return st.n }

// FixedBytes is the size of a State without its wide part and what Bytes
// counts.
const FixedBytes = int(unsafe.Sizeof(State{}))

// wideBytes is the size of a State's wide part (with its allocation's
// rounding) without what Bytes counts.
const wideBytes = int(unsafe.Sizeof(wide{})+15) &^ 15

// StateBytes is the state (bytes, for 'state.max-bytes', SPEC 1) one State of
// sp holds before its buffers grow (Bytes counts those): FixedBytes, and its
// wide part when sp needs one (State's doc), counted whether or not a value
// came.
func StateBytes(sp *Spec) int {
	if !needsWide(sp) {
		return FixedBytes
	}
	switch {
	case sp.Func.Numeric():
		return FixedBytes + wideBytes + sumsBytes
	case sp.Func == ListAgg:
		return FixedBytes + wideBytes + laggBytes
	}
	return FixedBytes + wideBytes
}

// sumsBytes and laggBytes are the sizes of a wide part's sums and lagg
// (with their allocations' rounding), which StateBytes adds for the
// functions that allocate them.
const (
	sumsBytes = int(unsafe.Sizeof(sums{})+15) &^ 15
	laggBytes = int(unsafe.Sizeof(lagg{})+15) &^ 15
)
