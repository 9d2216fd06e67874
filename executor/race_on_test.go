//go:build race

package executor

// raceDetector is true when the tests run under -race (CI's second run of
// this package, .ci/run): the large property tests then take fewer seeds, as
// the run without the detector checks them in full and the detector's run is
// for the goroutines, whose paths a few seeds already take.
const raceDetector = true
