package session

import (
	"context"
	"fmt"
	"strings"

	"streamql/executor"
	"streamql/parser"
	"streamql/planner"
	"streamql/planner/plan"
)

// AnalyzeColumns are the columns of EXPLAIN ANALYZE's table (SPEC 3): EXPLAIN's
// plan line, and what its operator did.
var AnalyzeColumns = []string{"plan", "analyze"}

// explainAnalyze runs EXPLAIN ANALYZE st (SPEC 3): the job of st's query, with
// the pending side branches of its stream (used up, as a job uses them; a
// side branch query runs with them as RUN would), its outputs discarded
// (executor.Analyze); then it gives the frontend the plan with what each
// operator did, also when the job failed or was cancelled (what happened until
// then), and returns the job's error as a job does.
func (s *Session) explainAnalyze(ctx context.Context, p *planner.Planner, script *parser.Script, st *parser.Explain) error {
	job, err := s.explainJob(p, script, st)
	if err != nil { // a planning error leaves the pending branches waiting
		return err
	}
	s.takeBranches(job.Stream) // the job's, used up as a job uses them (SPEC 2.1)
	for _, r := range p.Branched {
		s.takeBranches(r) // (those its join's inputs route: planner/rule_route_join.go)
	}
	job.CountNulls() // (nullRows)
	stats, err := executor.Analyze(ctx, job, s.Env)
	if stats.Analysis == nil { // the job did not start (a source that cannot be opened)
		return err
	}
	if rerr := s.Front.Result(AnalyzeColumns, AnalyzeRows(job, stats)); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// explainJob plans the job EXPLAIN [ANALYZE] st shows (SPEC 3): st's query
// with the pending side branches of its stream, as the main query or, for a
// side branch, after them (as RUN would run it). The branches stay pending.
func (s *Session) explainJob(p *planner.Planner, script *parser.Script, st *parser.Explain) (*planner.Job, error) {
	if st.Query.Side == "" && st.Query.Stream == "" {
		p.Routes = s.branchesOf // (shown, not used up: SPEC 2.1)
	}
	b, err := p.PlanSelect(st.Query)
	if err != nil {
		return nil, err
	}
	s.warn(p, script)
	branches := s.branchesOf(b.Stream)
	var main *planner.Branch
	if b.Side != "" {
		branches = append(branches, b)
	} else {
		main = b
	}
	return s.newJob(b.Stream, branches, main, script.Source)
}

// AnalyzeRows returns EXPLAIN ANALYZE's table of job after its run's stats
// (stats.Analysis set): one row per line of EXPLAIN, the line and what its
// operator did (rows in and out, rows each branch took, malformed rows, the
// joins' keys and bytes, held rows, final watermarks, ms and rows/s).
func AnalyzeRows(job *planner.Job, stats executor.Stats) [][]string {
	var rows [][]string
	for _, l := range job.ExplainLines() {
		var notes []string
		if l.Part == nil {
			notes = lineNotes(job, stats, l)
		} else if ps := stats.Parts[l.Part]; ps != nil && ps.Analysis != nil {
			// a line of a derived relation's part (SPEC 2.6): what it did in
			// the part's own run
			notes = lineNotes(l.Part, *ps, l)
		}
		rows = append(rows, []string{l.Text, strings.Join(notes, "; ")})
	}
	return append(rows, nullRows(job)...)
}

// lineNotes is what the operator of line l of job did in its run (stats,
// stats.Analysis set): AnalyzeRows' notes of one line.
func lineNotes(job *planner.Job, stats executor.Stats, l plan.Line) []string {
	an := stats.Analysis
	ops := map[string]*executor.OpStats{}
	for _, o := range an.Ops {
		ops[o.Name] = o
	}
	branches := job.AllBranches()
	var notes []string
	{
		switch l.Kind {
		case plan.LineSource:
			notes = append(notes, fmt.Sprintf("read %s; job %s", rowCount(stats.Rows), millis(an.Nanos)))
		case plan.LineDecode:
			notes = append(notes, malformed(stats, job.Stream.Name))
		case plan.LineWatermark:
			notes = append(notes, opText(ops["watermark"]))
			if w := watermarkOf(an, job.Stream.Name); w != "" {
				notes = append(notes, "final watermark "+w)
			}
			if _, ok := job.Stream.MaxFuture(); ok {
				notes = append(notes, rowCount(an.Refused)+" refused as too far ahead")
			}
		case plan.LineProcess:
			notes = append(notes, "router: "+opText(ops["router"]), "project: "+opText(ops["project"]))
		case plan.LineBranch:
			took := an.Branches[l.Branch]
			if w := windowOf(an, l.Branch); w != nil {
				took = w.Rows // an aggregate's rows are its own (Sink lines count what it emitted)
			}
			notes = append(notes, "took "+rowCount(took))
			if b := branches[l.Branch]; b == job.Main && b.Limit >= 0 {
				notes = append(notes, "limit: "+opText(ops["limit"]))
			}
		case plan.LineJoin:
			for _, ja := range an.Joins {
				if ja.Branch != l.Branch {
					continue
				}
				notes = append(notes, fmt.Sprintf("build: %s; %s counted, %d keys, %d bytes", opText(&ja.Build), rowCount(ja.Rows), ja.Keys, ja.Bytes))
				if f := flowOf(an, l.Branch); f != nil {
					notes = append(notes, noPartnerText(f))
				}
				if branches[l.Branch].Join.EventTime() {
					notes = append(notes, fmt.Sprintf("held at most %s (%d bytes)", rowCount(an.HeldRowsMax), an.HeldBytesMax))
				}
			}
		case plan.LineBuild:
			j := branches[l.Branch].Join
			notes = append(notes, malformed(stats, j.Build.Name))
			if w := watermarkOf(an, j.Build.Name); w != "" && j.EventTime() {
				notes = append(notes, "final watermark "+w)
			}
			if _, ok := j.Build.MaxFuture(); ok && j.EventTime() {
				for _, ja := range an.Joins {
					if ja.Branch == l.Branch {
						notes = append(notes, rowCount(ja.Refused)+" refused as too far ahead")
					}
				}
			}
		case plan.LineAggregate:
			if w := windowOf(an, l.Branch); w != nil {
				notes = append(notes, "aggregate: "+aggText(w, ops["aggregate"]), fmt.Sprintf("open windows at most %d, groups at most %d", w.OpenWindowsMax, w.GroupsMax))
			}
		case plan.LineLate:
			if w := windowOf(an, l.Branch); w != nil {
				notes = append(notes, rowCount(w.Late)+" late")
				if b := branches[l.Branch]; b.Agg != nil {
					if la := lateOf(an, b.Agg.LateOutput); la != nil && la.Rows > 0 {
						notes = append(notes, latenessText(la))
					}
				}
			}
		case plan.LineFilter:
			if f := flowOf(an, l.Branch); f != nil {
				notes = append(notes, filterText(f, branches[l.Branch] == job.Main))
			}
		case plan.LineSink:
			notes = append(notes, rowCount(an.Outputs[l.Output]))
			if la := joinLateOf(an, l.Output); la != nil && la.Rows > 0 {
				notes = append(notes, latenessText(la))
			}
		case plan.LineRank:
			if r := job.Main; r != nil && l.Branch >= 0 && branches[l.Branch] == r && r.Rank != nil {
				notes = append(notes, opText(ops[string(r.Rank.Kind.NodeKind())]))
				notes = append(notes, rankThinText(an.RankThin)...)
			}
		case plan.LineJoinInput, plan.LineJoinDecode, plan.LineJoinWatermark, plan.LineBothJoin:
			notes = append(notes, bothJoinNotes(l, stats)...)
		}
	}
	return notes
}

// nullRows are EXPLAIN ANALYZE's rows for the expressions whose NULLs came
// from values, not from NULL operands (SPEC 2: a zero divisor, a CAST that
// fails, an integer overflow give NULL; SPEC 3, issue 29 item 7: said once,
// per expression): one row per expression that gave any, with its count. The
// counters are the ones Job.CountNulls set before the run.
func nullRows(job *planner.Job) [][]string {
	var rows [][]string
	for _, e := range job.CountNulls() {
		n := e.NullCount.Load()
		if n == 0 {
			continue
		}
		why := "a zero divisor"
		switch e.Op {
		case plan.OpCast:
			why = "a CAST that failed"
		case plan.OpIntDiv:
			why = "a zero divisor or an overflow"
		}
		rows = append(rows, []string{"NULL from values: " + planner.ExprText(e), fmt.Sprintf("%s gave NULL (%s, SPEC 2)", rowCount(n), why)})
	}
	return rows
}

// rankThinText is the note of a Top-N after a swapped join (plan.Rank.Thin;
// executor.Analysis.RankThin): whether the join's left keys were unique, so
// that the Top-N kept no copy of the left columns and filled its result from
// the join's kept left rows, or not.
func rankThinText(thin int) []string {
	switch thin {
	case 1:
		return []string{"the join's left keys were unique: left columns filled from the join's kept left rows"}
	case -1:
		return []string{"two left rows of the join shared a key: left columns stored with each row"}
	}
	return nil
}

// opText renders an operator's counters: rows in and out, its own time (ms)
// and rows in per second of it.
func opText(o *executor.OpStats) string {
	if o == nil {
		return "not run"
	}
	return inOutText(o.RowsIn, o.RowsOut, o.Nanos)
}

// aggText is the aggregate line of one branch (SPEC 3): the rows its branch
// took into it and the rows it emitted, with the time of the job's aggregate
// operator (all its branches' aggregates) and the rate of its own rows: the
// rows of the other branches that pass through the operator are not counted.
func aggText(w *executor.WindowAnalysis, o *executor.OpStats) string {
	if o == nil {
		return "not run"
	}
	return inOutText(w.Rows, w.RowsOut, o.Nanos)
}

// inOutText is an operator's rows in and out, its time (ns) and its rate of
// rows in per second.
func inOutText(in, out, nanos int64) string {
	rate := 0.0
	if nanos > 0 {
		rate = float64(in) / (float64(nanos) / 1e9)
	}
	return fmt.Sprintf("in %d, out %d rows, %s, %.0f rows/s", in, out, millis(nanos), rate)
}

// rowCount renders n rows: "1 row", "2 rows".
func rowCount(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

// millis renders ns as ms with three decimals.
func millis(ns int64) string { return fmt.Sprintf("%.3f ms", float64(ns)/1e6) }

// malformed renders the malformed rows of stream in stats.
func malformed(stats executor.Stats, stream string) string {
	for _, e := range stats.Streams {
		if e.Stream == stream {
			return fmt.Sprintf("%d malformed row(s)", e.Malformed)
		}
	}
	return "0 malformed row(s)"
}

// windowOf returns the aggregate of branch k, nil when it has none.
func windowOf(an *executor.Analysis, k int) *executor.WindowAnalysis {
	for i := range an.Windows {
		if an.Windows[i].Branch == k {
			return &an.Windows[i]
		}
	}
	return nil
}

// watermarkOf returns the final watermark text of stream, "" when it has none.
func watermarkOf(an *executor.Analysis, stream string) string {
	for _, w := range an.Watermarks {
		if w.Stream == stream {
			return w.Text
		}
	}
	return ""
}
