package executor

import (
	"slices"
	"testing"

	"streamql/planner/plan"
)

// TestJoinPassesOnWhatItsReadersRead: column pruning's "passed on" mask
// (plan.JoinInput.Pass, op.JoinSpec.Pass): a statement's own SELECT over a
// join whose readers call no function passes on only the columns they read,
// not the keys, event times and CURRENT_WATERMARK columns that only the
// join reads (it holds them: Keep); a reader that calls a function (its
// failure prints the joined row in the errors output), a key or time the
// select list reads, and a join inside a relation pass on every column
// held. A WHERE term pushed below the join reads its input's rows, not
// the joined ones. The joined rows' values are the same either way
// (TestPruneColumnsProperty, the benchmark suite's outputs).
func TestJoinPassesOnWhatItsReadersRead(t *testing.T) {
	cat := kTsCatalog(t, `CREATE STREAM l (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector'='file', 'path'='l.csv', 'format'='csv');
CREATE STREAM r (k VARCHAR, ts BIGINT, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH ('connector'='file', 'path'='r.csv', 'format'='csv');`)
	const on = " FROM l JOIN r ON l.k = r.k AND r.ts BETWEEN l.ts AND l.ts + 1000"
	// each input's layout: k, ts, the CURRENT_WATERMARK column
	for _, c := range []struct {
		q    string
		want [2][]bool // nil: every column passed on
	}{
		{"SELECT l.k, r.ts" + on, [2][]bool{{true, false, false}, {false, true, false}}},
		{"SELECT r.ts" + on + " WHERE l.k < CONCAT(r.k, 'x')", [2][]bool{{true, false, false}, {true, true, false}}},
		{"SELECT r.ts" + on + " WHERE l.k <> 'x'", [2][]bool{{false, false, false}, {false, true, false}}}, // (pushed below the join: l's filter reads l.k)
		{"SELECT l.k, l.ts, r.k, r.ts" + on, [2][]bool{{true, true, false}, {true, true, false}}},
		{"SELECT REGEXP_REPLACE(l.k, 'a', 'b') AS k2, r.ts" + on, [2][]bool{nil, nil}},
		{"SELECT k FROM (SELECT l.k AS k, r.ts AS t" + on + ")", [2][]bool{nil, nil}},
	} {
		job := planWith(t, cat, c.q)
		both := job.Both
		if both == nil {
			for _, st := range job.Streams() {
				if d := plan.DerivedOf(st); d != nil && len(d.Parts) > 0 && d.Parts[0].Both != nil {
					both = d.Parts[0].Both
				}
			}
		}
		if both == nil {
			t.Fatalf("%s: no join planned", c.q)
		}
		for s := range 2 {
			if got := both.Inputs[s].Pass; !slices.Equal(got, c.want[s]) || (got == nil) != (c.want[s] == nil) {
				t.Errorf("%s: input %d passes on %v, want %v", c.q, s, got, c.want[s])
			}
		}
	}
}
