package planner

import (
	"streamql/catalog"
	"streamql/planner/plan"
)

// ruleFuseRankAggSides is ruleFuseRankAgg for a job that also has side
// branches over the relation (CREATE VIEW g AS SELECT k, SUM(v) AS c FROM s
// GROUP BY k; SELECT k, c INTO SIDE 'big' FROM g WHERE c > 100; a Top-N
// over g as the main query; SPEC 2.1, 2.5, 2.8, 2.9): the relation's job
// reads its stream whole and commits no offsets (the executor's
// derived.go), so the Top-N over it and what the side branches took were
// lost by a crash. It plans them as one job over the relation's stream in
// which every branch computes the relation's GROUP BY itself and every row
// of the stream is offered to every branch (plan.Job.Fanout): each branch's
// aggregate is the relation's (its keys, calls and WHERE over the stream's
// rows), and which of the groups' changes a branch takes is its
// aggregate's HAVING: the relation's HAVING, then SPEC 2.1's first match
// over the relation's rows, side branch k taking a row its WHERE holds for
// and no earlier side's does (IS TRUE, IS NOT TRUE: a NULL takes no row),
// the main query the rows no side takes, before its Top-N's own condition
// (ruleFuseRankAgg's). HAVING keeps or drops each row of a change alone
// (executor/aggregate's groupagg.go), as routing the relation's changelog
// row by row does, so each output gets the changes it got over the
// relation. The side branches' select lists read the groups' rows as they
// read the relation's columns.
//
// Both are replayed (plan.Job.AggRankReplayed; the executor's replay.go):
// each partition is read again from its first row that made a group, the
// main query's aggregate passing the changes of the rows read again into
// the Top-N's state, the side branches' aggregates taking those rows into
// their groups only (their changes were written). The cost is a copy of
// the groups per branch. The shape: ruleFuseRankAgg's, and each side
// branch has a WHERE (a side that takes every row leaves the Top-N none)
// reading no CURRENT_WATERMARK, and no aggregate, rank, join, UNNEST, LIMIT
// or dead letters of its own. It returns the job's stream, side branches
// and main query, and whether its rows fan out to every branch; st,
// branches, main and false when the shape does not fit.
func ruleFuseRankAggSides(st *catalog.Stream, branches []*Branch, main *Branch) (*catalog.Stream, []*Branch, *Branch, bool) {
	d := plan.DerivedOf(st)
	if d == nil || len(d.Parts) != 1 || len(branches) == 0 {
		return st, branches, main, false
	}
	pm := d.Parts[0].Main
	for _, b := range branches {
		if b.Where == nil || b.Agg != nil || b.Rank != nil || b.Join != nil || b.Unnest != nil || b.Both != nil ||
			b.Limit >= 0 || len(b.DeadLetters) > 0 || b.Stream != st {
			return st, branches, main, false
		}
	}
	fst, fm := ruleFuseRankAgg(st, nil, main)
	if fst == st || pm == nil {
		return st, branches, main, false
	}
	// the side branches' WHERE over the groups' rows, in order
	wheres := make([]*Expr, len(branches))
	for k, b := range branches {
		if wheres[k] = inlineCols(b.Where, pm.Project, -1, -1); wheres[k] == nil {
			return st, branches, main, false
		}
	}
	sides := make([]*Branch, len(branches))
	for k, b := range branches {
		proj := make([]*Expr, len(b.Project))
		for c, e := range b.Project {
			if proj[c] = inlineCols(e, pm.Project, -1, -1); proj[c] == nil {
				return st, branches, main, false
			}
		}
		sb := *b
		sb.Stream, sb.Uses, sb.Where, sb.Project = fst, pm.Uses, pm.Where, proj
		sb.Agg = routedAgg(pm.Agg, pm.Agg.Having, wheres[:k], wheres[k])
		sides[k] = &sb
	}
	m := *fm
	m.Agg = routedAgg(fm.Agg, fm.Agg.Having, wheres, nil)
	return fst, sides, &m, true
}

// routedAgg returns a copy of a whose HAVING is having (nil: none) AND
// take IS TRUE (take nil: TRUE) AND each of before IS NOT TRUE: the rows
// of the groups' changes SPEC 2.1's first-match routing gives the branch
// whose WHERE is take, after the branches whose WHERE are before.
func routedAgg(a *plan.Aggregate, having *Expr, before []*Expr, take *Expr) *plan.Aggregate {
	conds := []*Expr{}
	if having != nil {
		conds = append(conds, having)
	}
	if take != nil {
		conds = append(conds, &Expr{Op: plan.OpIsTruth, Type: catalog.Boolean, Args: []*Expr{take}, Want: true, Text: "(" + take.Text + ") IS TRUE"})
	}
	for _, w := range before {
		conds = append(conds, &Expr{Op: plan.OpIsTruth, Type: catalog.Boolean, Args: []*Expr{w}, Want: true, Flag: true, Text: "(" + w.Text + ") IS NOT TRUE"})
	}
	c := *a
	c.Having = nil
	for _, e := range conds {
		if c.Having == nil {
			c.Having = e
			continue
		}
		c.Having = &Expr{Op: plan.OpAnd, Type: catalog.Boolean, Args: []*Expr{c.Having, e}, Text: c.Having.Text + " AND " + e.Text}
	}
	return &c
}
