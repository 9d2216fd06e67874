package plan

import (
	"fmt"
	"slices"
	"strings"

	"streamql/catalog"
)

// describeScaleOut writes, for a job whose source is in a consumer group (a
// Kafka stream with 'properties.group.id', SPEC 2.5), what running it in several processes requires:
// the processes share the topic's partitions; an aggregate's state is per
// process, so the topic must be partitioned by its grouping key; a join's
// build side is read whole by every process. A grouping key that is not the
// Kafka sink's 'key.fields' gets a warning: the sink's partitions then do not
// follow the groups, and a job reading that topic in a group would need it.
func (j *Job) describeScaleOut(sb *strings.Builder) {
	if j.Both != nil {
		return // (the join's node says it: Tree.bothJoin)
	}
	st := j.Stream
	if d := DerivedOf(st); d != nil {
		j.describeDerivedState(sb, d)
		return
	}
	kc := groupConfig(st)
	if kc == nil {
		return
	}
	group, topic := kc.GroupID, kc.Topic
	fmt.Fprintf(sb, "  Scale-out: consumer group '%s': the processes running this script share the partitions of topic '%s'\n", group, topic)
	// An event-time join holds probe rows: they are replayed (the first row
	// held commits), but not with an aggregate after them (windows over
	// joined rows): then neither they nor the aggregate's state are.
	held, aggs := j.heldAggs()
	one := func(label string, b *Branch) {
		if b == nil {
			return
		}
		if b.Join != nil {
			fmt.Fprintf(sb, "    %s: join build side %s is read whole by every process; the probe rows need no partitioning\n", label, b.Join.Build.Name)
			switch {
			case b.Join.EventTime() && aggs && j.HeldAggReplayed():
				fmt.Fprintf(sb, "    %s: the probe rows its event-time join holds and the aggregate's groups after it survive a crash or a partition move: read again from the committed offset (the first row held or that made a group), the rows routed before going into the groups only\n", label)
			case b.Join.EventTime() && aggs:
				// (the connector package doc: not with an aggregate)
				fmt.Fprintf(sb, "    note: the rows %s's event-time join holds are not read again after a crash or a partition move when the job aggregates too: the group's offsets pass them; run it in one process, over a topic of one partition (behind the join, windows over more than one partition would fire by one partition's watermark: the job stops when a second partition's rows come)\n", label)
			case b.Join.EventTime():
				fmt.Fprintf(sb, "    %s: the probe rows its event-time join holds survive a crash or a partition move: read again from the committed offset (the first row held)\n", label)
			}
		}
		if r := b.Rank; r != nil && !r.Bounded && !j.rankReplayed(b, held, aggs) {
			fmt.Fprintf(sb, "    note: %s's %s keeps its state in this process only: it is not read again after a crash or a partition move (it starts empty); run one process\n", label, r.Kind.NodeKind())
		}
		if r := b.Rank; r != nil && !r.Bounded && j.rankReplayed(b, held, aggs) {
			var keys []string
			for _, k := range r.Keys {
				keys = append(keys, b.Project[k].Text)
			}
			what := "a Top-N"
			if r.Kind != RankTopN {
				what = "its " + string(r.Kind.NodeKind())
			}
			if len(keys) == 0 {
				fmt.Fprintf(sb, "    %s: %s without PARTITION BY is per process: each process handles its own partitions' rows; run one process for one result\n", label, what)
			} else {
				fmt.Fprintf(sb, "    %s: %s is per process: topic '%s' must be partitioned by (%s)\n", label, what, topic, strings.Join(keys, ", "))
			}
			switch {
			case b == j.Main && j.AggRankReplayed():
				fmt.Fprintf(sb, "    %s: the Top-N over its aggregate's changes survives a crash or a partition move: read again with the groups from each partition's first row that made a group, the changes of the rows read again going into its state only\n", label)
			case r.Kind == RankTopN || r.Kind == RankDedup:
				fmt.Fprintf(sb, "    %s: its state survives a crash or a partition move: read again from each partition's first row it took (the committed offset stays there)\n", label)
			default:
				fmt.Fprintf(sb, "    %s: its state survives a crash or a partition move: read again from each partition's oldest row it holds (the committed offset)\n", label)
			}
		}
		a := b.Agg
		if a == nil || (!a.Grouped && (a.Window == nil || len(a.Window.Partition) == 0)) {
			return
		}
		var keys []string
		for _, k := range a.Keys {
			keys = append(keys, k.Text)
		}
		if a.Window != nil && len(keys) == 0 {
			for _, k := range a.Window.Partition {
				keys = append(keys, k.Text)
			}
		}
		if len(keys) == 0 {
			fmt.Fprintf(sb, "    %s: a global aggregate is per process: each process emits its own rows over its partitions; run one process for one result\n", label)
		} else {
			fmt.Fprintf(sb, "    %s: aggregates are per process: topic '%s' must be partitioned by (%s)\n", label, topic, strings.Join(keys, ", "))
		}
		switch {
		case held:
		case a.Updating: // (the replay of the connector's package doc: "Updating operators")
			fmt.Fprintf(sb, "    %s: its groups survive a crash or a partition move: read again from each partition's first row that made a group (the committed offset stays there: an updating aggregate's groups never close)\n", label)
		default: // (the replay of the connector's package doc)
			fmt.Fprintf(sb, "    %s: its open state survives a crash or a partition move: read again from the committed offset (its first row held)\n", label)
		}
		if len(keys) == 0 {
			return
		}
		if b.Sink == nil || !takesOption(b.Sink.Connector, "key.fields") || b.Sink.Kafka() == nil {
			return // (a sink without record keys: nothing to partition)
		}
		sk := b.Sink.Kafka()
		kf := sk.KeyFields
		if !sameNames(keys, sk.KeyFieldNames()) {
			if kf == "" {
				kf = "none"
			}
			fmt.Fprintf(sb, "    warning: %s groups by (%s) but sink %s's 'key.fields' is %s: its records are not partitioned by the grouping key; set 'key.fields' to it\n", label, strings.Join(keys, ", "), b.Sink.Name, kf)
		}
	}
	for i, b := range j.Branches {
		one(fmt.Sprintf("branch %d", i+1), b)
	}
	one("main", j.Main)
}

