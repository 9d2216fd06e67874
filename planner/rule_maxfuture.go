package planner

import "streamql/planner/plan"

// maxFutureStrategy is the strategy for a job whose stream has
// 'watermark.max-future' (SPEC 4, "Finding out why"; the executor applies it
// in the watermark assigner of the sequential paths, at the inputs of a
// two-sided join, joinsource.go, and at the sources of an event-time semi or
// anti join and of its build sides, maxfuture.go's futureSource): whether a
// row counts depends on the watermark before it, which the paths that compute watermarks per chunk (ParallelAggregate,
// Morsel) do not know, so those become ParallelDecode, whose job goroutine
// stamps every row in order.
func maxFutureStrategy(job *Job, s plan.Strategy) plan.Strategy {
	if _, ok := job.Stream.MaxFuture(); ok && (s == plan.ParallelAggregate || s == plan.Morsel) {
		return plan.ParallelDecode
	}
	return s
}
