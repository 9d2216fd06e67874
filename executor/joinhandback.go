package executor

import (
	"errors"
	"io"
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
// whose cut it precedes). Its late rows (SPEC 2.7) wait alike
// (joinInput.lateHeld): a late row after the cut is handed back, neither
// sent to the late output nor counted, and the next job reads it (SPEC
// 2.2: side outputs hold what was routed until the cut; it was sent and
// then read again).
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
		js.cutLate(s, last, h.pos[s])
		ji.src.(Unreader).UnreadAfter(used, bad)
	}
}

// holdLate keeps the late rows sel of b of input s (joinInput.lateHeld)
// until the job is past them (flushHeld) or cuts (cutLate). A batch's worth
// held already is sent first (the join gives at most a batch's late rows a
// read, each of that read's batch).
func (js *joinSource) holdLate(s int, b *vector.Batch, sel []int32) error {
	ji := js.in[s]
	if ji.lateHeld == nil {
		ji.lateHeld = vector.NewBatch(js.both.Inputs[s].Types)
	}
	for _, i := range sel {
		if ji.lateHeld.N == vector.Cap {
			if err := js.flushLate(s); err != nil {
				return err
			}
		}
		ji.lateHeld.AppendRows(b, int(i), int(i)+1)
	}
	return nil
}

// endLate returns err, the scheduler's step's, after sending both inputs'
// held late rows when it ends the join (io.EOF: the job is past them) or
// stops the job (a failure: outputs keep what was routed before it, SPEC
// 1); a sink's error is returned at the end in place of io.EOF.
func (js *joinSource) endLate(err error) error {
	if err == nil || errors.Is(err, ErrWaiting) {
		return err
	}
	for s := range js.in {
		if ferr := js.flushLate(s); ferr != nil && errors.Is(err, io.EOF) {
			err = ferr
		}
	}
	return err
}

// flushLate sends input s's held late rows to its late output.
func (js *joinSource) flushLate(s int) error {
	if js.in[s] == nil {
		return nil
	}
	lb := js.in[s].lateHeld
	if lb == nil || lb.N == 0 {
		return nil
	}
	js.sel = js.sel[:0]
	for i := range lb.N {
		js.sel = append(js.sel, int32(i))
	}
	err := js.lateOut(s, lb, js.sel)
	lb.Reset()
	return err
}

// cutLate is the LIMIT's cut of input s's held late rows: those of rows
// the job used (a position up to last, the furthest used row's, or before
// the last batch's, whose positions are pos) go to the late output; the
// others, handed back with their rows, leave the count. An error of the
// sink's is the job's (it ends here anyway): the rows are dropped.
func (js *joinSource) cutLate(s int, last int64, pos []int64) {
	lb := js.in[s].lateHeld
	if lb == nil || lb.N == 0 {
		return
	}
	js.sel = js.sel[:0]
	for i := range lb.N {
		if p := lb.Pos[i]; p <= last || len(pos) > 0 && p < pos[0] {
			js.sel = append(js.sel, int32(i))
		}
	}
	js.late[s].Rows -= int64(lb.N - len(js.sel))
	if len(js.sel) > 0 {
		_ = js.lateOut(s, lb, js.sel)
	}
	lb.Reset()
}

// flushHeld sends the held late rows of input s (joinInput.lateHeld) to its
// late output and its held errors rows (joinInput.held) to the errors
// output: the job read on past them.
func (js *joinSource) flushHeld(s int) error {
	ji := js.in[s]
	if ji == nil {
		return nil
	}
	if err := js.flushLate(s); err != nil {
		return err
	}
	if !ji.held {
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
