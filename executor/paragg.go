package executor

import (
	"context"
	"streamql/executor/expr"
	"sync/atomic"

	"streamql/executor/aggregate"
	"streamql/executor/chunked"
	"streamql/executor/strategy"
	"streamql/planner/plan"
)

// The parallel window aggregate (issue 11 item 7; in the spirit of the
// morsel pipeline, morsel.go): for a job whose every branch is a TUMBLE,
// HOP or CUMULATE aggregate over a bounded csv or json file, the workers
// decode the file's chunks (executor/chunked) and aggregate each chunk into
// partial aggregates per (window, group), and the job's goroutine merges them
// in file order (agg.State.Merge is exact: SPEC 2.4's DOUBLE sums are
// exact partial sums, BIGINT sums 128-bit, MIN/MAX a total order, FIRST/LAST
// and LISTAGG ordered by the rows' arrival numbers) and fires the windows.
//
// # What a worker knows, and what it does not
//
// SPEC 2.3: the watermark before a row is the maximum of the WATERMARK
// expression over every row before it. Before row i of chunk k it is
// max(W, L(i)), where W is the watermark after the chunks before k (the
// merge knows it, the worker does not) and L(i) the maximum over the
// chunk's own rows before i (the worker's own watermark assigner, started
// unset for each chunk: its chain is the job's, with the partial aggregate,
// aggregate.Partial, in place of the aggregate operator). A worker adds each row
// to its windows as the sequential aggregate would with L(i) as the watermark
// (executor/aggregate's aggOp.add): a window whose end is at or before L(i)
// takes no more rows, and since the true watermark is at least L(i), that part
// is right for any W. What depends on W is only this: a row the worker added to
// a window w with w.end <= W would not be in w (w fired before the chunk), and a
// row all of whose windows end at or before W is late. Both happen only when the
// smallest end of the chunk's partial windows (aggOp.minEnd) is at or before W.
// The merge checks that; when it holds, the chunk is the worker's exactly: no
// row of it is late, and each partial window took the rows the sequential path
// would have added to it.
//
// A chunk is given up, and decoded and aggregated again by the job's
// goroutine with the job's own chain (chunked.Reader.Redo, the sequential
// path for that chunk alone, with the job's watermark at W: the quote-resync
// fallback of the morsel pipeline is the model; once more than 8 chunks and
// most of them came back, the rest of the file), when the check fails, when
// it has a malformed row (the errors policy, positions, 'fail', SPEC 1; a
// NULL event time is one with a WATERMARK), or more late rows than a batch
// holds. On the sensor file of the benchmark (rows nearly in time order, 5
// s of delay in the watermark) none is.
//
// Late rows (SPEC 2.4: all their windows ended at or before the chunk's own
// watermark, which the true one is at least, so they are late on the
// sequential path too) are copied by the worker into the chunk's late batch
// with their places (aggregate.ChunkAgg's late rows), and the merge pushes them
// to their late outputs between the firings, in row order (pushLate: SPEC 4, the
// line formats interleave the outputs in row order on one stream).
//
// 'state.max-bytes' (SPEC 1): the job's aggregate is charged as groups are
// merged into it, not row by row, and a merged accumulator's memory is not
// the one the rows' adds would have grown (LISTAGG's text, a distinct set),
// so near the limit the two paths could fail at different rows, or one of
// them not at all. So a job whose session lowered the limit below its
// default keeps the sequential path, and once the state with a chunk's
// partials merged could pass half the limit, that chunk and every later one
// take the sequential path: the parallel path never charges past half the
// limit, where the sequential path's charge for the same windows and groups
// (the same groups, each at its fixed cost, which dominates, plus its
// accumulators' memory) is under the limit too. What stays different is the
// bytes the open windows merged before that point were charged: a job that
// then passes the limit fails on the sequential path, with the same error,
// whose held bytes (and so its row) can differ from a run on one CPU by the
// difference of the two charges (a few per cent: measured with limits of a
// few KiB in the differential test before this rule). With the default 2
// GiB that is a job with a GiB of open windows.
//
// # Firing
//
// SPEC 2.4: a window fires when the watermark reaches its end, right after
// the row that moved it. Every window end is on a grid: offset + n·g, with g
// the size for TUMBLE and the slide (or step) for HOP (CUMULATE; the gcd
// with the size, to be safe). So the watermark can fire a window after row i
// only when L moved past a point of the grid there (or was set there for the
// first time: W is not known to the worker). The worker records those
// points, cuts, with L after the row and each partial aggregate's arrival
// number of that row (aggOp.seq). The merge then, for each cut in order,
// moves into the job's aggregate the partial groups whose first row is at or
// before the cut (in the partial windows' order and, within each, in
// first-row order, which is the order the sequential path made them in) and
// fires with the watermark max(W, L) (aggregate.Operator.fireAll: in (window_end,
// window_start, first row) order, through the job's LIMIT, projections and
// sink), then the rest of the groups after the last cut. A window that fires
// at a cut took no row after it (L had passed its end), so its accumulators
// are complete when it fires; groups made after the cut are moved after the
// firing, so the job's aggregate holds, at each firing, the windows and
// groups the sequential path holds there: EXPLAIN ANALYZE's most open windows
// and groups are the same (SPEC 3), and so are the rows in and out of every
// operator (the workers' chains count the input rows, the job's chain the
// fired rows). Only the number of batches and watermark events an operator
// saw differs, as it does between the other paths (batches follow chunks).
//
// Arrival numbers: the partial aggregate of chunk k numbers its rows from
// k·2³², the job's aggregate goes on from the largest number it has seen (a
// chunk decoded again starts at k·2³² too), so the numbers increase in file
// order, which is all that the first-row order, FIRST_VALUE, LAST_VALUE and
// LISTAGG read.
//
// # Which jobs (plan.Job.ParallelAggregatable, planner.ChooseStrategy)
//
// A bounded file that can be cut (parallelSource), read when the process
// may use 2 CPUs or more, by a job whose side branches and main query all
// aggregate a TUMBLE, HOP or CUMULATE window with GROUP BY (or a global
// aggregate per window), with no join, no LIMIT, and no expression that
// reads CURRENT_WATERMARK (its value per row needs W). Any sink: the merge
// writes through the job's own chain. SESSION windows (a session's extent
// depends on every row of its key before it), window TVFs without
// aggregation, GROUP BY without a window, and every other job keep the
// paths they had.
//
// Memory stays bounded: chunked.InFlight(N, true) chunks in flight, each
// with one batch and its partial aggregates (the windows and groups of one
// chunk), reused from chunk to chunk: nothing is allocated per row.
//
// Measured on the 2-core machine: README's performance section.
//
// # What to expect on more CPUs
//
// Per row, the workers do all of the work: decoding (about 43 CPU-ns a row of
// the benchmark's sensor rows on a quiet core), the chunk's watermark,
// routing and the partial aggregate (about 25-30; BenchmarkPartialAggregate).
// The job's goroutine does per chunk what the chunk's windows × groups ask
// (some 20 groups for a 256 KiB chunk of the benchmark: a few microseconds
// against some 0.7 ms of the workers' time for the chunk), plus the fired
// rows' projection and writing, which are few (a window's groups, not its
// rows). So the job scales with the workers, N CPUs about N times one core,
// until the memory bandwidth (each input byte is read once into a worker's
// buffer and decoded while it is in the core's caches; the batches stay in
// them) or the chunks given back bound it: those are decoded and aggregated
// again on the job's goroutine alone, and a file with a malformed row in
// most chunks (one every few thousand rows: a 256 KiB chunk holds some 9,700
// sensor rows), or with rows so far out of order that a chunk's first rows
// are late only against the chunks before it, runs at about the sequential
// path's speed (after 8 such chunks, the rest of the file takes it).

