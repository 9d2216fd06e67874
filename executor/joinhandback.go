package executor

import (
	"slices"
)

// joinHandBack is a join job's account of the rows of its inputs' last
// batches, for an input that takes back what a job did not use (Unreader:
// stdin, SPEC 1: the session's next job reads on after the last row used).
// When the job's LIMIT cuts the joined rows (joinSource.Unread), each such
// input is told the rows of its last batch up to the furthest of its rows
// the used joined rows were made of; the rest, which the join read and
// holds, or joined after the cut, goes back. A lookup join's right input,
// a table read whole, is not cut. An input read on a goroutine of its own
// or by a parallel reader (joinInput.ahead, par) reads ahead of what the
// job saw, so it is not cut either.
type joinHandBack struct {
	// on: input s takes back (its source is an Unreader, read on the job's
	// goroutine); pos are the positions of its last batch's rows (the
	// joined rows' op.Join.Sources) and bad its malformed rows' indexes
	on  [2]bool
	pos [2][]int64
	bad [2][]int
}

// note records the last batch input s read (joinSource.intake, right
// after its port reader read it), before its malformed rows are taken out.
func (h *joinHandBack) note(js *joinSource, s int) {
	ji := js.in[s]
	h.on[s] = takesBack(ji.src) && ji.r.from == nil && !(js.both.Lookup && s == 1)
	if !h.on[s] {
		return
	}
	h.pos[s] = append(h.pos[s][:0], ji.b.Pos[:ji.b.N]...)
	h.bad[s] = h.bad[s][:0]
	for _, r := range ji.bad {
		h.bad[s] = append(h.bad[s], r.Index)
	}
}

// Unread implements Unreader: the job used the first rows joined rows of
// the last batch Next gave (its LIMIT's cut); each input that takes back
// is told the rows of its last batch up to the furthest one they were
// made of (joinHandBack).
func (js *joinSource) Unread(rows int) {
	h := &js.hand
	for s, ji := range js.in {
		if ji == nil || !h.on[s] {
			continue
		}
		last := int64(-1)
		if f := js.from[s]; rows > 0 && len(f) > 0 {
			last = slices.Max(f[:min(rows, len(f))]) // (-1: padded with NULLs)
		}
		used := 0
		for used < len(h.pos[s]) && h.pos[s][used] <= last {
			used++
		}
		bad := 0
		for _, i := range h.bad[s] {
			if i < used {
				bad++
			}
		}
		ji.src.(Unreader).UnreadAfter(used, bad)
	}
}

// UnreadAfter implements Unreader: a join gives no malformed rows of its
// own (each input's go to its errors output as they are read).
func (js *joinSource) UnreadAfter(rows, _ int) { js.Unread(rows) }

var _ Unreader = (*joinSource)(nil)
