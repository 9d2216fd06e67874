package executor

import "streamql/planner/plan"

// ParaggRuns returns how many jobs the parallel window aggregate has run in
// this process, how many chunks it merged as the workers made them, and how
// many it gave back to the sequential path (paragg.go), for the tests of
// package executor_test.
func ParaggRuns() (jobs, used, redone int64) {
	return paraggRuns.Load(), paraggChunksUsed.Load(), paraggChunksRedone.Load()
}

// SetParaggStateFloor sets the least 'state.max-bytes' with which a job may
// take the parallel window aggregate (paragg.go) and returns the old one.
func SetParaggStateFloor(n int64) int64 {
	old := plan.ParallelAggregateStateFloor
	plan.ParallelAggregateStateFloor = n
	return old
}
