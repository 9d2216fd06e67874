package executor

import (
	"context"
	"time"

	"streamql/catalog"
	"streamql/executor/aggregate"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// Analysis is what one job did, for EXPLAIN ANALYZE (SPEC 3): the counters of
// its operators (OpStats, kept by the wrapper of operator.go), the rows each
// branch and each output got, its joins' state and its streams' final
// watermarks. It is filled once the job has ended (nothing is added per row:
// the counts are taken per batch or read from the operators' state at the
// end), also after a failure or a cancellation (what happened until then).
type Analysis struct {
	// Nanos is the job's wall time, ns, from the start of Run to its end.
	Nanos int64
	// Ops are the probe stream's operators in source order: watermark,
	// router, the operators after it (an aggregate), limit, project, sink.
	Ops []*OpStats
	// Branches are the rows each branch took that reached its output (after
	// the LIMIT's cut), per branch: side branches in declaration order, then
	// the main query (plan.Job's order, as Step.Parts).
	Branches []int64
	// Outputs are the rows written to each output (plan.Job.Outputs' order):
	// its branches' rows and the rows operators made for it (windows).
	Outputs []int64
	// Joins are the job's hash joins, one per branch with a join, in branch
	// order.
	Joins []JoinAnalysis
	// HeldRowsMax is the largest number of probe rows an event-time join held
	// at once (SPEC 2.2; 0 without one), and HeldBytesMax the largest number
	// of bytes they held ('state.max-bytes' counts them).
	HeldRowsMax, HeldBytesMax int64
	// Watermarks are the final watermarks (SPEC 2.3) of the FROM stream (when
	// it has a WATERMARK) and of each event-time build side, in that order:
	// the last value reached, as the time column's type prints (LiveWatermark
	// Text: BIGINT digits, TIMESTAMP as SPEC 4), or "unset" before a first row.
	Watermarks []LiveWatermark
	// Windows are the job's aggregates (SPEC 2.4), one per branch that
	// aggregates, in branch order.
	Windows []WindowAnalysis
	// Flows are where the rows offered to each branch went (its join and
	// filter), per branch in Branches' order (analyzeflow.go).
	Flows []BranchFlow
	// Refused is the rows 'watermark.max-future' refused (maxfuture.go).
	Refused int64
	// Late are the job's window late outputs with how late their rows were
	// (analyzeflow.go), in branch order.
	Late []LateAnalysis
	// Both is the job's join of two streams (analyzejoin.go), nil when the
	// job reads one stream.
	Both *BothJoinAnalysis
	// RankThin is what the main query's Top-N after a swapped join did with
	// the join's left columns (rank.Operator.ThinLeft: 1 filled from the
	// join's kept left rows, -1 stored, 0 not linked or no rows).
	RankThin int

	chain *chain              // the probe chain, read at the end
	both  *joinSource         // the job's join of two streams, nil when none
	agg   *aggregate.Operator // its aggregate operator, nil when none
	joins []*joinState
	hold  *probeHold
	// future is the held probe stream's 'watermark.max-future' (maxfuture.go), nil when none
	future *futureSource
	start  time.Time
}

// JoinAnalysis is what one hash join did (SPEC 2.2).
type JoinAnalysis struct {
	// Branch is the index of the join's branch (side branches, then main).
	Branch int
	// Build is the counters of the build side's operator: RowsIn is the build
	// rows pushed into it (malformed ones excluded), Nanos its own time, ns.
	Build OpStats
	// Rows is the build rows that counted (its filter held, not late); Keys
	// the distinct keys kept; Bytes the bytes they are charged ('state.max-bytes').
	Rows, Keys, Bytes int64
	// Refused is the build rows 'watermark.max-future' refused (maxfuture.go).
	Refused int64
}

// WindowAnalysis is what the aggregate of one branch did (SPEC 2.4): the rows
// the branch took into it, the most windows open at once (sessions for
// SESSION; 1 for GROUP BY without a window, once a row came), the most groups
// held at once (over all its open windows), and the rows it sent to its late
// output. RowsOut is the rows it emitted (fired windows' groups, HAVING
// applied, or a TVF's rows without aggregation).
type WindowAnalysis struct {
	Branch         int // the index of its branch (side branches, then main)
	Rows           int64
	RowsOut        int64
	OpenWindowsMax int64
	GroupsMax      int64
	Late           int64
}

// joinState is a join's state, read when the job ends.
type joinState struct {
	branch int
	j      *plan.Join
	mb     *semiBuild
	future *futureSource // the build side's 'watermark.max-future', nil when none
}

// newAnalysis returns the analysis of job, started now.
func newAnalysis(job *plan.Job) *Analysis {
	n := len(job.Branches)
	if job.Main != nil {
		n++
	}
	return &Analysis{start: time.Now(), Branches: make([]int64, n), Outputs: make([]int64, len(job.Outputs))}
}

// setChain records c as the job's probe chain, with agg its aggregate
// operator (nil: none); nil-safe.
func (a *Analysis) setChain(c *chain, agg *aggregate.Operator) {
	if a == nil {
		return
	}
	a.chain, a.agg = c, agg
	a.Ops = c.stats
	c.sink.late = newLateTracker(c.assign.job, c)
}

// addJoin records the join state ks of branch b of job; nil-safe.
func (a *Analysis) addJoin(job *plan.Job, b *plan.Branch, ks *semiBuild) {
	if a == nil {
		return
	}
	for k, x := range job.AllBranches() {
		if x == b {
			a.joins = append(a.joins, &joinState{branch: k, j: b.Join, mb: ks})
		}
	}
}

// finish reads the operators' state once the job has ended (every goroutine
// of the job stopped); nil-safe.
func (a *Analysis) finish(job *plan.Job) {
	if a == nil {
		return
	}
	a.Nanos = time.Since(a.start).Nanoseconds()
	if c := a.chain; c != nil {
		copy(a.Branches, c.sink.parts)
		copy(a.Outputs, c.sink.outputs)
		for k := range a.Branches {
			f := c.sink.parts[c.sink.nb+3*k:]
			a.Flows = append(a.Flows, BranchFlow{Offered: f[0], Partnered: f[1], Taken: f[2]})
		}
		a.Late = c.sink.late.results()
		if m := c.assign.max; m != nil {
			a.Refused = m.refused
		}
		if f := a.future; f != nil {
			a.Refused += f.refused
		}
		if job.Watermark != nil && job.WatermarkCol >= 0 {
			a.Watermarks = append(a.Watermarks, finalWatermark(job.Stream.Name, job.BatchTypes[job.WatermarkCol], c.assign.wm, c.assign.set))
		}
		if c.rank != nil {
			a.RankThin = c.rank.ThinLeft()
		}
	}
	for _, js := range a.joins {
		mb := js.mb
		rows, keys := mb.op.MarkCounts()
		ja := JoinAnalysis{Branch: js.branch, Rows: rows, Keys: keys}
		if mb.acct != nil {
			ja.Bytes = mb.acct.Bytes()
		}
		if mb.stats != nil {
			ja.Build = *mb.stats
		}
		if f := js.future; f != nil {
			ja.Refused = f.refused
		}
		a.Joins = append(a.Joins, ja)
	}
	for _, js := range a.joins {
		if j := js.j; j.EventTime() {
			wm, set, _ := js.mb.watermark()
			a.Watermarks = append(a.Watermarks, finalWatermark(j.Build.Name, j.Build.Columns[j.BuildTime].Type, wm, set))
		}
	}
	if ao := a.agg; ao != nil {
		for _, c := range ao.Counters() {
			w := WindowAnalysis{Branch: c.Branch, Rows: c.Rows, RowsOut: c.RowsOut, OpenWindowsMax: c.OpenWindowsMax, GroupsMax: c.GroupsMax}
			if c.Late != nil {
				w.Late = c.Late.Rows
			}
			a.Windows = append(a.Windows, w)
		}
	}
	if h := a.hold; h != nil {
		a.HeldRowsMax, a.HeldBytesMax = h.maxRows, h.maxBytes
	}
	a.bothResults()
}

// finalWatermark is the watermark wm (ms, valid when set) of stream as its
// time column of type typ prints.
func finalWatermark(stream string, typ catalog.Type, wm int64, set bool) LiveWatermark {
	w := LiveWatermark{Stream: stream, Text: "unset"}
	if set {
		v := vector.NewVec(typ)
		v.I[0] = wm
		w.Set, w.Value, w.Text = true, wm, string(vector.AppendValue(nil, typ, v, 0))
	}
	return w
}

// Analyze runs job as Run does (SPEC 3, EXPLAIN ANALYZE) with its outputs
// discarded: no row is written to stdout, to a side output, to a sink stream
// (INSERT INTO, INTO STREAM) or to a dead-letter stream, which are not
// opened. It returns the job's Stats with Stats.Analysis set, also with the
// job's error (what happened until the failure or the cancellation), which
// is Run's: a *RowError, a *StateLimitError, ctx.Err(), a source's error.
func Analyze(ctx context.Context, job *plan.Job, env *Env) (Stats, error) {
	return runWith(ctx, job, env, func() (Sink, error) { return discard{}, nil }, runMode{timed: true})
}

// discard is the sink of EXPLAIN ANALYZE: it drops everything.
type discard struct{}

func (discard) Rows(*Step) error                { return nil }
func (discard) Errors(string, []ErrorRow) error { return nil }
func (discard) Flush() error                    { return nil }
func (discard) Close() error                    { return nil }
