package executor

import (
	"sort"

	"streamql/executor/connector"
	"streamql/planner/plan"
)

// BranchFlow is where the rows that reached one branch went (EXPLAIN ANALYZE,
// SPEC 4 "Finding out why"): Offered is the rows the router offered it (those
// no branch before took, SPEC 2.1's first match), Partnered those its join
// found a partner for (Offered when it has no join), Taken those its join and
// WHERE passed. Counted by the router once per batch, before the LIMIT.
type BranchFlow struct {
	Offered, Partnered, Taken int64
}

// LateAnalysis is what reached one late output of a window query (SPEC 2.4):
// the rows, how far below the watermark before them they were (ms, the
// largest and the median), the stream whose watermark made them late and,
// for a partitioned source (SPEC 2.5), the rows per partition (each row is
// late by its partition's watermark).
type LateAnalysis struct {
	Output       int // index into plan.Job.Outputs
	Stream       string
	Rows         int64
	MaxMs        int64
	MedianMs     int64
	Partitioned  bool
	ByPartition  map[int32]int64
	lateness     []int64
	wmCol, tCol  int
	parts        connector.PartitionedSource
	partsChecked bool
}

// lateTracker measures the late outputs' rows at the sink (sinkOp), in an
// EXPLAIN ANALYZE run only.
type lateTracker struct {
	byOutput map[int]*LateAnalysis
	order    []*LateAnalysis
	chain    *chain
}

// newLateTracker returns the tracker of job's window late outputs, nil when
// the stream has no watermark or the job no window.
func newLateTracker(job *plan.Job, c *chain) *lateTracker {
	if job.Watermark == nil || job.WatermarkCol < 0 {
		return nil
	}
	t := &lateTracker{byOutput: map[int]*LateAnalysis{}, chain: c}
	for _, b := range job.AllBranches() {
		if b.Agg == nil || b.Agg.Window == nil || b.Agg.LateOutput < 0 {
			continue
		}
		if t.byOutput[b.Agg.LateOutput] != nil {
			continue
		}
		la := &LateAnalysis{Output: b.Agg.LateOutput, Stream: job.Stream.Name, wmCol: job.WatermarkCol, tCol: b.Agg.Window.TimeCol, ByPartition: map[int32]int64{}}
		t.byOutput[b.Agg.LateOutput] = la
		t.order = append(t.order, la)
	}
	if len(t.order) == 0 {
		return nil
	}
	return t
}

// count measures the rows of r's parts bound for a late output; nil-safe.
func (t *lateTracker) count(r *Step) {
	if t == nil || r.In == nil {
		return
	}
	for k := range r.Parts {
		p := &r.Parts[k]
		la := t.byOutput[p.Output]
		if la == nil || len(p.Sel) == 0 {
			continue
		}
		if !la.partsChecked {
			la.partsChecked = true
			if a := t.chain.assign; a != nil && a.parts != nil {
				la.parts, la.Partitioned = a.parts.src, true
			}
		}
		wm, tc := r.In.Cols[la.wmCol], r.In.Cols[la.tCol]
		for _, i := range p.Sel {
			la.Rows++
			if la.parts != nil {
				la.ByPartition[la.parts.Partition(r.In.Pos[i])]++
			}
			if wm.Null[i] || tc.Null[i] {
				continue
			}
			la.lateness = append(la.lateness, wm.I[i]-tc.I[i])
		}
	}
}

// results returns the late outputs' analyses, largest and median computed.
func (t *lateTracker) results() []LateAnalysis {
	if t == nil {
		return nil
	}
	var out []LateAnalysis
	for _, la := range t.order {
		if n := len(la.lateness); n > 0 {
			sort.Slice(la.lateness, func(i, j int) bool { return la.lateness[i] < la.lateness[j] })
			la.MaxMs, la.MedianMs = la.lateness[n-1], la.lateness[(n-1)/2]
		}
		x := *la
		x.lateness = nil
		out = append(out, x)
	}
	return out
}
