// Package window assigns event times to the windows of SPEC 2.4's window
// table-valued functions: TUMBLE, HOP and CUMULATE (k any integer, so windows
// align to the epoch and negative times work), and the session rule's interval.
package window

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

// First returns the first window holding t (Nth's j = 0) and how many do
// (Count), from the divisions they share: a row's windows are walked from it
// with Next. A kind that is not assigned here gives none.
func First(k Kind, size, slide, offset, t int64) (Win, int64) {
	switch k {
	case Tumble:
		s := FloorDiv(t-offset, size)*size + offset
		return Win{s, s + size}, 1
	case Hop:
		q := FloorDiv(t-offset-size, slide) + 1 // the first start's index
		s := q*slide + offset
		return Win{s, s + size}, FloorDiv(t-offset, slide) - q + 1
	case Cumulate:
		s := FloorDiv(t-offset, size)*size + offset
		d := FloorDiv(t-s, slide)
		return Win{s, s + (d+1)*slide}, size/slide - d
	}
	return Win{}, 0
}

// Nth returns the j-th window holding t (0 <= j < Count): HOP's in
// window-start order, CUMULATE's by end.
func Nth(k Kind, size, slide, offset, t, j int64) Win {
	switch k {
	case Hop:
		s := (FloorDiv(t-offset-size, slide)+1+j)*slide + offset
		return Win{s, s + size}
	case Cumulate:
		s := FloorDiv(t-offset, size)*size + offset
		return Win{s, s + (FloorDiv(t-s, slide)+1+j)*slide}
	}
	s := FloorDiv(t-offset, size)*size + offset
	return Win{s, s + size}
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
