package planner

import (
	"streamql/catalog"
	"streamql/planner/plan"
)

// ruleFuseRankAggSides plans the side branches over a view of an
// unbounded GROUP BY of a Kafka stream read in a consumer group (CREATE
// VIEW g AS SELECT k, SUM(v) AS c FROM s GROUP BY k; SELECT k, c INTO SIDE
// 'big' FROM g WHERE c > 100; SPEC 2.1, 2.5, 2.8), with the main query
// over the view (a Top-N over it, ruleFuseRankAgg's, SPEC 2.9; or a filter
// and projection of its rows) or without one, as one job over the view's
// stream: the view's job reads its stream whole and commits no offsets
// (the executor's derived.go), so what the branches took from it was lost
// by a crash. In the job every branch computes the view's GROUP BY itself
// and every row of the stream is offered to every branch (plan.Job.Fanout):
// each branch's aggregate is the view's (its keys, calls and WHERE over
// the stream's rows), and which of the groups' changes a branch takes is
// its aggregate's HAVING: the view's HAVING, then SPEC 2.1's first match
// over the view's rows, branch k taking a row its WHERE holds for (every
// row without one) and no earlier side's does (IS TRUE, IS NOT TRUE: a
// NULL takes no row), a Top-N taking the rows no side takes, before its
// own condition (ruleFuseRankAgg's). HAVING keeps or drops each row of a
// change alone (executor/aggregate's groupagg.go), as routing the view's
// changelog row by row does, so each output gets the changes it got over
// the view. The branches' select lists read the groups' rows as they read
// the view's columns.
//
// All are replayed (the executor's replay.go): each partition is read
// again from its first row that made a group; a Top-N's aggregate passes
// the changes of the rows read again into its state (plan.Job.
// AggRankReplayed), the other branches' aggregates take those rows into
// their groups only (their changes were written). The cost is a copy of
// the groups per branch. The shape: the view is groupByPart's; each
// branch filters and projects the view's rows (no aggregate, join, UNNEST,
// LIMIT or dead letters of its own, no CURRENT_WATERMARK read), or is
// ruleFuseRankAgg's Top-N as the main query; each but the last has a WHERE
// (one without takes every row, leaving the later ones none). It returns
// the job's stream, side branches and main query, and whether its rows
// fan out to every branch; st, branches, main and false when the shape
// does not fit.
func ruleFuseRankAggSides(st *catalog.Stream, branches []*Branch, main *Branch) (*catalog.Stream, []*Branch, *Branch, bool) {
	d := plan.DerivedOf(st)
	if d == nil || len(branches) == 0 {
		return st, branches, main, false
	}
	pst, pm := groupByPart(d)
	if pm == nil {
		return st, branches, main, false
	}
	plain := func(b *Branch) bool { // (a filter and projection of the relation's rows)
		return b.Agg == nil && b.Rank == nil && b.Join == nil && b.Unnest == nil && b.Both == nil && b.Limit < 0 && len(b.DeadLetters) == 0 && b.Stream == st
	}
	// the branches' WHERE over the groups' rows, in order (nil: none, only
	// the last branch's: one before would leave the later ones no row)
	all := append(append([]*Branch{}, branches...), main)
	if main == nil || main.Rank != nil {
		all = all[:len(branches)]
	}
	wheres := make([]*Expr, len(all))
	for k, b := range all {
		last := k == len(all)-1 && (main == nil || main.Rank == nil) // (the job's last branch)
		if !plain(b) || b.Where == nil && !last {
			return st, branches, main, false
		}
		if b.Where != nil {
			if wheres[k] = inlineCols(b.Where, pm.Project, -1, -1); wheres[k] == nil {
				return st, branches, main, false
			}
		}
	}
	fused := make([]*Branch, len(all))
	for k, b := range all {
		proj := make([]*Expr, len(b.Project))
		for c, e := range b.Project {
			if proj[c] = inlineCols(e, pm.Project, -1, -1); proj[c] == nil {
				return st, branches, main, false
			}
		}
		fb := *b
		fb.Stream, fb.Uses, fb.Where, fb.Project = pst, pm.Uses, pm.Where, proj
		fb.Agg = routedAgg(pm.Agg, pm.Agg.Having, wheres[:k], wheres[k])
		fused[k] = &fb
	}
	sides, fm := fused[:len(branches)], main
	switch {
	case main == nil:
	case main.Rank == nil:
		fm = fused[len(branches)]
	default: // a Top-N over the relation (ruleFuseRankAgg), after every side
		fst, rm := ruleFuseRankAgg(st, nil, main)
		if fst == st {
			return st, branches, main, false
		}
		m := *rm
		m.Agg = routedAgg(rm.Agg, rm.Agg.Having, wheres, nil)
		fm = &m
	}
	return pst, sides, fm, true
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
