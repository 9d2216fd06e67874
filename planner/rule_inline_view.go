package planner

import (
	"streamql/catalog"
	"streamql/planner/plan"
)

// ruleInlineView plans a Top-N or a deduplication (SPEC 2.9), an
// updating GROUP BY or global aggregate (SPEC 2.8), or a TUMBLE, HOP,
// CUMULATE or SESSION aggregate (SPEC 2.4) directly over
// a subquery, view or WITH relation that only filters and projects a
// Kafka stream read in a consumer group (CREATE VIEW v AS SELECT k, x * 2
// AS y, ts FROM s WHERE x > 0; SPEC 2.5, 2.6) as one job over that stream:
// the relation's operators keep no state, so its WHERE joins the query's
// and the query's expressions read the relation's columns' expressions
// over the stream's rows. The job reads the stream in the group and
// commits its offsets, so the rank operator's or aggregate's state is replayed
// (plan.Job.Unreplayed): a derived relation's jobs read their streams whole
// and commit nothing (the executor's derived.go). It returns the stream,
// side branches and main query of the job: the stream's, with main's expressions
// rewritten (and its side branches, inlineSides), when the shape fits; st,
// branches and main as they are otherwise.
//
// The shape: main has no side branch beside it (but a window aggregate,
// below), and ends with an updating
// Top-N over append-only rows or a deduplication keeping the first row,
// or with an updating aggregate without a window and nothing after it (its
// keys and calls' arguments read the relation's expressions, its HAVING and
// select list the aggregate row as they did; when the stream has a
// WATERMARK and the relation drops the event time, the groups'
// 'table.exec.state.ttl' keeps the processing-time clock it has over the
// relation, plan.Aggregate.ProcTimeTTL, while the stream's watermark
// stamps the rows for the replay's frontiers), with no
// join, UNNEST, LIMIT or dead letters; the relation has
// one part, a job with no side branch, dead letters, late output, join,
// UNNEST, aggregate, rank or LIMIT, over a Kafka stream of a group (not
// another relation), whose select list reads no clock or random draw (each
// expression is computed again where main reads it); the relation's event
// time, when main reads its CURRENT_WATERMARK, is the stream's WATERMARK
// FOR column projected as it is (the relation's watermark is then the
// stream's). A deduplication's late rows stay the relation's rows (SPEC
// 2.4, 2.9: the operator's input row): the relation's select list
// computed for them (plan.Rank.LateProject, LateColumns), as a window's
// below (an updating aggregate and an updating Top-N have none).
//
// A window aggregate (TUMBLE, HOP, CUMULATE or SESSION, grouped, not
// cascaded, not on processing time: inlinableWindow) is inlined
// when its DESCRIPTOR names the relation's event time and that column is
// the stream's WATERMARK FOR column projected as it is: the window is then
// on the stream's event time (SESSION's PARTITION BY keys the relation's
// expressions), its CURRENT_WATERMARK column the stream's,
// and it is replayed as a window over the stream is (the connector
// package doc, I1-I4; issue 24 item 5, issue 23 item 6). Its late rows
// stay the relation's rows (SPEC 2.4: the input row, as SELECT *): the
// relation's select list computed for them (plan.Aggregate.LateProject,
// LateColumns). The watermark is the stream's, per partition (SPEC 2.5),
// carried through the relation's WHERE as SPEC 2.6 says ("keeps its
// watermark through projections, filters"), as the relation read as a job
// of its own carries it too (plan.Derived.StreamWatermarks), so the two give the
// same rows (executor's TestWindowOverViewInlinedIsTheRelations).
// Side branches over the same relation beside such a window (issue 24
// item 5) are planned over the stream with it when each filters and
// projects the relation's rows (inlineSides): the returned branches are
// then theirs, SPEC 2.1's first match over the stream's rows giving each
// the relation's rows it took and the window the rest, as over the
// relation.
//
// A job reading any other stream (a file, a stream read whole) is left
// alone, so every other output stays as it was.
func ruleInlineView(st *catalog.Stream, branches []*Branch, main *Branch) (*catalog.Stream, []*Branch, *Branch) {
	d := plan.DerivedOf(st)
	if d == nil || len(d.Parts) != 1 || main == nil || main.Join != nil ||
		main.Unnest != nil || main.Both != nil || main.Limit >= 0 || len(main.DeadLetters) > 0 {
		return st, branches, main
	}
	r, a := main.Rank, main.Agg
	switch {
	case a != nil:
		// an updating GROUP BY (or global aggregate), or a window
		// aggregate on the relation's event time, with nothing
		// after it
		if r != nil || !a.Grouped || a.Window == nil && !a.Updating || a.Window != nil && !inlinableWindow(a, d) {
			return st, branches, main
		}
	case r == nil || r.Bounded || r.Fused() || !(r.Kind == plan.RankTopN && r.Updating && !r.Retract || r.Kind == plan.RankDedup):
		return st, branches, main
	}
	if len(branches) > 0 && (a == nil || a.Window == nil) {
		return st, branches, main // (side branches only beside a window: inlineSides)
	}
	part, pm := streamPart(d)
	if pm == nil || pm.Agg != nil || pm.Rank != nil || pm.Join != nil || pm.Unnest != nil || pm.Both != nil || pm.Limit >= 0 || pm.Sink != nil ||
		part.Stream.Kafka() == nil || part.Stream.Kafka().GroupID == "" {
		return st, branches, main
	}
	if !allSteady(pm.Project) {
		return st, branches, main
	}
	// the relation's CURRENT_WATERMARK column (its batch's last), and the
	// stream's: one value when the relation's time is the stream's event
	// time projected as it is
	_, dwm := batchLayout(st)
	_, swm := batchLayout(part.Stream)
	if dwm >= 0 {
		if t := d.TimeCol; swm < 0 || t < 0 || t >= len(pm.Project) || pm.Project[t].Op != plan.OpCol || pm.Project[t].Col != part.Stream.EventTime {
			dwm = -2 // (no column maps to it)
		}
	}
	if a != nil && a.Window != nil && (dwm < 0 || a.WmCol != dwm || len(pm.Project) < len(st.Columns)) {
		return st, branches, main // (the window's time is not the stream's event time as it is)
	}
	// (a relation that drops the stream's event time: the job's watermark
	// is the stream's, and the groups' 'table.exec.state.ttl', known only
	// once the session runs the job, keeps the processing-time clock it
	// has over the relation: plan.Aggregate.ProcTimeTTL)
	procTTL := a != nil && swm >= 0 && dwm < 0
	subst := func(e *Expr) *Expr {
		return inlineCols(e, pm.Project, dwm, swm)
	}
	b := *main
	if a != nil {
		// the keys and the calls' arguments read the source batch; HAVING
		// and the projection read the aggregate row, which stays as it was
		if b.Agg = inlineAgg(a, subst, dwm, swm); b.Agg == nil {
			return st, branches, main
		}
		b.Agg.ProcTimeTTL = procTTL
		if a.Window != nil {
			// the window on the stream's event time; its late rows are
			// the relation's rows (SPEC 2.4: the input row, as SELECT *)
			if b.Agg.Window = inlineWindow(a.Window, part.Stream.EventTime, subst); b.Agg.Window == nil {
				return st, branches, main
			}
			b.Agg.LateProject, b.Agg.LateColumns = pm.Project[:len(st.Columns)], st.Columns
		}
	}
	var ok bool
	if b.Where, ok = inlineWhere(pm.Where, main.Where, subst); !ok {
		return st, branches, main
	}
	if a == nil {
		b.Project = make([]*Expr, len(main.Project))
		for k, e := range main.Project {
			if b.Project[k] = subst(e); b.Project[k] == nil {
				return st, branches, main
			}
		}
		rr := *r
		if r.Kind == plan.RankDedup {
			// its late rows are the relation's rows (SPEC 2.4, 2.9: the
			// operator's input row), as a window's
			rr.LateProject, rr.LateColumns = pm.Project[:len(st.Columns)], st.Columns
		}
		b.Rank = &rr
	}
	b.Stream, b.Uses = part.Stream, pm.Uses
	sides, ok := inlineSides(st, branches, part.Stream, pm, subst, nil)
	if !ok {
		return st, branches, main
	}
	return part.Stream, sides, &b
}

