package session

import (
	"fmt"
	"strings"
)

// PendingNotice returns the line that says which pending side branches ran
// with a main query (SPEC 2.1, issue 29: a forgotten branch silently takes
// rows from a later query), with the rows each took:
//
//	2 pending side branches ran with this query: 'hot' took 5 rows, 'cold' took 0 rows
//
// INTO STREAM branches are named by their sink stream. It returns "" for a
// job without a main query (RUN; the end of a script) or without branches.
// The REPL and a terminal's stderr print it; the counts come from the job's
// Analysis (executor.Analysis.Branches, in branch order).
func PendingNotice(j *Job, stats Stats) string {
	if j == nil {
		return ""
	}
	job := j.Plan()
	if job.Main == nil || len(job.Branches) == 0 {
		return ""
	}
	var parts []string
	for i, b := range job.Branches {
		took := "took no rows (the job failed)"
		if a := stats.Analysis; a != nil && i < len(a.Branches) {
			took = fmt.Sprintf("took %d %s", a.Branches[i], plural(a.Branches[i], "row"))
		}
		name := "'" + b.Side + "'"
		if b.Sink != nil {
			name = "INTO STREAM " + b.Sink.Name
		}
		parts = append(parts, name+" "+took)
	}
	n := int64(len(job.Branches))
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
