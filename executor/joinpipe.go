package executor

import (
	"context"
	"sync"
	"sync/atomic"

	"streamql/catalog"
	"streamql/executor/op"
	"streamql/executor/records"
	"streamql/executor/strategy"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// The pipelined join (plan.PipelinedJoin; issue 23, the interval join's
// goal): a joinSource whose inputs are two bounded files runs on four
// goroutines. Each input is decoded ahead on one of its own
// (strategy.Ahead: the batches the source's Next gives, cut where the
// sequential path cuts them); the join's sequential core, joinSource.Next
// (reading its inputs by turns, by their watermarks, pushing them into
// op.Join), runs on a third, ahead of the job's goroutine, which routes,
// encodes and writes the joined batches (process.batch). What the join
// gives the sink itself, its inputs' malformed rows (Sink.Errors) and its
// late rows (Sink.Rows, the late outputs), is recorded on the join's
// goroutine with the number of joined batches given before it, and
// replayed by the job's goroutine before the joined batch it came before:
// every output gets the sequential path's bytes in the sequential path's
// order, also when all of them share stdout. The planner takes this path
// only for jobs that have no expression of the join's own that can fail
// and nothing after the join that keeps state or calls a function
// (plan.Job.JoinPipelinable), so no failed call and no state is shared
// between the goroutines; EXPLAIN ANALYZE, which measures the join on the
// job's goroutine, keeps the sequential path.

// joinPipeRuns counts the jobs that ran pipelined (runJoinPipe), for
// tests: which path a job took.
var joinPipeRuns atomic.Int64

// joinPipe is a pipelined joinSource's record of its sink calls, shared by
// the join's goroutine (record) and the job's (replay).
type joinPipe struct {
	mu    sync.Mutex
	evs   []pipeEvent // recorded, not yet replayed, in order
	spare []pipeEvent // replayed: their memory, reused
	// given is the joined batches the join's Next gave (its goroutine's)
	given int64
	// fed is the joined batches the job's goroutine took, and run the
	// events it replays now (the job's goroutine's)
	fed int64
	run []pipeEvent
	sel []int32
}

// pipeEvent is one recorded sink call of the join's goroutine: input
// late's late rows b (late >= 0), or malformed rows errs for the errors
// output side (late < 0); at is the joined batches given before it.
type pipeEvent struct {
	at   int64
	late int
	side string
	errs []ErrorRow
	raw  []byte
	b    *vector.Batch
}

// startPipe makes js pipelined: its inputs are then read ahead
// (joinInput.next) and its sink calls recorded for replayPipe. Called on
// the job's goroutine before the first Next.
func (js *joinSource) startPipe() {
	js.pipe = &joinPipe{}
	jo, _ := js.j.(*op.Join)
	if jo != nil {
		jo.DropRightSources() // (no call after a pipelined join names its rows: RowSource is not asked)
	}
	for s, ji := range js.in {
		o := strategy.AheadOptions{NoText: ji.r.b.NoText}
		if prepare := holdPreparer(jo, s, ji); prepare != nil {
			o.Prepare = prepare
		}
		ji.ahead = strategy.NewAhead(ji.src, ji.in.Types, o)
		ji.r.from = ji.ahead // (the port reader hands its batches)
	}
}

// holdPreparer returns the ahead reader's Prepare for input s of join jo
// (nil: none): each batch's key hashes and time order (op.Join.Preparer),
// computed on the input's goroutine instead of the join's, the job's
// longest path (issue 23, the interval join's goal), for an input whose
// batches reach the join as they were read (no pushed-down filter, no
// computed key). When the input's watermark assigner allows it
// (watermarker.aheadCopy) the batch's CURRENT_WATERMARK stamps are written
// there too, by a copy of the assigner that runs ahead of the join's, and
// with them whether a row is late (aheadPrep). Malformed rows are not among
// a batch's rows: 'errors' = 'fail' cuts the batch before the first
// (handleBad), and intake and PushPrepared then leave an aheadPrep of
// another count of rows aside (the job fails at that batch).
func holdPreparer(jo *op.Join, s int, ji *joinInput) func(*vector.Batch, []records.BadRow, any) any {
	if jo == nil || ji.filter != nil || len(ji.keys) > 0 {
		return nil
	}
	w := ji.wmk.aheadCopy()
	prep := jo.Preparer(s, w != nil)
	if prep == nil {
		return nil
	}
	var sel []int32 // (rows 0..n-1: the stamp's selection, as intake's)
	return func(b *vector.Batch, _ []records.BadRow, p any) any {
		ap, _ := p.(*aheadPrep)
		if ap == nil {
			ap = &aheadPrep{}
		}
		ap.n, ap.stamped = b.N, w != nil
		if w != nil && b.N > 0 {
			for i := len(sel); i < b.N; i++ {
				sel = append(sel, int32(i))
			}
			w.stamp(b, sel[:b.N])
			ap.wm, ap.set = w.wm, w.set
		}
		ap.hold = prep(b, ap.hold)
		return ap
	}
}

// aheadPrep is what an input's ahead reader computed with a batch of n
// rows (holdPreparer): the join's HoldPrep and, when stamped, the
// watermark after the batch (wm, set: the input's assigner's state once
// it has stamped the batch's rows, which the reader did).
type aheadPrep struct {
	n       int
	stamped bool
	wm      int64
	set     bool
	hold    *op.HoldPrep
}

// next takes a recorded event's memory: a spare one's when there is one.
func (jp *joinPipe) next() pipeEvent {
	jp.mu.Lock()
	defer jp.mu.Unlock()
	if k := len(jp.spare); k > 0 {
		e := jp.spare[k-1]
		jp.spare = jp.spare[:k-1]
		return e
	}
	return pipeEvent{}
}

// add appends e to the events to replay.
func (jp *joinPipe) add(e pipeEvent) {
	jp.mu.Lock()
	jp.evs = append(jp.evs, e)
	jp.mu.Unlock()
}

// recordErrors records malformed rows bound for the errors output side,
// their raw texts copied (the decoder's buffer changes on its next call).
func (jp *joinPipe) recordErrors(side string, rows []ErrorRow) {
	e := jp.next()
	e.at, e.late, e.side = jp.given, -1, side
	e.errs, e.raw = append(e.errs[:0], rows...), e.raw[:0]
	for _, r := range rows {
		e.raw = append(e.raw, r.Raw...)
	}
	off := 0
	for k := range e.errs {
		n := len(e.errs[k].Raw)
		e.errs[k].Raw = e.raw[off : off+n : off+n]
		off += n
	}
	jp.add(e)
}

// recordLate records input s's late rows b, copied (the operator reuses
// b) into a batch of the input's layout, types.
func (jp *joinPipe) recordLate(s int, b *vector.Batch) {
	e := jp.next()
	e.at, e.late = jp.given, s
	if e.b == nil || !sameLayout(e.b, b) {
		e.b = vector.NewBatch(batchTypes(b))
	}
	e.b.Reset()
	e.b.AppendRows(b, 0, b.N)
	jp.add(e)
}

// batchTypes returns b's columns' types, its layout.
func batchTypes(b *vector.Batch) []catalog.Type {
	ts := make([]catalog.Type, len(b.Cols))
	for c, v := range b.Cols {
		ts[c] = v.Type
	}
	return ts
}

// replayPipe gives the sink, on the job's goroutine, the recorded calls
// that came before the joined batch the job takes now (all of them when
// end: the join's Next ended, with io.EOF or an error), in order, and
// counts the batch.
func (js *joinSource) replayPipe(end bool) error {
	jp := js.pipe
	jp.mu.Lock()
	k := 0
	for k < len(jp.evs) && (end || jp.evs[k].at <= jp.fed) {
		k++
	}
	jp.run = append(jp.run[:0], jp.evs[:k]...)
	jp.evs = jp.evs[:copy(jp.evs, jp.evs[k:])]
	jp.mu.Unlock()
	jp.fed++
	var err error
	for _, e := range jp.run {
		if err == nil {
			if e.late < 0 {
				err = js.sink.Errors(e.side, e.errs)
			} else {
				jp.sel = jp.sel[:0]
				for i := range e.b.N {
					jp.sel = append(jp.sel, int32(i))
				}
				err = js.lateOut(e.late, e.b, jp.sel)
			}
		}
	}
	if len(jp.run) > 0 {
		jp.mu.Lock()
		jp.spare = append(jp.spare, jp.run...)
		jp.mu.Unlock()
	}
	return err
}

// runJoinPipe runs job, whose source js is a join on plan.PipelinedJoin,
// with the join on a goroutine of its own (strategy.Ahead over js) and its
// inputs read ahead, feeding p (the job's chain) on the caller's
// goroutine. ran is false when the job keeps the sequential path (EXPLAIN
// ANALYZE).
func runJoinPipe(ctx context.Context, job *plan.Job, js *joinSource, p *process) (ran bool, _ error) {
	if js.an != nil {
		return false, nil
	}
	js.startPipe()
	joinPipeRuns.Add(1)
	a := strategy.NewAhead(js, job.BatchTypes, strategy.AheadOptions{NoText: job.OnlyAggregates(), Owned: true})
	defer a.Close()
	for {
		b, bad, err := a.Next()
		if rerr := js.replayPipe(err != nil); rerr != nil {
			return true, rerr
		}
		if err == nil {
			if cerr := ctx.Err(); cerr != nil {
				return true, cerr
			}
		}
		if end, err := p.batch(ctx, b, bad, err); end {
			return true, err
		}
	}
}
