package planner

import (
	"streamql/catalog"
	"streamql/planner/plan"
)

// ruleFuseJoinWindow plans a window aggregate (TUMBLE, HOP, CUMULATE or
// SESSION, SPEC 2.4) over a subquery, view or WITH relation that is an append-only
// join of two Kafka streams read in one consumer group (an INNER, LEFT or
// RIGHT interval join, or a temporal join, SPEC 2.7; Nexmark q7's and q8's
// shapes of a window over joined rows, SPEC 2.6) as one job: the join,
// then the window aggregate over its rows, as ruleInlineView does for a
// relation over one stream. The job reads both streams in the group and
// commits their offsets, so the join's state and the aggregate's windows
// are replayed (plan.Job.JoinWindowReplayed; the connector package doc,
// "A window aggregate over a join"): a derived relation's jobs read their
// streams whole and commit nothing (the executor's derived.go).
//
// The job's stream is the joined relation (plan.JoinedStream) with the
// relation's event time: its WATERMARK is the relation's (the join's
// output time held back by the join's delay, plan.BothJoin.OutputTime:
// the left row's time, less the interval's lower bound when it is
// negative), over the joined rows, so the aggregate fires exactly as it
// does over the relation (no joined row is late for it: the join gives
// none below that watermark), and the job's output is the one the
// relation's reader gives. The aggregate's keys, arguments and WHERE read
// the relation's expressions over the joined rows (inlineCols); its
// HAVING and select list read the aggregate row as they did.
//
// Side branches over the relation beside the window (SPEC 2.1) are
// planned over the joined rows with it when each filters and projects the
// relation's rows, or aggregates them (a window on the relation's event
// time, or an updating GROUP BY: fuseSideAgg; inlineSides): SPEC 2.1's
// first match then gives each the joined rows it took and the window the
// rest, as over the relation; their replay is the window's with the
// join's watermark as the commit's f (plan.Job.JoinWindowReplayed; the
// executor's newJoinAggReplay), the side aggregates' changes and windows
// of the pairs the run before wrote not written again.
//
// The shape: main is a window aggregate (not a cascaded one) with no
// join, UNNEST, LIMIT, rank or dead letters, whose DESCRIPTOR names the relation's event time; the
// relation has one part, a job over the join with no side branch, dead
// letters, aggregate, rank, UNNEST or LIMIT, whose select list reads no
// clock or random draw and projects the join's output time as it is; both
// inputs are Kafka streams of one group with event time, neither
// updating. A job reading any other relation (files, streams read whole,
// no group) is left alone, so every other output stays as it was. It
// returns the stream, side branches and main query of the job: the joined
// relation's, with the branches' and main's expressions rewritten, when
// the shape fits; st, branches and main as they are otherwise.
func ruleFuseJoinWindow(st *catalog.Stream, branches []*Branch, main *Branch) (*catalog.Stream, []*Branch, *Branch) {
	d := plan.DerivedOf(st)
	if d == nil || len(d.Parts) != 1 || main == nil || main.Join != nil || main.Unnest != nil ||
		main.Both != nil || main.Rank != nil || main.Limit >= 0 || len(main.DeadLetters) > 0 {
		return st, branches, main
	}
	a := main.Agg
	if a == nil || a.Window == nil || !a.Grouped || a.Updating || a.Window.Of != nil || a.Window.ProcTime ||
		d.TimeCol < 0 || a.Window.TimeCol != d.TimeCol {
		return st, branches, main
	}
	part := d.Parts[0]
	pm, both := part.Main, part.Both
	if pm == nil || both == nil || pm.Both != both || len(part.Branches) > 0 || len(part.DeadLetters) > 0 || part.Unnest != nil ||
		pm.Agg != nil || pm.Rank != nil || pm.Join != nil || pm.Unnest != nil || pm.Limit >= 0 || pm.Sink != nil ||
		!fusableJoin(both) {
		return st, branches, main
	}
	if !allSteady(pm.Project) {
		return st, branches, main
	}
	lt, delay, ok := both.OutputTime()
	if !ok || d.TimeCol >= len(pm.Project) || pm.Project[d.TimeCol].Op != plan.OpCol || pm.Project[d.TimeCol].Col != lt || d.Watermark == nil {
		return st, branches, main
	}
	// the joined relation, with the relation's event time and watermark
	// over the joined rows
	js := *part.Stream
	js.EventTime = lt
	wm := inlineCols(d.Watermark, pm.Project, -1, -1)
	if wm == nil {
		return st, branches, main
	}
	c := *wm // (inlineCols may return the projection's own expression)
	wm = &c
	wm.Text = js.Columns[lt].Name
	if delay > 0 {
		wm.Text += " - " + intervalText(delay)
	}
	wm.Text += " (the " + both.Kind() + "'s output time, over the joined rows)"
	js.Watermark = &catalog.Watermark{Text: wm.Text, Def: wm}
	_, dwm := batchLayout(st)
	_, swm := batchLayout(&js)
	subst := func(e *Expr) *Expr { return inlineCols(e, pm.Project, dwm, swm) }
	aa := inlineAgg(a, subst, dwm, swm)
	if aa == nil {
		return st, branches, main
	}
	if aa.Window = inlineWindow(a.Window, lt, subst); aa.Window == nil {
		return st, branches, main
	}
	b := *main
	b.Agg = aa
	if b.Where, ok = inlineWhere(pm.Where, main.Where, subst); !ok {
		return st, branches, main
	}
	bj := *both // (LateOutput is the fused job's: ruleBothJoinJob)
	b.Both, b.Stream, b.Uses = &bj, &js, pm.Uses
	sideAgg := func(sa *plan.Aggregate) *plan.Aggregate { return fuseSideAgg(sa, d, lt, subst, dwm, swm) }
	sides, ok := inlineSides(st, branches, &js, pm, subst, sideAgg)
	if !ok { // (plan.Derived.joinWindowWhy)
		return st, branches, main
	}
	return &js, sides, &b
}

