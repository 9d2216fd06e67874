package executor

import (
	"context"
	"errors"
	"fmt"

	"streamql/executor/expr"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// watermark.go is the watermark assigner (SPEC 2.3; issue 22 item 2), the
// first operator of a probe stream's chain (build.go) and of a join input
// (joinsource.go): a flow.Operator with one input port and one output port
// that stamps each row with the watermark before it, moves the watermark by
// the stream's WATERMARK expression and sends the watermark events. It owns
// the stream's watermark: one for the stream, or one per partition of a
// partitioned source (partwm.go, over the partitions its stream declares,
// SourceHandles.Partitions); 'watermark.max-future' (maxfuture.go) and
// 'scan.watermark.idle-timeout' (partwm.go). It reads the plan and the
// kernels, and tells the replay (replay.go) and the live status (live.go)
// how its watermarks moved; it never routes, aggregates or reads a source.
// (It stays in the executor's package for now: its per-partition state is
// what a Kafka replay seeds and reads, replay.go.)

// watermarker is the watermark assigner operator of a stream (SPEC 2.3): before
// each row it writes the current watermark (NULL before the first) into the
// batch's watermark column, then advances it to max(watermark, expr(row)). It
// records the rows that moved it as Step.Marks when marks is set, and sends
// a Watermark event after each batch that moved it and a Final one at the
// stream's end (operator.go).
type watermarker struct {
	job   *plan.Job
	set   bool           // false until the first row's expression gave a value
	wm    int64          // epoch ms (BIGINT event time) or TIMESTAMP ms
	live  *liveWatermark // nil without a live status
	marks bool           // fill Step.Marks (the chain has a MarkReader)
	expr  *expr.Kernel   // the WATERMARK expression, nil when none
	buf   []Mark
	down  *Emitter
	parts *partWatermarks // per-partition watermarks of a partitioned source (partwm.go); nil: one
	// offCol is the column c of a WATERMARK of the form c - INTERVAL (or
	// + INTERVAL) of offset off ms, the common one, which stampMarks
	// computes in its own loop; -1 for any other expression.
	offCol int
	off    int64
	max    *maxFuture // 'watermark.max-future' (maxfuture.go), nil when none
	// carried: the stream is a derived relation whose rows come with the
	// watermark of its input before each (plan.Derived.Stamps), or the
	// rows of CROSS JOIN UNNEST with their input stream's (unnestSource),
	// in the watermark column; the watermark before a row is at least that
	carried bool
	// carriedParts: with carried, the rows' stamps are their Kafka
	// partitions' watermarks, kept as their CURRENT_WATERMARK, and the
	// watermark moves to the stream's, carried in the two columns after
	// the stamps, before and after each row (plan.Derived.StreamWatermarks;
	// advanceParts)
	carriedParts bool
	// holds: the next operator is an event-time join's hold (chainOpts.hold),
	// which the assigner stamps the rows for as they come (pushHeld)
	holds bool
	// refuseParts: in front of the hold, the job aggregates the joined rows
	// by their stamps (a window, or a GROUP BY plan.Job.HeldAggReplayed
	// leaves out), which a second partition would make wrong
	// (ErrJoinAggregateParts)
	refuseParts bool
	// capped: the assigner of a window aggregate after a join in a
	// consumer group follows the join's watermark down and up, asking cap
	// (joinwincap.go: stampCapped), after a partition came to the process
	capped bool
	cap    windowCapper
}

// newWatermarker returns the watermark assigner of job, its WATERMARK
// expression compiled in the job's expression context exprs.
func newWatermarker(job *plan.Job, exprs *expr.Context) *watermarker {
	w := &watermarker{job: job, expr: exprs.Compile(job.Watermark), offCol: -1, max: newMaxFuture(job)}
	if d := plan.DerivedOf(job.Stream); d != nil && d.Stamps && job.WatermarkCol == len(job.Stream.Columns) {
		w.carried = true
		w.carriedParts = d.StreamWatermarks && len(job.BatchTypes) >= job.WatermarkCol+3
	}
	if carriesWatermark(job) { // (CROSS JOIN UNNEST: its rows carry the input stream's watermark, unnestSource.wm)
		w.carried = true
	}
	if e := job.Watermark; e != nil && e.Op == plan.OpAddInterval && e.Args[0].Op == plan.OpCol {
		w.offCol, w.off = e.Args[0].Col, e.Param
	}
	return w
}

// Push implements Operator: stamp r's live rows, pass r on, then the event
// (in front of an event-time join's hold: pushHeld).
func (w *watermarker) Push(ctx context.Context, port Port, r *Step) error {
	if w.holds {
		return w.pushHeld(ctx, port, r)
	}
	r.Marks = r.Marks[:0]
	moved := w.stampMarks(r)
	var refused error
	if w.max != nil {
		refused = w.max.refuse(w.job.Stream, r)
	}
	if err := w.down.Push(ctx, port, r); err != nil {
		return err
	}
	if moved {
		if err := w.down.Watermark(ctx, Watermark{Port: port, Value: w.wm, Set: true}); err != nil {
			return err
		}
		if w.parts != nil {
			// the event went through every operator: what it fired is with
			// the sinks, also when it fired nothing (no push reached them),
			// so the marks it raised commit at the next checkpoint
			w.parts.rep.through()
		}
	}
	return refused
}

// Watermark implements Operator: the assigner makes its stream's events
// itself; an event from upstream is passed on.
func (w *watermarker) Watermark(ctx context.Context, wm Watermark) error {
	return w.down.Watermark(ctx, wm)
}

// Finish implements Operator: the stream ended, its watermark is +∞ (SPEC 2.3).
func (w *watermarker) Finish(ctx context.Context) error {
	if err := w.down.Watermark(ctx, Watermark{Final: true}); err != nil {
		return err
	}
	return w.down.Finish(ctx)
}

// stampMarks stamps r's live rows and, with marks, fills r.Marks; it reports
// whether the watermark moved.
func (w *watermarker) stampMarks(r *Step) bool {
	if w.job.Watermark == nil {
		return false
	}
	if w.capped {
		return w.stampCapped(r)
	}
	if w.parts != nil {
		return w.stampParts(r)
	}
	if w.max != nil {
		wm, set := w.wm, w.set
		var marks []Mark
		r.Sel, marks = w.max.advance(w, r.In, r.Sel, w.buf[:0], w.marks)
		if w.marks {
			w.buf, r.Marks = marks, marks
		}
		w.live.store(w.wm, w.set)
		return w.wm != wm || w.set != set
	}
	if !w.marks {
		wm, set := w.wm, w.set
		w.stamp(r.In, r.Sel)
		return w.wm != wm || w.set != set
	}
	marks := w.advance(r.In, r.Sel, w.buf[:0], true)
	w.buf = marks
	r.Marks = marks
	w.live.store(w.wm, w.set)
	return len(marks) > 0
}

// pushHeld is Push in front of an event-time join's hold (holds: the
// operator after the assigner is the hold, semijoin.go's probeHold): it
// stamps r's live rows as they come, with the watermark before each (SPEC
// 2.3; the hold releases them into the router later, SPEC 2.2, and they
// carry their stamps while held), and pushes r into the hold. It makes no
// watermark event (the hold releases by the build watermarks, and the
// operators behind the join read the released rows' stamps) and refuses
// no row by 'watermark.max-future' (the probe stream's futureSource did,
// futureProbe). With refuseParts it returns ErrJoinAggregateParts, naming
// the stream, once the rows come from more than one partition: those read
// so far, and r's, checked before r is stamped and again after it (the
// partitions the source said it reads), so before any of them is held and
// no window has fired.
func (w *watermarker) pushHeld(ctx context.Context, port Port, r *Step) error {
	if err := w.oneStampPart(r.In); err != nil {
		return err
	}
	w.stamp(r.In, r.Sel)
	if err := w.oneStampPart(nil); err != nil {
		return err
	}
	return w.down.Push(ctx, port, r)
}

// ErrJoinAggregateParts is the error of a job whose aggregate (windows over
// the joined rows, SPEC 2.4) follows an event-time join over a source with
// more than one partition (SPEC 2.5): behind the join the aggregate fires by
// the released rows' CURRENT_WATERMARK stamps, which are each row's own
// partition's watermark rather than the stream's (their minimum), so windows
// would fire early and again with partial rows. The job stops before any
// window fires instead of giving wrong rows (the assigner refuses the rows
// of a second partition: refuseParts, pushHeld). An updating aggregate
// without a TTL or mini-batch (plan.Job.HeldAggReplayed) fires nothing by
// time and is not stopped.
var ErrJoinAggregateParts = errors.New("a window or GROUP BY after an event-time join is not supported yet over a topic of more than one partition (its windows would fire by one partition's watermark); read a topic of one partition, or write the joined rows to a topic with INTO STREAM and aggregate them in a second job")

// oneStampPart returns ErrJoinAggregateParts, naming the stream, when the
// assigner refuses a second partition (refuseParts) and the source has read
// more than one: those read so far, and those of b (nil: none).
func (w *watermarker) oneStampPart(b *vector.Batch) error {
	if !w.refuseParts || w.parts == nil || !w.parts.manyParts(b) {
		return nil
	}
	return fmt.Errorf("stream %s: %w", w.job.Stream.Name, ErrJoinAggregateParts)
}

// stamp fills the watermark column for the rows in sel and returns sel.
func (w *watermarker) stamp(b *vector.Batch, sel []int32) []int32 {
	if w.job.Watermark == nil {
		return sel
	}
	if w.parts != nil {
		w.stampPartsSel(b, sel)
		return sel
	}
	w.advance(b, sel, nil, false)
	w.live.store(w.wm, w.set) // once per batch
	return sel
}

// advance stamps the rows sel of b with the watermark before each
// (CURRENT_WATERMARK, SPEC 2.3) and moves it to their expression's values
// that pass it; with keep it appends a Mark to marks at each move, and
// returns marks. A relation's carried watermark (carried) moves it before
// the row.
func (w *watermarker) advance(b *vector.Batch, sel []int32, marks []Mark, keep bool) []Mark {
	if w.carriedParts {
		_, marks = w.advanceParts(b, sel, marks, keep, nil)
		return marks
	}
	col := b.Cols[w.job.WatermarkCol]
	if w.offCol >= 0 {
		// (the other loop's, the expression computed in it)
		tv := b.Cols[w.offCol]
		if w.set && !w.carried && !keep {
			// (a stream's rows once it has a watermark, no Mark kept: the
			// same stamps and moves, the watermark in a local)
			wm, off := w.wm, w.off
			if n := len(sel); n > 0 && n <= len(tv.I) && int(sel[n-1]) == n-1 && isPrefix(sel) {
				// (rows 0..n-1, the source's batch: the vectors sliced to
				// them, no bounds check a row)
				nulls, stamps, ts, tnull := col.Null[:n], col.I[:n], tv.I[:n], tv.Null[:n]
				for i, t := range ts {
					nulls[i] = false
					stamps[i] = wm
					if v, ok := expr.AddInterval(t, off); ok && v > wm && !tnull[i] {
						wm = v
					}
				}
				w.wm = wm
				return marks
			}
			for _, i := range sel {
				col.Null[i] = false
				col.I[i] = wm
				if v, ok := expr.AddInterval(tv.I[i], off); ok && v > wm && !tv.Null[i] {
					wm = v
				}
			}
			w.wm = wm
			return marks
		}
		for _, i := range sel {
			if w.carried {
				marks = w.carry(col, i, marks, keep)
			}
			col.Null[i] = !w.set
			col.I[i] = w.wm
			if v, ok := expr.AddInterval(tv.I[i], w.off); ok && !tv.Null[i] && (!w.set || v > w.wm) {
				w.wm, w.set = v, true
				if keep {
					marks = append(marks, Mark{At: int(i) + 1, Value: v})
				}
			}
		}
		return marks
	}
	// The watermark expression is evaluated for the whole selection first; it only
	// reads the row's own columns, so the values do not depend on order.
	vals := w.expr.Eval(b, sel)
	for _, i := range sel {
		if w.carried {
			marks = w.carry(col, i, marks, keep)
		}
		col.Null[i] = !w.set
		col.I[i] = w.wm
		if !vals.Null[i] && (!w.set || vals.I[i] > w.wm) {
			w.wm, w.set = vals.I[i], true
			if keep {
				marks = append(marks, Mark{At: int(i) + 1, Value: w.wm})
			}
		}
	}
	return marks
}

// aheadCopy returns a copy of w that stamps an input's batches on its
// reader's goroutine (the pipelined join's, executor/joinpipe.go), ahead
// of w, which the join's goroutine keeps (issue 23, the interval join's
// goal), or nil when w's stamping cannot be so copied: a WATERMARK that is
// not a column minus (or plus) an INTERVAL (its compiled expression's
// scratch is w's), per-partition or carried watermarks, Marks kept,
// 'watermark.max-future', or an assigner in front of a hold or following a
// join's. The copy shares nothing with w that either writes (no live
// status: w's owner stores it).
func (w *watermarker) aheadCopy() *watermarker {
	if w == nil || w.job.Watermark == nil || w.offCol < 0 || w.parts != nil || w.max != nil || w.marks ||
		w.carried || w.carriedParts || w.capped || w.holds {
		return nil
	}
	c := &watermarker{job: w.job, set: w.set, wm: w.wm, offCol: w.offCol, off: w.off}
	return c
}

// isPrefix reports whether sel is 0, 1, ..., len(sel)-1.
func isPrefix(sel []int32) bool {
	for k, i := range sel {
		if int(i) != k {
			return false
		}
	}
	return true
}

// advanceParts is advance for a relation whose rows carry their Kafka
// partitions' watermarks and the stream's (carriedParts): each row keeps
// its stamp, its partition's watermark before it, as its CURRENT_WATERMARK
// (a row is late by it, SPEC 2.5), and the watermark moves to the stream's
// before the row, then after it (the partitions' minimum, which fires
// windows, SPEC 2.5), as it moved over the stream, also by rows the
// relation's WHERE dropped (SPEC 2.6); the WATERMARK expression is not
// computed again. With m ('watermark.max-future', maxfuture.go) the rows
// m refuses under their stamps are left out of the returned rows (sel,
// compacted in place) and recorded in m.rej; with keep a Mark is appended
// to marks at each move. No allocation.
func (w *watermarker) advanceParts(b *vector.Batch, sel []int32, marks []Mark, keep bool, m *maxFuture) ([]int32, []Mark) {
	wc := w.job.WatermarkCol
	col, before, after := b.Cols[wc], b.Cols[wc+1], b.Cols[wc+2]
	kept := sel[:0]
	for _, i := range sel {
		marks = w.carry(before, i, marks, keep)
		if m != nil && m.tooFar(b, i, col.I[i], !col.Null[i]) {
			m.rej = append(m.rej, i)
			continue
		}
		kept = append(kept, i)
		if v := after.I[i]; !after.Null[i] && (!w.set || v > w.wm) {
			w.wm, w.set = v, true
			if keep {
				marks = append(marks, Mark{At: int(i) + 1, Value: v})
			}
		}
	}
	return kept, marks
}

// carry moves the watermark to the one row i carries in col, the watermark
// of the relation's input before it (plan.Derived.Stamps: the stream's,
// which rows the relation's WHERE dropped moved too, SPEC 2.6), when that
// passes it; with keep it appends a Mark at the row (before it) to marks,
// and returns marks.
func (w *watermarker) carry(col *vector.Vec, i int32, marks []Mark, keep bool) []Mark {
	if v := col.I[i]; !col.Null[i] && (!w.set || v > w.wm) {
		w.wm, w.set = v, true
		if keep {
			marks = append(marks, Mark{At: int(i), Value: v})
		}
	}
	return marks
}
