package planner

import "streamql/planner/plan"

// ruleSettings stamps the session settings a statement is planned with onto
// the operators of the branch b it gives (SPEC 3: a SET applies to the
// statements after it, as in Flink's SQL client, whenever their job runs):
// 'table.exec.state.ttl' (Planner.StateTTL) and
// 'table.exec.mini-batch.enabled' (Planner.MiniBatch) on an updating
// aggregate, and the TTL on an unbounded Top-N and a deduplication (SPEC
// 2.8, 2.9), the operators whose state the settings bound. (A regular join
// gets the TTL where it is planned, rule_join_both.go.) PlanSelect applies it
// to every SELECT it plans, so also to the subqueries, WITH names and UNION
// ALL parts a query reads, and to a view's query when the view is planned
// (at its CREATE VIEW, and again after a SET of a planning setting, the
// session's setAndReplan: a view follows the SETs before the query that
// reads it, as in Flink): a side branch declared before a SET keeps the
// settings it was declared with although it runs in a later job. The job-wide settings ('state.max-bytes', the result mode)
// are read when the job starts.
func (p *Planner) ruleSettings(b *Branch) {
	if b == nil {
		return
	}
	if a := b.Agg; a != nil && a.Updating {
		a.MiniBatch, a.StateTTL = p.MiniBatch, p.StateTTL
	}
	if r := b.Rank; r != nil && (r.Kind == plan.RankTopN && !r.Bounded || r.Kind == plan.RankDedup) {
		r.StateTTL = p.StateTTL
	}
}
