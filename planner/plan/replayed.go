package plan

import (
	"fmt"
	"strings"

	"streamql/catalog"
)

// Unreplayed names the state of job j that a crash or a partition move
// loses when j reads a Kafka stream in a consumer group ('properties.group.id',
// SPEC 2.5): the operator (op, "the WindowRank of main") and why its state
// is not rebuilt by the replay of the connector package doc (why, "a window
// Top-N is not replayed yet"). Both are "" when j reads no consumer group, or
// keeps no state, or every operator with state is replayed: an aggregate, an
// updating Top-N, a deduplication, an OVER aggregation or ORDER BY the event
// time over the stream's rows (executor/rank's replay.go; also over a
// relation that only filters and projects the stream, as is an updating
// aggregate over such a relation, and a Top-N over a
// relation's GROUP BY with a query over it, or with side branches over it:
// the planner plans them as one job over the stream, ruleInlineView,
// ruleFuseRankAgg, ruleFuseRankAggSides, ruleFuseRankCalc),
// the probe rows an
// event-time semi or anti join holds, a join of two streams that
// JoinReplayed (with a window aggregate over its rows planned as one job,
// JoinWindowReplayed), and a lookup join (it holds no probe row). The executor does
// not snapshot state, so such a job after a crash would start that state
// empty (or, for a join of two streams read whole, write its rows again):
// the planner refuses it with an exactly-once sink (CheckReplayed), and EXPLAIN says it
// (ReplayStrategy).
func (j *Job) Unreplayed() (op, why string) {
	if j.Both != nil {
		group := ""
		for s := range j.Both.Inputs {
			if g := streamGroup(j.Both.Inputs[s].Stream); g != "" && group == "" {
				group = g
			}
		}
		if group == "" {
			return "", ""
		}
		if why := j.Both.notReplayed(j.stateAfterJoin()); why != "" {
			return "the " + j.Both.Kind() + " " + j.Both.Text, why
		}
		return "", ""
	}
	if d := DerivedOf(j.Stream); d != nil {
		if groupOf(d) == "" {
			return "", ""
		}
		ops := j.branchStateOps()
		if len(ops) == 0 {
			return "the subquery, view or WITH relation " + d.Name, "its streams are read whole, committing no offsets: a restart writes its rows again"
		}
		if why := d.joinWindowWhy(j); why != "" {
			return "the " + strings.Join(ops, ", ") + " over " + d.Name, why
		}
		return "the " + strings.Join(ops, ", ") + " over " + d.Name, d.Name + " is a subquery, view or WITH relation, whose operators do not write again what they wrote: the state over its rows is not replayed"
	}
	if u := j.Unnest; u != nil {
		// (the executor's unnest source is no replayer: the state after it
		// would start empty)
		if streamGroup(u.Inner) == "" || !j.keepsState() {
			return "", ""
		}
		return "the state over CROSS JOIN UNNEST of " + u.Inner.Name, "the rows an UNNEST makes are not replayed yet"
	}
	if streamGroup(j.Stream) == "" {
		return "", ""
	}
	held, aggs := j.heldAggs()
	for _, b := range j.AllBranches() {
		label := "main"
		if b != j.Main {
			label = "side branch " + b.Side
		}
		if held && aggs && b.Join != nil && b.Join.EventTime() && !j.HeldAggReplayed() {
			return "the event-time join of " + label + " (" + b.Join.Text + ")", "the job aggregates too: the windows over the rows it releases fire by their stamps, so neither its held rows nor the aggregate's state are replayed"
		}
		if r := b.Rank; r != nil && !r.Bounded && !j.rankReplayed(b, held, aggs) && !j.SideRankReplayed(b) {
			if b != j.Main {
				return "the " + string(r.Kind.NodeKind()) + " of " + label, r.sideUnreplayedWhy(b, held)
			}
			return "the " + string(r.Kind.NodeKind()) + " of " + label, r.unreplayedWhy(held, aggs)
		}
	}
	return "", ""
}

