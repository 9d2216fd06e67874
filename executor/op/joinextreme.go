package op

import (
	"math"

	"streamql/catalog"
	"streamql/executor/vector"
)

// extremeBounds is the state of JoinSpec.Extreme: for each window of the
// filtered input's rows still in reach, the largest (MAX) or least (MIN)
// value of its rows the join has taken, a bound of the window's aggregate
// (JoinExtreme says why). Few windows are in reach at a time (those the
// watermarks have not passed, and the interval's width more), so they are a
// short list, searched from the last one used.
type extremeBounds struct {
	side, col    int
	max, float   bool
	size, offset int64
	lo, hi       int64
	wins         []extremeWin
	last         int // wins' entry found last
}

// extremeWin is one window's bound: window k (its rows' times in
// [k*size+offset, (k+1)*size+offset)), the bound as an integer (BIGINT,
// TIMESTAMP) or a float (DOUBLE).
type extremeWin struct {
	k int64
	i int64
	f float64
}

// maxExtremeWins is the most windows a row may join for the filter to test
// it: a wider interval holds its rows (it would search too many bounds).
const maxExtremeWins = 4

// newExtremeBounds returns the state of x, whose column is of type t
// (BIGINT, TIMESTAMP or DOUBLE; other types are never filtered).
func newExtremeBounds(x JoinExtreme, t catalog.Type) *extremeBounds {
	b := &extremeBounds{side: x.Side, col: x.Col, max: x.Max, size: x.Size, offset: x.Offset, lo: x.Lo, hi: x.Hi}
	switch t {
	case catalog.BigInt, catalog.Timestamp:
	case catalog.Double:
		b.float = true
	default:
		b.size = 0 // (no bound: nothing is dropped)
	}
	return b
}

// takeBatch takes row i of b, of time t, not late: it raises (lowers) the
// bound of its window by its value, and reports whether the row cannot join
// (below the bound of every window it could join), so it need not be kept.
func (x *extremeBounds) takeBatch(b *vector.Batch, i int, t int64) bool {
	v := b.Cols[x.col]
	if x.size <= 0 || v.Null[i] {
		return false
	}
	if x.float {
		f := v.F[i]
		if math.IsNaN(f) {
			return false
		}
		x.raise(t, 0, f)
		return x.below(t, 0, f)
	}
	x.raise(t, v.I[i], 0)
	return x.below(t, v.I[i], 0)
}

// outdone reports whether held row k of r, of time t, cannot join after
// all: a row taken after it raised the bound of every window it could join
// above its value.
func (x *extremeBounds) outdone(r *Rows, k int, t int64) bool {
	if x.size <= 0 || r.Null(k, x.col) {
		return false
	}
	if x.float {
		f := r.Float(k, x.col)
		return !math.IsNaN(f) && x.below(t, 0, f)
	}
	return x.below(t, r.Int(k, x.col), 0)
}

// window returns the window of time t.
func (x *extremeBounds) window(t int64) int64 { return floorDiv(t-x.offset, x.size) }

// find returns the entry of window k, -1 when it has none.
func (x *extremeBounds) find(k int64) int {
	if x.last < len(x.wins) && x.wins[x.last].k == k {
		return x.last
	}
	for e := range x.wins {
		if x.wins[e].k == k {
			x.last = e
			return e
		}
	}
	return -1
}

// raise folds the value (i, or f for DOUBLE) of a row of time t into its
// window's bound.
func (x *extremeBounds) raise(t, i int64, f float64) {
	k := x.window(t)
	e := x.find(k)
	if e < 0 {
		x.wins = append(x.wins, extremeWin{k: k, i: i, f: f})
		x.last = len(x.wins) - 1
		return
	}
	w := &x.wins[e]
	if x.float {
		if x.max && f > w.f || !x.max && f < w.f {
			w.f = f
		}
	} else if x.max && i > w.i || !x.max && i < w.i {
		w.i = i
	}
}

// below reports whether the value (i, or f) of a row of time t is below
// (MIN: above) the bound of every window it could join: those whose end e
// has t - e in [lo, hi]. A window without a bound yet may still equal it;
// a row that can join no window at all never joins.
func (x *extremeBounds) below(t, i int64, f float64) bool {
	// window k ends at (k+1)*size + offset
	first := ceilDiv(satSub(satSub(t, x.hi), x.offset), x.size) - 1
	last := floorDiv(satSub(satSub(t, x.lo), x.offset), x.size) - 1
	if last-first >= maxExtremeWins {
		return false // (too many windows to test)
	}
	for k := first; k <= last; k++ {
		e := x.find(k)
		if e < 0 {
			return false
		}
		w := x.wins[e]
		if x.float {
			if x.max && !(f < w.f) || !x.max && !(f > w.f) {
				return false
			}
		} else if x.max && i >= w.i || !x.max && i <= w.i {
			return false
		}
	}
	return true
}

// prune forgets the windows no row can join any more: every row still held
// or to come has a time of at least bound (the join's release bound), so a
// window ending before bound - hi is out of its reach. (A bound forgotten
// too early would only drop fewer rows: each bound is of rows of its window.)
func (x *extremeBounds) prune(bound int64) {
	if bound == math.MinInt64 {
		return
	}
	from := satSub(bound, x.hi)
	n := 0
	for _, w := range x.wins {
		if end := (w.k+1)*x.size + x.offset; end >= from && bound != math.MaxInt64 {
			x.wins[n] = w
			n++
		}
	}
	x.wins = x.wins[:n]
	x.last = 0
}

// floorDiv is a / b rounded down (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// ceilDiv is a / b rounded up (b > 0).
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}