// describeDerivedState writes, for a job over a subquery, view or WITH
// relation d whose rows come from a Kafka stream in a consumer group, that
// the job's own state (an aggregate, a Top-N or another SPEC 2.9 operator,
// a join over the relation's rows) is not replayed: after a crash or a
// partition move it starts empty, while the operators before it rebuild
// their state without emitting again what they had emitted (executor
// replay.go), so its result is not that of one uninterrupted run.
func (j *Job) describeDerivedState(sb *strings.Builder, d *Derived) {
	group := groupOf(d)
	if group == "" {
		return
	}
	fmt.Fprintf(sb, "  Scale-out: the rows of %s come from consumer group '%s'\n", d.Name, group)
	fmt.Fprintf(sb, "    note: the streams of %s are read whole, every partition, committing no offsets (its parts in one group would split the partitions between them): after a restart they are read again from 'scan.startup.mode' and their rows written again; run one process\n", d.Name)
	ops := j.branchStateOps()
	if j.Both != nil {
		ops = append(ops, "Join")
	}
	if len(ops) == 0 {
		return
	}
	fmt.Fprintf(sb, "    note: the state of the %s over %s is in this process only: it is not read again after a crash or a partition move (it starts empty, and the operators before it do not emit again what they emitted), so the result after one differs from one uninterrupted run's; run one process and restart it from the start\n", strings.Join(ops, ", "), d.Name)
}

// Group returns the consumer group of a Kafka stream that gives rows to
// relation d (its parts' streams, and the relations they read in turn); ""
// when none is in a group. The executor reads such a relation's streams
// whole, every partition, committing no offsets (its derived.go).
func (d *Derived) Group() string { return groupOf(d) }

// groupOf is Derived.Group: the group of a stream a part reads as its
// probe, its stream or another relation's (recursively), or, for a part
// that is a join of two streams (Job.Both) or a CROSS JOIN UNNEST, an
// input's or the inner stream's. (It missed the last two: a relation over
// a join of two streams of a group then let its part read them in the
// group, committing offsets for rows whose outputs over the relation were
// not written, and no exactly-once sink refused it.)
func groupOf(d *Derived) string {
	for _, part := range d.Parts {
		if part == nil || part.Stream == nil {
			continue
		}
		probes := []*catalog.Stream{part.Stream}
		if part.Both != nil {
			probes = append(probes, part.Both.Inputs[0].Stream, part.Both.Inputs[1].Stream)
		}
		if part.Unnest != nil {
			probes = append(probes, part.Unnest.Inner)
		}
		for _, st := range probes {
			if inner := DerivedOf(st); inner != nil {
				if g := groupOf(inner); g != "" {
					return g
				}
				continue
			}
			if kc := groupConfig(st); kc != nil {
				return kc.GroupID
			}
		}
	}
	return ""
}

