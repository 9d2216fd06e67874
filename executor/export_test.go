package executor

// MorselRuns returns how many jobs the morsel pipeline has run in this
// process (morsel.go), for the tests of package executor_test.
func MorselRuns() int64 { return morselRuns.Load() }
