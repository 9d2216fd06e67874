package op

import (
	"context"
	"math"

	"streamql/executor/vector"
)

// This file is the interval join's release by runs (issue 23, performance):
// when one side's rows leave as soon as they are handled, the held rows are
// released a side at a time instead of one row at a time in the merged
// (time, side, arrival) order, with the same output.

// oneSided returns the side whose rows an INNER interval join keeps when
// the other side's rows can join only rows handled before them and so
// leave as soon as they are handled (Join.handleKeyed's gone): the right
// side's rows when Hi <= 0 (its interval ends at or before its own time,
// and the left rows of its time come first), the left side's when Lo > 0.
// It returns -1 for every other join, and for one that replays
// (JoinReplay), retracts (JoinSpec.Changes), has other ON terms
// (JoinSpec.Residual), filters a window's extreme (JoinSpec.Extreme) or
// runs swapped: Join.releaseRows then handles the held rows one at a time.
func (j *Join) oneSided() int {
	sp := &j.spec
	if !sp.Interval || sp.Kind != Inner || sp.Lookup || j.rowByRow || j.replay != nil || sp.Changes[0] || sp.Changes[1] ||
		sp.Residual != nil || j.extreme != nil || j.swap != nil {
		return -1
	}
	switch {
	case sp.Hi <= 0:
		return 0
	case sp.Lo > 0:
		return 1
	}
	return -1
}

// releaseRuns is release's loop for a join that oneSided says keeps side
// st only. The rows of the other side (the probe side) join only rows of
// st handled before them (a pair fits only when the probe row comes later
// in the (time, side, arrival) order), and they emit every joined row,
// each row's partners in the order st's rows were handled. So the held
// rows of st below bound are indexed first, all of them, in their order,
// and then the probe side's held rows below bound probe the index in
// theirs: a row of st handled early is in a probe row's chain but does
// not fit its interval, nor does one whose interval ended before it (the
// intervals end in release's expire, after the probes, instead of before
// each row), so the joined rows, their order and the batches they are cut
// into are the same as releaseRows' (TestIntervalJoinRunsEqualRows). Each
// side's held rows are read in place from their FIFO in j.pending (in
// order: pushSorted merges every batch into it), without a three-way
// least per row, and the probe side's key slots are looked up a run at a
// time, so that their cache misses overlap (st's rows' slots, recent
// rows', are not loaded ahead: expireRun). With a pace it stops,
// deferred, before the next probe row (st's rows below the bound are all
// indexed already; those indexed by a later call are above this bound,
// so they fit no probe row deferred now).
func (j *Join) releaseRuns(ctx context.Context, st int, bound int64, all bool) error {
	q := &j.pending
	sd := &j.side[st]
	run := q.due(st, bound, all, math.MaxInt)
	ends := j.held[:0] // (the run's rows' ends, queued in j.expiry after the loop)
	// a row's interval ends at t+Hi (st 1), t-Lo (st 0): the bound's
	// offset, found once (satSub's -Lo, but for Lo = MinInt64)
	off, sub := j.spec.Hi, false
	if st == 0 {
		off, sub = -j.spec.Lo, j.spec.Lo == math.MinInt64
	}
	for _, it := range run {
		k := int(it.row)
		if it.row < 0 || sd.dead[k] {
			continue // (a Kafka partition's rows, dropped while held: DropRows)
		}
		if sd.keyed.get(k) {
			sd.index.add(sd.hash.get(k), it.row, sd.dead)
		}
		j.seq++
		end := satAdd(it.t, off)
		if sub {
			end = satSub(it.t, j.spec.Lo)
		}
		ends = append(ends, pendingItem{t: end, side: int8(st), seq: j.seq, row: it.row})
	}
	q.advance(st, len(run))
	if len(ends) > 0 { // (j.pushExpiry's, for the run at once: ends in its order, appended to the FIFO)
		j.expiry.pushSorted(ends)
		j.expireAt = min(j.expireAt, ends[0].t)
	}
	j.held = ends
	pt := 1 - st
	start := j.batches
	for {
		run := q.due(pt, bound, all, lookAheadRows)
		if len(run) == 0 {
			return nil
		}
		n, err := j.probeRun(ctx, pt, run, start)
		q.advance(pt, n)
		if err != nil || j.deferred {
			return err
		}
	}
}

