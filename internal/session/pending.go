package session

import (
	"fmt"
	"strings"

	"streamql/planner"
)

// PendingNotice returns the line that says which pending side branches ran
// with a main query (SPEC 2.1, issue 29: a forgotten branch silently takes
// rows from a later query), with the rows each took:
//
//	2 pending side branches ran with this query: 'hot' took 5 rows, 'cold' took 0 rows
//
// INTO STREAM branches are named by their sink stream; the branches the
// inputs of its join route (planner.BranchedParts) count too, with the rows
// each took in that input's relation (Stats.Parts). It returns "" for a
// job without a main query (RUN; the end of a script) or without branches.
// The REPL and a terminal's stderr print it; the counts come from the job's
// Analysis (executor.Analysis.Branches, in branch order).
func PendingNotice(j *Job, stats Stats) string {
	if j == nil {
		return ""
	}
	job := j.Plan()
	if job.Main == nil {
		return ""
	}
	var parts []string
	add := func(branches []*planner.Branch, st *Stats) {
		for i, b := range branches {
			took := "took no rows (the job failed)"
			if st != nil && st.Analysis != nil && i < len(st.Analysis.Branches) {
				n := st.Analysis.Branches[i]
				took = fmt.Sprintf("took %d %s", n, plural(n, "row"))
			}
			name := "'" + b.Side + "'"
			if b.Sink != nil {
				name = "INTO STREAM " + b.Sink.Name
			}
			parts = append(parts, name+" "+took)
		}
	}
	add(job.Branches, &stats)
	for _, d := range planner.BranchedParts(job) { // (those a join's input routes: SPEC 2.1, 2.7)
		add(d.Parts[0].Branches, stats.Parts[d.Parts[0]])
	}
	if len(parts) == 0 {
		return ""
	}
	n := int64(len(parts))
	return fmt.Sprintf("%d pending side %s ran with this query: %s", n, plural(n, "branch"), strings.Join(parts, ", "))
}

// plural returns word, with the English plural ending when n is not 1.
func plural(n int64, word string) string {
	if n == 1 {
		return word
	}
	if strings.HasSuffix(word, "ch") {
		return word + "es"
	}
	return word + "s"
}