// replayed reports whether the executor rebuilds rank operator r's state by
// a replay (executor/rank's replay.go) in a job of a consumer group: an
// updating Top-N, a deduplication keeping the first row, an OVER
// aggregation or an ORDER BY the event time over the stream's rows, or a
// window Top-N over a window TVF's rows (the four last kinds with a
// WATERMARK), in a job with no aggregate (aggs, Job.heldAggs: a window TVF's
// rows feeding a window Top-N do not count) and no event-time join (held),
// whose replays are of their own state only (with side branches' aggregates
// beside one over the stream's rows: Job.RankBesideAggs).
func (r *Rank) replayed(held, aggs bool) bool {
	if held || aggs || r.Bounded {
		return false
	}
	switch r.Kind {
	case RankTopN:
		return r.Updating
	case RankDedup, RankOver, RankTimeSort, RankWindowTopN:
		return r.Stamp >= 0
	}
	return false
}

// heldAggs reports whether job j has an event-time semi or anti join (held)
// and an aggregate (aggs) other than a window TVF's rows read by a window
// Top-N (tvfRank: it keeps no state, each row once per window).
func (j *Job) heldAggs() (held, aggs bool) {
	for _, b := range j.AllBranches() {
		held = held || b.Join != nil && b.Join.EventTime()
		aggs = aggs || b.Agg != nil && !tvfRank(b)
	}
	return held, aggs
}

// tvfRank reports whether branch b is a window Top-N over a TUMBLE, HOP or
// CUMULATE TVF's rows: its Aggregate passes each row once per window,
// keeping no state (a SESSION's rows wait for their session: not replayed
// so yet).
func tvfRank(b *Branch) bool {
	return b.Rank != nil && b.Rank.Kind == RankWindowTopN && b.Agg != nil && !b.Agg.Grouped && b.Agg.Window != nil && b.Agg.Window.Func != "SESSION"
}

// AggRankReplayed reports whether job j's main query is a Top-N over its
// own unbounded GROUP BY's changes (a Top-N over a subquery's aggregate of
// a Kafka stream in a consumer group, planned as one job by the planner's
// ruleFuseRankAgg; Rank.Retract) in a job with no side branch, or whose
// side branches each compute that GROUP BY too (Fanout, the planner's
// ruleFuseRankAggSides): all are replayed (the executor's replay.go): each
// partition is read again from its first row that made a group, the main
// query's aggregate passing the changes of the rows read again on into the
// Top-N's state (their outputs were written), so the Top-N's hold is never
// below the aggregate's, and the side branches' aggregates taking those
// rows into their groups only.
func (j *Job) AggRankReplayed() bool {
	m := j.Main
	return m != nil && (len(j.Branches) == 0 || j.Fanout) && m.Agg != nil && m.Agg.Updating && m.Agg.Window == nil &&
		m.Rank != nil && m.Rank.Kind == RankTopN && m.Rank.Retract && !m.Rank.Bounded
}

// rankReplayed reports whether branch b's rank operator is rebuilt by a
// replay in job j (held, aggs: Job.heldAggs): the main query's, over the
// stream's rows (Rank.replayed) or over its own aggregate
// (AggRankReplayed). A side branch's (SPEC 2.1 with 2.9) is not: the
// executor's replay rebuilds the main query's only.
func (j *Job) rankReplayed(b *Branch, held, aggs bool) bool {
	return b == j.Main && (b.Rank.replayed(held, aggs) || !held && (j.AggRankReplayed() || j.RankBesideAggs() || j.WindowRankReplayed()))
}

