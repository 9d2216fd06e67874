package op

import (
	"context"
	"fmt"

	"streamql/executor/vector"
)

// joinSwap is the state of a lookup join run with its sides' reading order
// swapped (JoinSpec.Swap): the left input is read whole first and its rows
// are kept, each with its ordinal (the order in which the join handled it:
// event-time order as its watermark passed it, as a lookup join joins them,
// SPEC 2.7), and then each right row is joined with the left rows of its
// key as it comes and not kept. The joined rows are those of the lookup
// join; what differs is their order: right row by right row instead of left
// row by left row. Each joined row's position (vector.Batch.Pos) is its
// left row's ordinal, so that an operator after it can put its result in
// the lookup join's order (TopNSpec.PosOrder).
//
// That order is the lookup join's, row for row, for the joined rows of any
// one left row: the right rows in the order they came. When two left rows
// have the same key, the lookup join gives all of the first one's pairs
// before the second one's, which no order of the right rows gives: the join
// then holds the right rows, as a lookup join does, and joins the left rows
// in their order once the right input has ended (hold).
type joinSwap struct {
	ord []int64 // each left row's ordinal (by row; -1: a row not yet handled)
	n   int64   // the ordinals given
	// left and hash are the keyed left rows in the order handled, with
	// their key hashes (indexed once the left input has ended,
	// swapLeftDone; hold joins them in this order)
	left []int32
	hash []uint64
	// hold: two left rows share a key: the right rows are kept and joined
	// at the end of the right input (joinHeld)
	hold bool
	// dense, when the key is one BIGINT or TIMESTAMP column whose values
	// span at most denseSpan times the keyed left rows, indexes them by key
	// (entry key-lo: the row + 1, 0: none; swapDense), without hashes;
	// otherwise the left side's keyIndex does, built once the left input
	// has ended (sized for its rows: no growth arrays kept)
	dense []int32
	lo    int64
	// byOrd is the left row of each ordinal (built once the left input has
	// ended, for LeftColumns); keep: the state stays after the right
	// input's end, until Forget (KeepLeft), unless hold; scratch is
	// LeftColumns' copy of a left row
	byOrd   []int32
	keep    bool
	scratch *vector.Batch
}

// checkSwap checks what JoinSpec.Swap needs: an INNER lookup join without
// other ON terms, updating inputs or a state TTL.
func checkSwap(spec *JoinSpec) error {
	if spec.Swap && (!spec.Lookup || spec.Kind != Inner || spec.Residual != nil || spec.Changes[0] || spec.Changes[1] || spec.TTL != 0 || spec.Extreme.Size > 0) {
		return fmt.Errorf("join: the left side is read first only in an INNER lookup join without other ON terms, updating inputs or state TTL")
	}
	return nil
}

// swapHandle is handleKeyed for a join with JoinSpec.Swap: a left row is
// kept with its ordinal, and noted to be indexed when its key can match
// (swapLeftDone); a right row is joined with the left row of its key and
// dropped, or, under hold, indexed to be joined at the end (joinHeld).
func (j *Join) swapHandle(ctx context.Context, s, k int, h uint64, ok bool) error {
	sw, sd := j.swap, &j.side[s]
	if s == 0 {
		for len(sw.ord) <= k {
			sw.ord = append(sw.ord, -1)
		}
		sw.ord[k] = sw.n
		sw.n++
		if ok { // (a NULL or NaN key joins nothing: the row stays, unindexed, so that rows do not move)
			sw.left = append(sw.left, int32(k))
			sw.hash = append(sw.hash, h)
		}
		return nil
	}
	if !ok {
		if err := j.drop(sd, k); err != nil {
			return err
		}
		return j.compact()
	}
	if sw.hold {
		sd.index.add(h, int32(k), sd.dead)
		return nil
	}
	od := &j.side[0]
	if sw.dense != nil {
		if v := sd.rows.Int(k, j.spec.Keys[1][0]); v >= sw.lo && uint64(v)-uint64(sw.lo) < uint64(len(sw.dense)) && sw.dense[v-sw.lo] > 0 {
			if err := j.swapPair(ctx, int(sw.dense[v-sw.lo]-1), k); err != nil {
				return err
			}
		}
	} else if si := od.index.find(h); si >= 0 {
		for o := od.index.slots[si].head; o >= 0; o = od.index.next[o] {
			if keyEqual(sd.rows, k, j.spec.Keys[1], od.rows, int(o), j.spec.Keys[0], j.spec.NullSafe) {
				if err := j.swapPair(ctx, int(o), k); err != nil {
					return err
				}
				break // (one left row a key: hold otherwise)
			}
		}
	}
	if err := j.drop(sd, k); err != nil {
		return err
	}
	return j.compact()
}

