package rank

import (
	"context"

	"streamql/executor/connector"
	"streamql/executor/flow"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// The main query's rank operator's side of a Kafka group source's replay
// (the executor's replay.go; the connector package doc, "Scale-out over Kafka partitions,
// and replay"; SPEC 2.5): which operators are replayed, their frontiers
// (Operator: a flow.Checkpoint), the drop of a partition's state and the outputs a
// replayed row does not write again.
//
//   - An updating Top-N (also deduplication keeping the last row) over the
//     stream's rows: its changes come as rows are pushed, so a row read
//     again below its partition's emitted frontier e goes into state only
//     (Operator.inReplayed). Its hold frontier is each partition's first row
//     it took; it keeps no time.
//   - Deduplication keeping the first row, OVER aggregation, ORDER BY the
//     event time and a window Top-N over a window TVF's rows (Dedup, Over,
//     TimeSort, WindowTopN) over a stream with a WATERMARK:
//     they emit a row when the stream's watermark passes its time, so their
//     fire frontier f_p is the stream's watermark at its last event while p
//     counted in it (partWatermarks.fired, raised by Operator.fired), and a
//     row of p read again is not emitted again when its time is below f_p
//     (writtenRow). The hold frontier is the oldest row of p still in state,
//     with its stamp (CURRENT_WATERMARK: p's watermark before it): Over's
//     and TimeSort's held rows, the rows WindowTopN ranks in its open
//     windows (their time: the window's end - 1); for Dedup, whose keys
//     outlive their rows, the first row of p it took. The window Top-N's
//     rows come from the TVF's Aggregate as rows it made (chunks), each
//     with the position of the input row that made it (Operator.Push), and
//     that Aggregate passes the rows read again on (the executor's
//     replay.go), into the window Top-N's state.

// Replay is what the operator needs of the job's replay (the executor's
// replay.go), which gives it (StartReplay). Its methods run on the job's
// goroutine.
type Replay interface {
	// Replayed reports whether the row at source position pos is read
	// again below its partition's emitted frontier (its changes are in
	// committed outputs).
	Replayed(pos int64) bool
	// Firing tells the replay that the stream's watermark wm (epoch ms) is
	// about to fire the operator's rows: the fire frontier of each
	// partition counted in it rises (nothing without per-partition
	// watermarks).
	Firing(wm int64)
	// Written reports whether a row of Kafka partition p with time t
	// (epoch ms) was written by the run before this one: p came with a
	// fire frontier and t is below it.
	Written(p int32, t int64) bool
}

// stamp is a row's offset and its CURRENT_WATERMARK stamp (set false: none).
type stamp struct {
	off int64
	wm  int64
	set bool
}

// Timed reports whether the operator goes by event time (Dedup, Over,
// TimeSort): a replay rebuilds it only with the stream's per-partition
// watermarks.
func (o *Operator) Timed() bool { return timedRank(o.r.Kind) }

// timedRank reports whether kind is one of the event-time operators a replay
// rebuilds (Dedup, Over, TimeSort, and WindowTopN over a window TVF's rows:
// plan.Job.WindowRankReplayed).
func timedRank(kind plan.RankKind) bool {
	return kind == plan.RankDedup || kind == plan.RankOver || kind == plan.RankTimeSort || kind == plan.RankWindowTopN
}

// Replayable reports whether the operator's state is rebuilt by a replay:
// an updating Top-N over an unbounded input, or an event-time operator
// (timedRank) whose rows carry their CURRENT_WATERMARK (the stream has a
// WATERMARK).
func (o *Operator) Replayable() bool {
	switch {
	case o.top != nil:
		return !o.r.Bounded
	case o.final != nil:
		return !o.r.Bounded // (op.RetractTopN: over the job's own GROUP BY, plan.Job.AggRankReplayed)
	case timedRank(o.r.Kind):
		return o.r.Stamp >= 0
	}
	return false
}

// StartReplay makes r the operator's replay.
func (o *Operator) StartReplay(r Replay) {
	o.rep, o.first = r, map[int32]stamp{}
	if timedRank(o.r.Kind) {
		o.coll.written = o.writtenRow
	}
}

// heldRower is an operator that names the rows it holds (op.Over,
// op.TimeSort) and their values in a column.
type heldRower interface {
	HeldRows(c int, f func(pos, v int64, null bool))
}

// Frontiers implements flow.Checkpoint: it sets dst[p] to the hold frontier of each partition p of which
// the operator holds rows: the oldest row it holds with its stamp (a
// heldRower), or else the first row of p it took (with its stamp for an
// event-time operator; a Top-N keeps no time).
func (o *Operator) Frontiers(dst map[int32]flow.Frontier) {
	if h, ok := o.op.(heldRower); ok && timedRank(o.r.Kind) {
		h.HeldRows(o.r.Stamp, func(pos, v int64, null bool) {
			p, off := connector.KafkaPartitionOf(pos)
			if f, ok := dst[p]; !ok || off < f.Off {
				dst[p] = flow.Frontier{Off: off, Timed: true, WM: v, WMSet: !null}
			}
		})
		return
	}
	timed := timedRank(o.r.Kind)
	for p, x := range o.first {
		dst[p] = flow.Frontier{Off: x.off, Timed: timed, WM: x.wm, WMSet: timed && x.set}
	}
}

// dropper is an operator that forgets the rows of some source positions
// (op.TopN, op.Dedup, op.Over, op.TimeSort).
type dropper interface {
	DropWhere(drop func(pos int64) bool)
}

// Drop implements flow.Checkpoint: it forgets the operator's state of Kafka
// partition p (revoked, or read again from its committed offset: the
// executor's replay.go).
func (o *Operator) Drop(p int32) {
	delete(o.first, p)
	if d, ok := o.op.(dropper); ok {
		d.DropWhere(func(pos int64) bool {
			q, _ := connector.KafkaPartitionOf(pos)
			return q == p
		})
	}
}

// fired raises, for an event-time operator with a replay, the fire frontier
// f_p of each partition counted in the stream's watermark wm (epoch ms), which
// the operator is about to get: it emits every row of theirs whose time is
// below wm.
func (o *Operator) fired(wm int64) {
	if o.rep == nil || !timedRank(o.r.Kind) {
		return
	}
	o.rep.Firing(wm)
}

// writtenRow reports whether output row i of b (the operator's layout: its
// input's columns first) was written by the run before this one: its
// partition came with a fire frontier f_p (replay.Assign) and its time is
// below it.
//
// A window Top-N's row was written when its window fired, at a watermark at
// or past its end: its time is then the window's last instant (end - 1,
// Flink's window_time), below f_p exactly when end <= f_p.
func (o *Operator) writtenRow(b *vector.Batch, i int) bool {
	p, _ := connector.KafkaPartitionOf(b.Pos[i])
	if o.r.Kind == plan.RankWindowTopN {
		e := b.Cols[o.r.End]
		return !e.Null[i] && o.rep.Written(p, e.I[i]-1)
	}
	t := b.Cols[o.r.Time]
	return !t.Null[i] && o.rep.Written(p, t.I[i])
}

// addUnwritten adds the rows of b for which written is false.
func (g *gathered) addUnwritten(b *vector.Batch, written func(b *vector.Batch, i int) bool) {
	from := 0
	for i := 0; i <= b.N; i++ {
		if i < b.N && !written(b, i) {
			continue
		}
		if i > from {
			g.addRange(b, from, i)
		}
		from = i + 1
	}
}

// addMade adds the rows of chunk c (in o.view) that the window TVF's
// Aggregate made from the input row at source position pos: each with that
// position (the hold frontier's and writtenRow's), noted and pushed as a
// row read again below its partition's e, or not (noteRow).
func (o *Operator) addMade(ctx context.Context, c *flow.Chunk, pos int64) error {
	if o.madePos == nil {
		o.madePos = make([]int64, vector.Cap)
	}
	o.view.Pos = o.madePos
	for _, i := range c.Sel {
		o.madePos[i] = pos
		if err := o.addAs(ctx, &o.view, int(i), o.noteRow(&c.Part, i, pos)); err != nil {
			return err
		}
	}
	return nil
}
