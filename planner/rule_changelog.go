package planner

import (
	"fmt"
	"slices"

	"streamql/catalog"
	"streamql/parser"
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
		what := "stream " + sp.st.Name
		if d := plan.DerivedOf(sp.st); d != nil {
			what = relationText(sp.st, d) // (view cnt, the subquery, WITH name w)
		}
		return what + ", which the query reads (updating: " + updatingWhy(sp.st) + "),"
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
// or Top-N (filters and projections pass kinds through). The upsert key
// follows Flink's FlinkRelMdUpsertKeys, one key per output: projectKey
// gives the key of the branch's projected rows (Branch.ProjectKey), then
// rankKey the key of a Top-N over them. An outer join's output has none
// (a retract changelog), as has an output several branches write.
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
		if writers[b.Output] == 1 {
			b.ProjectKey = projectKey(j, b)
			o.UpsertKey = rankKey(b, b.ProjectKey)
		}
	}
}

// projectKey returns the upsert key of branch b's projected rows (indexes
// of b.Project, SPEC 2.8), nil when they have none: an updating
// aggregate's grouping keys (Flink: the grouping keys of a GROUP BY), or
// the PRIMARY KEY (...) NOT ENFORCED of the updating stream or relation
// the branch reads (a CDC or upsert-kafka stream; a derived relation
// keyed by its query, upsertKeyOf), which filters and projections keep
// while the select list holds every key column as it is (Flink's rule for
// a Calc: a key survives a projection that selects its columns); or a
// regular INNER join's key (plan.BothJoin.UpsertKey: keyed inputs whose
// keys are within the join's key columns), each column selected as it is
// or as the other side's column the condition equals it to. An UNNEST's
// rows have none.
func projectKey(j *Job, b *Branch) []int {
	if b.Agg != nil {
		if !b.Agg.Updating {
			return nil
		}
		return upsertKey(b)
	}
	if j.Unnest != nil || b.Unnest != nil {
		return nil
	}
	if j.Both != nil { // (the joined layout's key: plan.BothJoin.UpsertKey)
		var key []int
		for _, c := range j.Both.UpsertKey() {
			x := projected(b, c)
			if x < 0 {
				x = projected(b, j.Both.EquivalentColumn(c))
			}
			if x < 0 {
				return nil
			}
			key = append(key, x)
		}
		return key
	}
	st := j.Stream
	if st == nil || len(st.PrimaryKey) == 0 || !readsChanges(st) {
		return nil
	}
	var key []int
	for _, name := range st.PrimaryKey {
		c := slices.IndexFunc(st.Columns, func(col catalog.Column) bool { return catalog.FoldName(col.Name) == catalog.FoldName(name) })
		x := projected(b, c)
		if c < 0 || x < 0 {
			return nil
		}
		key = append(key, x)
	}
	return key
}

