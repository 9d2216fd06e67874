package planner

import (
	"fmt"

	"streamql/catalog"
	"streamql/planner/plan"
)

// ruleMaxFuture checks a job whose stream has 'watermark.max-future' (SPEC 4,
// "Finding out why"): the option is applied by the watermark assigner of the
// sequential paths (the strategy rule keeps the job off the paths that compute
// watermarks per chunk) and by the two-sided join's inputs (executor
// joinsource.go), but not yet by the held path of an event-time semi or anti
// join (SPEC 2.2), so such a job is a planning error that says what to do.
func ruleMaxFuture(j *Job) error {
	if _, ok := j.Stream.MaxFuture(); !ok || !j.HasEventTimeJoin() {
		return nil
	}
	return fmt.Errorf("stream %s has option '%s', which an event-time join does not apply yet; remove the option, or join a bounded build side", j.Stream.Name, catalog.MaxFutureOption)
}

// maxFutureStrategy is the strategy for a job whose stream has
// 'watermark.max-future': whether a row counts depends on the watermark before
// it, which the paths that compute watermarks per chunk (ParallelAggregate,
// Morsel) do not know, so those become ParallelDecode, whose job goroutine
// stamps every row in order.
func maxFutureStrategy(job *Job, s plan.Strategy) plan.Strategy {
	if _, ok := job.Stream.MaxFuture(); ok && (s == plan.ParallelAggregate || s == plan.Morsel) {
		return plan.ParallelDecode
	}
	return s
}
