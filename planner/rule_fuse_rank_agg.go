package planner

import (
	"streamql/catalog"
	"streamql/planner/plan"
)

// ruleFuseRankAgg plans a Top-N over a subquery, view or WITH relation
// whose one query is an unbounded GROUP BY of a Kafka stream read in a
// consumer group (SELECT … FROM (SELECT k, COUNT(*) c FROM s GROUP BY k)
// … ROW_NUMBER() … <= 3; SPEC 2.5, 2.8, 2.9) as one job over that stream:
// its main query aggregates, projects the Top-N's input from the groups'
// rows and ranks their changes (op.RetractTopN). It returns the stream,
// side branches and main query the job is made of: main (the outer query)
// merged into the relation's query, over the relation's stream, when the
// shape fits; st, branches and main as they are otherwise.
//
// A derived relation's jobs read their streams whole and commit no
// offsets (the executor's derived.go), so the Top-N over it was lost by a
// crash; one job reads the stream in the group and both operators are
// replayed from each partition's first row that made a group, the
// aggregate's changes of the rows read again going into the Top-N's state
// only (plan.Job.AggRankReplayed, the executor's replay.go). The shape: the
// relation has one query with no side branch, dead letters, join, UNNEST,
// window, LIMIT or Top-N of its own, over a Kafka stream with
// 'properties.group.id'; the outer query has no side branch, join,
// UNNEST or LIMIT, and its Top-N retracts (plan.Rank.Retract) and reads no
// CURRENT_WATERMARK of the relation. Its columns are the relation's
// columns' expressions over the groups' rows, and its WHERE (a condition
// over the relation's columns before the Top-N ranks them) joins the
// aggregate's HAVING: both keep or drop each row of a change alone
// (executor/aggregate's groupagg.go), so the Top-N gets the same changes.
func ruleFuseRankAgg(st *catalog.Stream, branches []*Branch, main *Branch) (*catalog.Stream, *Branch) {
	d := plan.DerivedOf(st)
	if d == nil || len(d.Parts) != 1 || len(branches) > 0 || main == nil {
		return st, main
	}
	r := main.Rank
	if r == nil || r.Kind != plan.RankTopN || !r.Retract || r.Bounded || main.Agg != nil ||
		main.Join != nil || main.Unnest != nil || main.Both != nil || main.Limit >= 0 || len(main.DeadLetters) > 0 {
		return st, main
	}
	pst, pm := groupByPart(d)
	if pm == nil {
		return st, main
	}
	proj := make([]*Expr, len(main.Project))
	for k, e := range main.Project {
		if proj[k] = inlineCols(e, pm.Project, -1, -1); proj[k] == nil {
			return st, main
		}
	}
	b := *pm
	if main.Where != nil { // (a condition over the groups' rows: HAVING, which filters each row of a change as a WHERE over them does)
		w := inlineCols(main.Where, pm.Project, -1, -1)
		if w == nil {
			return st, main
		}
		a := *pm.Agg
		if a.Having != nil {
			w = &Expr{Op: plan.OpAnd, Type: w.Type, Args: []*Expr{a.Having, w}, Text: a.Having.Text + " AND " + w.Text}
		}
		a.Having, b.Agg = w, &a
	}
	b.Project, b.Columns, b.Rank = proj, main.Columns, r
	b.Sink, b.SinkPos, b.Text = main.Sink, main.SinkPos, main.Text
	b.Line, b.Column, b.Script = main.Line, main.Column, main.Script
	b.Limit = -1
	return pst, &b
}

// groupByPart returns the stream and the query of derived relation d when
// d is one unbounded GROUP BY (or global aggregate) of a Kafka stream read
// in a consumer group, with no side branch, dead letters, join, UNNEST,
// window, LIMIT or rank of its own (ruleFuseRankAgg's and
// ruleFuseRankAggSides' shape); nil, nil otherwise.
func groupByPart(d *plan.Derived) (*catalog.Stream, *Branch) {
	part, pm := streamPart(d)
	if pm == nil || pm.Agg == nil || !pm.Agg.Updating || pm.Agg.Window != nil || pm.Rank != nil || pm.Join != nil || pm.Limit >= 0 {
		return nil, nil
	}
	if kc := part.Stream.Kafka(); kc == nil || kc.GroupID == "" {
		return nil, nil
	}
	return part.Stream, pm
}