// SideRankReplayed reports whether side branch b of job j ends with a rank
// operator (SPEC 2.1 with 2.9: Top-N, deduplication, OVER aggregation or
// ORDER BY the event time over the rows it took by first match) that a
// Kafka replay rebuilds (the executor's replay.go) as it does the main
// query's over the stream's rows (Rank.replayed): one over the stream's
// rows (no aggregate or join of its own), in a job with no event-time
// join. Each such operator takes the rows read again below e into its own
// state (its changes of them are in committed outputs), the main query's
// and the other branches' operators theirs, and the commit is the
// smallest of their hold frontiers.
func (j *Job) SideRankReplayed(b *Branch) bool {
	if b == nil || b == j.Main || b.Rank == nil || b.Agg != nil || b.Join != nil {
		return false
	}
	held, _ := j.heldAggs()
	return b.Rank.replayed(held, false)
}

// RankBesideAggs reports whether job j's main query ends with a rank
// operator over the stream's rows (no aggregate of its own) that is
// replayed (Rank.replayed) while side branches aggregate, with no
// event-time join: each operator takes the rows read again into its own
// state (the aggregate writes none of their windows or changes again, the
// rank operator none of its changes or fired rows) and the commit is the
// smallest of their hold frontiers (the executor's replay.go).
func (j *Job) RankBesideAggs() bool {
	m := j.Main
	if m == nil || m.Rank == nil || m.Agg != nil || m.Join != nil || !m.Rank.replayed(false, false) {
		return false
	}
	held, aggs := j.heldAggs()
	return aggs && !held
}

// WindowRankReplayed reports whether job j's window Top-N over a window
// TVF's rows (its main query) is replayed with its TVF's Aggregate (the
// executor's replay.go), in a job with no event-time join: the rows read
// again pass through that Aggregate into the window Top-N's state, while
// side branches' aggregates, if any, take them into their own state only
// (aggregate.Operator.StartReplayPassing); the smaller hold frontier
// commits.
func (j *Job) WindowRankReplayed() bool {
	if j.Main == nil || !tvfRank(j.Main) {
		return false
	}
	held, _ := j.heldAggs()
	return !held && j.Main.Rank.replayed(false, false)
}

// takesOption reports whether the connector spec has the option name.
func takesOption(spec *catalog.ConnectorSpec, name string) bool {
	if spec == nil {
		return false
	}
	for _, o := range spec.Options {
		if o.Name == name {
			return true
		}
	}
	return false
}

// sameNames reports whether a and b hold the same names, ignoring case,
// spaces and backquotes, in any order.
func sameNames(a, b []string) bool {
	norm := func(s []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range s {
			m[strings.ToLower(strings.Trim(strings.TrimSpace(x), "`\""))] = true
		}
		return m
	}
	ma, mb := norm(a), norm(b)
	if len(ma) != len(mb) {
		return false
	}
	for k := range ma {
		if !mb[k] {
			return false
		}
	}
	return true
}

// JoinReplayed reports whether job j's join of two streams (j.Both) is
// replayed over Kafka (the executor's joinreplay.go): both inputs are Kafka
// streams of a consumer group ('properties.group.id') with event time, no
// input is updating, and the joined rows go straight to the job's outputs
// or into state replayed with the join (JoinAggReplayed's aggregates,
// JoinWindowReplayed's window, JoinRankReplayed's Top-N): an interval,
// regular or temporal join; or it is a lookup join whose probe
// side is such a stream (it holds no probe row: its bounded side is read
// whole).
// Such a join reads its (probe) inputs in the group (each process its
// partitions); any other reads each input whole, as a build side (SPEC
// 2.5), and commits nothing of its state.
func (j *Job) JoinReplayed() bool {
	return j.Both != nil && j.Both.notReplayed(j.stateAfterJoin()) == ""
}

// stateAfterJoin reports whether job j keeps state after its join of two
// streams that no replay rebuilds: a Top-N, or an aggregate other than
// those JoinAggReplayed replays with the join.
func (j *Job) stateAfterJoin() bool {
	return j.Main != nil && j.Main.Rank != nil && !j.JoinRankReplayed() || j.HasAggregates() && !j.JoinAggReplayed()
}

