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
// made that one job) or over the stream's rows. The query's WHERE and select
// list become the Rank's Where and Calc (Flink's Calc over a Rank), applied
// to each change the operator emits; the job reads the stream in the group
// and commits its offsets, so its state is replayed (plan.Job.Unreplayed):
// a derived relation's jobs read their streams whole and commit nothing
// (the executor's derived.go). It returns the stream and main query of the
// job: the relation's job's, with main's WHERE, select list, columns, sink
// and text, when the shape fits; st and main as they are otherwise.
//
// The shape: the relation has one part, a job with no side branch, dead
// letters, join, UNNEST, LIMIT, late output or fused query of its own,
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
	b.Rank, b.Columns = &r, main.Columns
	b.Sink, b.SinkPos, b.Text = main.Sink, main.SinkPos, main.Text
	b.Line, b.Column, b.Script = main.Line, main.Column, main.Script
	return part.Stream, &b
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