// probeRun probes side st's index (st = 1 - pt) with the held rows run of
// the probe side pt, in order, emitting each row's pairs and dropping it,
// and returns how many of run it took: all, or those before the row at
// which the pace (Join.SetPace, counted from start) made it stop, deferred
// (the bytes settled). It looks up every row's key slot first, in a loop of
// independent loads.
func (j *Join) probeRun(ctx context.Context, pt int, run []pendingItem, start int) (int, error) {
	st := 1 - pt
	pd, sd := &j.side[pt], &j.side[st]
	slots := j.runSlots[:0]
	for _, it := range run {
		si := -1
		if it.row >= 0 && pd.keyed.get(int(it.row)) {
			si = sd.index.find(pd.hash.get(int(it.row)))
		}
		slots = append(slots, int32(si))
	}
	j.runSlots = slots
	keysP, keysS := j.spec.Keys[pt], j.spec.Keys[st]
	times := &sd.rows.cols[j.spec.Time[st]].i // (st's times: fits, read in place)
	lo, hi := j.spec.Lo, j.spec.Hi
	kinds := j.outB.Kinds != nil || j.spec.Changes[pt]
	// (in locals, not read through j at every row: nothing the loop calls
	// changes them but drop, which sets pdead's flags)
	hashIsKey, pace, pdead, sdead := j.hashIsKey, j.pace, pd.dead, sd.dead
	for x, it := range run {
		if pace > 0 && j.batches-start >= pace {
			j.deferred = true
			return x, j.settle()
		}
		k := int(it.row)
		if it.row < 0 || pdead[k] {
			continue // (DropRows)
		}
		// fits, for a probe row of the right side (pt 1): the left row's
		// time in [t+Lo, t+Hi], bounds computed once for its chain
		from, to := satAdd(it.t, lo), satAdd(it.t, hi)
		partnered := false
		if si := int(slots[x]); si >= 0 {
			// (the slots stay where find saw them: no row is added or
			// expired while the run probes, and unlink frees no slot)
			prev, next := int32(-1), sd.index.slots[si].head
			for {
				var o32 int32
				if o32, prev, next = sd.index.live(si, prev, next, sdead); o32 < 0 {
					break
				}
				o := int(o32)
				if !hashIsKey && !keyEqual(pd.rows, k, keysP, sd.rows, o, keysS, j.spec.NullSafe) {
					continue
				}
				if pt == 0 {
					if !j.fits(pt, it.t, o) {
						continue
					}
				} else if ot := times.get(o); ot < from || ot > to {
					continue
				}
				m := sd.matches.get(o)
				if m == 0 {
					j.count.Partnered[st]++
				}
				sd.matches.set(o, m+1)
				partnered = true
				l, r := k, o
				if pt == 1 {
					l, r = o, k
				}
				if kinds {
					if err := j.emit(ctx, l, r, j.addKind(pt, k)); err != nil {
						return x + 1, err
					}
					continue
				}
				// (emit, inline: an INNER join's pairs have no kinds)
				j.pairL, j.pairR = append(j.pairL, int32(l)), append(j.pairR, int32(r))
				if j.outB.N+len(j.pairL) == vector.Cap {
					if err := j.flush(ctx); err != nil {
						return x + 1, err
					}
				}
			}
		}
		if partnered {
			// (the probe row's matches are not counted up: it leaves the
			// state now, and only an outer side's padding reads them)
			j.count.Partnered[pt]++
		}
		if err := j.drop(pd, k); err != nil {
			return x + 1, err
		}
	}
	return len(run), nil
}

// due returns the first items of side s's FIFO, from its head, whose time
// is below t (all: every one), at most most of them (in place: valid until
// the FIFO changes). The FIFO is in time order (push, pushSorted), so the
// end is found by a binary search, not a scan.
func (q *pendingQueue) due(s int, t int64, all bool, most int) []pendingItem {
	f, h := q.fifo[s], q.head[s]
	e := len(f)
	if most < e-h {
		e = h + most
	}
	if !all {
		lo, hi := h, e // (the first item at or after t)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if f[m].t < t {
				lo = m + 1
			} else {
				hi = m
			}
		}
		e = lo
	}
	return f[h:e]
}

// advance removes the first n items of side s's FIFO, as n calls of popAt
// would.
func (q *pendingQueue) advance(s, n int) {
	if n == 0 {
		return
	}
	q.head[s] += n
	if h, f := q.head[s], q.fifo[s]; h == len(f) {
		q.fifo[s], q.head[s] = f[:0], 0
	} else if h >= 1024 && h*2 >= len(f) {
		q.fifo[s], q.head[s] = f[:copy(f, f[h:])], 0
	}
}

// expireRun is expire's loop for a join that oneSided says keeps side st
// only, while st's rows are the only ones queued to expire and all in its
// FIFO (the probe side's rows are never queued, and st's end in the order
// they were handled, a constant after their time): the rows whose
// intervals end before t (all: every one) leave the state and their key
// chains, in order. (Their slots are not loaded a run ahead, as the probe
// side's are: the loads cost more CPU than the misses they overlapped saved,
// at the benchmark suite's 30,000 rows of state, docs/performance.md.)
// None is padded (an INNER join). expire's own loop then finds nothing
// due, or takes what expireRun left (items in its heap).
func (j *Join) expireRun(st int, t int64, all bool) error {
	q := &j.expiry
	if len(q.heap) > 0 || q.head[1-st] < len(q.fifo[1-st]) {
		return nil
	}
	sd := &j.side[st]
	run := q.due(st, t, all, math.MaxInt)
	for _, it := range run {
		k := int(it.row)
		if it.row < 0 || sd.dead[k] { // (DropRows)
			continue
		}
		if err := j.drop(sd, k); err != nil {
			return err
		}
		if sd.keyed.get(k) {
			sd.index.dropHead(sd.hash.get(k), it.row)
		}
	}
	q.advance(st, len(run))
	return nil
}
