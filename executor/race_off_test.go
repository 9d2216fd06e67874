//go:build !race

package executor

// raceDetector is true when the tests run under -race (race_on_test.go).
const raceDetector = false
