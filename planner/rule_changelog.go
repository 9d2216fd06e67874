package planner

import (
	"fmt"

	"streamql/catalog"
	"streamql/planner/plan"
)

// updatingOperator names the operator that makes the result of the query
// being planned updating (SPEC 2.8), "" when it is append-only: a regular
// outer join, or GROUP BY without a window (or a global aggregate) over an
// unbounded stream or over an updating relation. It is what the errors of
// operators and sinks that accept only inserts name (Flink's rule).
func updatingOperator(sp *selectPlan) string {
	if sp.agg != nil && sp.agg.Updating {
		if sp.both != nil && sp.both.Updating() {
			return fmt.Sprintf("the aggregate over the regular %s JOIN", sp.both.Type)
		}
		over := "the unbounded stream " + sp.st.Name
		if why := sp.st.Updating(); why != "" {
			over = "the updating stream " + sp.st.Name + " (" + why + ")"
		} else if sp.st.Bounded() {
			over = "stream " + sp.st.Name + " in 'execution.runtime-mode' = 'streaming'"
		}
		if len(sp.agg.Keys) == 0 {
			return "the global aggregate over " + over
		}
		return "the GROUP BY without a window over " + over
	}
	if sp.both != nil && sp.both.Updating() {
		if sp.both.Changes[0] || sp.both.Changes[1] {
			return fmt.Sprintf("the regular %s JOIN over an updating input", sp.both.Type)
		}
		return fmt.Sprintf("the regular %s JOIN", sp.both.Type)
	}
	if r := sp.b.Rank; r != nil && r.Updating && !r.Bounded {
		return "the Top-N over the unbounded stream " + sp.st.Name
	}
	return ""
}

// updatingResult names what makes the result of the query being planned
// updating (SPEC 2.8), "" when it is append-only: an updating operator of
// its own (updatingOperator), or the changes of the updating relation it
// reads (a CDC or upsert stream, an updating subquery, view or UNION ALL),
// which its filters and projections pass on (ruleChangelogJob's rule). It
// is what a sink that accepts only inserts names when it refuses the query
// (ruleSink), at planning, so EXPLAIN refuses it as running does.
func updatingResult(sp *selectPlan) string {
	if what := updatingOperator(sp); what != "" {
		return what
	}
	if readsOnlyChanges(sp) {
		return "stream " + sp.st.Name + ", which the query reads (updating: " + updatingWhy(sp.st) + "),"
	}
	return ""
}

// readsOnlyChanges reports whether the query being planned is updating only
// because it reads an updating stream or relation whose changes its filters
// and projections pass on (no aggregate, Top-N or two-sided join of its own).
func readsOnlyChanges(sp *selectPlan) bool {
	return sp.agg == nil && sp.b.Rank == nil && sp.both == nil && readsChanges(sp.st)
}

// ruleChangelogJob derives, for every output of j, whether it is updating
// and its upsert key (SPEC 2.8; plan.Output.Updating, UpsertKey): an output
// is updating when a branch that writes it reads an updating join or an
// updating stream (CDC formats, upsert-kafka) or has an updating aggregate
// or Top-N (filters and projections pass kinds through). The
// upsert key of an updating GROUP BY is the output columns that are its
// grouping keys, when the select list holds every key as a bare column; a
// regular outer join's output has none (a retract changelog), as has an
// output several branches write.
func ruleChangelogJob(j *Job) {
	writers := map[int]int{}
	for _, b := range j.AllBranches() {
		writers[b.Output]++
	}
	for _, b := range j.AllBranches() {
		upd := j.Both != nil && j.Both.Updating() || b.Agg != nil && b.Agg.Updating ||
			b.Rank != nil && b.Rank.Updating && !b.Rank.Bounded || // a Top-N over an unbounded input (SPEC 2.9)
			j.Stream != nil && j.Stream.Updating() != "" || // a CDC or upsert stream's changes, passed through (filters, projections)
			b.Agg == nil && b.Rank == nil && j.Stream != nil && readsChanges(j.Stream) // (an updating derived relation: a filter or projection passes the kinds)
		if !upd {
			continue
		}
		o := &j.Outputs[b.Output]
		o.Updating = true
		if writers[b.Output] == 1 && b.Agg != nil && b.Agg.Updating {
			o.UpsertKey = rankedKey(b.Rank, upsertKey(b))
		}
	}
}

// upsertKey returns the output columns of b that are its updating
// aggregate's grouping keys, one per key in key order, or nil when the
// select list lacks one or the aggregate has no keys.
func upsertKey(b *Branch) []int {
	a := b.Agg
	var key []int
	for k := range a.Keys {
		found := -1
		for c, e := range b.Project {
			if e.Op == plan.OpCol && e.Col == a.KeyBase+k {
				found = c
				break
			}
		}
		if found < 0 {
			return nil
		}
		key = append(key, found)
	}
	return key
}

// rankedKey returns key, columns of a branch's projection (its rank
// operator's input), as the branch's output columns when rank r (nil:
// none) follows it: through the operator's Output, then a fused query's
// Calc (ruleFuseRankCalc), each key column selected as it is; nil when
// one is not.
func rankedKey(r *plan.Rank, key []int) []int {
	if r == nil || key == nil {
		return key
	}
	find := func(c int, in func(x int) (int, bool)) int {
		for x := 0; ; x++ {
			v, ok := in(x)
			if !ok {
				return -1
			}
			if v == c {
				return x
			}
		}
	}
	out := make([]int, len(key))
	for k, c := range key {
		x := find(c, func(x int) (int, bool) {
			if x >= len(r.Output) {
				return 0, false
			}
			return r.Output[x], true
		})
		if x >= 0 && r.Calc != nil {
			x = find(x, func(y int) (int, bool) {
				if y >= len(r.Calc) {
					return 0, false
				}
				if e := r.Calc[y]; e.Op == plan.OpCol {
					return e.Col, true
				}
				return -1, true
			})
		}
		if x < 0 {
			return nil
		}
		out[k] = x
	}
	return out
}

// readsChanges reports whether st's rows are changes (SPEC 2.8): a stream
// of a changelog format or an upsert connector, or a derived relation
// (SPEC 2.6) over an updating query.
func readsChanges(st *catalog.Stream) bool {
	if st.Updating() != "" {
		return true
	}
	d := plan.DerivedOf(st)
	return d != nil && d.Updating()
}
