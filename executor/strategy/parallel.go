package strategy

import (
	"context"
	"runtime"

	"streamql/catalog"
	"streamql/executor/chunked"
	"streamql/executor/connector"
)

// Parallel decoding of a bounded file (issue 15 item 3; executor/chunked): a
// file source decoded in chunks on workers goroutines, merged in file order,
// replaces the decode-ahead goroutine (prefetch.go) where the source offers it
// and the process may use 3 CPUs or more (see ParallelReader; what to expect
// on more CPUs is in executor/chunked's package doc).
// (A job without state from row to row takes the morsel pipeline instead,
// the executor's morsel.go over a Pipeline, from 2 CPUs on: there the
// workers also route and encode; a TUMBLE, HOP or CUMULATE aggregate takes
// the parallel window aggregate, paragg.go, where the workers also
// aggregate.)
// The job's goroutine keeps the rest: the errors policy, the watermark,
// routing, expressions and the sink, batch by batch in file order, as with any
// source. Memory stays bounded (executor/chunked: workers+2 chunks in flight).

// ParallelReader returns the parallel reader of ps, the parallel decoding
// its source's stream declares (connector.SourceHandles.Parallel; nil:
// none, as for a source hook's wrapper), for a job reading batches of types
// (without text values when noText), or nil: for a job that decodes ahead
// (plan.Job.Prefetchable), when ps can cut this input, with one worker per CPU the process may use but the one
// the job's goroutine needs (workers), and only with at least 2 workers: on 2
// CPUs the job's goroutine (routing, encoding) is the bottleneck, and 2
// workers beside it only take CPU time from it (measured: 0.237 s against
// 0.202 s for the decode-ahead goroutine, 2,000,000 rows, GOMAXPROCS=2).
func ParallelReader(types []catalog.Type, noText bool, ps connector.ParallelSource) *chunked.Reader {
	if ps == nil {
		return nil
	}
	return ps.Parallel(types, Workers(), chunked.Options{NoText: noText})
}

// Workers is how many goroutines decode a file in parallel: GOMAXPROCS - 1.
func Workers() int { return runtime.GOMAXPROCS(0) - 1 }

// Chunked runs a job over the batches of a parallel reader
// (plan.ParallelDecode), fed to feed in file order on the caller's
// goroutine. It returns feed's error at the job's end, or ctx's.
func Chunked(ctx context.Context, cr *chunked.Reader, feed Feed) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, bad, err := cr.Next()
		if err != nil {
			_, err := feed(ctx, nil, nil, err)
			return err
		}
		if end, err := feed(ctx, b, bad, nil); end {
			return err
		}
	}
}
