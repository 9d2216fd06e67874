package strategy

import (
	"context"
	"runtime"

	"streamql/catalog"
	"streamql/executor/chunked"
	"streamql/executor/connector"
)

// A chunk pipeline (plan.Morsel, plan.ParallelAggregate; the design of
// DuckDB's and HyPer's morsel-driven parallelism): a bounded file cut into
// chunks (executor/chunked), each decoded and worked on by one of
// GOMAXPROCS workers with a chain of its own, into an output of the chunk's
// (kept with the chunk's memory and reused: Chunk.Out); the job's goroutine
// takes the chunks in file order (NextChunk) and merges their outputs. The
// executor's morsel.go (routing and encoding) and paragg.go (partial window
// aggregates) are its two users: what a worker does and what the merge does
// with an output are theirs.

// PipelineOptions are a chunk pipeline's settings.
type PipelineOptions struct {
	// ChunkSize is the size in bytes of the chunks the file is cut into; 0
	// is chunked.DefaultChunkSize.
	ChunkSize int64
	// NoText drops the batches' text values (a job that only aggregates,
	// vector.Batch.NoText).
	NoText bool
	// PlainMarks marks the plain VARCHAR values of the batches
	// (vector.Batch.PlainMarks: a lookup join's left input, whose values
	// reach the csv encoder as they were read).
	PlainMarks bool
}

// Pipeline starts a chunk pipeline over ps, the parallel decoding a
// source's stream declares (connector.SourceHandles.Parallel; nil: none),
// whose batches have types, when ps can cut this input: it makes the outputs of
// every chunk that can be in flight up front (chunked.InFlight; newOut(size)
// with the chunk size in bytes, as a hint for their buffers; ok false: the
// pipeline cannot run), then the workers (newWorkers(n), n = GOMAXPROCS),
// and has worker i run work(i, c, o) on each chunk c with its output o. So
// how many chunks a job uses does not change what it allocates. It returns
// the reader the caller takes the chunks from (NextChunk) and must Close,
// or nil when the pipeline cannot run (the caller then takes another
// strategy).
func Pipeline[O any](ps connector.ParallelSource, types []catalog.Type, o PipelineOptions,
	newOut func(size int) (O, bool), newWorkers func(n int), work func(i int, c *chunked.Chunk, o O)) *chunked.Reader {
	if ps == nil {
		return nil
	}
	n := runtime.GOMAXPROCS(0)
	size := o.ChunkSize
	if size <= 0 {
		size = chunked.DefaultChunkSize
	}
	pool := make(chan O, chunked.InFlight(n, true))
	for range cap(pool) {
		out, ok := newOut(int(size))
		if !ok {
			return nil
		}
		pool <- out
	}
	newWorkers(n)
	run := func(i int, c *chunked.Chunk) {
		out, ok := c.Out.(O)
		if !ok {
			out = <-pool
			c.Out = out
		}
		work(i, c, out)
	}
	return ps.Parallel(types, n, chunked.Options{ChunkSize: size, Work: run, NoText: o.NoText, PlainMarks: o.PlainMarks})
}

// NextChunk returns the next chunk of cr a worker made (with its line base),
// in file order, after feeding the rows the merge decoded itself (chunks
// decoded again, the sequential rest) to the job's own chain; end says the
// job ended (cr's end, a read error, the job's own end, ctx), with its error
// as feed gives it.
func NextChunk(ctx context.Context, cr *chunked.Reader, feed Feed) (c *chunked.Chunk, base int64, end bool, err error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, true, err
		}
		c, base, b, bad, err := cr.NextChunk()
		if err != nil {
			_, err := feed(ctx, nil, nil, err)
			return nil, 0, true, err
		}
		if c != nil {
			return c, base, false, nil
		}
		if end, err := feed(ctx, b, bad, nil); end { // rows the merge decoded itself: the job's own chain
			return nil, 0, true, err
		}
	}
}