// paraggRuns counts the jobs the parallel window aggregate ran (for tests:
// which path a job took).
var paraggRuns atomic.Int64

// paraggChunksUsed and paraggChunksRedone count the chunks the parallel
// window aggregate merged as the workers made them, and those it gave back
// to the sequential path (for tests).
var paraggChunksUsed, paraggChunksRedone atomic.Int64

// paggOut is what a worker made of one chunk (chunked.Chunk.Out): its
// partial aggregates (aggregate.ChunkAgg), with what the worker read and
// counted.
type paggOut struct {
	agg   *aggregate.ChunkAgg
	rows  int64 // rows decoded (Stats.Rows)
	err   error // the chain's error, or ctx's
	wm    int64 // the chunk's own watermark after its last row (L), when wmSet
	wmSet bool
	// what the worker's chain counted for this chunk (EXPLAIN ANALYZE), added
	// to the job's chain when the chunk is used
	stats          []OpStats
	parts, outputs []int64
}

// paggWorker is one worker's chain.
type paggWorker struct {
	c  *chain
	op *aggregate.Partial
	in *Step
}

// newPaggOut returns the memory of one chunk in flight: a partial of each of
// ao's aggregates (charged to free, a budget without limit: the job's
// aggregate is charged when they are merged), for a job of nb branches and no
// outputs.
func newPaggOut(ao *aggregate.Operator, nb, no int, free *StateBudget) *paggOut {
	return &paggOut{agg: aggregate.NewChunkAgg(ao, free), parts: make([]int64, 0, nb), outputs: make([]int64, 0, no), stats: make([]OpStats, 0, 8)}
}

// newPaggWorker returns a worker's chain for job (reading in), with the
// partial aggregate in place of ao, its operators timed when timed
// (chainOpts.timed), its expressions compiled in the job's expression
// context exprs.
func newPaggWorker(job *plan.Job, ao *aggregate.Operator, in opened, timed bool, exprs *expr.Context) *paggWorker {
	w := &paggWorker{in: newStep(job.ErrorsConfig().ErrorsSide)}
	opts := chainOpts{src: in.src, parts: in.h.Partitions, timed: timed, exprs: exprs, afterRouter: []func(down *Emitter) (Operator, string){
		func(down *Emitter) (Operator, string) {
			w.op = aggregate.NewPartial(ao, job.WatermarkCol, down)
			return w.op, "aggregate"
		},
	}}
	w.c = buildChain(job, nil, discard{}, opts)
	return w
}

