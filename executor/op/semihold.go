package op

import (
	"fmt"

	"streamql/catalog"
	"streamql/executor/vector"
)

// This file is SemiJoin's Hold mode (SemiSpec.Hold): the held left rows of
// the executor's event-time strategy, which the executor takes out in order
// once Decided, routes, and gives back as Done, and the malformed rows
// between them, which Hold mode keeps as rows of an input port of their own
// (HoldErrors), each at its ordinal, so that they leave with the left rows
// before which they came (SPEC 1: the counts on stderr equal the rows
// written; a Kafka replay's frontier is a held row's, good or malformed).

// HoldErrors is Hold mode's errors port: an input whose rows are the left
// stream's malformed rows (SPEC 1, "Bad input"), as columns of
// HeldErrorTypes, each with its source position (vector.Batch.Pos). A
// malformed row is held at its ordinal (column HeldErrAt): the number of
// left rows that came before it since the operator started, so it leaves
// with the left rows up to that ordinal (ErrorsUpTo) and after none of the
// ones following it. Its rows are not charged to the Account: the budget
// ('state.max-bytes') counts the left rows only.
const HoldErrors = 2

// The columns of a row of the errors port (HoldErrors), HeldErrorTypes.
const (
	HeldErrPosition = iota // VARCHAR: its position as a user reads it (path:line)
	HeldErrRaw             // VARCHAR: its raw text
	HeldErrReason          // VARCHAR: what is wrong with it
	HeldErrEmit            // BOOLEAN: it goes to the errors output ('errors'='side'); false: it is only counted ('skip')
	HeldErrAt              // BIGINT: its ordinal, the left rows before it (not NULL)
)

// HeldErrorTypes are the column types of the errors port's rows
// (HoldErrors), indexed by HeldErrPosition .. HeldErrAt.
var HeldErrorTypes = []catalog.Type{catalog.Varchar, catalog.Varchar, catalog.Varchar, catalog.Boolean, catalog.BigInt}

// heldErrorStore is the layout the held malformed rows are stored in: the
// ordinal is kept beside them (SemiJoin.badAt), so that a partition's drop
// renumbers it.
var heldErrorStore = []catalog.Type{catalog.Varchar, catalog.Varchar, catalog.Varchar, catalog.Boolean, catalog.Unknown}

// HeldError is one held malformed row (SemiJoin.HeldError): the columns of its
// errors port's row and its source position. Its byte slices point into
// the held rows: valid until the next Push, DoneErrors or DropHeld.
type HeldError struct {
	At                    int64 // its ordinal (HeldErrAt)
	Pos                   int64 // its source position (vector.Batch.Pos)
	Position, Raw, Reason []byte
	Emit                  bool
}

// holdErrors holds the malformed rows of b, given on HoldErrors, after the
// held ones: their ordinals ascend and none is before the first held left
// row nor after the last one's next.
func (j *SemiJoin) holdErrors(b *vector.Batch) error {
	at := b.Cols[HeldErrAt]
	next := j.gone + int64(j.Held()) // the next left row's ordinal
	for i := range b.N {
		o := at.I[i]
		last := j.gone
		if n := len(j.badAt); n > j.badHead {
			last = max(last, j.badAt[n-1])
		}
		if at.Null[i] || o < last || o > next {
			return fmt.Errorf("semi join: a malformed row held at ordinal %d, not between %d (the held rows') and %d (the next row's)", o, last, next)
		}
		j.bad.Add(b, i)
		j.badAt = append(j.badAt, o)
	}
	return nil
}

// HeldErrors returns the number of held malformed rows (Hold mode).
func (j *SemiJoin) HeldErrors() int { return len(j.badAt) - j.badHead }

// HeldError returns held malformed row i, counted from the first (Hold
// mode).
func (j *SemiJoin) HeldError(i int) HeldError {
	k := j.badHead + i
	return HeldError{At: j.badAt[k], Pos: j.bad.Pos(k), Position: j.bad.Str(k, HeldErrPosition), Raw: j.bad.Str(k, HeldErrRaw),
		Reason: j.bad.Str(k, HeldErrReason), Emit: !j.bad.Null(k, HeldErrEmit) && j.bad.Bool(k, HeldErrEmit)}
}

// ErrorsUpTo returns how many held malformed rows, from the first, are at
// ordinals up to end: those that leave with the left rows before ordinal
// end (Hold mode).
func (j *SemiJoin) ErrorsUpTo(end int64) int {
	n := 0
	for k := j.badHead; k < len(j.badAt) && j.badAt[k] <= end; k++ {
		n++
	}
	return n
}

// Gone returns the ordinal of the first held left row: the left rows Done
// so far (Hold mode).
func (j *SemiJoin) Gone() int64 { return j.gone }

// DoneErrors drops the first n held malformed rows (routed or counted:
// Hold mode).
func (j *SemiJoin) DoneErrors(n int) {
	j.badHead += n
	switch {
	case j.badHead == len(j.badAt):
		j.bad.reset()
		j.badAt, j.badHead = j.badAt[:0], 0
	case j.badHead >= vector.Cap && 2*j.badHead >= len(j.badAt): // (amortized, as Done)
		head := j.badHead
		j.bad.Compact(func(k int) bool { return k >= head })
		j.badAt = append(j.badAt[:0], j.badAt[head:]...)
		j.badHead = 0
	}
}