// joinWindowWhy says why the window aggregate of job j's main query over
// relation d, whose one part is a join of two streams (Job.Both; planned
// with a window aggregate after it, or not), is not replayed with the join
// (issue 23 item 6; the executor's joinreplay.go), where the planner does
// not plan them as one job (its ruleFuseJoinWindow): beside side branches
// that keep state other than their aggregates fuseSideAgg plans with it (a
// join, a mini-batch aggregate, a cascaded window), or cascaded over a
// window of the join; "" for any other job.
func (d *Derived) joinWindowWhy(j *Job) string {
	m := j.Main
	if m == nil || m.Agg == nil || m.Agg.Window == nil || len(d.Parts) != 1 || d.Parts[0] == nil || d.Parts[0].Both == nil {
		return ""
	}
	switch {
	case m.Agg.Window.Of != nil:
		return d.Name + " is a window aggregate over a join, and a cascaded window over it is not replayed: the outer windows hold " + d.Name + "'s windows that fired before a crash, so a restart would have to fire those again into the outer windows only, from the pairs the join writes again; but a job runs one aggregate operator after a join, so " + d.Name + "'s windows are a relation of their own, whose job reads the topics whole and commits nothing (so is a cascaded window over one stream's windows); where the aggregates allow it (a TUMBLE whose size is a multiple of the inner one's, with COUNT, SUM, MIN or MAX), write the outer window over the join directly, which is replayed"
	case len(j.Branches) > 0:
		return d.Name + " is a join, and a window over it is replayed beside side branches only when each filters and projects the joined rows or aggregates them by a window on " + d.Name + "'s event time or an updating GROUP BY without mini-batch: a side branch's own join, or any other aggregate, would be state after the join that no replay rebuilds; write that side branch as a query of its own over the join of the two streams"
	}
	return ""
}

// unreplayedWhy says why rank operator r is not replayed (Rank.replayed is
// false; held, aggs as there).
func (r *Rank) unreplayedWhy(held, aggs bool) string {
	switch {
	case r.Kind == RankWindowTopN && (aggs || held):
		return "a window Top-N is replayed only over a TUMBLE, HOP or CUMULATE TVF's rows, in a job with no event-time join"
	case aggs:
		return "it follows an aggregate, whose replay writes no change again, so it would not see the changes it had"
	case held:
		return "it follows an event-time join"
	case r.Stamp < 0:
		return "it has no WATERMARK on the stream's rows, which its replay needs"
	}
	return "it is not replayed yet"
}

// sideUnreplayedWhy says why side branch b's rank operator r is not
// replayed (Job.SideRankReplayed), held: the job has an event-time join.
func (r *Rank) sideUnreplayedWhy(b *Branch, held bool) string {
	switch {
	case b.Agg != nil:
		return "a side branch's operator is replayed over the rows it takes from the stream, not over its own aggregate: write the branch as a main query of its own"
	case b.Join != nil:
		return "a side branch's operator is replayed over the rows it takes from the stream, not over its own join: write the branch as a main query of its own"
	}
	return r.unreplayedWhy(held, false)
}

// ReplayStrategy is what EXPLAIN adds to the strategy of a job that reads a
// Kafka stream in a consumer group and keeps state (SPEC 4: strategy
// "replayed"): "replayed" when every operator with state is rebuilt after a
// crash or a partition move by reading each partition again from its
// committed offset, "not replayed" (Unreplayed) when one is not; "" for a
// job without a consumer group or without state (keepsState: a lookup join
// whose probe side has no event time holds no probe row).
func (j *Job) ReplayStrategy() string {
	if op, _ := j.Unreplayed(); op != "" {
		return "not replayed"
	}
	if j.readsGroup() == "" || !j.keepsState() {
		return ""
	}
	return "replayed"
}

// readsGroup returns the consumer group job j reads a Kafka stream in: its
// stream's, a join's input's, an UNNEST's inner stream's, or that of a stream
// a derived relation reads (a semi or anti join's build side is read whole,
// SPEC 2.5); "" when none.
func (j *Job) readsGroup() string {
	probes := []*catalog.Stream{j.Stream}
	if j.Unnest != nil {
		probes = append(probes, j.Unnest.Inner)
	}
	if j.Both != nil {
		probes = append(probes, j.Both.Inputs[0].Stream, j.Both.Inputs[1].Stream)
	}
	for _, st := range probes {
		if g := streamGroup(st); g != "" {
			return g
		}
	}
	return ""
}