// inlineSides returns the side branches of a window aggregate's job over
// relation st planned over the relation's stream pst (ruleInlineView): a
// copy of each with the relation's WHERE (pm's, its part's main query)
// AND its own, its select list and WHERE rewritten by subst (inlineCols
// over the relation's select list; the relation's CURRENT_WATERMARK
// column the stream's), reading the stream's columns pm.Uses. SPEC 2.1's
// first match over the stream's rows then gives each side the rows it
// took of the relation's (a row the relation's WHERE drops goes to no
// branch, as it never reached one), and the main query the rest, as
// over the relation. Each side must filter and project the relation's
// rows (no aggregate but agg's below, no rank, join, UNNEST, LIMIT or dead
// letters of its own: it keeps no state, so a replay writes nothing of it
// again, I3); ok is false otherwise, or when subst cannot rewrite an
// expression.
//
// agg, when not nil, plans a side branch's own aggregate over the joined
// rows too (ruleFuseJoinWindow: sideAgg): it returns the aggregate
// rewritten, or nil when that aggregate cannot be planned so (ok is then
// false); such a side's HAVING and select list read the aggregate row and
// stay as they were. With agg nil a side branch that aggregates makes ok
// false.
func inlineSides(st *catalog.Stream, branches []*Branch, pst *catalog.Stream, pm *Branch, subst func(*Expr) *Expr, agg func(*plan.Aggregate) *plan.Aggregate) (sides []*Branch, ok bool) {
	for _, b := range branches {
		if b.Stream != st || b.Agg != nil && agg == nil || b.Rank != nil || b.Join != nil || b.Unnest != nil || b.Both != nil || b.Limit >= 0 || len(b.DeadLetters) > 0 {
			return nil, false
		}
		sb := *b
		if sb.Where, ok = inlineWhere(pm.Where, b.Where, subst); !ok {
			return nil, false
		}
		sb.Stream, sb.Uses = pst, pm.Uses
		if b.Agg != nil { // (its HAVING and select list read the aggregate row)
			if sb.Agg = agg(b.Agg); sb.Agg == nil {
				return nil, false
			}
			sides = append(sides, &sb)
			continue
		}
		sb.Project = make([]*Expr, len(b.Project))
		for k, e := range b.Project {
			if sb.Project[k] = subst(e); sb.Project[k] == nil {
				return nil, false
			}
		}
		sides = append(sides, &sb)
	}
	return sides, true
}

