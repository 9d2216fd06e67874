package executor

import (
	"time"

	"streamql/executor/connector"
	"streamql/executor/vector"
)

// partWatermarks is the watermark assigner's state for a partitioned source
// (Kafka, SPEC 2.5): each partition has its own watermark (SPEC 2.3 applied to
// its rows in offset order), stamped as the CURRENT_WATERMARK of its rows, so
// a row is late by its partition's watermark; the stream's watermark (events,
// marks, the live status) is the minimum over the partitions whose rows are
// still to come, leaving out those idle longer than
// 'scan.watermark.idle-timeout'. A partition that reached its end counts as
// +∞ once its last rows are stamped. Every output then holds the same rows
// whatever the interleaving of partitions.
type partWatermarks struct {
	src  connector.PartitionedSource
	idle time.Duration
	// per partition (indexed by number): the watermark, whether it is set,
	// when its last row came, whether it is counted in this batch's minimum
	wm    []int64
	set   []bool
	last  []time.Time
	count []bool
	// had: the partition was one the source read at the last countLive;
	// one that is not and comes (assigned, or assigned again) starts its
	// idle clock then (countLive)
	had []bool
	// clock is the processing time the idle timeouts are measured by
	// (nil: time.Now; a test's own otherwise)
	clock func() time.Time
	live  []int32 // scratch: PartitionedSource.Partitions
	start time.Time
	// per partition: the largest watermark the stream had at a firing while
	// the partition counted in it (f_p of a replay, replay.go), and whether
	// there was one
	fw    []int64
	fwSet []bool
	// a partition was assigned (seed): the stream's watermark becomes the
	// partitions' minimum at the next batch, also when that is lower
	reset bool
	rep   *replay // the replay told of each stamped batch (changed); nil: none
	// peer is the other input's source of a join of two co-partitioned
	// topics in a consumer group (nil: none): a partition it reads counts
	// here too, without a watermark until this input reads it, so that
	// while a rebalance gives partition i of one topic to this process
	// before the other's (each input is a member of its own), the join's
	// watermark does not pass rows of i still to come (SPEC 2.5: the
	// minimum over the process's partitions, of both topics)
	peer  connector.PartitionedSource
	plive []int32 // scratch: peer.Partitions
	// held: the join takes no watermark of this input (op.Join.Rewind
	// unset it) until ready says so again: after an assignment change, a
	// partition counted has no watermark yet (one this input was just
	// given, or one only the peer reads) or the lowering is pending
	// (joinSource.rewind)
	held bool
}

// partitionBy makes w keep one watermark per partition of ps, the
// partitions its source's stream declares (SourceHandles.Partitions, bound
// when the stream opened; nil: none), when the stream has a WATERMARK;
// otherwise w stays as it is.
func (w *watermarker) partitionBy(ps connector.PartitionedSource) {
	if w.job.Watermark == nil || ps == nil {
		return
	}
	w.parts = &partWatermarks{src: ps, idle: ps.IdleTimeout(), start: time.Now()}
}

// grow makes room for partition p.
func (pw *partWatermarks) grow(p int) {
	for len(pw.wm) <= p {
		pw.wm = append(pw.wm, 0)
		pw.set = append(pw.set, false)
		pw.last = append(pw.last, pw.start)
		pw.count = append(pw.count, false)
		pw.had = append(pw.had, false)
		pw.fw = append(pw.fw, 0)
		pw.fwSet = append(pw.fwSet, false)
	}
}

// seed starts partition p's watermark at wm (set false: none yet), as a
// replay's assignment does (replay.go: w of the commit's mark). The stream's
// watermark goes down to the partitions' minimum (lower) once every
// partition counted has one, so that p's windows fire as soon as the minimum
// passes their end, not once p catches up with where the stream was: a
// window that fired before has no group of p, and one that p's rows open
// again fires again with p's groups alone.
func (pw *partWatermarks) seed(p int32, wm int64, set bool) {
	pw.grow(int(p))
	pw.wm[p], pw.set[p] = wm, set
	pw.fw[p], pw.fwSet[p] = 0, false
	pw.reset = true
}

// lower moves the stream's watermark down to the partitions' minimum after a
// partition was assigned (seed), once every partition counted has a
// watermark; the rows after then fire the windows as that minimum rises.
func (pw *partWatermarks) lower(w *watermarker, now time.Time) {
	if !pw.reset {
		return
	}
	if m, ok := pw.min(now); ok {
		if w.set && m < w.wm {
			w.wm = m
		}
		pw.reset = false
	}
}