// hold adds the rows of b, given on input port, to the held rows (port 0)
// and charges them as one growth, so that every row of the batch is held
// even when the budget is passed (the executor then routes what a stop
// still routes, SPEC 4). Input 1 gives no rows in Hold mode.
func (j *SemiJoin) hold(b *vector.Batch, port int) error {
	if port != 0 {
		return fmt.Errorf("semi join: a holding join takes rows on input 0 only, not %d", port)
	}
	return j.acct.Grow(j.held.appendBatch(b, &j.bytes))
}

// Held returns the number of held left rows (Hold mode).
func (j *SemiJoin) Held() int { return j.held.Len() - j.head }

// HeldPos returns the source position (vector.Batch.Pos) of held row i,
// counted from the first held row (Hold mode).
func (j *SemiJoin) HeldPos(i int) int64 { return j.held.Pos(j.head + i) }

// HeldInt returns column c (BIGINT or TIMESTAMP) of held row i, counted
// from the first held row, and whether it is NULL (Hold mode).
func (j *SemiJoin) HeldInt(i, c int) (v int64, null bool) {
	return j.held.Int(j.head+i, c), j.held.Null(j.head+i, c)
}

// Decided returns how many held rows, from the first on and at most max,
// are decided: the right input has ended, or its watermark is greater than
// their event time (SPEC 2.2). Without a right watermark none is.
func (j *SemiJoin) Decided(max int) int {
	n := 0
	tc := j.spec.Time[0]
	for k := j.head; k < j.held.Len() && n < max; k++ {
		if !j.done[1] && (!j.wmSet[1] || j.held.Int(k, tc) >= j.wm[1]) {
			break
		}
		n++
	}
	return n
}

// Take writes the first n held rows into b (its rows 0..n-1, with their
// positions; b has the left input's types), keeping them held until Done
// (Hold mode). n is at most Held() and vector.Cap. b's VARCHAR values point
// into the held rows: b is valid until the next Push or Done.
func (j *SemiJoin) Take(b *vector.Batch, n int) {
	b.Reset()
	j.take = j.take[:0]
	for k := j.head; k < j.head+n; k++ {
		j.take = append(j.take, int32(k))
	}
	j.held.gatherTo(b, 0, 0, j.take)
	for i := range n {
		b.Pos[i] = j.held.Pos(j.head + i)
	}
	b.N = n
}

// Done drops the first n held rows (routed) and gives their bytes back to
// the Account (Hold mode); the first held row's ordinal (Gone) moves on by
// n.
func (j *SemiJoin) Done(n int) {
	j.gone += int64(n)
	var freed int64
	for k := j.head; k < j.head+n; k++ {
		freed += int64(j.bytes[k])
	}
	j.head += n
	_ = j.acct.Grow(-freed)
	if j.head > 0 && (j.head == j.held.Len() || j.head >= vector.Cap && 2*j.head >= j.held.Len()) {
		// the routed rows leave the store (amortized, as release does)
		j.held.Compact(func(k int) bool { return k >= j.head })
		j.bytes = append(j.bytes[:0], j.bytes[j.head:]...)
		j.head = 0
	}
}

// DropHeld drops the held rows, left and malformed, whose source position
// drop is true for, keeping the others in their order, and gives their
// bytes back to the Account (Hold mode: a Kafka partition's rows, when the
// partition is revoked or read again). A kept malformed row stays before
// the same kept left row: its ordinal counts the kept left rows only.
func (j *SemiJoin) DropHeld(drop func(pos int64) bool) {
	j.dropErrors(drop)
	var freed int64
	head := j.head
	moved := j.held.Compact(func(k int) bool {
		if k < head {
			return false
		}
		if drop(j.held.Pos(k)) {
			freed += int64(j.bytes[k])
			return false
		}
		return true
	})
	n := 0
	for k, to := range moved {
		if to >= 0 {
			j.bytes[to] = j.bytes[k]
			n = to + 1
		}
	}
	j.bytes = j.bytes[:n]
	j.head = 0
	_ = j.acct.Grow(-freed)
}

// dropErrors drops the held malformed rows whose position drop is true
// for and renumbers the others to the left rows DropHeld keeps.
func (j *SemiJoin) dropErrors(drop func(pos int64) bool) {
	if j.HeldErrors() == 0 {
		return
	}
	held := j.Held()
	// kept[i]: the left rows kept before held row i
	kept := make([]int64, held+1)
	for i := range held {
		kept[i+1] = kept[i]
		if !drop(j.held.Pos(j.head + i)) {
			kept[i+1]++
		}
	}
	head := j.badHead
	moved := j.bad.Compact(func(k int) bool { return k >= head && !drop(j.bad.Pos(k)) })
	at := j.badAt[:0]
	for k, to := range moved {
		if to >= 0 {
			at = append(at, j.gone+kept[min(max(j.badAt[k]-j.gone, 0), int64(held))])
		}
	}
	j.badAt, j.badHead = at, 0
}

// Unaccount gives the bytes of the held rows back to the Account and keeps
// the rows (Hold mode: the job ended; a replay's last checkpoint still
// reads their positions).
func (j *SemiJoin) Unaccount() {
	var n int64
	for k := j.head; k < len(j.bytes); k++ {
		n += int64(j.bytes[k])
		j.bytes[k] = 0
	}
	_ = j.acct.Grow(-n)
}

// HeldBytes returns the bytes the held rows are charged (Hold mode).
func (j *SemiJoin) HeldBytes() int64 {
	var n int64
	for k := j.head; k < len(j.bytes); k++ {
		n += int64(j.bytes[k])
	}
	return n
}