// JoinRankReplayed reports whether the main query's Top-N after job j's
// join of two streams is replayed with it over Kafka (the executor's
// joinreplay.go, newJoinRankReplay; the connector package doc, "A Top-N
// after a join", issue 23 item 6, issue 24 item 5): an updating Top-N
// (ROW_NUMBER, RANK or DENSE_RANK over the unbounded joined rows, SPEC
// 2.9; with a query over it fused after it, Rank.Where and Calc, the
// planner's ruleFuseRankCalc: a filter and projection of the changes it
// writes, which keep no state), no aggregate and no side branch, after a
// join whose output is append-only (JoinAggReplayed's joins). As for an
// updating aggregate, each input's partitions commit the first row the job
// read of them, and the join emits again, into the Top-N's state only, the
// pairs the run before wrote: from the first new pair on, its changes are
// one uninterrupted run's.
func (j *Job) JoinRankReplayed() bool {
	b, m := j.Both, j.Main
	if b == nil || m == nil || m.Rank == nil || len(j.Branches) > 0 || j.HasAggregates() || b.Lookup || b.Window || b.Updating() || b.Swap {
		return false
	}
	r := m.Rank
	return r.Kind == RankTopN && r.Updating && !r.Retract && !r.Bounded && !r.PosOrder && len(r.Thin) == 0
}

// JoinAggReplayed reports whether the aggregates after job j's join of two
// streams are replayed with it over Kafka (the executor's joinreplay.go;
// the connector package doc, "A join followed by an aggregate", issue 23
// item 6): an interval join of any kind (its paddings come when the
// interval closes), an INNER regular join or a temporal join, whose
// outputs are append-only (a regular outer join's are updating), followed
// by updating aggregates only (GROUP BY without a
// window, or a global aggregate, over the unbounded joined rows: SPEC 2.8),
// none with 'table.exec.state.ttl' (its clock behind a join is processing
// time) or mini-batch (its changes depend on the batches), and no Top-N.
// The join then emits again, into the aggregate only, the pairs the run
// before wrote, and each input's partitions commit the first row the job
// read of them (the groups never close). A windowed aggregate over joined
// rows over a view, subquery or WITH relation is replayed so when the
// planner plans it as one job with the join (JoinWindowReplayed).
func (j *Job) JoinAggReplayed() bool {
	b := j.Both
	if b == nil || !j.HasAggregates() || b.Lookup || b.Window || b.Updating() {
		return false
	}
	return j.JoinWindowReplayed() || j.updatingAggsOnly()
}

// JoinWindowReplayed reports whether job j is a window aggregate (TUMBLE,
// HOP, CUMULATE or SESSION, SPEC 2.4) over its join of two streams, planned as one
// job from a window over a view, subquery or WITH relation that is the join
// (planner's ruleFuseJoinWindow: the job's stream is the joined relation
// with the relation's event time and WATERMARK): an interval or temporal
// join whose output is append-only, the aggregate the main query, no
// Top-N, and side branches, if any, that filter and project the joined
// rows or aggregate them (joinWindowSides; Derived.joinWindowWhy says
// why not). It is
// replayed with the join (the connector package
// doc, "A window aggregate over a join", issue 23 item 6): each input's
// partitions commit the first row the job read of them, the join emits
// again, into the aggregate only, the pairs the run before wrote, and a
// window whose end is at or below the aggregate's watermark at the commit
// (the mark's f) gets none of them: it fired (I4; a SESSION rebuilt so
// is dropped when it fires). With side branches the mark's f is the join's
// watermark instead (each pair below it was written to their outputs, so
// the join emits it again as old, for the aggregates only: the main
// window's and the side branches'), and the windows that fire while those
// old pairs go through fired before the commit and are dropped at the
// sink, as an updating side aggregate's changes of them are never made.
func (j *Job) JoinWindowReplayed() bool {
	b, m := j.Both, j.Main
	if b == nil || m == nil || !j.joinWindowSides() || m.Rank != nil || j.Stream == nil || j.Stream.Watermark == nil ||
		b.Lookup || b.Window || b.Updating() || !(b.Interval || b.Temporal) || b.StateTTL > 0 {
		return false
	}
	a := m.Agg
	return a != nil && a.Window != nil && a.Window.Of == nil && a.Grouped && !a.Updating
}

// sideAggs reports whether a side branch of job j aggregates.
func (j *Job) sideAggs() bool {
	for _, b := range j.Branches {
		if b.Agg != nil {
			return true
		}
	}
	return false
}

