package planner

import (
	"streamql/catalog"
	"streamql/planner/plan"
)

// ruleFuseRankCalc plans a query that filters and projects a subquery,
// view or WITH relation whose one job ends with a rank operator replayed
// over a Kafka stream in a consumer group (SPEC 2.5, 2.9) as that one job:
// the Top-N with a condition beside its bound (WHERE rn <= 3 AND n > 5,
// which topNThenFilter plans as a query over the Top-N), or with an
// expression in its select list, over a subquery's GROUP BY (ruleFuseRankAgg
// made that one job), over the stream's rows, or over the rows of an
// append-only join of two Kafka streams of one group (an interval or
// temporal join, SPEC 2.7; joinPart: the Top-N is replayed with the join,
// plan.Job.JoinRankReplayed, issue 23 item 6). The query's WHERE and select
// list become the Rank's Where and Calc (Flink's Calc over a Rank), applied
// to each change the operator emits; the job reads the stream in the group
// and commits its offsets, so its state is replayed (plan.Job.Unreplayed):
// a derived relation's jobs read their streams whole and commit nothing
// (the executor's derived.go). It returns the stream and main query of the
// job: the relation's job's, with main's WHERE, select list, columns, sink
// and text, when the shape fits; st and main as they are otherwise.
//
// The shape: the relation has one part, a job with no side branch, dead
// letters, semi or anti join, UNNEST, LIMIT, late output or fused query
// of its own (a join of two streams keeps its late outputs: the fused
// job's, ruleBothJoinJob),
// whose state is replayed (plan.Job.ReplayStrategy) and whose main query
// ends with a rank operator; main has no side branch beside it, aggregate,
// rank, join, UNNEST, LIMIT or dead letters, and reads only the relation's
// columns (no CURRENT_WATERMARK: the fused job's watermark is the
// stream's). A job reading any other stream is left alone, so every other
// output stays as it was.
func ruleFuseRankCalc(st *catalog.Stream, branches []*Branch, main *Branch) (*catalog.Stream, *Branch) {
	d := plan.DerivedOf(st)
	if d == nil || len(d.Parts) != 1 || len(branches) > 0 || main == nil || main.Rank != nil || main.Agg != nil ||
		main.Join != nil || main.Unnest != nil || main.Both != nil || main.Limit >= 0 || len(main.DeadLetters) > 0 {
		return st, main
	}
	part, pm := streamPart(d)
	if pm == nil {
		part, pm = joinPart(d)
	}
	if pm == nil || pm.Rank == nil || pm.Rank.Fused() || pm.Rank.LateOutput >= 0 || pm.Join != nil || pm.Limit >= 0 || pm.Sink != nil ||
		part.ReplayStrategy() != "replayed" {
		return st, main
	}
	ncols := len(pm.Columns)
	if main.Where != nil && !readsColumns(main.Where, ncols) {
		return st, main
	}
	for _, e := range main.Project {
		if !readsColumns(e, ncols) {
			return st, main
		}
	}
	r := *pm.Rank
	r.Where, r.Calc = main.Where, main.Project
	b := *pm
	if pm.Both != nil {
		bj := *pm.Both // (LateOutput is the fused job's: ruleBothJoinJob)
		b.Both = &bj
	}
	b.Rank, b.Columns = &r, main.Columns
	b.Sink, b.SinkPos, b.Text = main.Sink, main.SinkPos, main.Text
	b.Line, b.Column, b.Script = main.Line, main.Column, main.Script
	return part.Stream, &b
}

// joinPart returns the one part of relation d and its main query when the
// part is a query of a join of two streams (plan.BothJoin, SPEC 2.7): a
// main query reading the join, no side branch, dead letter or UNNEST (the
// join's late outputs are its other outputs); nil, nil otherwise. It is
// the shape ruleFuseRankCalc plans in the reading job when the join's
// Top-N is replayed with it (plan.Job.JoinRankReplayed).
func joinPart(d *plan.Derived) (*plan.Job, *Branch) {
	if len(d.Parts) != 1 {
		return nil, nil
	}
	part := d.Parts[0]
	pm := part.Main
	if pm == nil || part.Both == nil || pm.Both != part.Both || len(part.Branches) > 0 || len(part.DeadLetters) > 0 || part.Unnest != nil {
		return nil, nil
	}
	return part, pm
}

// readsColumns reports whether e reads only columns below n of its batch
// (no CURRENT_WATERMARK column, which a relation's batch has after its
// own).
func readsColumns(e *Expr, n int) bool {
	switch e.Op {
	case plan.OpCol:
		return e.Col >= 0 && e.Col < n
	case plan.OpCurrentWatermark:
		return false
	}
	for _, a := range e.Args {
		if !readsColumns(a, n) {
			return false
		}
	}
	return true
}
