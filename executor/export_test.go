package executor

// MorselRuns returns how many jobs the morsel pipeline has run in this
// process (morsel.go), for the tests of package executor_test.
func MorselRuns() int64 { return morselRuns.Load() }

// JoinParallelInputs returns how many join inputs a parallel reader has
// read in this process (joinsource.go, joinInputReader), for the tests of
// package executor_test.
func JoinParallelInputs() int64 { return joinParallelInputs.Load() }

// SetDerivedBatches sets how many batches of main rows a derived relation's
// part may have out (derived.go, derivedBatches) and returns the function
// that restores the setting, for the tests of package executor_test.
func SetDerivedBatches(n int) (restore func()) {
	old := derivedBatches
	derivedBatches = n
	return func() { derivedBatches = old }
}

// DerivedBatchesMade returns how many batches of main rows derived
// relations' parts have made in this process (derived.go), for the tests of
// package executor_test.
func DerivedBatchesMade() int64 { return derivedBatchesMade.Load() }

// RaceDetector says whether the tests run under -race (race_on_test.go), for
// the tests of package executor_test.
const RaceDetector = raceDetector

// LookupMorselRuns returns how many jobs the lookup morsel pipeline has
// run in this process (lookupmorsel.go).
func LookupMorselRuns() int64 { return lookupMorselRuns.Load() }

// JoinPipeRuns is the count of the jobs that ran as a pipelined join
// (plan.PipelinedJoin, joinpipe.go).
func JoinPipeRuns() int64 { return joinPipeRuns.Load() }

// SetLookupMorselOff makes the executor keep plan.LookupMorsel jobs off the
// lookup morsel pipeline (the parallel join inputs' path, its fallback)
// while off is set, and returns the function that restores the setting.
func SetLookupMorselOff(off bool) func() {
	old := lookupMorselOff
	lookupMorselOff = off
	return func() { lookupMorselOff = old }
}
