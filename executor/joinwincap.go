package executor

// A window aggregate after a join of two Kafka streams in a consumer group,
// scaled out over processes (issue 23 item 6; the connector package doc, "A
// window aggregate over a join"): the aggregate fires by the relation's
// watermark over the joined rows, W (the chain's assigner: the largest
// output time so far, less the join's delay, plan.BothJoin.OutputTime),
// which holds no joined row late because the join emits in event-time
// order. When a partition p comes to the process the join's watermark goes
// down to p's rows (joinSource.rewind), so the join emits p's pairs, read
// again from the group's commit, below the W it had: they would be late,
// and p's windows between the commit's f and W lost. So W follows the
// join's watermark instead, until that passes W again:
//
//   - every batch the join emits gets its floor: the join's watermark J
//     before the call into the join that emitted it (noteFloor); no row
//     emitted from then on has an output time below J less the delay (a
//     pair's time is within the delay below its later row's, and the join
//     handles rows in time order above J; op.Join.release);
//   - capped (watermarker.capped, from the first partition that comes
//     once W is set: startCap), W goes down to the floor of each batch
//     before its rows are stamped (a batch emitted while the join had no
//     watermark: to its own lowest row, the first of a release in time
//     order), and rises by their times no higher than the next batch's
//     floor (or, none queued, the join's J now), less the delay, with one
//     mark after the batch: no row is late, and
//     a window fires once its end is at or below that bound, by when
//     every row of it came. Windows that fired before hold no group any
//     more, and the rows of the process's other partitions still come
//     above the W they fired by, so none fires again;
//   - it ends once the bound passes the uncapped W with nothing queued:
//     from there the join's output is in order again.
//
// The commits (joinReplay.Fired): W is f, so a partition's f must not go
// down with it: when W goes down, each partition counted (not one that
// came and whose rows the join has not emitted since: came) keeps the W
// before as its f's floor (joinReplay.wfired); a partition that came
// commits its mark's f until a batch the join emitted after it came has
// been stamped, from when every window of it at or below W fired here.
// Windows of it at or below the mark's f get no row (joinOldReplay.FiredBy,
// I4), so across the processes of the group each window is written once.

// noteFloor notes the join's watermark before a call into the join that
// may emit rows (joined.floor), when a window aggregate follows it (win).
func (js *joinSource) noteFloor() {
	if js.win == nil {
		return
	}
	js.floor, js.floorSet = js.j.(replayedJoin).Watermarked()
}

// startCap caps the window aggregate's watermark (win) when partition p
// came to input s (joinReplay.Assign) once that watermark is set; before it
// (the process's first assignment) nothing fired and there is nothing to
// cap. p's f is then its mark's until a batch the join emitted after it
// is stamped (joinReplay.came, pending).
func (js *joinSource) startCap(s int, p int32) {
	w := js.win
	if w == nil || !w.set {
		return
	}
	w.capped = true
	js.epoch++
	js.rep[s].came[p] = js.epoch
}

// capOf implements windowCapper: lo is the floor of the batch being
// stamped, less the join's delay (loSet false: none known); hi the floor
// of the next queued batch, or the join's watermark when none is queued
// (settled then), less the delay (hiSet false: none).
func (js *joinSource) capOf() (lo int64, loSet bool, hi int64, hiSet, settled bool) {
	_, delay, _ := js.both.OutputTime()
	lo, loSet = js.givenFloor-delay, js.givenFloorSet
	if len(js.queue) > 0 {
		e := js.queue[0]
		return lo, loSet, e.floor - delay, e.floorSet, false
	}
	j, ok := js.j.(replayedJoin).Watermarked()
	return lo, loSet, j - delay, ok, ok
}

// lowered implements windowCapper: the window's watermark went down from
// before, which each partition the inputs read keeps as its f's floor, but
// those whose rows the join has not emitted since they came (pending).
func (js *joinSource) lowered(before int64) {
	for t, ji := range js.in {
		r := js.rep[t]
		if r == nil || ji.h.Partitions == nil {
			continue
		}
		js.parts = ji.h.Partitions.Partitions(js.parts[:0])
		for _, q := range js.parts {
			if f, had := r.wfired[q]; !r.pending(q) && (!had || before > f) {
				r.wfired[q] = before
			}
		}
	}
}

// stamped implements windowCapper: the batch Next gave last is stamped, so
// a partition that came before the join emitted it is no longer pending;
// uncapped (settled), none is.
func (js *joinSource) stamped(uncapped bool) {
	js.stampedEpoch = js.givenEpoch
	if uncapped {
		js.stampedEpoch = js.epoch
	}
}

// pending reports whether partition p came to the input (startCap) and no
// batch the join emitted since has been stamped by the window's watermark:
// its f is its mark's (Fired).
func (r *joinReplay) pending(p int32) bool {
	c, ok := r.came[p]
	return ok && c > r.js.stampedEpoch
}

// windowCapper is what a capped watermark assigner (watermarker.capped)
// asks of the join in front of it (joinSource).
type windowCapper interface {
	capOf() (lo int64, loSet bool, hi int64, hiSet, settled bool)
	lowered(before int64)
	stamped(uncapped bool)
}

// stampCapped is stampMarks for a capped assigner (joinwincap.go): W goes
// down to the batch's floor, stamps every row, then rises by the rows'
// watermark values no higher than the next floor, with one mark after the
// last row; once that bound is above the uncapped value with nothing
// queued the assigner is capped no more. It reports whether W rose.
func (w *watermarker) stampCapped(r *Step) bool {
	lo, loSet, hi, hiSet, settled := w.cap.capOf()
	b := r.In
	col := b.Cols[w.job.WatermarkCol]
	vals := w.expr.Eval(b, r.Sel)
	if !loSet { // (emitted while the join had no watermark: the first rows of a release, in time order, are its lowest)
		for _, i := range r.Sel {
			if !vals.Null[i] && (!loSet || vals.I[i] < lo) {
				lo, loSet = vals.I[i], true
			}
		}
	}
	if w.set && loSet && lo < w.wm {
		before := w.wm
		w.wm = lo
		w.cap.lowered(before)
	}
	top, any := w.wm, w.set
	m := w.max
	if m != nil {
		m.rej = m.rej[:0]
	}
	kept := r.Sel[:0]
	for _, i := range r.Sel {
		col.Null[i], col.I[i] = !w.set, w.wm
		if m != nil && m.tooFar(b, i, w.wm, w.set) { // (maxfuture.go: refused, it moves nothing)
			m.rej = append(m.rej, i)
			continue
		}
		kept = append(kept, i)
		if !vals.Null[i] && (!any || vals.I[i] > top) {
			top, any = vals.I[i], true
		}
	}
	r.Sel = kept
	if settled && any && top <= hi {
		w.capped = false
	}
	w.cap.stamped(!w.capped)
	if !any || !hiSet {
		return false
	}
	top = min(top, hi)
	if w.set && top <= w.wm || len(r.Sel) == 0 {
		return false
	}
	w.wm, w.set = top, true
	if w.marks {
		w.buf = append(w.buf[:0], Mark{At: int(r.Sel[len(r.Sel)-1]) + 1, Value: top})
		r.Marks = w.buf
	}
	w.live.store(w.wm, w.set)
	return true
}