// keepsState reports whether job j keeps state across its rows: an
// aggregate, a rank operator over an unbounded input, an event-time semi
// or anti join's held rows, or a join of two streams (a lookup join only
// when its probe side has event time: it holds those rows until their
// watermark passes them; else it keeps only its bounded side).
func (j *Job) keepsState() bool {
	if j.Both != nil && (!j.Both.Lookup || j.Both.Inputs[0].TimeCol() >= 0) {
		return true
	}
	for _, b := range j.AllBranches() {
		if b.Agg != nil || b.Rank != nil && !b.Rank.Bounded || b.Join != nil && b.Join.EventTime() {
			return true
		}
	}
	return false
}

// streamGroup returns the consumer group st is read in: its
// 'properties.group.id' as a Kafka stream, or that of a stream a derived
// relation reads (groupOf); "" when none.
func streamGroup(st *catalog.Stream) string {
	if d := DerivedOf(st); d != nil {
		return groupOf(d)
	}
	if kc := st.Kafka(); kc != nil {
		return kc.GroupID
	}
	return ""
}

// ExactlyOnceSink returns the first sink of job j (INSERT INTO, INTO STREAM)
// that is a Kafka stream with 'sink.delivery-guarantee' = 'exactly-once', and
// the branch that writes it; nil when none.
func (j *Job) ExactlyOnceSink() (*catalog.Stream, *Branch) {
	for _, b := range j.AllBranches() {
		if b.Sink == nil {
			continue
		}
		if kc := b.Sink.Kafka(); kc != nil && kc.DeliveryGuarantee == "exactly-once" {
			return b.Sink, b
		}
	}
	return nil, nil
}

// CheckReplayed returns the planning error of job j when it reads a Kafka
// stream in a consumer group, keeps state a crash loses (Unreplayed) and
// writes an exactly-once Kafka sink (SPEC 2.5: the sink's promise would not
// hold after a restart), with the branch whose sink it names; "" and nil
// otherwise.
func (j *Job) CheckReplayed() (string, *Branch) {
	op, why := j.Unreplayed()
	if op == "" {
		return "", nil
	}
	sink, b := j.ExactlyOnceSink()
	if sink == nil {
		return "", nil
	}
	// (the sink's promise would break silently: a restarted process starts
	// that state empty, or reads a join's inputs again from the start)
	return fmt.Sprintf("%s is not rebuilt after a crash or a partition move (%s), and sink %s is 'exactly-once' with the job reading consumer group '%s': after a restart the result would not be one uninterrupted run's; "+
		"set 'sink.delivery-guarantee' = 'at-least-once' on %s (EXPLAIN then notes what a crash loses), or remove 'properties.group.id' and run one process",
		op, why, sink.Name, j.readsGroup(), sink.Name), b
}

// strategyText is the strategy EXPLAIN prints for job j's scan (or its join
// of two streams): the planner's (Strategy.Describe), then ", replayed" or
// ", not replayed" for a job in a consumer group that keeps state
// (ReplayStrategy).
func (j *Job) strategyText() string {
	if r := j.ReplayStrategy(); r != "" {
		return j.Strategy.Describe(j.Procs) + ", " + r
	}
	return j.Strategy.Describe(j.Procs)
}

// ReplayNotice is the line a job that runs with state a crash loses
// (Unreplayed, in a consumer group; an exactly-once sink refuses it,
// CheckReplayed) prints when it starts, so that what a restart does is not
// silent; "" for any other job.
func (j *Job) ReplayNotice() string {
	op, why := j.Unreplayed()
	if op == "" {
		return ""
	}
	return fmt.Sprintf("notice: %s is not rebuilt after a crash or a partition move (%s): a process restarted in consumer group '%s' does not give one uninterrupted run's result; run one process and restart it from the start (EXPLAIN: strategy not replayed)", op, why, j.readsGroup())
}

// branchStateOps returns the node kinds of the job's branches that keep state
// across rows (an unbounded Rank, an Aggregate, a semi/anti Join), in branch
// order: what a crash in a consumer group loses when they read a derived
// relation (Unreplayed, and EXPLAIN's scale-out note in scaleout.go).
func (j *Job) branchStateOps() []string {
	var ops []string
	for _, b := range j.AllBranches() {
		switch {
		case b.Rank != nil && !b.Rank.Bounded:
			ops = append(ops, string(b.Rank.Kind.NodeKind()))
		case b.Agg != nil:
			ops = append(ops, "Aggregate")
		case b.Join != nil:
			ops = append(ops, "Join")
		}
	}
	return ops
}
