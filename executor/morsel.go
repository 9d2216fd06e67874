package executor

import (
	"context"
	"sync/atomic"

	"streamql/catalog"
	"streamql/executor/chunked"
	"streamql/executor/records"
	"streamql/executor/strategy"
	"streamql/planner/plan"
)

// The morsel pipeline (issue 15 item 3; the design of DuckDB's and HyPer's
// morsel-driven parallelism): for a job whose operators keep no state from
// row to row, over a bounded file, every CPU does the whole per-row work.
//
// The file is cut into chunks (executor/chunked: 256 KiB, found and decoded
// by the workers, checked in file order by the merge). Each of N workers
// (N = GOMAXPROCS) takes a chunk, decodes it, pushes its batches into its
// own copy of the job's chain (buildChain: watermark assigner, router with
// its own join mark operators over the shared, fully built build sides, LIMIT,
// project), and its sink, a chunkSinkOp, has the job's ChunkSink encode the
// routed batches into the chunk's own EncodedChunk (kept with the chunk's
// memory, reused). The job's goroutine is the writer: it takes the chunks in
// file order (chunked.Reader.NextChunk), adds their counts, applies the
// errors policy's counts and failure, and has the sink write each chunk's
// buffers to the outputs (WriteChunk: a copy of bytes per output; the
// malformed rows and csv's per-output headers are written there, at their
// places, since only the writer knows the line base and which headers are
// out). Rows of a chunk the merge decodes again (its guessed start was
// inside a quoted field) are routed and written on the job's goroutine by
// the job's own chain, in their place. So the outputs, their order (SPEC 4:
// the line formats interleave outputs in row order on one stream; each side
// file in order), the malformed rows and their positions (SPEC 1) are those
// of the sequential path; EXPLAIN ANALYZE's operator counts are the sums of
// the workers' chains for the chunks used and the job's own (addStats).
// Memory stays bounded: 2N+4 chunks in flight (chunked.InFlight), each with
// one batch and its encoded bytes.
//
// Which jobs (morselable): a bounded file whose connector can be cut
// (chunked, see parallelSource), read by a job without an aggregate, without
// a LIMIT, without a WATERMARK (a row's CURRENT_WATERMARK depends on every
// row before it: those jobs keep the decode-ahead path), into a sink that
// can encode apart (the line formats; a table is rendered whole, a sink
// stream or a dead-letter stream is written by its connector row by row, and
// the CLI's progress bar wraps the source: those keep the sequential path),
// when the process may use 2 CPUs or more. Event-time joins never get here
// (runEventJoin). A job whose every branch is a TUMBLE, HOP or CUMULATE
// aggregate takes the parallel window aggregate instead (paragg.go).
// Everything else keeps the path it had.
//
// Measured on the 2-core machine: README's performance section.
//
// # What to expect on more CPUs
//
// Per row, the workers do all of the work but the writing. In CPU profiles
// of the split job at 2 CPUs (10M rows, 2026-12-01): in a quiet moment
// (0.81 s, CPU 187%) decoding took 54% of the job's CPU time, encoding 28%,
// routing 7%, the workers' pread(2) 5% and the writer 3% (write(2) and
// bufio's copy); on the loaded machine the writer's write(2) took up to 13%
// (the kernel's copy into the page cache, slower under contention). So:
//
//   - 2 CPUs: 2 workers and the writer share the two cores.
//   - 8 CPUs (8 workers): the workers go up to 8 times one core's rows/s,
//     and the writer, at 3-13% of one core's work per row, stays under its
//     bound (8 to 30 times one core): expect 6-7 times one core. Memory
//     bandwidth is not the bound yet: each input byte is read by pread into
//     a worker's buffer and decoded batch by batch while it is in the
//     core's caches, and each output byte is written twice (the chunk's
//     buffer, the page cache): some 4 bytes of DRAM traffic per input byte,
//     about 6 GB/s at 8 × 200 MB/s of input.
//   - 16 CPUs: the one writer may bound the job (at 13% of the work, about
//     8 times one core), and the memory traffic (12 GB/s and more) and the
//     page cache's locks come next. Past the writer, the writes must be
//     parallel too: a chunk's offset in each output file is known once the
//     chunks before it are encoded (a prefix sum of their sizes, in file
//     order), so each worker could pwrite(2) its own chunk's bytes at its
//     offset, leaving the ordered step to a few additions per chunk (pipes
//     and terminals, which cannot be written at an offset, keep the
//     writer). Bigger chunks would cut the per-chunk costs (two small reads
//     to find the ends, channel hand-offs: under 1% at 256 KiB) and make a
//     chunk that starts inside a quoted field rarer, but each chunk's
//     output buffers grow with them (2·GOMAXPROCS+4 chunks in flight, each
//     with a buffer of 1.25 times the chunk per output): 256 KiB stays.
//
// Chunks that start inside a quoted field are decoded twice (once by the
// worker, in vain, then by the writer), so a file with many quoted line
// breaks gains less; after chunked's MaxRedo such chunks the rest of the
// file is decoded and routed on the job's goroutine alone.