// joinWindowSides reports whether every side branch of job j is one the
// replay of a window over a join rebuilds (JoinWindowReplayed): a filter
// and projection, which keeps no state and writes each row it takes when
// it takes it, or an aggregate of the joined rows in the job's aggregate
// operator (the planner's fuseSideAgg): a TUMBLE, HOP, CUMULATE or
// SESSION aggregate (not cascaded) on the job's event time, or an updating
// GROUP BY or global aggregate without mini-batch or
// 'table.exec.state.ttl' (its clock behind a join is processing time);
// no rank operator, join, UNNEST or LIMIT. True for a job without side
// branches.
func (j *Job) joinWindowSides() bool {
	for _, b := range j.Branches {
		if b.Rank != nil || b.Join != nil || b.Unnest != nil || b.Both != nil || b.Limit >= 0 {
			return false
		}
		a := b.Agg
		if a == nil {
			continue
		}
		if !a.Grouped || a.MiniBatch || a.StateTTL > 0 {
			return false
		}
		if w := a.Window; w != nil && (a.Updating || w.Of != nil || w.ProcTime) || w == nil && !a.Updating {
			return false
		}
	}
	return true
}

// HeldAggReplayed reports whether the aggregates of job j, whose branch
// has an event-time semi or anti join, are replayed with the probe rows
// the join holds (the executor's semijoin.go; the connector package doc,
// "A join followed by an aggregate", issue 23 item 6): updating aggregates
// only, as JoinAggReplayed's (they fire nothing by time, so the released
// rows' stamps, each its own partition's watermark, decide nothing). Each
// partition then commits the smaller of its first held row and its first
// row that made a group.
func (j *Job) HeldAggReplayed() bool {
	held, aggs := j.heldAggs()
	return held && aggs && j.updatingAggsOnly()
}

// updatingAggsOnly reports whether every aggregate of job j is updating
// (GROUP BY without a window, or a global aggregate, over an unbounded
// input: SPEC 2.8) without 'table.exec.state.ttl' or mini-batch, and no
// branch has a Top-N.
func (j *Job) updatingAggsOnly() bool {
	for _, br := range j.AllBranches() {
		if br.Rank != nil {
			return false
		}
		if a := br.Agg; a != nil && (a.Window != nil || !a.Updating || a.MiniBatch || a.StateTTL > 0) {
			return false
		}
	}
	return true
}

// notReplayed says why the join is not replayed (JoinReplayed; after: an
// aggregate or Top-N follows it), "" when it is.
func (j *BothJoin) notReplayed(after bool) string {
	switch {
	case j.Changes[0] || j.Changes[1]:
		return "an input is updating"
	case after:
		return "an aggregate or Top-N follows the join (of those, only an updating GROUP BY or global aggregate, without 'table.exec.state.ttl' or mini-batch, or an updating Top-N, after a join whose output is append-only is replayed)"
	case j.Lookup:
		// it holds no probe row (op.Join's lookup mode): the probe side is
		// read in its group and commits as a stateless job does; the
		// bounded side is read whole by every process
		if k := j.Inputs[0].Stream.Kafka(); k == nil || k.GroupID == "" {
			return "input " + j.Inputs[0].Name + " is not a Kafka stream in a consumer group"
		}
		return ""
	}
	for s := range j.Inputs {
		in := &j.Inputs[s]
		if d := DerivedOf(in.Stream); d != nil && groupOf(d) != "" {
			if j.Window {
				return "a window join is not replayed yet: its inputs " + j.Inputs[0].Name + " and " + j.Inputs[1].Name + " are windowed relations of their own (window TVFs, or their aggregates), whose parts read the streams whole in every process and commit nothing (so is any window over the window join's rows)"
			}
			return derivedInputWhy(in.Name, d)
		}
		if groupConfig(in.Stream) == nil {
			return "input " + in.Name + " is not a Kafka stream in a consumer group"
		}
		if in.TimeCol() < 0 || in.Watermark == nil {
			return "input " + in.Name + " has no event time (WATERMARK)"
		}
	}
	return ""
}

