package executor

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"streamql/catalog"
	"streamql/executor/agg"
	"streamql/executor/chunked"
	"streamql/executor/vector"
	"streamql/executor/window"
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
// paggOp, in place of the aggregate operator). A worker adds each row to
// its windows as the sequential aggregate would with L(i) as the watermark
// (aggOp.add): a window whose end is at or before L(i) takes no more rows,
// and since the true watermark is at least L(i), that part is right for any
// W. What depends on W is only this: a row the worker added to a window w
// with w.end <= W would not be in w (w fired before the chunk), and a row all
// of whose windows end at or before W is late. Both happen only when the
// smallest end of the chunk's partial windows (aggOp.minEnd) is at or
// before W. The merge checks that; when it holds, the chunk is the worker's
// exactly: no row of it is late, and each partial window took the rows the
// sequential path would have added to it.
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
// with their places (paggOut.late), and the merge pushes them to their late
// outputs between the firings, in row order (pushLate: SPEC 4, the line
// formats interleave the outputs in row order on one stream).
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
// fires with the watermark max(W, L) (aggOperator.fireAll: in (window_end,
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

// paraggMaxMergeWork bounds the merge of one chunk: it walks the chunk's
// partial windows at each cut (a grid point of the windows' ends its
// watermark crossed), so a chunk of many cuts and many windows (windows far
// smaller than the time its rows span) is given back to the sequential path
// when cuts × partial windows passes it. After such chunks the rest of the
// file takes the sequential path (the rule of the chunks given back).
const paraggMaxMergeWork = 1 << 20

// paggOut is what a worker made of one chunk (chunked.Chunk.Out): its
// partial aggregates, one per aggregate of the job (aggOperator.ops' order),
// and where the merge must fire.
type paggOut struct {
	ops []*aggPartial
	// rowEnd is the job-wide arrival number of the chunk's last row
	// (paggOp.rowBase plus its rows): the merge moves aggOperator.row to it
	rowEnd int64
	rows   int64 // rows decoded (Stats.Rows)
	dirty  bool  // a malformed row, too many late rows: the merge decodes the chunk again
	err    error // the chain's error, or ctx's
	wm     int64 // the chunk's own watermark after its last row (L), when wmSet
	wmSet  bool
	// the cuts, in row order: L after the row (cutWm[j]) and each partial
	// aggregate's arrival number of that row (cutSeq[j·len(ops)+k])
	cutWm  []int64
	cutSeq []int64
	cutRow []int32 // per cut: the chunk's rows up to and including the one that moved the watermark there
	// the chunk's late rows (SPEC 2.4: all their windows ended at or before the
	// chunk's own watermark, or a NULL time), copied, in row order: their
	// number in the chunk and the aggregate (index in ops) that took each
	late    *vector.Batch
	lateRow []int32
	lateOp  []int32
	// the merge's batch of late rows (pushLate), reused, and the late rows
	// pushed so far; the output of each branch's part
	lateOut    Step
	latePushed int
	branchOut  []int
	lateParts  []Part
	lateSel    [][]int32
	// what the worker's chain counted for this chunk (EXPLAIN ANALYZE), added
	// to the job's chain when the chunk is used
	stats          []OpStats
	parts, outputs []int64
	moved          [][]int // merge's scratch: per aggregate, per partial window, its groups moved
}

// paggOp is the partial aggregate of a worker's chain, in place of the
// aggregate operator (aggOperator): it adds the rows each aggregating branch
// took to the current chunk's partial aggregates with the chunk's own
// watermark, keeps the late rows, and records the cuts.
type paggOp struct {
	cur  *paggOut
	at   []int      // the router part of each aggregate
	grid [][2]int64 // per aggregate: the step and offset of its window ends
	next []int64    // per aggregate: its grid's first point after wm
	// minNext is the least of next: a move below it reaches no grid point
	// (crosses' answer without its loop), once wmSet
	minNext int64
	wmCol   int
	pos     []int     // per aggregate: its taken rows before the current mark
	seq0    []int64   // per aggregate: its arrival number before the batch
	taken   [][]int32 // per aggregate: the rows it took
	wmSet   bool      // the chunk has a watermark (L) so far
	base    int32     // the chunk's rows before the batch
	// rowBase is the job-wide arrival number before the chunk's first row
	// (chunk k: k<<32; aggOp.rowAt, aggGroup.firstAt)
	rowBase int64
	lates   []int64 // the batch's late rows: row<<8 | aggregate, sorted before they are kept
	out     Step
	parts   []Part
	down    *Emitter
}