// ChunkSink is a Sink that can encode a job's rows on several goroutines
// (the morsel pipeline, morsel.go): a worker encodes the routed batches of
// one input chunk into an EncodedChunk of its own, and the job's goroutine
// writes the chunks in input order with WriteChunk, between its own calls
// of Rows, Errors and Flush.
type ChunkSink interface {
	Sink
	// NewChunk returns an empty EncodedChunk for this sink, for the rows of
	// input chunks of about size bytes (a hint for its buffers), or nil when
	// the sink cannot encode rows apart from writing them (a table is
	// rendered whole, SPEC 4): the job then runs on one goroutine.
	NewChunk(size int) EncodedChunk
	// WriteChunk writes what c holds to the outputs, as Rows would have
	// written its batches, in order; bad(j) returns the j-th malformed row
	// whose place c kept (Step.Bad, with Position set). It is called on the
	// job's goroutine; c may be Reset after it returns.
	WriteChunk(c EncodedChunk, bad func(j int) *ErrorRow) error
}

// EncodedChunk is the encoded rows of one input chunk (ChunkSink.NewChunk).
type EncodedChunk interface {
	// Rows encodes the routed batch r into c, as Sink.Rows would write it,
	// keeping only the places of r.Bad's rows (WriteChunk writes them, with
	// their positions). It is called on a worker's goroutine and must not
	// touch the sink's state; it returns an encoding error, if any.
	Rows(r *Step) error
	// Reset empties c for the next chunk, keeping its memory.
	Reset()
}

// morselRuns counts the jobs the morsel pipeline ran (for tests: which path
// a job took).
var morselRuns atomic.Int64

// morselable reports whether job may run on the morsel pipeline into sink
// (see the list above; the source is checked by runMorsel).

// morselOut is what a worker made of one chunk (chunked.Chunk.Out).
type morselOut struct {
	enc       EncodedChunk
	rows      int64   // rows decoded, malformed ones included (Stats.Rows)
	malformed int64   // malformed rows counted by 'side' and 'skip'
	refs      []int32 // each malformed row kept for 'side': its index in Chunk.Bad
	fail      *records.BadRow
	err       error // the chain's or the encoder's error, or ctx's
	// What the worker's chain counted for this chunk (EXPLAIN ANALYZE):
	// added to the job's chain only when the chunk is used (its start
	// proved right).
	ops            []OpStats
	parts, outputs []int64
}

// reset empties o for the next chunk, keeping its memory.
func (o *morselOut) reset() {
	o.enc.Reset()
	o.rows, o.malformed, o.refs, o.fail, o.err = 0, 0, o.refs[:0], nil, nil
}

// morselWorker is one worker's chain and scratch.
type morselWorker struct {
	c    *chain
	sink *chunkSinkOp
	in   *Step
}

// chunkSinkOp is a worker chain's Sink: it encodes into the current chunk.
type chunkSinkOp struct{ cur EncodedChunk }

func (s *chunkSinkOp) Rows(r *Step) error              { return s.cur.Rows(r) }
func (s *chunkSinkOp) Errors(string, []ErrorRow) error { return nil }
func (s *chunkSinkOp) Flush() error                    { return nil }
func (s *chunkSinkOp) Close() error                    { return nil }

