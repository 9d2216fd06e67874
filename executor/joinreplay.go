package executor

import (
	"fmt"
	"math"
	"slices"

	"streamql/executor/aggregate"
	"streamql/executor/connector"
	"streamql/executor/op"
	"streamql/executor/rank"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// joinReplay is the replay of one input of a join of two Kafka streams in a
// consumer group (joinSource; the connector package doc, "Scale-out over
// Kafka partitions, and replay"; SPEC 2.5): the connector.Replay that
// input's source asks at a checkpoint and tells of its assignments.
//
//   - Hold: the oldest row of partition p of this input still in the join's
//     state (held by the aligner, or handled and still able to join; for a
//     temporal join's right input, a key's current version, which any
//     later left row may still join), with its CURRENT_WATERMARK stamp (the
//     input's watermark before it, at most p's), else the rows used and p's
//     watermark now. For a regular join without 'table.exec.state.ttl' that
//     is the first row of p the job read: every row stays able to join.
//   - Fired: the join's watermark (op.Join.Watermarked): the join emits in
//     event-time order, so every output of a row below it is written, and
//     none of a row at or above it.
//   - Emitted: the rows used: a row's direct outputs (its late output, its
//     malformed row's errors output) are written when it is read.
//
// On an assignment with a mark, p's rows from the committed offset on are
// read again into the join's state; an output whose time is below the
// mark's f is not written again (op.JoinReplay: a pair when its later row
// is handled, a padding when its interval ends or, when that is before
// the row's own time, when the row is handled: op.Join.padAt), nor the
// late or malformed rows below the mark's e. A revoked partition's rows
// leave the state.
//
// It runs only for joins whose inputs both have event time, neither
// updating, and whose rows go straight to the job's outputs
// (newJoinReplays): interval, regular and temporal joins (op.Join,
// op.Temporal: replayedJoin), or into an updating aggregate after one
// whose output is append-only (plan.Job.JoinAggReplayed: newJoinAggReplay;
// the connector package doc, "A join followed by an aggregate"): the join
// then emits again its outputs below f, into the aggregate only, and Hold is
// at most each partition's first row read since it came (first).
type joinReplay struct {
	js   *joinSource
	s    int             // the input
	pw   *partWatermarks // the input's per-partition watermarks (nil: none)
	e, f map[int32]int64 // per assigned partition: the mark's e, and its f when set
	// last holds, per partition, the first row of it in the input's last
	// batch: the source counts that batch as used only at its next Next,
	// so the row at a partition's used offset may be one of it, and its
	// stamp is the watermark before it (p's watermark now already counts
	// the batch's rows)
	last map[int32]stampAt
	// first holds, per partition, its first row read since it came to the
	// process (joinSource.rewrite only): the hold frontier of an updating
	// aggregate after the join, whose groups never close (the connector
	// package doc, "A join followed by an aggregate")
	first map[int32]stampAt
	// read holds, per partition, the offset after the last row of it
	// given to the join (good or malformed): its direct outputs (late
	// rows, errors) are written once the batch was pushed, also when the
	// job's checkpoint runs in the other input's Next, before this input's
	// source counts the batch as used (Emitted)
	read map[int32]int64
	// fired holds, per partition, the join's largest watermark seen while
	// the partition counted in it (joinSource.rewind notes it before the
	// watermark goes down): Fired's floor, so that a commit after the
	// join's watermark went down for a partition that came does not say
	// less of the others than what was written
	fired map[int32]int64
	// held holds, per partition, the last hold frontier Hold gave while
	// the other input read the partition too: while it does not (it lost
	// the partition first, or has not got it yet), Hold gives that one
	// again, since this input's rows there may be the partners of the
	// other's rows it dropped (an outer row's first partner), which p's
	// next owner must read again
	held map[int32]stampAt
	// came and wfired, with a window aggregate after the join whose
	// watermark is capped (joinwincap.go): per partition, the epoch at
	// which it came (pending: its f is its mark's), and the largest
	// watermark of the window before it went down while the partition
	// counted (Fired's floor)
	came   map[int32]int
	wfired map[int32]int64
	// g holds, per assigned partition, its mark's g (ReplayMark.Windows),
	// for a window aggregate after the join beside side branches
	// (joinSource.sides): its windows with end <= g fired (I4); old holds
	// the partitions assigned with a mark of such a job written by a
	// streamql before g (f set, no g), under that version's rule
	// (joinSource.oldRule)
	g   map[int32]int64
	old map[int32]bool
	// owned are the partitions assigned to the input (Assign, Revoke):
	// the two inputs' must be the same but for moments (joinapart.go)
	owned map[int32]bool // (every value true: maps.Equal compares the sets)
}

// stampAt is a row's offset and its CURRENT_WATERMARK stamp (set false:
// NULL).
type stampAt struct {
	off int64
	wm  int64
	set bool
}

// joinReplayable reports whether job's join of two streams (job.Both) is
// replayed over Kafka (joinReplay): plan.Job.JoinReplayed. Such a join reads
// its inputs in the group (each process its partitions); any other reads
// each input whole, as a build side (SPEC 2.5), and commits nothing of its
// state.
func joinReplayable(job *plan.Job) bool { return job.JoinReplayed() }

// newJoinReplays gives each input of js, read in its consumer group
// (joinReplayable), its joinReplay when both declare one (SourceHandles.Replayer), and
// makes the join ask them (op.Join.SetReplay).
//
// A lookup join's probe input (the left) gets its joinReplay alone, when it
// has event time: the join then holds its rows until its watermark passes
// them (the aligner), and a crash must not lose them; the bounded right side
// is read whole again by every process. Without event time the lookup join
// holds no probe row (op.Join's probesBatches), and its input commits the
// rows used, as a stateless job's does.
func newJoinReplays(js *joinSource) {
	jo, ok := js.j.(replayedJoin)
	if !ok || !js.grouped {
		return
	}
	inputs := 2
	if js.both.Lookup {
		inputs = 1
	}
	var rs [2]connector.Replayer
	for s, ji := range js.in[:inputs] {
		if ji.wmk == nil {
			return
		}
		if rs[s] = ji.h.Replayer; rs[s] == nil {
			return
		}
	}
	for s, ji := range js.in[:inputs] {
		r := &joinReplay{js: js, s: s, pw: ji.wmk.parts, e: map[int32]int64{}, f: map[int32]int64{}, last: map[int32]stampAt{}, first: map[int32]stampAt{}, read: map[int32]int64{}, fired: map[int32]int64{}, held: map[int32]stampAt{}, came: map[int32]int{}, wfired: map[int32]int64{}, g: map[int32]int64{}, old: map[int32]bool{}, owned: map[int32]bool{}}
		js.rep[s] = r
		rs[s].SetReplay(r)
	}
	jo.SetReplay(js)
	if js.aggAfter {
		js.rewrite = true
		jo.SetRewrite(true)
	}
}

// replayedJoin is a join operator with a Kafka replay: the keyed join
// (op.Join) and the temporal join (op.Temporal), each with its joinreplay.go.
type replayedJoin interface {
	joinOperator
	SetReplay(op.JoinReplay)
	EachRow(s int, f func(pos int64, stamp int64, null bool))
	DropRows(s int, drop func(pos int64) bool) error
	Watermarked() (int64, bool)
	// Rewind sets an input's watermark, also lower, or none (set false),
	// and the join's own down to their minimum (joinSource.rewind)
	Rewind(port int, wm int64, set bool)
	// SetRewrite and Old: the outputs a replay's rows wrote before,
	// emitted again in batches of their own for an aggregate after the
	// join (newJoinAggReplay)
	SetRewrite(on bool)
	Old() bool
}

// Written implements op.JoinReplay: the outputs at time t of a row of
// input s at pos were written when t is below its partition's f.
func (js *joinSource) Written(s int, pos int64, t int64) bool {
	if js.rep[s] == nil { // (a lookup join's right side: read whole, never replayed)
		return false
	}
	p, _ := connector.KafkaPartitionOf(pos)
	f, ok := js.rep[s].f[p]
	return ok && t < f
}

// readBefore reports whether the row of input s at pos was read by the run
// before (below its partition's e): its late and errors outputs are written.
func (js *joinSource) readBefore(s int, pos int64) bool {
	if js.rep[s] == nil {
		return false
	}
	p, off := connector.KafkaPartitionOf(pos)
	e, ok := js.rep[s].e[p]
	return ok && off < e
}

// Hold implements connector.Replay; while the other input does not read
// p, the last one given while it did (held).
func (r *joinReplay) Hold(p int32, used int64) (off, wm int64, wmSet bool) {
	h, had := r.held[p]
	if had && !r.js.peerReads(r.s, p) {
		return h.off, h.wm, h.set
	}
	off, wm, wmSet = r.hold(p, used)
	r.held[p] = stampAt{off, wm, wmSet}
	return off, wm, wmSet
}

// hold is Hold's frontier from the join's state.
func (r *joinReplay) hold(p int32, used int64) (off, wm int64, wmSet bool) {
	off = used
	if pw := r.pw; pw != nil && int(p) < len(pw.wm) {
		wm, wmSet = pw.wm[p], pw.set[p]
	}
	if l, ok := r.last[p]; ok && l.off == used {
		wm, wmSet = l.wm, l.set
	}
	if f, ok := r.first[p]; ok && r.js.rewrite && f.off < off {
		off, wm, wmSet = f.off, f.wm, f.set
	}
	r.js.j.(replayedJoin).EachRow(r.s, func(pos int64, stamp int64, null bool) {
		q, o := connector.KafkaPartitionOf(pos)
		if q == p && o < off {
			off, wm, wmSet = o, stamp, !null
		}
	})
	return off, wm, wmSet
}

// peerReads reports whether the input other than s reads partition p: a
// join of two group sources (joinReplay), or true when the other input has
// no replay (a lookup join's right side, read whole).
func (js *joinSource) peerReads(s int, p int32) bool {
	o := js.in[1-s]
	if js.rep[1-s] == nil || o.h.Partitions == nil {
		return true
	}
	js.parts = o.h.Partitions.Partitions(js.parts[:0])
	return slices.Contains(js.parts, p)
}

// Emitted implements connector.Replay: every row read has its direct
// outputs written: the rows used, and those of the input's last batch,
// pushed into the join whole (read), which the source counts as used only
// at its next Next.
func (r *joinReplay) Emitted(p int32, used int64) int64 { return max(used, r.read[p]) }

// Fired implements connector.Replay: the join's watermark, at least the
// largest it had while p counted in it (fired: it goes down when a
// partition comes, joinSource.rewind), or, with a window aggregate after
// the join and no side branch (joinSource.aggFired, not sides), the
// watermark its windows fired by (windows). The join then emits again
// every output of a replayed row (rewrite), below f in batches of their
// own, which the window aggregate takes as it takes the others (they have
// no output of their own), so f only says which windows fired. Beside side
// branches f stays the join's watermark, which says which pairs they
// wrote, and Windows the window's.
func (r *joinReplay) Fired(p int32) (int64, bool) {
	if r.js.aggFired != nil && !r.js.sides {
		return r.windows(p, r.f)
	}
	wm, ok := r.js.j.(replayedJoin).Watermarked()
	if f, had := r.fired[p]; had && (!ok || f > wm) {
		return f, true
	}
	return wm, ok
}

// Windows implements connector.Replay: g, for a window aggregate after
// the join beside side branches (joinSource.sides), the watermark over the
// joined rows its windows fired by (windows), or math.MinInt64 before one
// fired: such a job's marks always carry g, so that one without it is
// known to be an older version's (joinReplay.old); none otherwise.
func (r *joinReplay) Windows(p int32) (int64, bool) {
	if r.js.aggFired == nil || !r.js.sides {
		return 0, false
	}
	if g, ok := r.windows(p, r.g); ok {
		return g, true
	}
	return math.MinInt64, true
}

// windows is how far a window aggregate after the join fired for p
// (joinSource.aggFired): its watermark over the joined rows, at least the
// largest it had before it went down while p counted (wfired), and the
// mark's (in marks: f, or g beside side branches) while p is pending
// (joinwincap.go: none of p's windows fired here yet).
func (r *joinReplay) windows(p int32, marks map[int32]int64) (int64, bool) {
	if r.pending(p) {
		f, set := marks[p]
		return f, set
	}
	wm, ok := r.js.aggFired()
	if f, had := r.wfired[p]; had && (!ok || f > wm) {
		return f, true
	}
	return wm, ok
}

// Torn implements connector.Replay: joined rows were given to the job
// (joinSource.give: pushed by run, or returned by Next) and the job has not
// come back for more, so they may not have reached the sinks. The join's
// scheduler clears it (handled: run once the push returned, Next when the
// job calls it again) before it reads an input, whose Next is where a
// group source commits (connector.Replay.Torn's invariant: an input is
// read again only after the rows given went through), so only the job's
// last checkpoint can see it true.
func (r *joinReplay) Torn() bool { return r.js.given }

// Assign implements connector.Replay; the join's watermarks go down to
// the inputs' minimum with p (joinSource.rewind), and a window aggregate's
// after the join follows them (joinSource.startCap, joinwincap.go).
func (r *joinReplay) Assign(p int32, _ int64, m connector.ReplayMark, ok bool) {
	r.drop(p)
	if ok {
		r.e[p] = m.Emitted
		if m.FiredSet {
			r.f[p] = m.Fired
		}
		if m.WindowsSet {
			r.g[p] = m.Windows
		} else if m.FiredSet && r.js.sides {
			r.old[p] = true // (joinSource.oldRule)
		}
	}
	if r.js.fail == nil {
		r.js.fail = r.js.errWindowMoved(r.s, p)
	}
	if r.pw != nil { // (without a mark too: p's rows from the start may lie below the input's watermark)
		r.pw.seed(p, m.WM, ok && m.WMSet)
		r.pw.touch(p)
	}
	r.owned[p] = true
	r.js.rewind(r.s, p)
	r.js.startCap(r.s, p) // (a window aggregate after the join: joinwincap.go)
	r.js.noteApart()
}

// Revoke implements connector.Replay: p's rows of this input leave the
// join's state, unjoined and unpadded (p's next owner reads them again),
// and the join holds its rows while the other input still reads p
// (joinSource.rewind).
func (r *joinReplay) Revoke(p int32) {
	r.drop(p)
	delete(r.owned, p)
	r.js.rewind(r.s, p)
	r.js.noteApart()
}

// drop takes p's rows of this input out of the join's state, and what the
// replay knew of p.
func (r *joinReplay) drop(p int32) {
	// (a budget error here is not this input's: the state only shrinks)
	_ = r.js.j.(replayedJoin).DropRows(r.s, func(pos int64) bool {
		q, _ := connector.KafkaPartitionOf(pos)
		return q == p
	})
	delete(r.e, p)
	delete(r.f, p)
	delete(r.first, p)
	delete(r.read, p)
	delete(r.fired, p)
	delete(r.held, p)
	delete(r.came, p)
	delete(r.wfired, p)
	delete(r.g, p)
	delete(r.old, p)
	if r.s == 0 && r.js.dropAgg != nil {
		r.js.dropAgg(p) // (a joined row's position is its left row's: aggregate.Operator.Drop)
	}
	if r.pw != nil {
		r.pw.forget(p)
	}
}

// noteBatch notes, for input s's replay, the first row of each partition
// in its batch b (stamped: column wc holds CURRENT_WATERMARK), the rows sel.
func (js *joinSource) noteBatch(s int, b *vector.Batch, sel []int32, wc int) {
	r := js.rep[s]
	if r == nil {
		return
	}
	clear(r.last)
	for _, i := range sel {
		p, off := connector.KafkaPartitionOf(b.Pos[i])
		r.read[p] = max(r.read[p], off+1)
		if _, ok := r.last[p]; ok {
			continue
		}
		x := stampAt{off: off}
		if wc >= 0 && !b.Cols[wc].Null[i] {
			x.wm, x.set = b.Cols[wc].I[i], true
		}
		r.last[p] = x
		if _, ok := r.first[p]; !ok && js.rewrite {
			r.first[p] = x
		}
	}
}

// unread drops, from the malformed rows of input s in bad, those read by
// the run before (their errors output is written).
func (js *joinSource) unread(s int, bad []BadRow) []BadRow {
	if js.rep[s] == nil {
		return bad
	}
	for _, x := range bad { // (read: their errors output is written with the batch)
		p, off := connector.KafkaPartitionOf(x.Line)
		js.rep[s].read[p] = max(js.rep[s].read[p], off+1)
	}
	if len(js.rep[s].e) == 0 {
		return bad
	}
	kept := bad[:0]
	for _, x := range bad {
		if !js.readBefore(s, x.Line) {
			kept = append(kept, x)
		}
	}
	return kept
}

// unreadLate takes, from the late rows b of input s, those read by the run
// before out of js.sel (their late output is written).
func (js *joinSource) unreadLate(s int, b *vector.Batch) {
	if js.rep[s] == nil || len(js.rep[s].e) == 0 {
		return
	}
	kept := js.sel[:0]
	for _, i := range js.sel {
		if !js.readBefore(s, b.Pos[i]) {
			kept = append(kept, i)
		}
	}
	js.sel = kept
}

// newJoinAggReplay replays the aggregate agg of chain c after js's join
// (joinSource.rewrite; plan.Job.JoinAggReplayed; the connector package
// doc, "A join followed by an aggregate"): the join emits again, in
// batches of their own, the pairs the run before wrote (op.Join.Old),
// which go into the aggregate's groups only (I3: their changes are in
// committed outputs) and to no other output of the job (replay.filter);
// a revoked partition of the left input takes its groups with it (a
// joined row's position is its left row's). The inputs' replays
// (joinReplay) commit, per partition, the first row the job read of it
// since it came (the groups never close, so each is rebuilt from all its
// pairs); the returned replay is the chain's sink's only, asked by no
// source.
//
// A window aggregate after the join (plan.Job.JoinWindowReplayed; the
// connector package doc, "A window aggregate over a join") fires by the
// chain's watermark over the joined rows (c.assign, the relation's
// WATERMARK), which the inputs commit (joinSource.aggFired): as f, or as g
// beside side branches (joinSource.sides), which write each pair when the
// join emits it, so f is the join's watermark there, which says which
// pairs went out (I3). A window of a replayed left partition ending at or
// below its mark's f (g) gets no row (joinOldReplay.FiredBy, I4). Every
// window fired is written by the time the checkpoint runs (in an input's
// Next, once the job came back for more rows: joinReplay.Torn), so f (g)
// describes the outputs. A partition coming to the process once that
// watermark is set makes it follow the join's down and up (joinSource.win,
// joinwincap.go): the window scales out, beside side branches too.
func newJoinAggReplay(js *joinSource, c *chain, agg *aggregate.Operator) *replay {
	r := newReplayOf(c)
	r.old = func() bool { return js.givenOld }
	a := c.assign
	if job := a.job; job.Watermark != nil { // (a window over the joined rows)
		js.aggFired = func() (int64, bool) { return a.wm, a.set }
		js.win, a.cap = a, js // (it scales out: joinwincap.go)
		js.sides = len(job.Branches) > 0
		r.oldFired = js.oldRule
	}
	agg.StartReplay(joinOldReplay{js})
	js.dropAgg = agg.Drop
	c.sink.rep = r
	return r
}

// newJoinRankReplay replays the updating Top-N rk of chain c after js's
// join (joinSource.rewrite; plan.Job.JoinRankReplayed; the connector
// package doc, "A Top-N after a join") as newJoinAggReplay does an
// updating aggregate: the pairs the run before wrote come again in batches
// of their own (op.Join.Old), which go into the Top-N's state only (its
// changes of them are in committed outputs: joinOldReplay.Replayed) and
// to no other output (replay.filter); a revoked partition of the left
// input takes its rows out of the Top-N's state (rank.Operator.Drop), and
// each input commits the first row the job read of it.
func newJoinRankReplay(js *joinSource, c *chain, rk *rank.Operator) *replay {
	r := newReplayOf(c)
	r.old = func() bool { return js.givenOld }
	rk.StartReplay(joinOldReplay{js})
	js.dropAgg = rk.Drop
	c.sink.rep = r
	return r
}

// joinOldReplay is the replay as an aggregate after a replayed join sees
// it (newJoinAggReplay): a joined row is replayed when it came in a batch
// of pairs the run before wrote.
type joinOldReplay struct{ js *joinSource }

// Replayed implements aggregate.Replay: the rows Next gave last are old
// pairs (joinSource.givenOld), whatever their positions.
func (x joinOldReplay) Replayed(int64) bool { return x.js.givenOld }

// FiredBy implements aggregate.Replay: a window aggregate's window of
// the left input's partition p (a joined row's position is its left
// row's; a RIGHT join's padded right row's is its own, in the right
// input's partition p, co-partitioned with the left's) ending at end fired
// before p came to this process: end is at or below the f of p's mark
// (joinSource.aggFired; I4), or its g beside side branches
// (joinSource.sides). An updating aggregate has no window.
func (x joinOldReplay) FiredBy(p int32, end int64) bool {
	r := x.js.rep[0]
	if x.js.aggFired == nil || r == nil {
		return false
	}
	marks := r.f
	if x.js.sides {
		marks = r.g
	}
	f, ok := marks[p]
	return ok && end <= f
}

// Changed implements aggregate.Replay: the inputs' replays say torn while
// joined rows given have not come back (joinReplay.Torn).
func (joinOldReplay) Changed() {}

// Firing implements rank.Replay: an updating Top-N fires nothing by time.
func (joinOldReplay) Firing(int64) {}

// Written implements rank.Replay: no row is written by its time (the rows
// of the batches of old pairs are: Replayed).
func (joinOldReplay) Written(int32, int64) bool { return false }

// oldRule reports whether a partition the join's inputs hold came with a
// mark of a window aggregate beside side branches written by a streamql
// before g (ReplayMark.Windows; joinReplay.old): its f is the join's
// watermark and nothing says which of its windows fired, so that
// version's rule holds while it is held: every window fired while pairs
// the run before wrote go through is taken for written, and dropped at the
// sink (replay.filter, oldFired), exact when the process got every
// partition at its start (the aggregate, taking all those pairs in the
// same order, reaches the watermark it had at the commit).
func (js *joinSource) oldRule() bool {
	for _, r := range js.rep {
		if r != nil && len(r.old) > 0 {
			return true
		}
	}
	return false
}

// errWindowMoved returns the error that stops a job whose window aggregate
// after a join beside side branches holds a partition under the rule of a
// streamql before g (oldRule) when partition p comes to input s once the
// aggregate has a watermark, nil otherwise: with the process's other
// partitions going on, their windows that fire while p's old pairs go
// through would be dropped with p's. The job stops instead (exit 1, its
// open transaction aborted, nothing committed past what was written); a
// restart of every process of the group reads the commits again, and
// those it makes from then on carry g.
func (js *joinSource) errWindowMoved(s int, p int32) error {
	if js.win == nil || !js.win.set || !js.oldRule() {
		return nil
	}
	return fmt.Errorf("partition %d of %s came to this process while the window aggregate after the %s of %s and %s, beside side branches, holds windows, and a partition it reads was committed by an older streamql version (its commit metadata has no g=), whose windows fired cannot be told apart from the others': stop every process of consumer group '%s' and start them again, all of this version (the commits they make from then on carry g=)", p, js.both.Inputs[s].Name, js.both.Kind(), js.both.Inputs[0].Name, js.both.Inputs[1].Name, js.group())
}

// group is the consumer group of the join's inputs ('properties.group.id'
// of the first that has one), "" for none.
func (js *joinSource) group() string {
	for _, in := range js.both.Inputs {
		if k := in.Stream.Kafka(); k != nil && k.GroupID != "" {
			return k.GroupID
		}
	}
	return ""
}