// describeScaleOut writes, for a join (SPEC 2.7) with an input read from
// Kafka in a consumer group ('properties.group.id'), which topics must be
// co-partitioned for the join to scale out as aggregates do (SPEC 2.5,
// both inputs in the group): the same partition count, which the job
// checks at its start, each keyed by the join key, so that the kafka
// connector's CoPartitionBalancer gives partition i of both to one
// process; and whether its state
// survives a crash (JoinReplayed; after: an aggregate or Top-N follows
// the join; agg: an updating aggregate replayed with it, window: a window
// aggregate, Job.JoinWindowReplayed, sides: with side branches that
// aggregate, Job.sideAggs; branches: with side branches of any kind,
// whose rows a replay writes once; rank: a Top-N,
// Job.JoinRankReplayed): each process then reads its partitions of both
// topics, or else both topics whole, every partition, committing nothing.
func (j *BothJoin) describeScaleOut(sb *strings.Builder, after, agg, window, rank, sides, branches bool) {
	group, names := "", [2]string{}
	var grouped []string
	for s := range j.Inputs {
		st := j.Inputs[s].Stream
		kc := groupConfig(st)
		if kc == nil || kc.Topic == "" {
			continue
		}
		if group == "" {
			group = kc.GroupID
		}
		grouped = append(grouped, j.Inputs[s].Name)
		var keys []string
		for _, k := range j.Keys[s] {
			keys = append(keys, j.Inputs[s].Name+"."+j.keyName(s, k))
		}
		names[s] = fmt.Sprintf("'%s' (%s, keyed by %s)", kc.Topic, j.Inputs[s].Name, strings.Join(keys, ", "))
	}
	if group == "" {
		return
	}
	why := j.notReplayed(after)
	if why == "" && j.Lookup {
		fmt.Fprintf(sb, "  Scale-out: the lookup join's input %s is in consumer group '%s': the processes running this script share the partitions of topic '%s' (no partitioning needed), and each reads %s whole\n", j.Inputs[0].Name, group, j.Inputs[0].Stream.Kafka().Topic, j.Inputs[1].Name)
		if j.Inputs[0].TimeCol() >= 0 {
			fmt.Fprintf(sb, "    the rows of %s the join holds until its watermark passes them survive a crash or a partition move: read again from the committed offset (the oldest row held), the rows written before not written again\n", j.Inputs[0].Name)
			return
		}
		fmt.Fprintf(sb, "    the join holds no row of %s: each partition commits the rows whose joined rows are written, so a crash or a partition move loses none and writes none twice\n", j.Inputs[0].Name)
		return
	}
	if why == "" {
		fmt.Fprintf(sb, "  Scale-out: the join's inputs are in consumer group '%s': topics %s and %s must be co-partitioned: the same partition count (checked when the job starts), each partitioned by the join key; the processes running this script each read partition i of both topics together\n", group, names[0], names[1])
		if slices.Contains(j.NullSafe, true) {
			// (a record without a key is spread over the partitions by
			// Kafka's producers: NULLs of both topics would meet in no process)
			fmt.Fprintf(sb, "    a NULL of a null-safe key (IS NOT DISTINCT FROM) joins NULLs in its own process only: write the rows whose key is NULL to the same partition number of both topics\n")
		}
		if window && sides {
			fmt.Fprintf(sb, "    each process reads its partitions of both topics; the join's rows, the window aggregate's open windows after it and the side branches' groups and windows survive a crash or a partition move: read again from the committed offset (the first row the job read of each partition), the joined rows written before going into the aggregates' state only, no window or change written again; when a partition comes to a process the windows' watermark follows the join's down to its rows and up again, so each window is written once across the processes\n")
			return
		}
		if window {
			side := ""
			if branches {
				side = ", each joined row reaching a side branch once"
			}
			fmt.Fprintf(sb, "    each process reads its partitions of both topics; the join's rows and the window aggregate's open windows after it survive a crash or a partition move: read again from the committed offset (the first row the job read of each partition), the joined rows going into the open windows only%s, no window that fired written again; when a partition comes to a process the window's watermark follows the join's down to its rows and up again, so each window is written once across the processes\n", side)
			return
		}
		if rank {
			fmt.Fprintf(sb, "    each process reads its partitions of both topics; the join's rows and the Top-N's state after it survive a crash or a partition move: read again from the committed offset (the first row the job read of each partition: the Top-N's partitions never close), the joined rows written before going into the Top-N's state only, their changes not written again\n")
			return
		}
		if agg {
			fmt.Fprintf(sb, "    each process reads its partitions of both topics; the join's rows and the aggregate's groups after it survive a crash or a partition move: read again from the committed offset (the first row the job read of each partition: the groups never close), the joined rows written before going into the aggregate's state only, their changes not written again\n")
			return
		}
		if j.Temporal {
			fmt.Fprintf(sb, "    each process reads its partitions of both topics; the join's state survives a crash or a partition move: read again from the committed offsets (each partition's oldest row the join still needs: the rows held for the watermarks, and each key's current version of %s, kept until a later version of its key replaces it), the joined rows written before not written again\n", j.Inputs[1].Name)
			return
		}
		fmt.Fprintf(sb, "    each process reads its partitions of both topics; the rows the join holds survive a crash or a partition move: read again from the committed offset (the oldest row in its state), the pairs written before not written again\n")
		j.describeReplayCost(sb)
		return
	}
	what := "input " + grouped[0] + " is"
	if len(grouped) == 2 {
		what = "inputs " + grouped[0] + " and " + grouped[1] + " are"
	}
	fmt.Fprintf(sb, "  Scale-out: the join's %s in consumer group '%s'\n", what, group)
	fmt.Fprintf(sb, "    not replayed (%s): each process reads both inputs whole, every partition, and commits no offsets: after a crash or a restart it reads them again from 'scan.startup.mode', its state empty, and writes their joined rows again; run one process\n", why)
}

