package session

import (
	"fmt"
	"strings"

	"streamql/executor"
	"streamql/planner"
)

// explainNotes returns the lines EXPLAIN adds under the plan about how the
// job's streams are read (SPEC 1): for each csv stream with 'csv.header',
// whether its fields map by the header's names or by position.
func explainNotes(job *planner.Job) []string {
	var out []string
	for _, st := range job.Streams() {
		if m := executor.CSVMapping(st); m != "" {
			out = append(out, "stream "+st.Name+": "+m)
		}
	}
	return out
}

// allMalformed returns the notice for a job whose every row read from its
// FROM stream was malformed (issue 29: a column list in another order than the
// file's sent every row to errors and still exited 0), naming the stream, the
// header line it saw (csv with 'csv.header') and the columns declared; "" when
// some row was good or none was read.
func allMalformed(job *planner.Job, stats executor.Stats) string {
	if job == nil || stats.Rows == 0 || len(stats.Streams) == 0 {
		return ""
	}
	st := job.Stream
	e := stats.Streams[0]
	if e.Stream != st.Name || e.Malformed < stats.Rows {
		return ""
	}
	decl := make([]string, len(st.Columns))
	for i, c := range st.Columns {
		decl[i] = c.Name + " " + c.Type.String()
	}
	l := fmt.Sprintf("stream %s: every row (%d) was malformed; columns declared: %s", st.Name, stats.Rows, strings.Join(decl, ", "))
	if header, _ := executor.CSVHeader(st); header != nil {
		l += "; the file's header: " + strings.Join(header, ", ")
	} else if st.Options["format"] == "csv" || st.Options["format"] == "" {
		l += "; csv fields are read by position (with 'csv.header'='true' they map by the header's names)"
	}
	return l
}
