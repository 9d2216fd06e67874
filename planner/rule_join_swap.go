package planner

import (
	"fmt"
	"slices"
	"strings"

	"streamql/planner/plan"
)

// ruleJoinSwapJob marks an INNER lookup join whose rows go only to a
// bounded Top-N partitioned by the left input's join key (Nexmark q9: each
// auction's highest bid within its lifetime) to read its left input whole
// first and keep it, and join each right row as it comes (plan.BothJoin.Swap,
// op.JoinSpec.Swap), instead of keeping the whole right input (SPEC 2.7's
// lookup join reads the bounded right side first): q9 then keeps its 60,000
// auctions, not its 920,000 bids. The Top-N's result is the same, row for
// row and in the same order (plan.Rank.PosOrder):
//   - each joined row reaches the Top-N with its left row's ordinal as its
//     position (the order in which the lookup join joins the left rows:
//     event-time order as the left watermark passes them), and the Top-N
//     gives its final result's partitions in the order of their first rows'
//     positions, which is the order of their first rows in the lookup join's
//     output;
//   - a partition's rows all come from left rows of one key (the partition
//     key holds the left join key as it is), so when each key has one left
//     row they reach the Top-N in the lookup join's order too: that left
//     row's right rows in the order they came, so ties go as they would. When
//     two left rows share a key, the join holds the right rows after all and
//     joins them at their end in the lookup join's order (op.joinSwap.hold);
//   - the Top-N is bounded (its final table only, SPEC 2.8: no change is
//     printed whose order could differ), without a state TTL or
//     CURRENT_WATERMARK, and it is the job's only output besides the join's
//     late outputs: no side branch, dead-letter or errors output of the
//     right input (its rows are generated, not decoded: no 'format', no
//     computed column, no 'watermark.max-future'; or 'errors' = 'skip'),
//     whose rows would come at another time;
//   - the WHERE and projection before the Top-N read no clock or random draw
//     (the same values in any order);
//   - both inputs are bounded, repeatable streams read directly (a file,
//     values, nexmark: not a Kafka group's partitions, which a replay reads
//     again, Job.JoinReplayed; not a derived relation with outputs of its
//     own).
//
// The Top-N then need not store the left input's columns it holds as they
// are (plan.Rank.Thin, thinRank): when the join finds its left keys unique,
// each partition's rows come from one left row, which the join keeps until
// the Top-N has given its final result from it.
func ruleJoinSwapJob(j *Job) {
	both, m := j.Both, j.Main
	if both == nil || m == nil || len(j.Branches) > 0 || len(j.DeadLetters) > 0 || m.Rank == nil || m.Unnest != nil || m.Agg != nil || m.Join != nil || j.JoinReplayed() {
		return
	}
	if !both.Lookup || both.Type != plan.InnerJoin || both.Changes[0] || both.Changes[1] || len(both.Residual) > 0 ||
		both.StateTTL != 0 || both.Temporal || both.Interval || both.Window || both.Extreme.Size > 0 || slices.Contains(both.NullSafe, true) {
		return
	}
	for _, in := range both.Inputs {
		if st := in.Stream; st == nil || plan.DerivedOf(st) != nil || !st.Bounded() || !repeatable(st) || st.Updating() != "" {
			return
		}
	}
	if r := both.Inputs[1].Stream; r.Shared().Errors != "skip" && (r.Shared().Format != "" || r.HasComputed() || r.Shared().HasMaxFuture) {
		return
	}
	r := m.Rank
	if r.Kind != plan.RankTopN || !r.Bounded || r.StateTTL != 0 || r.Stamp >= 0 || r.LateOutput >= 0 {
		return
	}
	if m.Where != nil && !m.Where.Steady() {
		return
	}
	if !allSteady(m.Project) {
		return
	}
	for _, kc := range both.Keys[0] {
		held := false
		for _, c := range r.Keys {
			if e := m.Project[c]; e.Op == plan.OpCol && e.Col == kc {
				held = true
			}
		}
		if !held {
			return
		}
	}
	both.Swap, r.PosOrder = true, true
	thinRank(r, m.Project, &both.Inputs[0])
}

// thinRank sets r.Thin and r.ThinFrom (the Top-N after a swapped join, whose
// partition key holds the left join key): the Top-N's input columns that
// are a left input column as it is (project: the Top-N's input columns over
// the joined row, whose first columns are the left input's), but no
// partition key or ORDER BY column, nor a copy of the left column one of
// them is (a hidden key column the same as a shown one is stored once).
// When the join finds its left keys unique, a partition's rows all come
// from one left row: those columns are that row's in each of them, so the
// Top-N stores them NULL and its final result takes them from the join's
// kept left row of the partition's position (op.TopN.Fill): the auctions'
// text is then kept once, not also in each auction's winning bids. The
// Top-N's state line says so.
func thinRank(r *plan.Rank, project []*plan.Expr, left *plan.JoinInput) {
	used, usedLeft := map[int]bool{}, map[int]bool{} // (the keys' and ORDER BY's columns, and the left columns they copy)
	cols := slices.Clone(r.Keys)
	for _, o := range r.Order {
		cols = append(cols, o.Col)
	}
	for _, c := range cols {
		used[c] = true
		if e := project[c]; e.Op == plan.OpCol {
			usedLeft[e.Col] = true
		}
	}
	var names []string
	for c, e := range project {
		if c >= len(r.Types) || used[c] || e.Op != plan.OpCol || e.Col >= len(left.Types) || usedLeft[e.Col] {
			continue
		}
		r.Thin, r.ThinFrom = append(r.Thin, c), append(r.ThinFrom, e.Col)
		names = append(names, left.ColName(e.Col))
	}
	if len(r.Thin) > 0 {
		r.State += fmt.Sprintf("; when the join's left keys are unique, without the left columns %s: the final result takes them from the join's kept left row of each partition", strings.Join(names, ", "))
	}
}