// projected returns the column of b.Project that selects input column c as
// it is, -1 when none does (or c is -1).
func projected(b *Branch, c int) int {
	if c < 0 {
		return -1
	}
	return slices.IndexFunc(b.Project, func(e *Expr) bool { return e.Op == plan.OpCol && e.Col == c })
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

// rankKey returns the upsert key of branch b's output (indexes of
// b.Columns) given in, the upsert key of its projected rows (b.Project's
// indexes; nil: none): in itself without a rank operator. After an
// updating Top-N it is Flink's (FlinkRelMdUpsertKeys.getUpsertKeys for a
// Rank, FlinkRelMdUniqueKeys.getRankUniqueKeys):
//   - ROW_NUMBER keeping one row per partition (rn = 1: deduplication
//     keeping the last row, or a Top-1): the PARTITION BY columns;
//   - ROW_NUMBER with the rank column selected: the PARTITION BY columns
//     and the rank column (when a PARTITION BY column is not selected, the
//     input's key, as below: Flink's set of keys holds both);
//   - otherwise (no rank column, or RANK / DENSE_RANK, whose ties share a
//     rank): in when it holds every PARTITION BY column (Flink keeps the
//     input's keys that contain the partition keys), else none.
//
// Each column must be selected as it is (a fused Calc, ruleFuseRankCalc,
// that computes it loses the key). A global Top-1, whose key Flink gives
// as the empty set (at most one row), has none here. Other rank operators
// (OVER, ORDER BY, window Top-N) pass in's columns through.
func rankKey(b *Branch, in []int) []int {
	r := b.Rank
	if r == nil {
		return in
	}
	var key []int // indexes of r.Output
	switch {
	case r.Kind != plan.RankTopN:
		key = outputCols(b, in)
	case r.Func == plan.RankRowNumber && r.N == 1:
		if len(r.Keys) > 0 {
			key = outputCols(b, r.Keys)
		}
	case r.Func == plan.RankRowNumber && r.RankNumber:
		key = outputCols(b, r.Keys)
		rn := slices.Index(r.Output, len(r.Types)) // (the rank follows the input's columns)
		if (key != nil || len(r.Keys) == 0) && rn >= 0 {
			key = append(key, rn)
			break
		}
		key = nil
		fallthrough // (Flink's set holds the input's keys too: one of those, when selected)
	default:
		if in != nil && !slices.ContainsFunc(r.Keys, func(k int) bool { return !slices.Contains(in, k) && !slices.Contains(in, hiddenCopy(b, k)) }) {
			key = outputCols(b, in)
		}
	}
	if key == nil || r.Calc == nil {
		return key
	}
	for x, c := range key { // through the fused Calc: each kept column selected as it is
		y := slices.IndexFunc(r.Calc, func(e *Expr) bool { return e.Op == plan.OpCol && e.Col == c })
		if y < 0 {
			return nil
		}
		key[x] = y
	}
	return key
}

// outputCols returns the indexes of r.Output (branch b's rank operator)
// that give the rank's input columns cols, one per column, nil when one is
// not selected (directly or through a hidden copy, hiddenCopy).
func outputCols(b *Branch, cols []int) []int {
	r := b.Rank
	if cols == nil {
		return nil
	}
	out := make([]int, 0, len(cols))
	for _, c := range cols {
		x := slices.Index(r.Output, c)
		if x < 0 {
			x = slices.Index(r.Output, hiddenCopy(b, c))
		}
		if x < 0 {
			return nil
		}
		out = append(out, x)
	}
	return out
}

// hiddenCopy returns the column of b.Project that selects what its column
// c does, as a visible column, when c is a hidden copy (a PARTITION BY or
// ORDER BY column the rank planning added, $rank0, ...), -1 when none.
func hiddenCopy(b *Branch, c int) int {
	if c < 0 || c >= len(b.Project) || b.Project[c].Op != plan.OpCol {
		return -1
	}
	h := b.Project[c]
	for v, e := range b.Project {
		if v != c && e.Op == plan.OpCol && e.Col == h.Col && slices.Contains(b.Rank.Output, v) {
			return v
		}
	}
	return -1
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

// refuseTimeReader refuses an operator that reads st's rows as append-only
// rows in event-time order (what names it: "a window TVF", "an OVER
// aggregation", "a deduplication keeping the first row", "an ORDER BY on
// the event time": every operator that calls rows late by the watermark;
// todo says what to write instead) when st's rows are not
// that (SPEC 2.8, Flink's rule: its window aggregate and OverAggregate
// consume no update or delete changes): an updating relation or stream
// (readsChanges: each change would be counted as a row), or a relation
// that keeps its event time only for a temporal join's versions (a
// deduplication keeping the last row over a bounded input, or a filter or
// projection of one, plan.Derived.VersionTime: its final rows come at the
// input's end in key order, so a reader by event time would call rows
// late and leave them out). It returns a *parser.Error at pos, or nil.
func refuseTimeReader(pos int, st *catalog.Stream, what, todo string) error {
	if st == nil {
		return nil
	}
	why := notInTimeOrder(st)
	if why == "" {
		return nil
	}
	return parser.Errorf(pos, "%s is updating (%s, SPEC 2.8), and %s reads append-only rows in event-time order (as Flink's): %s", st.Name, why, what, todo)
}

// lastRowFinal is why a relation that keeps its event time only for a
// temporal join's versions (plan.Derived.VersionTime) is not read in
// event-time order, for the planning errors that say so.
const lastRowFinal = "a deduplication keeping the last row, whose final rows come at its input's end in key order, not in event-time order"

// notInTimeOrder says why st's rows are not append-only rows in event-time
// order (SPEC 2.8): it is updating (updatingWhy), or it keeps its event time
// only for a temporal join's versions (lastRowFinal); "" when they are.
func notInTimeOrder(st *catalog.Stream) string {
	switch d := plan.DerivedOf(st); {
	case readsChanges(st):
		return updatingWhy(st)
	case d != nil && d.VersionTime && st.Watermark != nil:
		return lastRowFinal
	}
	return ""
}