// forget drops partition p's watermark (revoked, replay.go).
func (pw *partWatermarks) forget(p int32) {
	pw.grow(int(p))
	pw.wm[p], pw.set[p] = 0, false
	pw.fw[p], pw.fwSet[p] = 0, false
}

// manyParts reports whether the source reads more than one partition:
// counting those a row came from, those it said it reads at its last batch,
// and those of b's rows (nil: none), which may not be stamped yet.
func (pw *partWatermarks) manyParts(b *vector.Batch) bool {
	one := int32(-1)
	other := func(p int32) bool {
		if one < 0 {
			one = p
		}
		return p != one
	}
	for p, t := range pw.last {
		if t != pw.start && other(int32(p)) {
			return true
		}
	}
	for _, p := range pw.live {
		if other(p) {
			return true
		}
	}
	if b != nil {
		for i := range b.N {
			if other(pw.src.Partition(b.Pos[i])) {
				return true
			}
		}
	}
	return false
}

// min returns the minimum watermark of the counted partitions that are not
// idle at now; ok is false when one of them has none yet, or none counts.
func (pw *partWatermarks) min(now time.Time) (m int64, ok bool) {
	any := false
	for p, c := range pw.count {
		if !c || pw.idle > 0 && now.Sub(pw.last[p]) > pw.idle {
			continue
		}
		if !pw.set[p] {
			return 0, false
		}
		if !any || pw.wm[p] < m {
			m, any = pw.wm[p], true
		}
	}
	return m, any
}

// stampParts is stampMarks for a partitioned source: it stamps each live row
// of r with its partition's watermark, advances that one, and moves the
// stream's watermark to the partitions' minimum (never back), with a mark at
// each row that moved it when w.marks. It reports whether the stream's
// watermark moved.
func (w *watermarker) stampParts(r *Step) bool {
	moved := w.stampPartsSel(r.In, r.Sel)
	if w.max != nil {
		r.Sel = w.max.drop(r.Sel)
	}
	if w.marks {
		r.Marks = w.buf
	}
	return moved
}

// stampPartsSel is stampParts over the rows sel of b (the event-time join
// stamps held rows on arrival with stamp); with w.marks the marks are left in
// w.buf.
func (w *watermarker) stampPartsSel(b *vector.Batch, sel []int32) bool {
	pw := w.parts
	pw.rep.changed() // (the watermarks move ahead of the sinks until the batch reaches them)
	col := b.Cols[w.job.WatermarkCol]
	vals := w.expr.Eval(b, sel)
	now := pw.now()
	pw.countLive()
	for _, i := range sel { // a partition ended by this batch counts until its rows are stamped
		p := int(pw.src.Partition(b.Pos[i]))
		pw.grow(p)
		pw.count[p] = true
	}
	marks := w.buf[:0]
	moved := false
	// the last mark of the rows: without an idle timeout every partition
	// counted in the minimum at one mark (all have a watermark then) is at
	// the others too, so the fire frontiers are raised once, to the last
	loopMark, loopMarked := int64(0), false
	pw.lower(w, now)
	if w.max != nil {
		w.max.rej = w.max.rej[:0]
	}
	// raise moves partition p's watermark to v, and the stream's to the
	// partitions' minimum when that passes it, with a mark at row at
	raise := func(p int, v int64, at int) {
		pw.wm[p], pw.set[p] = v, true
		pw.lower(w, now)
		if m, ok := pw.min(now); ok && (!w.set || m > w.wm) {
			w.wm, w.set, moved = m, true, true
			if w.marks {
				marks = append(marks, Mark{At: at, Value: m})
				if pw.idle > 0 {
					pw.fired(m, now) // (who is idle changes from row to row)
				} else {
					loopMark, loopMarked = m, true
				}
			}
		}
	}
	for _, i := range sel {
		p := int(pw.src.Partition(b.Pos[i]))
		if w.carried && w.job.Unnest != nil && !col.Null[i] && (!pw.set[p] || col.I[i] > pw.wm[p]) {
			// (CROSS JOIN UNNEST: the row carries its input partition's
			// watermark before its input row, which input rows without
			// unnested rows moved too, unnestSource.stampInput)
			raise(p, col.I[i], int(i))
		}
		col.Null[i] = !pw.set[p]
		col.I[i] = pw.wm[p]
		pw.last[p] = now
		if w.max != nil && w.max.tooFar(b, i, pw.wm[p], pw.set[p]) {
			w.max.rej = append(w.max.rej, i) // (maxfuture.go: the partition's watermark)
			continue
		}
		if vals.Null[i] || pw.set[p] && vals.I[i] <= pw.wm[p] {
			continue
		}
		raise(p, vals.I[i], int(i)+1)
	}
	if loopMarked {
		pw.fired(loopMark, now)
	}
	// Partitions that ended with this batch no longer hold the stream back,
	// nor do those that became idle.
	clear(pw.count)
	for _, p := range pw.live {
		pw.count[p] = true
	}
	pw.countPeer()
	if m, ok := pw.min(now); ok && (!w.set || m > w.wm) {
		w.wm, w.set, moved = m, true, true
		if w.marks && len(sel) > 0 {
			marks = append(marks, Mark{At: int(sel[len(sel)-1]) + 1, Value: m})
			pw.fired(m, now)
		}
	}
	if w.marks {
		w.buf = marks
	}
	w.live.store(w.wm, w.set)
	return moved
}