// runMorsel runs job on the morsel pipeline when it can (morselable, and
// in's stream declares parallel decoding, SourceHandles.Parallel, which can
// cut this input), with p the job's own process (its chain
// routes the rows the merge decodes itself, and its counters get what the
// workers' chains counted for each chunk used), probing the joins' build
// sides of joins (their build states). It reports whether it ran the job, and the job's error
// (as run: a *RowError for 'errors'='fail', a read error, ctx's).
func runMorsel(ctx context.Context, oc opContext, job *plan.Job, in opened, sink Sink, p *process, joins map[*plan.Branch]*semiBuild) (bool, error) {
	src := in.src
	cs, ok := sink.(ChunkSink)
	if !ok || job.Strategy != plan.Morsel {
		return false, nil
	}
	// Every chunk in flight gets its output here, on the job's goroutine (the
	// sink's state is read only here and by the writer), all of it made now
	// (strategy.Pipeline).
	newOut := newMorselOut(cs, job)
	var ws []*morselWorker
	newWorkers := func(n int) {
		ws = make([]*morselWorker, n)
		for i := range ws {
			w := &morselWorker{sink: &chunkSinkOp{}, in: newStep(job.ErrorsConfig().ErrorsSide)}
			// (each chain has its own mark operators over the shared build
			// states: the build sides are read whole, so marking only reads them)
			w.c = buildChain(job, joins, w.sink, chainOpts{src: src, parts: in.h.Partitions, timed: p.c.timed, exprs: p.exprs})
			ws[i] = w
		}
	}
	policy := p.es.Policy
	work := func(i int, c *chunked.Chunk, o *morselOut) {
		o.reset()
		w := ws[i]
		w.c.zeroStats()
		w.chunk(ctx, job.Stream, policy, c, o)
		o.ops, o.parts, o.outputs = w.c.copyStats(o.ops, o.parts, o.outputs)
	}
	cr := strategy.Pipeline(in.h.Parallel, job.BatchTypes, strategy.PipelineOptions{ChunkSize: oc.chunkSize}, newOut, newWorkers, work)
	if cr == nil {
		return false, nil
	}
	morselRuns.Add(1)
	defer cr.Close()
	return true, writeChunks(ctx, cr, p.batch, cs, p, p.st, src, p.es)
}

// newMorselOut returns the function that makes a chunk's output for the
// morsel pipelines of job into cs (strategy.Pipeline's newOut): ok false
// when cs cannot encode apart.
func newMorselOut(cs ChunkSink, job *plan.Job) func(size int) (*morselOut, bool) {
	nb, no := len(job.AllBranches()), len(job.Outputs)
	return func(size int) (*morselOut, bool) {
		enc := cs.NewChunk(size)
		if enc == nil {
			return nil, false
		}
		return &morselOut{enc: enc, ops: make([]OpStats, 0, 8), parts: make([]int64, 0, nb), outputs: make([]int64, 0, no), refs: make([]int32, 0, 64)}, true
	}
}

// writeChunks is the writer of the morsel pipelines (morsel.go,
// lookupmorsel.go) on the job's goroutine: it takes cr's chunks in file
// order, feeding the rows the merge decodes itself to feed, adds each
// chunk's counts to p's (the rows, its chain's counters) and its malformed
// rows to es, and has cs write it, each malformed row named as a row of
// stream st at its position in src (SPEC 1); a chunk's 'errors'='fail'
// row ends the job with its *RowError. It returns the job's error.
func writeChunks(ctx context.Context, cr *chunked.Reader, feed strategy.Feed, cs ChunkSink, p *process, st *catalog.Stream, src Source, es *StreamErrors) error {
	var (
		errRows []ErrorRow
		cur     *chunked.Chunk // the chunk being written, its line base and its output
		curBase int64
		curOut  *morselOut
	)
	badRow := func(j int) *ErrorRow { // the j-th malformed row the chunk kept for 'side', in order
		for len(errRows) <= j {
			errRows = append(errRows, ErrorRow{})
		}
		x := &cur.Bad()[curOut.refs[j]]
		errRows[j] = ErrorRow{Stream: st.Name, Position: src.Position(curBase + x.Line), Raw: x.Raw, Error: x.Reason}
		return &errRows[j]
	}
	for {
		c, base, end, err := strategy.NextChunk(ctx, cr, feed)
		if end {
			return err
		}
		o := c.Out.(*morselOut)
		if o.err != nil {
			return p.callFailed(o.err)
		}
		*p.rows += o.rows
		es.Malformed += o.malformed
		p.c.addStats(o.ops, o.parts, o.outputs)
		cur, curBase, curOut = c, base, o
		if err := cs.WriteChunk(o.enc, badRow); err != nil {
			return err
		}
		if o.fail != nil {
			es.Malformed++
			return &RowError{Stream: st.Name, Position: src.Position(base + o.fail.Line), Reason: o.fail.Reason}
		}
	}
}

