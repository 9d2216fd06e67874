// Package window assigns event times to the windows of SPEC 2.4's window
// table-valued functions: TUMBLE, HOP and CUMULATE (k any integer, so windows
// align to the epoch and negative times work), and the session rule's interval.
package window

import (
	"math"
	"math/big"
)

// Win is one window [Start, End), in the time column's milliseconds.
type Win struct{ Start, End int64 }

// Kind is a window function.
type Kind uint8

// The window functions of SPEC 2.4.
const (
	Tumble Kind = iota
	Hop
	Cumulate
	Session
)

// KindOf returns the Kind named TUMBLE, HOP, CUMULATE or SESSION.
func KindOf(name string) Kind {
	switch name {
	case "HOP":
		return Hop
	case "CUMULATE":
		return Cumulate
	case "SESSION":
		return Session
	}
	return Tumble
}

// FloorDiv is ⌊a / b⌋ for b > 0 (window starts align to the epoch for
// negative times too).
func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && (a < 0) {
		q--
	}
	return q
}

// Count returns how many windows hold t (SPEC 2.4's table): TUMBLE the one
// [k·size + offset, … + size); HOP every [k·slide + offset, … + size) holding
// t; CUMULATE, with start = k·size + offset, every [start, start + j·step)
// holding t, j = 1 … size/step. slide is the step for CUMULATE and unused by
// TUMBLE; session windows are not assigned here (the operator merges them).
// Nth gives them one at a time, so the windows of a row are walked, never
// made: a HOP of size/slide windows per row, say 86,400,000 for a slide of
// 1 ms and a size of a day, is never held in memory.
func Count(k Kind, size, slide, offset, t int64) int64 {
	_, n := First(k, size, slide, offset, t)
	return n
}

// mod is (t - offset) mod m in [0, m) for m > 0, without computing t -
// offset (which may not be an int64): the distance from t back to the
// latest point offset + k·m at or before it.
func mod(t, offset, m int64) int64 {
	a, b := t%m, offset%m
	if a < 0 {
		a += m
	}
	if b < 0 {
		b += m
	}
	if d := a - b; d >= 0 { // in (-m, m)
		return d
	} else {
		return d + m
	}
}

// First returns the first window holding t (Nth's j = 0) and how many do
// (Count), from the divisions they share: a row's windows are walked from it
// with Next. A kind that is not assigned here gives none. t must be in
// Range's bounds (every window of t then is [Start, End) in int64, and so is
// every step here).
func First(k Kind, size, slide, offset, t int64) (Win, int64) {
	switch k {
	case Tumble:
		s := t - mod(t, offset, size)
		return Win{s, s + size}, 1
	case Hop:
		s := t - mod(t, offset, slide) - (size - slide) // the earliest start after t - size
		return Win{s, s + size}, size / slide
	case Cumulate:
		s := t - mod(t, offset, size)
		d := (t - s) / slide
		return Win{s, s + (d+1)*slide}, size/slide - d
	}
	return Win{}, 0
}

// Nth returns the j-th window holding t (0 <= j < Count): HOP's in
// window-start order, CUMULATE's by end. t must be in Range's bounds.
func Nth(k Kind, size, slide, offset, t, j int64) Win {
	switch k {
	case Hop:
		w, _ := First(k, size, slide, offset, t)
		return Win{w.Start + j*slide, w.End + j*slide}
	case Cumulate:
		w, _ := First(k, size, slide, offset, t)
		return Win{w.Start, w.End + j*slide}
	}
	w, _ := First(Tumble, size, slide, offset, t)
	return w
}

// Range returns the times lo <= t <= hi whose windows can all be
// represented: every Start and End in int64 (SPEC 2.4 windows are of the
// time column's type, a BIGINT of milliseconds or a TIMESTAMP). A time
// outside has a window that would wrap; its row is malformed. gap is
// SESSION's (a session of a row at t is [t, t + gap)); size, slide and offset
// are the other kinds' (offset any int64, slide dividing size).
func Range(k Kind, size, slide, offset, gap int64) (lo, hi int64) {
	var minStart, maxEnd func(t *big.Int) *big.Int
	bmod := func(t *big.Int, m int64) *big.Int { // (t - offset) mod m, in [0, m)
		d := new(big.Int).Sub(t, big.NewInt(offset))
		return d.Mod(d, big.NewInt(m))
	}
	switch k {
	case Session:
		minStart = func(t *big.Int) *big.Int { return t }
		maxEnd = func(t *big.Int) *big.Int { return new(big.Int).Add(t, big.NewInt(gap)) }
	case Hop:
		last := func(t *big.Int) *big.Int { return new(big.Int).Sub(t, bmod(t, slide)) }
		minStart = func(t *big.Int) *big.Int { s := last(t); return s.Sub(s, big.NewInt(size-slide)) }
		maxEnd = func(t *big.Int) *big.Int { s := last(t); return s.Add(s, big.NewInt(size)) }
	default: // TUMBLE, CUMULATE: [s, s + size) holds every window of t
		minStart = func(t *big.Int) *big.Int { return new(big.Int).Sub(t, bmod(t, size)) }
		maxEnd = func(t *big.Int) *big.Int { s := minStart(t); return s.Add(s, big.NewInt(size)) }
	}
	minI, maxI := big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
	// both bounds move up with t: lo is the least t whose first start is an
	// int64, hi the greatest whose last end is
	lo = search(func(t int64) bool { return minStart(big.NewInt(t)).Cmp(minI) >= 0 })
	hi = search(func(t int64) bool { return maxEnd(big.NewInt(t)).Cmp(maxI) > 0 }) - 1
	return lo, hi
}

// search returns the least int64 t for which ok holds; ok is false, then
// true, as t grows, and true at math.MaxInt64 (Range's tests are: any
// window's start fits, an end does not).
func search(ok func(int64) bool) int64 {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64) // ok(hi)
	if ok(lo) {
		return lo
	}
	for uint64(hi)-uint64(lo) > 1 { // !ok(lo), ok(hi); (the distance may not be an int64)
		mid := int64(uint64(lo) + (uint64(hi)-uint64(lo))/2)
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// Next returns the window after w among those holding a time, in Nth's order
// (Nth(j+1) from Nth(j), without a division): HOP's next start, CUMULATE's
// next end. TUMBLE has one window: its Next is not defined.
func Next(k Kind, w Win, slide int64) Win {
	if k == Cumulate {
		return Win{w.Start, w.End + slide}
	}
	return Win{w.Start + slide, w.End + slide}
}