// ReadsMarks implements MarkReader: cuts are where the watermark moved.
func (*paggOp) ReadsMarks() {}

// Push implements Operator: r is the router's batch. A partial fires
// nothing, so each aggregate takes its rows apart from the others', and the
// cuts are found after them: an aggregate's arrival number after row i is
// the one before the batch plus its rows up to i.
func (po *paggOp) Push(ctx context.Context, port Port, r *Step) error {
	o := po.cur
	if o.dirty {
		return nil
	}
	b := r.In
	var wm *vector.Vec
	if po.wmCol >= 0 {
		wm = b.Cols[po.wmCol]
	}
	for k, a := range o.ops {
		taken := r.Parts[po.at[k]].Sel
		po.taken[k], po.pos[k], po.seq0[k] = taken, 0, a.seq
		a.rowsIn += int64(len(taken))
		a.prepare(b, taken)
		for x := 0; x < len(taken); x++ {
			if n := a.tumbleRun(b, taken[x:], wm); n > 0 {
				if x += n; x == len(taken) {
					break
				}
			}
			i := taken[x]
			cw, cwSet := int64(0), false
			if wm != nil {
				cw, cwSet = wm.I[i], !wm.Null[i]
			}
			a.rowAt = po.rowBase + int64(po.base) + int64(i) + 1
			late, err := a.add(b, int(i), cw, cwSet)
			if err == errWindowRange {
				o.dirty = true // a malformed row: the sequential path makes it one
				return nil
			}
			if err != nil {
				return err
			}
			if late {
				po.lates = append(po.lates, int64(i)<<8|int64(k))
			}
		}
		a.addBatch()
	}
	if len(po.lates) > 0 {
		if o.late.N+len(po.lates) > vector.Cap {
			o.dirty = true // more late rows than a batch holds: the sequential path writes them
			return nil
		}
		slices.Sort(po.lates) // (a row goes to one aggregate: row order)
		for _, x := range po.lates {
			i, k := int(x>>8), int(x&0xff)
			o.late.AppendRows(b, i, i+1)
			o.lateRow, o.lateOp = append(o.lateRow, po.base+int32(i)), append(o.lateOp, int32(k))
		}
		po.lates = po.lates[:0]
	}
	for _, m := range r.Marks {
		if po.wmSet && m.Value < po.minNext {
			continue // (crosses is false)
		}
		if po.crosses(m.Value) {
			o.cutWm, o.cutRow = append(o.cutWm, m.Value), append(o.cutRow, po.base+int32(m.At)-1)
			for k, taken := range po.taken {
				for po.pos[k] < len(taken) && int(taken[po.pos[k]]) < m.At {
					po.pos[k]++
				}
				o.cutSeq = append(o.cutSeq, po.seq0[k]+int64(po.pos[k]))
			}
		}
		po.wmSet = true
	}
	po.base += int32(r.N)
	o.rowEnd = po.rowBase + int64(po.base)
	// On, as the aggregate pushes it: the aggregates' rows are not output rows.
	po.out = *r
	po.parts = append(po.parts[:0], r.Parts...)
	for k := range o.ops {
		po.parts[po.at[k]].Sel = nil
	}
	po.out.Parts = po.parts
	return po.down.Push(ctx, port, &po.out)
}

// crosses reports whether the chunk's watermark moving to v may fire a
// window: it was unset, or it reached a point of some aggregate's grid past
// the last one (po.next, the grid's next point after the watermark, which
// crosses keeps: one comparison per move).
func (po *paggOp) crosses(v int64) bool {
	hit := !po.wmSet
	po.minNext = math.MaxInt64
	for k, g := range po.grid {
		if hit || v >= po.next[k] {
			hit = true
			po.next[k] = nextPoint(v, g[0], g[1])
		}
		po.minNext = min(po.minNext, po.next[k])
	}
	return hit
}

