package executor

import (
	"context"
	"runtime"

	"streamql/catalog"
	"streamql/executor/chunked"
	"streamql/planner"
)

// Parallel decoding of a bounded file (issue 15 item 3; executor/chunked): a
// file source decoded in chunks on workers goroutines, merged in file order,
// replaces the decode-ahead goroutine (prefetch.go) where the source offers it.
// The job's goroutine keeps the rest: the errors policy, the watermark,
// routing, expressions and the sink, batch by batch in file order, as with any
// source. Memory stays bounded (executor/chunked: workers+2 chunks in flight).

// parallelSource is a source that can decode its input on several
// goroutines: the file connector's bounded file (connector's fileSource).
// Parallel returns nil when it cannot (see there); the reader it returns
// gives the rows instead of Next, and the source's Close stops it.
type parallelSource interface {
	Parallel(types []catalog.Type, workers int) *chunked.Reader
}

// parallelReader returns the parallel reader of src for job, or nil: only
// for a job that decodes ahead (prefetchable), with one worker per CPU the
// process may use, when src offers one (a source hook's wrapper does not).
func parallelReader(job *planner.Job, src Source) *chunked.Reader {
	ps, ok := src.(parallelSource)
	if !ok {
		return nil
	}
	return ps.Parallel(job.BatchTypes, runtime.GOMAXPROCS(0))
}

// runChunked is run over the batches of a parallel reader.
func runChunked(ctx context.Context, cr *chunked.Reader, p *process) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		b, bad, err := cr.Next()
		if err != nil {
			_, err := p.batch(ctx, nil, nil, err)
			return err
		}
		if end, err := p.batch(ctx, b, bad, nil); end {
			return err
		}
	}
}
