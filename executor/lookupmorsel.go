package executor

import (
	"context"
	"errors"
	"sync/atomic"

	"streamql/executor/chunked"
	"streamql/executor/op"
	"streamql/executor/strategy"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// The lookup morsel pipeline (plan.LookupMorsel, issue 23's lookup join
// goal): a lookup join's right side is read whole first (SPEC 2.7), on the
// job's goroutine as ParallelJoinInputs reads it, and laid out as the
// join's table (op's lookupTable), which then no longer changes. From then
// on the probe of a left row is a stateless per-row map, as a filter is, so
// the left input, a bounded file, runs on the morsel pipeline (morsel.go):
// each of GOMAXPROCS workers decodes a chunk of it, probes the table with a
// probe of its own (op.Join.ProbeCopy: the table shared, read only),
// pushes the joined batches into its own copy of the job's chain (router,
// project) and has the sink encode them into the chunk's EncodedChunk; the
// job's goroutine writes the chunks in file order. A joined row's work
// stays on the CPU that decoded its left row: the parallel join inputs'
// path hands the decoded left rows to the job's goroutine, which copies
// their texts (chunked's detach), probes, routes and encodes them alone.
//
// The output is the same as ParallelJoinInputs' and the sequential path's,
// byte for byte: the left rows are probed in file order within a chunk and
// the chunks written in file order; a left batch's joined rows are the
// same, in the same order, batch for batch (the chunks are cut as the
// parallel join inputs' reader cuts them, joinChunkSize, so that a left
// batch's malformed rows, which go to the errors output before its joined
// rows, keep their place among them); the malformed left rows get their
// input's positions and errors output. Rows counted (Stats.Rows: the joined
// rows the chain took) and malformed rows counted (the left input's) are
// those of the other paths. Which jobs: plan.Job.LookupMorselable (no
// function call after the join: a failed call names the joined row's input
// rows, which only the job's goroutine's joinSource knows). EXPLAIN ANALYZE
// and a sink that cannot encode apart (a table) keep the parallel join
// inputs' path; a left file under two chunks is read sequentially.

// lookupMorselRuns counts the jobs the lookup morsel pipeline ran (for
// tests: which path a job took).
var lookupMorselRuns atomic.Int64

// lookupMorselOff keeps every job off the pipeline (tests compare it with
// its fallback, the parallel join inputs' path).
var lookupMorselOff bool

// lookupWorker is one worker of the lookup morsel pipeline, or the job's
// goroutine's own probe for the rows the merge decodes itself (chunks
// decoded again): its probe (op.Join.ProbeCopy), whose joined batches
// Emit pushes into its chain (a worker's, ending in its chunkSinkOp) or
// hands to feed (the job's own: process.batch).
type lookupWorker struct {
	probe *op.Join
	c     *chain
	step  *Step
	rows  int64 // joined rows pushed into c for the current chunk (Stats.Rows)
	feed  func(ctx context.Context, b *vector.Batch) error
}

// Emit implements op.Emitter: the probe's joined rows go on to the chain
// (a lookup join emits no late rows: its right side is never late, and its
// left rows have no event time here).
func (w *lookupWorker) Emit(ctx context.Context, port int, b *vector.Batch) error {
	if port != op.JoinOut || b.N == 0 {
		return nil
	}
	if w.feed != nil {
		return w.feed(ctx, b)
	}
	w.rows += int64(b.N)
	w.step.Errors.Rows = w.step.Errors.Rows[:0]
	w.step.SelectRows(b, 0, b.N)
	return w.c.head.Push(ctx, Port{}, w.step)
}

// EmitWatermark implements op.Emitter: the joined relation has no
// watermark of its own (joinSource.EmitWatermark).
func (w *lookupWorker) EmitWatermark(context.Context, int64) error { return nil }

// runLookupMorsel runs job, whose stream is a lookup join read by in's
// joinSource, on the lookup morsel pipeline when it can: sink encodes apart
// (ChunkSink), the job is not analyzed (EXPLAIN ANALYZE), the join's right
// side lays out as a table, and the left input can be cut into chunks. p is
// the job's own process: its chain takes the rows the merge decodes
// itself, and its counters what the workers' chains counted for each chunk
// used. It reports whether it ran the job (else the right side may have
// been read, and the job goes on by the joinSource's Next), and the job's
// error.
func runLookupMorsel(ctx context.Context, oc opContext, job *plan.Job, in opened, sink Sink, p *process) (bool, error) {
	js, ok := in.src.(*joinSource)
	cs, isChunk := sink.(ChunkSink)
	if !ok || !isChunk || lookupMorselOff || p.c.timed || js.an != nil || !js.both.Lookup {
		return false, nil
	}
	for !js.in[1].done { // the right side whole first (SPEC 2.7), as Next reads it
		if err := js.read(1); err != nil {
			if errors.Is(err, ErrWaiting) {
				if err := sink.Flush(); err != nil {
					return true, err
				}
				continue
			}
			return true, err
		}
	}
	jo, ok := js.j.(*op.Join)
	if !ok || len(js.queue) > 0 || jo.ProbeCopy(nil) == nil {
		return false, nil
	}
	left := js.in[0]
	chunk := oc.chunkSize
	if chunk <= 0 {
		chunk = joinChunkSize // (the parallel join inputs' cut: the same batches)
	}
	side := left.es.Side
	newOut := newMorselOut(cs, job)
	var ws []*lookupWorker
	var sinks []*chunkSinkOp
	newWorkers := func(n int) {
		ws, sinks = make([]*lookupWorker, n), make([]*chunkSinkOp, n)
		for i := range ws {
			sinks[i] = &chunkSinkOp{}
			w := &lookupWorker{step: newStep(side)}
			w.c = buildChain(job, nil, sinks[i], chainOpts{src: js, exprs: p.exprs})
			w.probe = jo.ProbeCopy(w)
			ws[i] = w
		}
	}
	policy := left.es.Policy
	work := func(i int, c *chunked.Chunk, o *morselOut) {
		o.reset()
		w := ws[i]
		w.c.zeroStats()
		sinks[i].cur = o.enc
		w.rows = 0
		for seen := 0; ; {
			b, bad, err := c.Next()
			if err != nil { // (the chunk's end, or a decoding error: the merge decodes it again)
				break
			}
			if len(bad) > 0 { // ('fail' never comes here: LookupMorselable)
				o.malformed += int64(len(bad))
				if policy != "skip" {
					// the places of the malformed rows, before the batch's
					// joined rows (as joinSource.read writes them)
					w.step.SelectRows(b, 0, 0)
					w.step.Errors.Rows = w.step.Errors.Rows[:0]
					for j := range bad {
						w.step.Errors.Rows = append(w.step.Errors.Rows, ErrorRow{}) // (its place only: badRow fills it)
						o.refs = append(o.refs, int32(seen+j))
					}
					if err := o.enc.Rows(w.step); err != nil {
						o.err = err
						break
					}
				}
				seen += len(bad)
			}
			if err := w.probe.Push(ctx, 0, b); err != nil {
				o.err = err
				break
			}
		}
		o.rows = w.rows
		o.ops, o.parts, o.outputs = w.c.copyStats(o.ops, o.parts, o.outputs)
	}
	cr := strategy.Pipeline(left.h.Parallel, left.in.Types, strategy.PipelineOptions{ChunkSize: chunk, NoText: true, PlainMarks: left.r.b.PlainMarks}, newOut, newWorkers, work)
	if cr == nil {
		return false, nil
	}
	left.parLater = false
	lookupMorselRuns.Add(1)
	defer cr.Close()
	// the rows the merge decodes itself: handled as joinSource.read handles
	// a left batch, probed on the job's goroutine into the job's chain
	own := &lookupWorker{feed: func(ctx context.Context, b *vector.Batch) error {
		if end, err := p.batch(ctx, b, nil, nil); end || err != nil {
			return errOr(err, errLookupEnded)
		}
		return nil
	}}
	own.probe = jo.ProbeCopy(own)
	feed := func(ctx context.Context, b *vector.Batch, bad []BadRow, err error) (bool, error) {
		if err != nil { // (io.EOF: the left input's end, and the job's)
			left.done = true
			return p.batch(ctx, nil, nil, err)
		}
		n := b.N
		if len(bad) > 0 {
			k := countBad(policy, len(bad))
			left.es.Malformed += k
			left.malformed += k
			left.errs = left.errs[:0]
			n, _ = handleBad(left.in.Stream, left.src, bad, b.N, policy, &left.errs)
			if len(left.errs) > 0 {
				if err := sink.Errors(left.es.Side, left.errs); err != nil {
					return true, err
				}
			}
		}
		b.N = n
		if err := own.probe.Push(ctx, 0, b); err != nil {
			if errors.Is(err, errLookupEnded) {
				err = nil
			}
			return true, err
		}
		return false, nil
	}
	return true, writeChunks(ctx, cr, feed, cs, p, left.in.Stream, left.src, left.es)
}

// errLookupEnded is what the job's own probe's emitter returns when the
// job ended on its rows (process.batch's end without an error: never for a
// job LookupMorselable takes, which has no LIMIT).
var errLookupEnded = errors.New("lookup morsel: the job ended")

// errOr returns err, or alt when err is nil.
func errOr(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}