// fuseSideAgg returns aggregate a of a side branch over relation d, beside
// the window of ruleFuseJoinWindow, planned over the joined rows (lt the
// joined stream's time column; subst, dwm and swm as inlineAgg's): a
// TUMBLE, HOP, CUMULATE or SESSION aggregate on the relation's event time
// (it fires by the job's one watermark over the joined rows, as the main
// window does), or an updating GROUP BY or global aggregate (SPEC 2.8)
// without mini-batch; nil for any other (a cascaded window, a window TVF
// read without GROUP BY, one on processing time or on another column),
// which keeps the relation a job of its own. Such a side is replayed with
// the window (plan.Job.JoinWindowReplayed; the connector package doc, "A
// window aggregate over a join").
func fuseSideAgg(a *plan.Aggregate, d *plan.Derived, lt int, subst func(*Expr) *Expr, dwm, swm int) *plan.Aggregate {
	if !a.Grouped || a.MiniBatch {
		return nil
	}
	if w := a.Window; w != nil && (a.Updating || w.Of != nil || w.ProcTime || d.TimeCol < 0 || w.TimeCol != d.TimeCol) || w == nil && !a.Updating {
		return nil
	}
	aa := inlineAgg(a, subst, dwm, swm)
	if aa == nil {
		return nil
	}
	if a.Window != nil {
		if aa.Window = inlineWindow(a.Window, lt, subst); aa.Window == nil {
			return nil
		}
	}
	return aa
}

// fusableJoin reports whether join j can be planned as one job with a
// window aggregate over its rows (ruleFuseJoinWindow): an append-only
// interval (INNER, LEFT or RIGHT: a RIGHT one's output time is its right
// row's, plan.BothJoin.OutputTime, and a padded right row's position its
// own, in the co-partitioned partition of the same number, so the
// replay's FiredBy and Drop by partition hold for it as for a pair) or
// temporal join with an output time, whose
// inputs are both Kafka streams of one consumer group with event time,
// neither updating, each its own stream (not a join or relation).
func fusableJoin(j *plan.BothJoin) bool {
	if j.Lookup || j.Window || j.Updating() || !(j.Interval || j.Temporal) || j.StateTTL > 0 || j.Swap {
		return false
	}
	group := ""
	for s := range j.Inputs {
		in := &j.Inputs[s]
		k := in.Stream.Kafka()
		if plan.DerivedOf(in.Stream) != nil || k == nil || k.GroupID == "" || in.TimeCol() < 0 || in.Watermark == nil {
			return false
		}
		if s == 1 && k.GroupID != group {
			return false
		}
		group = k.GroupID
	}
	return true
}
