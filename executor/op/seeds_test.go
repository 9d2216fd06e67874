package op

import (
	"os"
	"strconv"
	"testing"
)

// seedCount returns how many random seeds a property test of this package
// runs: ci in a plain go test (CI's count, the one that found the faults the
// test was written for), short with -short, and N when STREAMQL_SEEDS=N is
// set, for a longer hunt than CI affords, e.g. issue 23's 1,000 seeds of the
// join determinism test or more:
//
//	STREAMQL_SEEDS=10000 go test ./executor/op -run TestJoinDeterministic
//
// A value that is not a positive integer fails the test.
func seedCount(t *testing.T, ci, short int) int {
	t.Helper()
	if v := os.Getenv("STREAMQL_SEEDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("STREAMQL_SEEDS=%q: want a positive number of seeds, e.g. STREAMQL_SEEDS=1000", v)
		}
		return n
	}
	if testing.Short() {
		return short
	}
	return ci
}