// nextPoint returns the first point offset + n·step (step > 0) after v, or
// v + 1 when that is not an int64 (far from any time: every move then cuts).
func nextPoint(v, step, offset int64) int64 {
	if v > math.MaxInt64/2 || v < math.MinInt64/2 || offset > math.MaxInt64/4 || offset < math.MinInt64/4 || step > math.MaxInt64/4 {
		if v == math.MaxInt64 {
			return v
		}
		return v + 1
	}
	return offset + (window.FloorDiv(v-offset, step)+1)*step
}

// Watermark implements Operator: the chunk's events pass on.
func (po *paggOp) Watermark(ctx context.Context, wm Watermark) error {
	return po.down.Watermark(ctx, wm)
}

// Finish implements Operator: a chunk's end is no stream's end (unused).
func (po *paggOp) Finish(ctx context.Context) error { return nil }

// gridOf returns the step and offset of the grid that every window end of
// w lies on.
func gridOf(w *plan.Window) [2]int64 {
	step := w.Size
	if window.KindOf(w.Func) != window.Tumble {
		step = gcd(w.Size, w.Slide)
	}
	return [2]int64{max(step, 1), w.Offset}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// paggWorker is one worker's chain.
type paggWorker struct {
	c  *chain
	op *paggOp
	in *Step
}

// newPaggOut returns the memory of one chunk in flight: a partial of each of
// ao's aggregates (charged to free, a budget without limit: the job's
// aggregate is charged when they are merged), for a job of nb branches and no
// outputs.
func newPaggOut(ao *aggOperator, nb, no int, free *StateBudget) *paggOut {
	o := &paggOut{parts: make([]int64, 0, nb), outputs: make([]int64, 0, no), stats: make([]OpStats, 0, 8),
		late: vector.NewBatch(ao.job.BatchTypes)}
	for _, v := range o.late.Cols {
		if v.Type == catalog.Varchar {
			v.Arena = make([]byte, 0, arenaSize)
		}
	}
	for range ao.lateSel {
		o.lateSel = append(o.lateSel, make([]int32, 0, vector.Cap))
	}
	for _, br := range ao.job.AllBranches() {
		o.branchOut = append(o.branchOut, br.Output)
	}
	for _, g := range ao.ops {
		o.ops = append(o.ops, newAggPartial(g.br, free))
	}
	return o
}

// newPaggWorker returns a worker's chain for job (reading src), with the
// partial aggregate in place of ao, its operators timed when timed
// (chainOpts.timed).
func newPaggWorker(job *plan.Job, ao *aggOperator, src Source, timed bool) *paggWorker {
	w := &paggWorker{in: newStep(job.Stream.Shared().ErrorsSide)}
	opts := chainOpts{src: src, timed: timed, afterRouter: []func(down *Emitter) (Operator, string){
		func(down *Emitter) (Operator, string) {
			w.op = &paggOp{at: ao.at, wmCol: job.WatermarkCol, down: down, pos: make([]int, len(ao.ops)), seq0: make([]int64, len(ao.ops)), taken: make([][]int32, len(ao.ops))}
			for _, g := range ao.ops {
				w.op.grid = append(w.op.grid, gridOf(g.a.Window))
				w.op.next = append(w.op.next, 0)
			}
			return w.op, "aggregate"
		},
	}}
	w.c = buildChain(job, nil, discard{}, opts)
	return w
}

// runParagg runs job on the parallel window aggregate when it can
// (the plan's strategy is plan.ParallelAggregate, and src can be cut: parallelSource), with p the job's own
// process: its aggregate (p.agg) gets the merged partials and fires, its
// chain decodes and routes the chunks given back (Redo). It reports whether
// it ran the job, and the job's error (as run: a *RowError for
// 'errors'='fail', a *StateLimitError, a read error, ctx's).
func runParagg(ctx context.Context, oc opContext, job *plan.Job, src Source, p *process) (bool, error) {
	if job.Strategy != plan.ParallelAggregate || p.agg == nil || p.rep != nil {
		return false, nil
	}
	budget := p.agg.ops[0].acct.Budget() // the job's
	ps, ok := src.(parallelSource)
	if !ok {
		return false, nil
	}
	ao := p.agg
	n := runtime.GOMAXPROCS(0)
	size := oc.chunkSize
	if size <= 0 {
		size = chunked.DefaultChunkSize
	}
	// Every chunk in flight gets its partial aggregates here, all of them made
	// now (their memory is reused from chunk to chunk).
	nb, no := len(job.AllBranches()), len(job.Outputs)
	free := NewStateBudget(0) // the partials are charged when merged
	pool := make(chan *paggOut, chunked.InFlight(n, true))
	for range cap(pool) {
		pool <- newPaggOut(ao, nb, no, free)
	}
	ws := make([]*paggWorker, n)
	for i := range ws {
		ws[i] = newPaggWorker(job, ao, src, p.c.timed)
	}
	work := func(i int, c *chunked.Chunk) {
		o, _ := c.Out.(*paggOut)
		if o == nil {
			o = <-pool
			c.Out = o
		}
		w := ws[i]
		w.c.zeroStats()
		w.chunk(ctx, c, o)
		o.stats, o.parts, o.outputs = w.c.copyStats(o.stats, o.parts, o.outputs)
	}
	cr := ps.Parallel(job.BatchTypes, n, chunked.Options{ChunkSize: size, Work: work, NoText: true})
	if cr == nil {
		return false, nil
	}
	paraggRuns.Add(1)
	defer cr.Close()
	var used, redone int64 // chunks merged as the workers made them, and given back
	for {
		c, _, end, err := p.nextChunk(ctx, cr) // (morsel.go)
		if end {
			return true, err
		}
		o := c.Out.(*paggOut)
		if o.err != nil {
			return true, o.err
		}
		base := c.Index << 32
		if near := o.nearLimit(budget); near || !o.usable(p.c.assign.wm, p.c.assign.set) {
			// (its partials are dropped when a worker starts the next chunk in o: paggWorker.start)
			for _, g := range ao.ops {
				g.seq = max(g.seq, base)
			}
			ao.row = max(ao.row, base) // (the chunk's rows follow the chunks before it)
			paraggChunksRedone.Add(1)
			redone++
			// The rest of the file takes the sequential path too once the
			// state nears 'state.max-bytes', or when most chunks come back
			// (the workers' decoding would only take CPU time from it).
			cr.Redo(near || redone > 8 && redone > used)
			continue
		}
		if err := o.merge(ctx, ao, p.c.assign.wm, p.c.assign.set); err != nil {
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
			o.dirty = true // the errors policy and the positions: the sequential path
			break
		}
		in.SelectRows(b, 0, b.N)
		if err := w.c.head.Push(ctx, Port{}, in); err != nil {
			o.err = err
			break
		}
		if o.dirty {
			break
		}
	}
	o.wm, o.wmSet = w.c.assign.wm, w.c.assign.set
}

// start makes w aggregate chunk k into o.
func (w *paggWorker) start(k int64, o *paggOut) {
	o.rows, o.dirty, o.err = 0, false, nil
	o.cutWm, o.cutSeq, o.cutRow = o.cutWm[:0], o.cutSeq[:0], o.cutRow[:0]
	o.late.Reset()
	o.lateRow, o.lateOp = o.lateRow[:0], o.lateOp[:0]
	w.op.base, w.op.lates = 0, w.op.lates[:0]
	w.op.rowBase = k << 32
	for _, a := range o.ops {
		// (o may hold the partials of a chunk the reader dropped unmerged:
		// its guessed start was inside a quoted field)
		a.resetPartial()
		a.seq = k << 32
	}
	w.op.cur = o
	w.op.wmSet = false
	w.c.assign.wm, w.c.assign.set = 0, false // the chunk's own watermark (L), from unset
}

// usable reports whether the merge may use o as the worker made it, with the
// job's watermark wm (set) after the chunks before it: no row of it was late
// or malformed, no partial window ends at or before wm (see the doc
// above), and its merge is not too long (paraggMaxMergeWork).
func (o *paggOut) usable(wm int64, set bool) bool {
	if o.dirty {
		return false
	}
	windows := 0
	for _, a := range o.ops {
		if set && a.minEnd <= wm {
			return false
		}
		windows += len(a.open)
	}
	return int64(len(o.cutWm))*int64(windows) <= paraggMaxMergeWork
}

// nearLimit reports whether the job's state (charged to b, the job's
// budget), with o's partials merged, could pass half of 'state.max-bytes':
// from there on the job's rows take the sequential path (see
// 'state.max-bytes' above).
func (o *paggOut) nearLimit(b *StateBudget) bool {
	var bytes int64
	for _, a := range o.ops {
		bytes += a.bytes
	}
	return b.Max() > 0 && b.Used()+bytes > b.Max()/2
}

// merge moves o's partial aggregates into ao's, cut by cut, firing at each
// cut with the watermark max(wm, the cut's), as the sequential path fires
// after that row.
func (o *paggOut) merge(ctx context.Context, ao *aggOperator, wm int64, set bool) error {
	for len(o.moved) < len(o.ops) {
		o.moved = append(o.moved, nil)
	}
	for k, x := range o.ops {
		m := o.moved[k][:0]
		for range x.open {
			m = append(m, 0)
		}
		o.moved[k] = m
	}
	nops := len(o.ops)
	o.latePushed = 0
	for j := 0; j <= len(o.cutWm); j++ {
		for k, x := range o.ops {
			lim := int64(math.MaxInt64)
			if j < len(o.cutWm) {
				lim = o.cutSeq[j*nops+k]
			}
			if err := ao.ops[k].mergeFrom(x, lim, o.moved[k]); err != nil {
				return err
			}
		}
		if j < len(o.cutWm) {
			if err := o.pushLate(ctx, ao, o.cutRow[j]); err != nil {
				return err
			}
			v := o.cutWm[j]
			if set && wm > v {
				v = wm
			}
			if err := ao.fireAll(ctx, Port{}, v, false); err != nil {
				return err
			}
		}
	}
	if err := o.pushLate(ctx, ao, math.MaxInt32); err != nil {
		return err
	}
	ao.row = max(ao.row, o.rowEnd) // (firstAt of the chunk's groups; the next chunk's rows come after)
	for k, x := range o.ops {
		ao.ops[k].seq = max(ao.ops[k].seq, x.seq)
		ao.ops[k].rowsIn += x.rowsIn // (x is reset when a worker starts the next chunk in o)
	}
	return nil
}

// pushLate pushes the chunk's late rows not pushed yet up to the chunk's row
// upTo (included) through ao's downstream, to their late outputs, as the
// aggregate routes them (SPEC 2.4, and SPEC 4: in row order between the other
// outputs' rows).
func (o *paggOut) pushLate(ctx context.Context, ao *aggOperator, upTo int32) error {
	from, to := o.latePushed, o.latePushed
	for to < len(o.lateRow) && o.lateRow[to] <= upTo {
		to++
	}
	if to == from {
		return nil
	}
	for k := range o.lateSel {
		o.lateSel[k] = o.lateSel[k][:0]
	}
	for i := from; i < to; i++ {
		a := ao.ops[o.lateOp[i]]
		o.lateSel[a.lateIdx] = append(o.lateSel[a.lateIdx], int32(i))
	}
	o.lateParts = o.lateParts[:0]
	for _, out := range o.branchOut { // the branches' parts: no rows (their rows are the aggregates')
		o.lateParts = append(o.lateParts, Part{Output: out})
	}
	for _, a := range ao.ops {
		if a.lateIdx >= 0 {
			o.lateParts = append(o.lateParts, Part{Output: a.a.LateOutput, Sel: o.lateSel[a.lateIdx], Cols: o.late.Cols[:ao.ncols]})
		}
	}
	o.lateOut = Step{N: to, Parts: o.lateParts, In: o.late, Errors: ErrorPort{Name: ao.out.Errors.Name}}
	o.latePushed = to
	return ao.down.Push(ctx, Port{}, &o.lateOut)
}

// mergeFrom moves into o the groups of the partial aggregate x whose first
// row is at or before lim (an arrival number) and that were not moved yet
// (moved: per window of x, in x.open's order, its groups moved so far), in
// x's window order and, within a window, in first-row order. A group o
// already has gets x's accumulators merged in (agg.State.Merge: exact); a new
// one takes them over. The state is charged as it grows ('state.max-bytes').
func (o *aggOp) mergeFrom(x *aggPartial, lim int64, moved []int) error {
	for wi, pws := range x.open {
		c, gs := moved[wi], pws.groups
		if c >= len(gs) || gs[c].first > lim {
			continue
		}
		ws := o.byWin[pws.win]
		if ws == nil {
			ws = o.openWindow(pws.win, "")
			o.byWin[pws.win] = ws
		}
		for ; c < len(gs) && gs[c].first <= lim; c++ {
			pg := gs[c]
			if h := o.lookup(ws, pg.hash, pg.keyb); h != nil {
				var grew int64
				for s := range h.states {
					before := h.states[s].Bytes()
					h.states[s].Merge(&o.a.Calls[s].Spec, &pg.states[s])
					grew += h.states[s].Bytes() - before
				}
				if err := o.grow(grew); err != nil {
					return err
				}
				continue
			}
			o.keyBuf = append(o.keyBuf[:0], pg.keyb...)
			h := o.newGroup(pg.hash)
			h.first, h.firstAt = pg.first, pg.firstAt
			h.vals, pg.vals = pg.vals, h.vals
			h.states, pg.states = pg.states, h.states
			o.insert(ws, h)
			n := o.groupBytes(len(h.key))
			for s := range h.states {
				n += h.states[s].Bytes()
			}
			if err := o.grow(n); err != nil {
				return err
			}
		}
		moved[wi] = c
	}
	return nil
}

// aggPartial is a partial of the parallel aggregate: the aggregate of a
// branch over one chunk's rows (charged to a budget without limit), whose
// rows are added to their groups' accumulators per batch (addBatch), and
// which the job's aggregate merges (aggOp.mergeFrom) instead of firing.
type aggPartial struct {
	*aggOp
	pend pending
}

// pending is what a partial's batch adds (aggOp.addTo, tumbleRun): each row's
// group's accumulators, its row in the batch and its arrival number.
type pending struct {
	states [][]agg.State
	rows   []int32
	seqs   []int64
}

// newAggPartial returns an empty partial of branch br's aggregate, charged
// to budget.
func newAggPartial(br *plan.Branch, budget *StateBudget) *aggPartial {
	x := &aggPartial{aggOp: buildAggOp(br, budget)}
	x.pend = pending{states: make([][]agg.State, 0, vector.Cap), rows: make([]int32, 0, vector.Cap), seqs: make([]int64, 0, vector.Cap)}
	x.aggOp.pend = &x.pend
	return x
}

// addBatch adds the rows addTo kept (pend) to their groups' accumulators,
// call by call (agg.AddBatch: one path for all the rows).
func (x *aggPartial) addBatch() {
	p := &x.pend
	if len(p.rows) == 0 {
		return
	}
	var grew int64
	for c, op := range x.callOps {
		grew += agg.AddBatch(op, &x.a.Calls[c].Spec, x.args[c], c, p.states, p.rows, p.seqs)
	}
	clear(p.states) // (the groups' states stay theirs)
	p.states, p.rows, p.seqs = p.states[:0], p.rows[:0], p.seqs[:0]
	x.grow(grew) // the partials' budget has no limit
}

// resetPartial empties the partial for the next chunk, keeping its memory.
func (x *aggPartial) resetPartial() {
	o := x.aggOp
	o.release(o.open)
	clear(o.open)
	o.open = o.open[:0]
	clear(o.byWin)
	o.minEnd = math.MaxInt64
	o.acct.Grow(-o.bytes)
	o.bytes, o.rowsIn = 0, 0
	p := &x.pend
	clear(p.states)
	p.states, p.rows, p.seqs = p.states[:0], p.rows[:0], p.seqs[:0]
}