// ready counts the partitions the input and its peer read, lowers the
// stream's watermark when a partition was assigned (lower), and reports
// whether the join may take that watermark (joinSource.rewind): it is set,
// and every partition counted, of either input, has a watermark of this
// input. Without a peer it is the stream's own rule (min).
func (pw *partWatermarks) ready(w *watermarker, now time.Time) bool {
	pw.countLive()
	pw.lower(w, now)
	_, ok := pw.min(now)
	return ok && !pw.reset && w.set
}

// countLive counts in the minimum the partitions the source reads now
// (live) and those its peer reads, and no other. A partition the source
// did not read at the last call (just assigned in its consumer group, or
// assigned again after a revoke) starts its 'scan.watermark.idle-timeout'
// clock now: it is idle once the timeout passes without a row of it from
// its assignment, not from its last row before it left, or from the job's
// start (a process that gains a partition mid-run would otherwise leave
// it out of the minimum at once, and its rows, read from the committed
// offset, would be late).
func (pw *partWatermarks) countLive() {
	clear(pw.count)
	pw.live = pw.src.Partitions(pw.live[:0])
	var now time.Time
	for _, p := range pw.live {
		pw.grow(int(p))
		pw.count[p] = true
		if !pw.had[p] && pw.idle > 0 {
			if now.IsZero() {
				now = pw.now()
			}
			pw.last[p] = now
		}
	}
	clear(pw.had)
	for _, p := range pw.live {
		pw.had[p] = true
	}
	pw.countPeer()
}

// held reports whether the join takes no watermark of w's input for now
// (partWatermarks.held): false for an input without partitions.
func (w *watermarker) held() bool { return w.parts != nil && w.parts.held }

// countPeer counts in the minimum the partitions the peer reads (see
// partWatermarks.peer); none without one. One this input does not read
// itself (counted already: live) is never idle ('scan.watermark.idle-
// timeout'): this input has no row of it because it does not have it yet,
// or no more, not because the partition is quiet.
func (pw *partWatermarks) countPeer() {
	if pw.peer == nil {
		return
	}
	pw.plive = pw.peer.Partitions(pw.plive[:0])
	for _, p := range pw.plive {
		pw.grow(int(p))
		if !pw.count[p] && pw.idle > 0 {
			pw.last[p] = pw.now() // (only while the inputs read different partitions)
		}
		pw.count[p] = true
	}
}

// touch makes partition p, just assigned to a join's input
// (joinReplay.Assign), not idle until 'scan.watermark.idle-timeout' passes
// without a row of it: its rows, read again from its committed offset,
// may lie below the other partitions' watermarks, which the input's must
// not pass before they come.
func (pw *partWatermarks) touch(p int32) {
	pw.grow(int(p))
	pw.last[p] = pw.now()
}

// now returns the processing time now (clock).
func (pw *partWatermarks) now() time.Time {
	if pw.clock != nil {
		return pw.clock()
	}
	return time.Now()
}

// fired raises to m the fire frontier f_p (fw, replay.go) of each partition
// counted in the minimum m (epoch ms) of a mark, the aggregate fires at: not
// idle at now, with a watermark (so at least m). Its rows after the mark are
// late for the windows ending at or before m, which fire there for its
// groups. A partition left out of the minimum (idle at the mark) is not
// raised even if a row of it comes later in the batch: that row may open
// a window ending at or before m that fires only at a later mark.
func (pw *partWatermarks) fired(m int64, now time.Time) {
	for p, c := range pw.count {
		if c && pw.set[p] && !(pw.idle > 0 && now.Sub(pw.last[p]) > pw.idle) && (!pw.fwSet[p] || pw.fw[p] < m) {
			pw.fw[p], pw.fwSet[p] = m, true
		}
	}
}
