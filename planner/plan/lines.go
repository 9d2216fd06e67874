package plan

import "strings"

// LineKind says what a line of Job.Explain describes (SPEC 3), for EXPLAIN
// ANALYZE, which adds to each line what its operator did.
type LineKind uint8

// The kinds of plan lines.
const (
	LineOther     LineKind = iota // a line no operator counts (the no-main-query note)
	LineSource                    // Source: the FROM stream
	LineDecode                    // Decode: the FROM stream's format and errors policy
	LineWatermark                 // Watermark: the FROM stream's assigner
	LineProcess                   // Process: the router
	LineBranch                    // a side branch, a branch into a stream, or main
	LineJoin                      // the first line of a branch's join (its mode, sides, strategy)
	LineBuild                     // the build source line of a branch's join
	LineAggregate                 // the first line of a branch's aggregate or window (SPEC 2.4)
	LineLate                      // the late-rows line of a branch's window
	LineDetail                    // another line under a branch (keys, filters, state, an aggregate)
	LineSink                      // Sink: one output
)

// Line is one line of Job.Explain with what it describes: Branch is the index
// of its branch (side branches in declaration order, then main; -1 when the
// line is not a branch's), Output the index into Job.Outputs of a Sink line
// (-1 otherwise).
type Line struct {
	Text   string
	Kind   LineKind
	Branch int
	Output int
}

// ExplainLines returns the lines of Explain, without line ends, each with what
// it describes. They are told apart by their place in Explain's layout: the
// source at column 0, Decode, Watermark, Process and Sink at 2, one branch a
// line at 4, and what belongs to the branch above it from 6 on.
func (j *Job) ExplainLines() []Line {
	var out []Line
	branch, output := -1, 0
	inJoin := false
	for _, t := range strings.Split(strings.TrimRight(j.Explain(), "\n"), "\n") {
		l := Line{Text: t, Branch: -1, Output: -1}
		indent := len(t) - len(strings.TrimLeft(t, " "))
		body := t[indent:]
		switch {
		case indent == 0:
			l.Kind = LineSource
		case indent == 2 && strings.HasPrefix(body, "Decode:"):
			l.Kind = LineDecode
		case indent == 2 && strings.HasPrefix(body, "Watermark:"):
			l.Kind = LineWatermark
		case indent == 2 && strings.HasPrefix(body, "Process:"):
			l.Kind = LineProcess
		case indent == 2 && strings.HasPrefix(body, "Sink:"):
			l.Kind, l.Output = LineSink, output
			output++
		case indent == 4 && !strings.HasPrefix(body, "("):
			branch++
			inJoin = false
			l.Kind, l.Branch = LineBranch, branch
		case indent >= 6 && branch >= 0:
			l.Kind, l.Branch = LineDetail, branch
			switch {
			case indent == 6 && strings.Contains(body, " hash join: "):
				l.Kind, inJoin = LineJoin, true
			case indent == 8 && inJoin && strings.HasPrefix(body, "build source: "):
				l.Kind = LineBuild
			case indent == 6 && (strings.HasPrefix(body, "Window aggregate: ") || strings.HasPrefix(body, "Window: ") || strings.HasPrefix(body, "Aggregate: ")):
				l.Kind, inJoin = LineAggregate, false
			case indent == 8 && !inJoin && strings.HasPrefix(body, "late rows -> "):
				l.Kind = LineLate
			}
		}
		out = append(out, l)
	}
	return out
}