// swapLeftDone is called once the left input has ended and every left row
// has been handled: it indexes the keyed left rows (swapIndex) and sets
// hold when two of them share a key.
func (j *Join) swapLeftDone() {
	sw, od := j.swap, &j.side[0]
	sw.byOrd = make([]int32, sw.n)
	for k, o := range sw.ord {
		if o >= 0 {
			sw.byOrd[o] = int32(k)
		}
	}
	if j.swapDense() {
		return
	}
	od.index.init(len(sw.left))
	for x, k := range sw.left {
		od.index.add(sw.hash[x], k, nil)
	}
	for _, sl := range od.index.slots {
		if sl.head < 0 {
			continue
		}
		for a := sl.head; a >= 0 && !sw.hold; a = od.index.next[a] {
			for b := od.index.next[a]; b >= 0; b = od.index.next[b] {
				if keyEqual(od.rows, int(a), j.spec.Keys[0], od.rows, int(b), j.spec.Keys[0], j.spec.NullSafe) {
					sw.hold = true
					return
				}
			}
		}
	}
}

// joinHeld joins, under hold, the left rows in the order handled with the
// right rows of their keys in the order they came: the lookup join's order.
func (j *Join) joinHeld(ctx context.Context) error {
	sw, od := j.swap, &j.side[1]
	for x, k := range sw.left {
		si := od.index.find(sw.hash[x])
		if si < 0 {
			continue
		}
		for o := od.index.slots[si].head; o >= 0; o = od.index.next[o] {
			if !od.dead[o] && keyEqual(j.side[0].rows, int(k), j.spec.Keys[0], od.rows, int(o), j.spec.Keys[1], j.spec.NullSafe) {
				if err := j.swapPair(ctx, int(k), int(o)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// swapPair emits the pair (left row l, right row r), counted as
// handleKeyed counts a pair (JoinCounts.Partnered), at l's ordinal.
func (j *Join) swapPair(ctx context.Context, l, r int) error {
	for s, k := range [2]int{l, r} {
		sd := &j.side[s]
		if sd.matches.get(k) == 0 {
			j.count.Partnered[s]++
		}
		sd.matches.set(k, sd.matches.get(k)+1)
	}
	if err := j.emit(ctx, l, r, vector.Insert); err != nil {
		return err
	}
	return nil
}

// swapDone is Finish's part for JoinSpec.Swap, before the join's last
// release: at the left input's end it handles every left row and sees
// whether to hold; at the right's it joins what hold kept (before the
// release gives the last watermark).
func (j *Join) swapDone(ctx context.Context, port int) error {
	switch {
	case j.swap == nil:
		return nil
	case port == 0:
		pace := j.pace // (every left row, none deferred: SetPace)
		j.pace = 0
		err := j.release(ctx)
		j.pace = pace
		j.swapLeftDone()
		return err
	case j.swap.hold:
		if err := j.joinHeld(ctx); err != nil {
			return err
		}
	case j.swap.keep:
		return nil // (Forget, after the reader of LeftColumns)
	}
	return j.swapForget()
}

// swapForget lets go of the state once the right input has ended and every
// joined row is out (JoinSpec.Swap: no row joins any more), giving its
// bytes back, so that the operators after the join (a Top-N giving its
// final result) do not have it beside their own.
func (j *Join) swapForget() error {
	// the queued pairs (emit) name rows of the state and take their
	// positions from swap.ord: written, and their strings copied, first
	j.materialize()
	j.outB.OwnStrings()
	var n int64
	for s := range 2 {
		sd := &j.side[s]
		for k := range sd.rows.Len() {
			if !sd.dead[k] {
				n += sd.rows.rowBytes(k)
			}
		}
		*sd = joinSide{rows: NewRows(sd.rows.types)}
		sd.index.init(0)
	}
	*j.swap = joinSwap{}
	return j.acct.Grow(-n)
}

// swapDense indexes the keyed left rows by their key when it is one BIGINT
// or TIMESTAMP column whose values span at most denseSpan times the rows
// (joinSwap.dense; as lookupTable's dense index), setting hold when two
// rows have one key, and reports whether it did.
func (j *Join) swapDense() bool {
	sw, od := j.swap, &j.side[0]
	c, keyed := denseKey(j.spec.Types[0], j.spec.Keys[0])
	if !keyed || len(sw.left) == 0 {
		return false
	}
	lo, hi := od.rows.Int(int(sw.left[0]), c), od.rows.Int(int(sw.left[0]), c)
	for _, k := range sw.left {
		v := od.rows.Int(int(k), c)
		lo, hi = min(lo, v), max(hi, v)
	}
	if !denseFits(lo, hi, len(sw.left)) {
		return false
	}
	sw.lo, sw.dense = lo, make([]int32, hi-lo+1)
	for _, k := range sw.left {
		d := &sw.dense[od.rows.Int(int(k), c)-lo]
		if *d > 0 {
			sw.hold = true
		}
		*d = k + 1
	}
	return true
}

// KeepLeft makes a join with JoinSpec.Swap keep its left rows after its
// right input has ended, until Forget, for LeftColumns (a Top-N that stores
// only its right-side columns and fills the left ones in its final result,
// TopN.Fill); a join whose left keys repeat (hold) lets its state go at the
// right input's end as before. It does nothing without JoinSpec.Swap.
func (j *Join) KeepLeft() {
	if j.swap != nil {
		j.swap.keep = true
	}
}

// LeftUnique reports whether LeftColumns can give each joined row's left
// columns from its position alone: the join runs with JoinSpec.Swap and
// KeepLeft, its left input has ended and no two of its left rows share a
// key, so that the rows a partition of the left key gets all come from one
// left row. Before the left input has ended it is false; once it is true it
// stays true until Forget.
func (j *Join) LeftUnique() bool {
	sw := j.swap
	return sw != nil && sw.keep && j.done[0] && sw.byOrd != nil && !sw.hold
}

// LeftColumns writes, into row i of b, the values of the left row whose
// ordinal is pos (a joined row's position, vector.Batch.Pos) in its
// columns from: column from[x] into b's column cols[x] (of its type), text
// copied into b's arenas. It is for a join LeftUnique reports true of, and
// pos a position it gave.
func (j *Join) LeftColumns(b *vector.Batch, i int, pos int64, cols, from []int) {
	sw := j.swap
	if sw.scratch == nil {
		sw.scratch = vector.NewBatch(j.spec.Types[0])
	}
	sw.scratch.Reset()
	j.side[0].rows.CopyTo(sw.scratch, 0, 0, int(sw.byOrd[pos]))
	for x, c := range cols {
		if v := sw.scratch.Cols[from[x]]; v.Null[0] {
			b.Cols[c].Null[i] = true
		} else {
			b.Cols[c].CopyValue(i, v, 0)
		}
	}
}

// Forget lets go of a join's state kept by KeepLeft once the reader of
// LeftColumns is done with it (swapForget); it does nothing when the state
// has gone already.
func (j *Join) Forget() error {
	if j.swap == nil || !j.swap.keep || !j.done[1] {
		return nil
	}
	return j.swapForget()
}
