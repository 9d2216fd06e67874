package executor

import (
	"time"

	"streamql/executor/aggregate"
	"streamql/executor/connector"
	"streamql/executor/rank"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// replay is the executor's side of the replay of a Kafka source in a
// consumer group (the connector package doc, "Scale-out over Kafka
// partitions, and replay"; SPEC 2.5): the connector.Replay the source asks,
// at a checkpoint, for each partition's hold frontier H_p, its watermark
// w_p and its fire frontier f_p, and tells of its assignments. On an
// assignment with a mark (e, w, f) read with the committed offset, p's
// watermark starts at w, the rows of p with offsets below e go into state
// only (their direct outputs are written already, I3: filterBad, filter,
// replayed), and the windows of p's groups with end <= f are not emitted again
// (I4: executor/aggregate's aggOp, through opReplay.FiredBy). A revoked
// partition's groups and watermark are dropped. A batch that changed the state
// (stamped watermarks, fired windows) but was cut before it reached the sinks
// (the job cancelled between two operators) leaves the state ahead of the
// outputs: Torn then says so, and the source commits none of these frontiers.
// Every method runs on the job's goroutine.
//
// The state is the job's Checkpoints (flow.Checkpoint): its aggregate, its
// updating Top-N, deduplication, OVER aggregation or ORDER BY the event time
// over the stream's rows (executor/rank's replay.go), or the probe rows its
// event-time join holds; each gives its frontier per partition, and drops a
// partition when it is revoked or assigned again.
type replay struct {
	pw   *partWatermarks // the chain's per-partition watermarks; nil without WATERMARK FOR
	e    []int64         // per partition: rows with an offset below it are replayed (0: none)
	f    []int64         // per partition: windows of its groups with end <= f fired already
	fSet []bool
	// some e is above 0: the direct outputs are filtered
	active bool
	// the operators that hold rows in state, and each one's frontiers,
	// computed by one pass over the state at the first Hold after a batch
	// (dirty)
	cps    []Checkpoint
	fronts []map[int32]Frontier
	dirty  bool
	// a push changed the state (changed) and has not reached the sinks
	// (handed): the frontiers describe outputs that were never written
	torn bool
	// old, for an aggregate replayed with the join before it
	// (newJoinAggReplay), reports that the batch being pushed holds pairs
	// the run before wrote: no part of it is written again (nil: none)
	old func() bool
	// oldFired, with old, says whether the windows a window aggregate
	// fires while such a batch goes through were written by the run before
	// too (beside side branches under the rule of a streamql before g:
	// joinSource.oldRule), so the rows an operator made of it
	// (Step.Chunks) are dropped as well (nil: never)
	oldFired func() bool
}

// newReplay gives the job's state to rs, the replay its source's stream
// declares (SourceHandles.Replayer; nil: none), when the job holds rows in
// state (an aggregate, agg not nil, or else the main query's operator over
// the stream, c.rank, when it is replayable: executor/rank's replay.go); it
// returns nil otherwise, and the source commits as for a stateless job. A
// window Top-N over a window TVF's rows (job's plan.Job.WindowRankReplayed),
// or a Top-N over the job's unbounded GROUP BY (plan.Job.AggRankReplayed,
// also with side branches that compute that GROUP BY too, plan.Job.Fanout,
// whose aggregates hold their changes of the rows read again back),
// is replayed with its Aggregate (pass), which then passes the rows read
// again (or their changes) on into its state (passReplay); a rank operator
// over the stream's rows beside side branches' aggregates
// (plan.Job.RankBesideAggs) is replayed with them, each taking the rows
// read again into its own state. The hold frontier is the smallest of the
// operators' (Hold). So is each side branch's rank operator over the rows
// it took (c.sideRanks, plan.Job.SideRankReplayed), beside them.
func newReplay(rs connector.Replayer, c *chain, agg *aggregate.Operator, job *plan.Job) *replay {
	pass := job.WindowRankReplayed() || job.AggRankReplayed()
	rk := c.rank
	if rk != nil && (agg != nil && !pass && !job.RankBesideAggs() || !rk.Replayable() || rk.Timed() && c.assign.parts == nil) {
		rk = nil // (the rank operator's own replay is of one over the stream's rows, or a TVF's)
	}
	var sides []*rank.Operator // (plan.Job.SideRankReplayed: each over the rows its branch took)
	for _, sr := range c.sideRanks {
		if sr.Replayable() && (!sr.Timed() || c.assign.parts != nil) {
			sides = append(sides, sr)
		}
	}
	if agg == nil && rk == nil && len(sides) == 0 || rs == nil {
		return nil
	}
	r := newReplayOf(c)
	if r.pw != nil {
		r.pw.rep = r
	}
	if agg != nil {
		if rk != nil && pass { // (the main query's aggregate feeds the rank; a side branch's holds back its own)
			agg.StartReplayPassing(opReplay{r}, passReplay{opReplay{r}}, job.Main)
		} else {
			agg.StartReplay(opReplay{r})
		}
		r.add(agg)
	}
	if rk != nil {
		rk.StartReplay(opReplay{r})
		r.add(rk)
	}
	for _, sr := range sides {
		sr.StartReplay(opReplay{r})
		r.add(sr)
	}
	return r.attach(c, rs)
}

// newReplayOf returns an empty replay of chain c's source (its per-partition
// watermarks, c.assign.parts), not attached yet.
func newReplayOf(c *chain) *replay {
	return &replay{pw: c.assign.parts, dirty: true}
}

// add makes cp one of the job's Checkpoints.
func (r *replay) add(cp Checkpoint) {
	r.cps = append(r.cps, cp)
	r.fronts = append(r.fronts, map[int32]Frontier{})
	r.dirty = true
}

// attach makes r the replay of c's sink and of rs, and returns r.
func (r *replay) attach(c *chain, rs connector.Replayer) *replay {
	c.sink.rep = r
	rs.SetReplay(r)
	return r
}

// grow makes room for partition p.
func (r *replay) grow(p int32) {
	for int32(len(r.e)) <= p {
		r.e = append(r.e, 0)
		r.f = append(r.f, 0)
		r.fSet = append(r.fSet, false)
	}
}

// Hold implements connector.Replay: the smallest first offset of p's rows
// still in an operator's state (its Checkpoint's Frontier), with p's
// watermark before that row, else used and p's watermark now. When the
// operator that holds the first row keeps no time (Frontier.Timed false),
// the lowest watermark known stands: p's now, or the one before a later
// row another operator holds (lower is safe: a watermark seeded too high
// would make replayed rows late).
func (r *replay) Hold(p int32, used int64) (off, wm int64, wmSet bool) {
	off = used
	if pw := r.pw; pw != nil && int(p) < len(pw.wm) {
		wm, wmSet = pw.wm[p], pw.set[p]
	}
	r.refresh()
	var first *Frontier // the operator's frontier that holds p's first row
	for _, fs := range r.fronts {
		if f, ok := fs[p]; ok && f.Off < off {
			off, first = f.Off, &f
		}
	}
	switch {
	case first == nil:
	case first.Timed:
		wm, wmSet = first.WM, first.WMSet
	default: // the lowest watermark known before a held row
		for _, fs := range r.fronts {
			if f, ok := fs[p]; ok && f.Timed && f.Off < used && wmSet && (!f.WMSet || f.WM < wm) {
				wm, wmSet = f.WM, f.WMSet
			}
		}
	}
	return off, wm, wmSet
}

// Emitted implements connector.Replay: the first row of p an operator holds
// back with no output yet (Frontier.Emitted: the event-time join's held
// probe rows, released in order, so every row of p before the first has had
// its outputs handed to the sinks), else used.
func (r *replay) Emitted(p int32, used int64) int64 {
	r.refresh()
	e := used
	for _, fs := range r.fronts {
		if f, ok := fs[p]; ok && f.Emitted && f.Off < e {
			e = f.Off
		}
	}
	return e
}

// refresh recomputes each Checkpoint's frontiers after the state changed
// (dirty).
func (r *replay) refresh() {
	if !r.dirty {
		return
	}
	for k, cp := range r.cps {
		clear(r.fronts[k])
		cp.Frontiers(r.fronts[k])
	}
	r.dirty = false
}

// touch notes that the held rows changed (probeHold); r may be nil.
func (r *replay) touch() {
	if r != nil {
		r.dirty = true
	}
}

// Fired implements connector.Replay: how far the stream's watermark went at
// a firing while p counted in it (partWatermarks.fw).
func (r *replay) Fired(p int32) (int64, bool) {
	if pw := r.pw; pw != nil && int(p) < len(pw.fw) && pw.fwSet[p] {
		return pw.fw[p], true
	}
	return 0, false
}

// Windows implements connector.Replay: a job over one stream commits its
// windows' frontier as f (Fired), never g.
func (*replay) Windows(int32) (int64, bool) { return 0, false }

// Torn implements connector.Replay: a push changed the state (stamped the
// partitions' watermarks and fire frontiers, fired windows) and did not reach
// the sinks, so Hold and Fired may describe outputs that were never written.
// Every push that succeeds ends untorn (connector.Replay.Torn's invariant:
// each changed is followed, in the same push, by handed or through), so only
// a push that ends the job (cancelled, failed) leaves it true for the job's
// last checkpoint; TestReplayRebuildsWindows and TestReplayHeldJoinRows
// check it after every push and at every Next.
func (r *replay) Torn() bool { return r.torn }

// changed notes that a push is changing the state ahead of the sinks
// (partWatermarks.stampPartsSel, aggregate.Operator.fireAll, through
// opReplay.Changed); r may be nil.
func (r *replay) changed() {
	if r != nil {
		r.torn = true
	}
}

// handed notes that a push reached the sinks (sinkOp.Push, after Sink.Rows
// took its rows): the state and the outputs agree again; r may be nil.
func (r *replay) handed() {
	if r != nil {
		r.torn = false
	}
}

// through notes that a batch and the watermark event it made went through
// every operator of the chain (watermarker.Push): the state and the outputs
// agree, also when the event fired nothing, so that no push reached the
// sinks to say so (handed). An event-time rank operator raised the fire
// frontiers at it (opReplay.Firing) and may have let rows go: the frontiers
// are computed again. r may be nil.
func (r *replay) through() {
	if r != nil {
		r.torn, r.dirty = false, true
	}
}

// Assign implements connector.Replay.
func (r *replay) Assign(p int32, from int64, m connector.ReplayMark, ok bool) {
	r.Revoke(p)
	if !ok {
		return
	}
	r.grow(p)
	if m.Emitted > from {
		r.e[p], r.active = m.Emitted, true
	}
	r.f[p], r.fSet[p] = m.Fired, m.FiredSet
	if r.pw != nil {
		r.pw.seed(p, m.WM, m.WMSet)
	}
}

// Revoke implements connector.Replay.
func (r *replay) Revoke(p int32) {
	r.dirty = true
	for _, cp := range r.cps {
		cp.Drop(p)
	}
	if r.pw != nil {
		r.pw.forget(p)
	}
	r.grow(p)
	r.e[p], r.f[p], r.fSet[p] = 0, 0, false
}

// firedBy reports whether a window of partition p's groups ending at end
// fired before p came to this process (I4).
func (r *replay) firedBy(p int32, end int64) bool {
	return int(p) < len(r.fSet) && r.fSet[p] && end <= r.f[p]
}

// opReplay is the replay as the operators that hold rows see it: the main
// query's rank operator (rank.Replay) and the aggregate (aggregate.Replay).
type opReplay struct{ r *replay }

// Replayed implements rank.Replay and aggregate.Replay: the row at pos is read
// again below its partition's e (I3) while the replay filters the direct
// outputs.
func (x opReplay) Replayed(pos int64) bool { return x.r.active && x.r.replayed(pos) }

// Firing implements rank.Replay: with the stream's per-partition watermarks,
// the state is torn until the rows the operator emits reach the sinks, or
// the event went through every operator having emitted none (through), and
// the fire frontier of each partition counted in wm rises.
func (x opReplay) Firing(wm int64) {
	if x.r.pw == nil {
		return
	}
	x.r.changed()
	x.r.pw.fired(wm, time.Now())
}

// Written implements rank.Replay: p came with a fire frontier and t is below
// it.
func (x opReplay) Written(p int32, t int64) bool {
	return int(p) < len(x.r.fSet) && x.r.fSet[p] && t < x.r.f[p]
}

// FiredBy implements aggregate.Replay: a window of partition p's groups
// ending at end fired before p came to this process (I4).
func (x opReplay) FiredBy(p int32, end int64) bool { return x.r.firedBy(p, end) }

// Changed implements aggregate.Replay: fired windows left the state, which
// is torn until their rows reach the sinks.
func (x opReplay) Changed() { x.r.changed() }

// passReplay is the replay as a window TVF's Aggregate sees it when a
// window Top-N reads its rows (newReplay's tvfRank): a row read again below
// its partition's e is passed on like any other, into the window Top-N's
// state, which writes no window again that fired before (rank's
// writtenRow); the windows with end <= f get no row of it (FiredBy, I4).
type passReplay struct{ opReplay }

// Replayed implements aggregate.Replay: no row is held back.
func (passReplay) Replayed(int64) bool { return false }

// replayed reports whether the row at source position pos is read again
// below its partition's e (I3).
func (r *replay) replayed(pos int64) bool {
	p, off := connector.KafkaPartitionOf(pos)
	return int(p) < len(r.e) && off < r.e[p]
}

// passed ends the replay of the partitions of b's rows [0, n) that reached
// their e (offsets grow within a partition), once the batch went through
// every operator.
func (r *replay) passed(b *vector.Batch, n int) {
	for i := 0; i < n; i++ {
		p, off := connector.KafkaPartitionOf(b.Pos[i])
		if int(p) < len(r.e) && r.e[p] > 0 && off >= r.e[p] {
			r.e[p] = 0
		}
	}
	r.active = false
	for _, e := range r.e {
		r.active = r.active || e > 0
	}
}

// filterBad drops the malformed rows of a replay (I3: they went to their
// errors output already) from bad (admitBad); r may be nil.
func (r *replay) filterBad(bad []BadRow) []BadRow {
	if r == nil || !r.active {
		return bad
	}
	kept := bad[:0]
	for _, x := range bad {
		if !r.replayed(x.Line) {
			kept = append(kept, x)
		}
	}
	return kept
}

// filter takes the replayed input rows of the routed batch rt out of every
// part (side branches, INTO STREAM, the main query, late rows): their
// outputs were written by the run that committed e (I3). After a replayed
// join (r.old), a batch of old pairs loses every part and the rows an
// operator made of it when oldFired says so (Chunks: the windows a window
// aggregate beside side branches fired while they went through, under
// joinSource.oldRule; otherwise an old batch may fire windows the run
// before did not: the windows' frontier is the aggregate's watermark,
// FiredBy keeps the rows out of those that fired, and an outer join's
// paddings are old by when they were padded, op.Join.padAt, which may be
// after their time).
func (r *replay) filter(rt *Step) {
	if r == nil {
		return
	}
	if r.old != nil {
		if r.old() {
			for k := range rt.Parts {
				rt.Parts[k].Sel = rt.Parts[k].Sel[:0]
			}
			if r.oldFired != nil && r.oldFired() {
				for k := range rt.Chunks {
					rt.Chunks[k].Sel = rt.Chunks[k].Sel[:0]
				}
			}
		}
		return
	}
	r.dirty = true // (the batch may have changed the state)
	if !r.active || rt.In == nil {
		return
	}
	for k := range rt.Parts {
		p := &rt.Parts[k]
		kept := p.Sel[:0]
		for _, i := range p.Sel {
			if !r.replayed(rt.In.Pos[i]) {
				kept = append(kept, i)
			}
		}
		p.Sel = kept
	}
	r.passed(rt.In, rt.N) // (after: it ends the replay of the partitions whose e the batch reached)
}
