// Package strategy owns how a job's source reaches its chain: the execution
// strategies of a bounded file (issue 22 items 1 and 6) beside the
// sequential loop the executor keeps. The planner chooses one
// (plan.Job.Strategy, planner/rule_strategy.go) and EXPLAIN prints it; the
// executor's runner (run.go) runs it, each with its fallback when the source
// cannot be cut into chunks:
//
//   - plan.Prefetch: Prefetch, a producer goroutine decoding ahead of the
//     job's goroutine (prefetch.go), over Ahead, its pull form, which
//     plan.PipelinedJoin runs over each input of a join and over the join
//     itself (the executor's joinpipe.go);
//   - plan.ParallelDecode: Chunked, the file decoded in chunks by Workers
//     goroutines (ParallelReader over a connector.ParallelSource: executor/chunked),
//     merged in file order (parallel.go);
//   - plan.Morsel and plan.ParallelAggregate: a chunk Pipeline (pipeline.go),
//     whose workers run a chain of their own on each chunk (the morsel
//     pipeline routes and encodes, the parallel window aggregate aggregates),
//     with one output per chunk in flight from a pool made up front; the job's
//     goroutine takes the chunks in file order (NextChunk) and feeds the rows
//     the merge decoded itself to its own chain.
//
// A strategy drives the job through a Feed (the executor's one-batch step)
// and the workers' chains through the functions a Pipeline is given: it never
// sees an operator. Memory stays bounded: a fixed number of batch groups or
// chunks in flight.
//
// It imports executor/chunked (the chunk reader), executor/connector (the
// Source contract), executor/records, executor/vector and catalog, and must
// never import the executor (which builds the chains and calls it), an
// operator package, the planner or the plan (layering_test.go).
package strategy

import (
	"context"

	"streamql/executor/records"
	"streamql/executor/vector"
)

// Feed is the job's step over one batch of its source (the executor's
// process.batch): b's rows and the malformed rows bad, or the source's
// error err (io.EOF at the end: the job finishes; connector.ErrWaiting: the
// job flushes its sinks). It reports whether the job ended, with its error.
// A strategy calls it on the job's goroutine only, in input order.
type Feed func(ctx context.Context, b *vector.Batch, bad []records.BadRow, err error) (end bool, _ error)
