package cli

import (
	"slices"
	"strings"

	"github.com/mattn/go-runewidth"

	"streamql/catalog"
	"streamql/internal/session"
)

// terminalWidth returns the width in columns of the terminal w writes to, or
// 0 when w is not a terminal (pipes and files keep EXPLAIN ANALYZE's two
// columns). Tests replace it.
var terminalWidth = terminalCols

// fitAnalyze returns EXPLAIN ANALYZE's table (session.AnalyzeColumns) as one
// column that fits width terminal columns when its table in format would not
// (issue 29 item 6): each plan line, then what its operator did on the lines
// under it, indented two more than the operator, every line wrapped at
// width. It returns columns and rows unchanged when they fit, when width is
// 0, or for a format other than table and markdown.
func fitAnalyze(format string, width int, columns []string, rows [][]string) ([]string, [][]string) {
	if width <= 0 || !tabular(format) || !slices.Equal(columns, session.AnalyzeColumns) {
		return columns, rows
	}
	w0, w1 := 0, 0
	for _, r := range rows {
		w0, w1 = max(w0, runewidth.StringWidth(r[0])), max(w1, runewidth.StringWidth(r[1]))
	}
	if w0+w1+7 <= width { // "│ a │ b │"
		return columns, rows
	}
	avail := max(width-4, 20) // "│ x │"
	var out [][]string
	for _, r := range rows {
		indent := treePrefix(r[0])
		for _, l := range wrapWidth(r[0], avail, indent+4) {
			out = append(out, []string{l})
		}
		if r[1] == "" {
			continue
		}
		pad := strings.Repeat(" ", indent+2)
		for _, l := range wrapWidth(pad+r[1], avail, indent+2) {
			out = append(out, []string{l})
		}
	}
	return []string{"plan, then what each operator did"}, out
}

// treePrefix returns the length of the drawing that starts a line of
// EXPLAIN's tree (plan.Tree.Text): spaces and Flink's marks ":", "|", "+-".
func treePrefix(s string) int { return len(s) - len(strings.TrimLeft(s, " :|+-")) }

// wrapWidth splits s at spaces into lines of at most width display columns
// (a word longer than that stands alone), each line after the first
// indented by cont spaces.
func wrapWidth(s string, width, cont int) []string {
	if runewidth.StringWidth(s) <= width {
		return []string{s}
	}
	lead := treePrefix(s)
	var out []string
	line := s[:lead] // (the tree's drawing, as it is)
	empty := true
	for _, word := range strings.Fields(s[lead:]) {
		if !empty && runewidth.StringWidth(line)+1+runewidth.StringWidth(word) > width {
			out = append(out, line)
			line, empty = strings.Repeat(" ", cont), true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	return append(out, line)
}

// tabular reports whether format prints tables (catalog's FormatSpec.Tabular:
// table, markdown).
func tabular(format string) bool {
	f := catalog.PrintFormat(format)
	return f != nil && f.Tabular
}
