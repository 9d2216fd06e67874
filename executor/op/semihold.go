package op

import (
	"fmt"

	"streamql/executor/vector"
)

// This file is SemiJoin's Hold mode (SemiSpec.Hold): the held left rows of
// the executor's event-time strategy, which the executor takes out in order
// once Decided, routes, and gives back as Done.

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
// the Account (Hold mode).
func (j *SemiJoin) Done(n int) {
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

// DropHeld drops the held rows i (counted from the first held row) for
// which drop is true, keeping the others in their order, and gives their
// bytes back to the Account (Hold mode: a Kafka partition's rows, when the
// partition is revoked or read again).
func (j *SemiJoin) DropHeld(drop func(i int) bool) {
	var freed int64
	head := j.head
	moved := j.held.Compact(func(k int) bool {
		if k < head {
			return false
		}
		if drop(k - head) {
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
