package executor

import (
	"slices"

	"streamql/catalog"
	"streamql/executor/vector"
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
//
// The malformed rows of such an input's last batch go to the errors output
// once the job is past them (joinInput.held): when the input reads its next
// batch or ends (flushHeld), or, at the LIMIT's cut, those before the cut,
// the others being handed back for the next job to report, and taken out
// of the count (SPEC 1: each malformed row reported once, by the statement
// whose cut it precedes). Its late rows go to the join's late output as the
// join gives them (SPEC 2.7), in the order of the job's other outputs (SPEC
// 4, the line formats), before the joined rows that follow them, so they
// are the statement's: the cut hands back none of them, but the rows after
// the last one sent (lateSent), as after the last row a used joined row was
// made of (a late row went to late-o and the next statement read it again;
// SPEC 2.2: the side outputs hold what was routed until the cut, the rest
// is not read).
type joinHandBack struct {
	// on: input s takes back (its source is an Unreader, read on the job's
	// goroutine); pos are the positions of its last batch's rows (the
	// joined rows' op.Join.Sources) and bad its malformed rows' indexes
	on  [2]bool
	pos [2][]int64
	bad [2][]int
	// hold: input s is a stream that hands back (catalog.CapHandBack, not
	// a file, whose source is an Unreader too), whose malformed rows wait
	// (joinInput.held)
	hold [2]bool
	// lateSent is the furthest position of input s's late rows sent to its
	// late output, or -1 (before the first: 0, no row's); the cut is after it
	lateSent [2]int64
}

// sentLate notes the late rows sel of b of input s, which the join sends to
// its late output now (joinHandBack.lateSent), when s takes back.
func (h *joinHandBack) sentLate(s int, b *vector.Batch, sel []int32) {
	if !h.on[s] {
		return
	}
	for _, i := range sel {
		h.lateSent[s] = max(h.lateSent[s], b.Pos[i])
	}
}

// note records the last batch input s read (joinSource.intake, right
// after its port reader read it), before its malformed rows are taken out.
func (h *joinHandBack) note(js *joinSource, s int) {
	ji := js.in[s]
	h.on[s] = takesBack(ji.src) && ji.r.from == nil && !(js.both.Lookup && s == 1)
	h.hold[s] = h.on[s] && ji.in.Stream.Caps().Has(catalog.CapHandBack)
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
		last = max(last, h.lateSent[s]) // (the late rows sent are the statement's)
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
		js.cutHeld(ji, used, len(h.bad[s])-bad)
		ji.src.(Unreader).UnreadAfter(used, bad)
	}
}

// flushHeld sends the held errors rows of input s (joinInput.held) to the
// errors output: the job read on past them.
func (js *joinSource) flushHeld(s int) error {
	ji := js.in[s]
	if ji == nil || !ji.held {
		return nil
	}
	ji.held = false
	return js.sink.Errors(ji.es.Side, ji.errs)
}

// cutHeld is the LIMIT's cut of input ji's last batch, of which the job
// used the first used rows: its held errors rows before them go to the
// errors output, and its after malformed rows after them, handed back,
// leave the count (the next job reports them). An error of the sink's is
// the job's (it ends here anyway): the rows are dropped.
func (js *joinSource) cutHeld(ji *joinInput, used, after int) {
	if ji.es.Policy != "fail" {
		ji.es.Malformed -= int64(after)
		ji.malformed -= int64(after)
	}
	if !ji.held {
		return
	}
	ji.held = false
	keep := ji.errs[:0]
	for _, r := range ji.errs {
		if r.At < used {
			keep = append(keep, r)
		}
	}
	if len(keep) > 0 {
		_ = js.sink.Errors(ji.es.Side, keep)
	}
}

// UnreadAfter implements Unreader: a join gives no malformed rows of its
// own (each input's go to its errors output as they are read).
func (js *joinSource) UnreadAfter(rows, _ int) { js.Unread(rows) }

var _ Unreader = (*joinSource)(nil)