// runParagg runs job on the parallel window aggregate when it can
// (the plan's strategy is plan.ParallelAggregate, and in's stream declares
// parallel decoding, SourceHandles.Parallel, which can cut this input), with p the job's own process: its aggregate (p.agg) gets the
// merged partials and fires, its chain decodes and routes the chunks given back
// (Redo). It reports whether it ran the job, and the job's error (as run: a
// *RowError for 'errors'='fail', a *StateLimitError, a read error, ctx's).
func runParagg(ctx context.Context, oc opContext, job *plan.Job, in opened, p *process) (bool, error) {
	if job.Strategy != plan.ParallelAggregate || p.agg == nil || p.rep != nil {
		return false, nil
	}
	budget := p.agg.Budget() // the job's
	ao := p.agg
	// Every chunk in flight gets its partial aggregates here, all of them made
	// now (their memory is reused from chunk to chunk: strategy.Pipeline).
	nb, no := len(job.AllBranches()), len(job.Outputs)
	free := NewStateBudget(0) // the partials are charged when merged
	newOut := func(int) (*paggOut, bool) { return newPaggOut(ao, nb, no, free), true }
	var ws []*paggWorker
	newWorkers := func(n int) {
		ws = make([]*paggWorker, n)
		for i := range ws {
			ws[i] = newPaggWorker(job, ao, in, p.c.timed, p.exprs)
		}
	}
	work := func(i int, c *chunked.Chunk, o *paggOut) {
		w := ws[i]
		w.c.zeroStats()
		w.chunk(ctx, c, o)
		o.stats, o.parts, o.outputs = w.c.copyStats(o.stats, o.parts, o.outputs)
	}
	cr := strategy.Pipeline(in.h.Parallel, job.BatchTypes, strategy.PipelineOptions{ChunkSize: oc.chunkSize, NoText: true}, newOut, newWorkers, work)
	if cr == nil {
		return false, nil
	}
	paraggRuns.Add(1)
	defer cr.Close()
	var used, redone int64 // chunks merged as the workers made them, and given back
	feed := p.batch
	for {
		c, _, end, err := strategy.NextChunk(ctx, cr, feed)
		if end {
			return true, err
		}
		o := c.Out.(*paggOut)
		if o.err != nil {
			return true, p.callFailed(o.err)
		}
		if near := o.agg.NearLimit(budget); near || !o.agg.Usable(p.c.assign.wm, p.c.assign.set) {
			// (its partials are dropped when a worker starts the next chunk in
			// o: paggWorker.start)
			ao.Redo(c.Index) // (the chunk's rows follow the chunks before it)
			paraggChunksRedone.Add(1)
			redone++
			// The rest of the file takes the sequential path too once the
			// state nears 'state.max-bytes', or when most chunks come back
			// (the workers' decoding would only take CPU time from it).
			cr.Redo(near || redone > 8 && redone > used)
			continue
		}
		if err := o.agg.Merge(ctx, ao, p.c.assign.wm, p.c.assign.set); err != nil {
			return true, err
		}
		if o.wmSet && (!p.c.assign.set || o.wm > p.c.assign.wm) {
			p.c.assign.wm, p.c.assign.set = o.wm, true
			p.c.assign.live.store(o.wm, true)
		}
		*p.rows += o.rows
		p.c.addStats(o.stats, o.parts, o.outputs)
		paraggChunksUsed.Add(1)
		used++
	}
}

// chunk decodes, routes and aggregates chunk c into o with w's chain, batch
// by batch, until its end, a malformed row or a late one (o.dirty), or an
// error (o.err). A decoding error ends it: the merge decodes the chunk
// again.
func (w *paggWorker) chunk(ctx context.Context, c *chunked.Chunk, o *paggOut) {
	w.start(c.Index, o)
	in := w.in
	for {
		b, bad, err := c.Next()
		if err != nil {
			break
		}
		o.rows += int64(b.N + len(bad))
		if len(bad) > 0 {
			o.agg.SetDirty() // the errors policy and the positions: the sequential path
			break
		}
		in.SelectRows(b, 0, b.N)
		if err := w.c.head.Push(ctx, Port{}, in); err != nil {
			o.err = err
			break
		}
		if m := w.c.assign.max; m != nil && len(m.rej) > 0 {
			o.agg.SetDirty() // (a row the watermark assigner refused is malformed: as above)
		}
		if o.agg.Dirty() {
			break
		}
	}
	o.wm, o.wmSet = w.c.assign.wm, w.c.assign.set
}

// start makes w aggregate chunk k into o.
func (w *paggWorker) start(k int64, o *paggOut) {
	o.rows, o.err = 0, nil
	w.op.Start(k, o.agg)
	w.c.assign.wm, w.c.assign.set = 0, false // the chunk's own watermark (L), from unset
}