// chunk decodes, routes and encodes chunk c into o with w's chain, batch
// by batch, applying the errors policy of stream st ('side' keeps the places
// of the malformed rows, 'skip' counts them, 'fail' stops before the first).
// A decoding error ends it: the merge decodes the chunk again.
func (w *morselWorker) chunk(ctx context.Context, st *catalog.Stream, policy string, c *chunked.Chunk, o *morselOut) {
	w.sink.cur = o.enc
	in := w.in
	for seen := 0; ; {
		b, bad, err := c.Next()
		if err != nil {
			return
		}
		o.rows += int64(b.N + len(bad))
		n := b.N
		in.Errors.Rows = in.Errors.Rows[:0]
		if len(bad) > 0 {
			switch policy {
			case "fail":
				n, o.fail = bad[0].Index, &bad[0]
			case "skip":
				o.malformed += int64(len(bad))
			default:
				o.malformed += int64(len(bad))
				for j, x := range bad {
					in.Errors.Rows = append(in.Errors.Rows, ErrorRow{Stream: st.Name, Raw: x.Raw, Error: x.Reason, At: x.Index})
					o.refs = append(o.refs, int32(seen+j))
				}
			}
			seen += len(bad)
		}
		in.SelectRows(b, 0, n)
		if err := w.c.head.Push(ctx, Port{}, in); err != nil {
			o.err = err
			return
		}
		if o.fail != nil {
			return
		}
	}
}

// zeroStats sets c's counters to 0 (a morsel worker's chain, before a chunk).
func (c *chain) zeroStats() {
	for _, s := range c.stats {
		*s = OpStats{Name: s.Name}
	}
	clear(c.sink.parts)
	clear(c.sink.outputs)
}

// copyStats returns c's counters in ops, parts and outputs (reused).
func (c *chain) copyStats(ops []OpStats, parts, outputs []int64) ([]OpStats, []int64, []int64) {
	ops = ops[:0]
	for _, s := range c.stats {
		ops = append(ops, *s)
	}
	return ops, append(parts[:0], c.sink.parts...), append(outputs[:0], c.sink.outputs...)
}

// addStats adds counters that copyStats returned to c's (EXPLAIN ANALYZE,
// SPEC 3: the job's operators did what all the workers' copies did).
func (c *chain) addStats(ops []OpStats, parts, outputs []int64) {
	for k := range ops {
		t, s := c.stats[k], &ops[k]
		t.RowsIn += s.RowsIn
		t.RowsOut += s.RowsOut
		t.Batches += s.Batches
		t.Watermarks += s.Watermarks
		t.Nanos += s.Nanos
	}
	for k, n := range parts {
		c.sink.parts[k] += n
	}
	for k, n := range outputs {
		c.sink.outputs[k] += n
	}
}

// NewChunk implements ChunkSink: EXPLAIN ANALYZE's sink encodes nothing.
func (discard) NewChunk(int) EncodedChunk { return discardChunk{} }

// WriteChunk implements ChunkSink: nothing is written.
func (discard) WriteChunk(EncodedChunk, func(int) *ErrorRow) error { return nil }

// discardChunk is the EncodedChunk of discard.
type discardChunk struct{}

func (discardChunk) Rows(*Step) error { return nil }
func (discardChunk) Reset()           {}