// inlinableWindow reports whether window aggregate a over relation d can
// be planned over the relation's stream (ruleInlineView): a TUMBLE, HOP,
// CUMULATE or SESSION aggregate (not a cascaded one or one on processing
// time) whose
// DESCRIPTOR names the relation's event time. The caller checks that this
// column is the stream's event time projected as it is.
func inlinableWindow(a *plan.Aggregate, d *plan.Derived) bool {
	w := a.Window
	return !a.Updating && w.Of == nil && !w.ProcTime && d.TimeCol >= 0 && w.TimeCol == d.TimeCol && a.WmCol >= 0
}

// inlineAgg returns a copy of aggregate a of a query over a relation,
// planned in the relation's job (ruleInlineView, ruleFuseJoinWindow): its
// keys and calls' arguments rewritten by subst (inlineCols over the
// relation's projection), its CURRENT_WATERMARK column dwm (the relation
// batch's) made swm (the job's); nil when subst cannot rewrite one, or a
// reads another watermark column. HAVING and the select list read the
// aggregate row, which stays as it was.
func inlineAgg(a *plan.Aggregate, subst func(*Expr) *Expr, dwm, swm int) *plan.Aggregate {
	aa := *a
	aa.Keys = make([]*Expr, len(a.Keys))
	for k, e := range a.Keys {
		if aa.Keys[k] = subst(e); aa.Keys[k] == nil {
			return nil
		}
	}
	aa.Calls = make([]plan.AggCall, len(a.Calls))
	for k, c := range a.Calls {
		aa.Calls[k] = c
		if c.Arg != nil {
			if aa.Calls[k].Arg = subst(c.Arg); aa.Calls[k].Arg == nil {
				return nil
			}
		}
	}
	switch {
	case a.WmCol < 0:
	case a.WmCol == dwm:
		aa.WmCol = swm
	default:
		return nil
	}
	return &aa
}