// describeReplayCost writes, for a replayed regular join (no time bounds:
// SPEC 2.7's table), what a crash or a partition move costs: reading each
// partition again from the oldest row in the join's state (the committed
// offset), which without 'table.exec.state.ttl' is the first row the job read
// of it (every row stays able to join), and with one is at most the TTL of
// event time below the join's watermark (rows leave the state as the
// watermark passes their time by the TTL; the rows held for the watermarks
// besides).
func (j *BothJoin) describeReplayCost(sb *strings.Builder) {
	if j.Kind() != "regular join" {
		return
	}
	if j.StateTTL > 0 {
		fmt.Fprintf(sb, "    a crash or a partition move reads each partition again from its oldest row in state: with 'table.exec.state.ttl' = '%s', rows up to %s of event time below the join's watermark (and the rows held for the watermarks)\n", FormatTTL(j.StateTTL), FormatTTL(j.StateTTL))
		return
	}
	fmt.Fprintf(sb, "    a crash or a partition move reads each partition again from the first row the job read of it: a regular join without 'table.exec.state.ttl' keeps every row, so its committed offsets stay there (the topics' retention must keep those rows); set 'table.exec.state.ttl' to bound the re-reading\n")
}

// keyName names key column k of input s: the stream's column, or the key
// expression computed into it (JoinInput.KeyExprs).
func (j *BothJoin) keyName(s, k int) string {
	in := &j.Inputs[s]
	if k < len(in.Stream.Columns) {
		return in.Stream.Columns[k].Name
	}
	if x := k - (len(in.Types) - len(in.KeyExprs)); x >= 0 && x < len(in.KeyExprs) {
		return in.KeyExprs[x].Text
	}
	return fmt.Sprintf("column %d", k+1)
}

// derivedInputWhy says why a join input named name that is the derived
// relation d over streams of a consumer group is not replayed (notReplayed):
// d's parts read their streams whole in every process and commit nothing
// (the executor's derived.go; the connector package doc, "What is not
// replayed"). An input routed through the side branches pending on its
// stream (SPEC 2.1, the planner's routedRelation: Kind "routed") says
// what to write instead.
func derivedInputWhy(name string, d *Derived) string {
	if d.Kind == "routed" && len(d.Parts) == 1 && d.Parts[0].Stream != nil {
		st := d.Parts[0].Stream.Name
		return fmt.Sprintf("input %s is read through the side branches pending on %s (SPEC 2.1), by a part that reads %s whole in every process and commits nothing: a join input routed through side branches is not replayed yet; run the side branches in a script of their own, each with a main query of its own over %s and a consumer group of its own, so that this join reads %s in the group", name, st, st, st, st)
	}
	return fmt.Sprintf("input %s is a %s over streams of consumer group '%s', whose parts read them whole in every process and commit nothing", name, d.Kind, groupOf(d))
}

// groupConfig returns st's Kafka configuration when st is read in a consumer
// group: its connector declares one (catalog.CapGroups) and the stream names
// it ('properties.group.id'); nil otherwise.
func groupConfig(st *catalog.Stream) *catalog.KafkaConfig {
	if st == nil || !st.Caps().Has(catalog.CapGroups) {
		return nil
	}
	if kc := st.Kafka(); kc != nil && kc.GroupID != "" {
		return kc
	}
	return nil
}
