package plan

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
	LineFilter                    // a branch's WHERE (Filter)
	// The lines of the job's join of two streams (Job.Both, SPEC 2.7); on
	// the input lines, Branch is the input's index (0 left, 1 right).
	LineJoinInput     // the Scan of an input
	LineJoinDecode    // the Decode of an input
	LineJoinWatermark // the AssignWatermark of an input
	LineBothJoin      // the Join node
	LineRank          // the main query's Rank, Deduplicate or OverAggregate (SPEC 2.9)
)

// Line is one line of Job.Explain with what it describes: Branch is the index
// of its branch (side branches in declaration order, then main; -1 when the
// line is not a branch's), Output the index into Job.Outputs of a Sink line
// (-1 otherwise), both of the job the line is of (Part's, or the job's own).
type Line struct {
	Text   string
	Kind   LineKind
	Branch int
	Output int
	// Part is, for a line of a derived relation's part (SPEC 2.6: a
	// subquery, WITH name, view or UNION ALL part, at any depth), that
	// part's job, whose run its Kind, Branch and Output count in; nil for
	// a line of the job itself.
	Part *Job
}

// ExplainLines returns the lines of Explain, without line ends, each with what
// it describes (Tree.Lines).
func (j *Job) ExplainLines() []Line { return j.Tree().Lines() }