// inlineWindow returns window w of an aggregate over a relation planned in
// the relation's job (ruleInlineView, ruleFuseJoinWindow): on the job
// stream's time column timeCol, with SESSION's PARTITION BY keys, which
// read the source batch, rewritten by subst; nil when subst cannot rewrite
// one.
func inlineWindow(w *plan.Window, timeCol int, subst func(*Expr) *Expr) *plan.Window {
	c := *w
	c.TimeCol = timeCol
	c.Partition = make([]*Expr, len(w.Partition))
	for k, e := range w.Partition {
		if c.Partition[k] = subst(e); c.Partition[k] == nil {
			return nil
		}
	}
	return &c
}

// streamPart returns the one part of relation d and its main query when the
// part is a plain query of one stream (not of another relation): a main
// query and one output, no side branch, dead letter, two-sided join or
// UNNEST; nil, nil otherwise. It is the shape ruleInlineView,
// ruleFuseRankAgg and ruleFuseRankCalc plan in the reading job, each adding
// what its own operator needs of the main query.
func streamPart(d *plan.Derived) (*plan.Job, *Branch) {
	if len(d.Parts) != 1 {
		return nil, nil
	}
	part := d.Parts[0]
	pm := part.Main
	if pm == nil || len(part.Branches) > 0 || len(part.DeadLetters) > 0 || part.Both != nil || part.Unnest != nil || len(part.Outputs) != 1 ||
		plan.DerivedOf(part.Stream) != nil {
		return nil, nil
	}
	return part, pm
}

// allSteady reports whether every expression of es is Steady (the same
// value for the same row wherever it is computed: no RAND, no clock), so a
// rule may move it into another job or operator.
func allSteady(es []*Expr) bool {
	for _, e := range es {
		if !e.Steady() {
			return false
		}
	}
	return true
}

// inlineWhere returns the WHERE of a query over a relation planned in the
// relation's job (ruleInlineView, ruleFuseJoinWindow): the relation's own
// (inner, nil: none) AND the query's (outer, nil: none) rewritten by
// subst; ok is false when subst cannot rewrite it.
func inlineWhere(inner, outer *Expr, subst func(*Expr) *Expr) (*Expr, bool) {
	if outer == nil {
		return inner, true
	}
	w := subst(outer)
	if w == nil {
		return nil, false
	}
	if inner != nil {
		w = &Expr{Op: plan.OpAnd, Type: w.Type, Args: []*Expr{inner, w}, Text: andTerm(inner) + " AND " + andTerm(w)}
	}
	return w, true
}

// andTerm is e's text as a term of an AND: parenthesized when e is an OR
// or XOR, so EXPLAIN's text reads as the tree does.
func andTerm(e *Expr) string {
	if e.Op == plan.OpOr || e.Op == plan.OpXor {
		return "(" + e.Text + ")"
	}
	return e.Text
}

// inlineCols returns a copy of e over a relation's batch rewritten over the
// batch its projection by reads (a stream's, or an aggregate's row): each
// column k (OpCol) made by[k], the relation's CURRENT_WATERMARK column from
// (a batch column, -1 none; OpCol or OpCurrentWatermark) the stream's to;
// nil when e reads a column neither has.
func inlineCols(e *Expr, by []*Expr, from, to int) *Expr {
	switch {
	case e.Op == plan.OpCol && e.Col >= 0 && e.Col < len(by):
		return by[e.Col]
	case (e.Op == plan.OpCol && e.Col == from || e.Op == plan.OpCurrentWatermark && int(e.Param) == from) && from >= 0:
		c := *e
		c.NullCount = nil
		if e.Op == plan.OpCol {
			c.Col = to
		} else {
			c.Param = int64(to)
		}
		return &c
	case e.Op == plan.OpCol || e.Op == plan.OpCurrentWatermark:
		return nil
	}
	c := *e
	c.NullCount = nil
	if len(e.Args) > 0 {
		c.Args = make([]*Expr, len(e.Args))
		for k, a := range e.Args {
			if c.Args[k] = inlineCols(a, by, from, to); c.Args[k] == nil {
				return nil
			}
		}
	}
	return &c
}
