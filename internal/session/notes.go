package session

import (
	"fmt"
	"strings"

	"streamql/catalog"
	"streamql/executor"
	"streamql/executor/codec"
	"streamql/parser"
	"streamql/planner"
)

// explainNotes returns the lines EXPLAIN adds under the plan about how the
// job's streams are read (SPEC 1): for each csv stream with 'csv.header',
// whether its fields map by the header's names or by position, and each
// column read as another type than declared (DECIMAL as DOUBLE).
func explainNotes(job *planner.Job) []string {
	var out []string
	for _, st := range job.Streams() {
		if m := codec.CSVMapping(st); m != "" {
			out = append(out, "stream "+st.Name+": "+m)
		}
		for _, l := range st.Conversions {
			out = append(out, "stream "+st.Name+": "+l)
		}
	}
	return out
}

// allMalformed returns the notice for a job whose every row read from its
// FROM stream was malformed (issue 29: a column list in another order than the
// file's sent every row to errors and still exited 0), naming the stream, the
// header line it saw (csv with 'csv.header') and the columns declared; "" when
// some row was good or none was read. Under 'errors'='fail' (SPEC 1), where
// the job stopped at that first row, it says so instead of "every row".
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
	if e.Policy == "fail" {
		// the job stopped at the first malformed row: "every row" would
		// say the rest of the input is malformed too, which no one read
		l = fmt.Sprintf("stream %s: its first row was malformed, and 'errors'='fail' stopped the job there; columns declared: %s", st.Name, strings.Join(decl, ", "))
	}
	if header, _ := codec.CSVHeader(st); header != nil {
		l += "; the file's header: " + strings.Join(header, ", ")
	} else if f := st.Shared().Format; f == "csv" || f == "" {
		l += "; csv fields are read by position (with 'csv.header'='true' they map by the header's names)"
	}
	return l
}

// Warner is implemented by a Frontend that shows planning warnings
// (planner.Planner.Warnings): a statement that runs but cannot mean what it
// says, such as a join whose time bounds leave no interval. w's offset is
// into script unless w.File names another script.
type Warner interface {
	Warn(script *parser.Script, w *parser.Error)
}

// warn gives the frontend p's planning warnings of a statement of script
// (Warner), before the statement's job runs or its EXPLAIN is shown.
func (s *Session) warn(p *planner.Planner, script *parser.Script) {
	wr, ok := s.Front.(Warner)
	if !ok {
		return
	}
	for _, w := range p.Warnings {
		wr.Warn(script, w)
	}
	p.Warnings = nil
}

// WarningLine is warning w of script as one line, "warning: <message>
// (<script>, line L, column C)": what the library's Options.Log gets.
func WarningLine(script *parser.Script, w *parser.Error) string {
	f := w.File
	if f == nil {
		f = parser.NewFile(script.Name, script.Source)
	}
	return "warning: " + w.Msg + " (" + parser.Pos{File: f, Offset: w.Offset}.String() + ")"
}

// Noticer is implemented by a Frontend that shows notices about a statement
// that ran (issue 29 item 7: a silent conversion is said once, at CREATE):
// the REPL on stderr, the library on Options.Log.
type Noticer interface {
	// Notice shows one line.
	Notice(line string)
}

// conversions records in x the columns of st whose declared type streamql
// reads as another (SPEC 1: DECIMAL(p,s) and NUMERIC as DOUBLE, which has no
// exact decimal arithmetic), and tells the frontend once (Noticer).
func (s *Session) conversions(st *parser.CreateStream, x *catalog.Stream) {
	for i, c := range st.Columns {
		u := strings.ToUpper(strings.TrimSpace(c.Type))
		if !strings.HasPrefix(u, "DECIMAL") && !strings.HasPrefix(u, "NUMERIC") || i >= len(x.Columns) {
			continue
		}
		x.Conversions = append(x.Conversions, fmt.Sprintf("column %s %s is read as %s (SPEC 1: streamql has no exact DECIMAL)",
			c.Name, c.Type, x.Columns[i].Type))
	}
	if n, ok := s.Front.(Noticer); ok {
		for _, l := range x.Conversions {
			n.Notice("stream " + x.Name + ": " + l)
		}
	}
}
