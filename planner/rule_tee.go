package planner

import (
	"sort"

	"streamql/catalog"
	"streamql/planner/plan"
)

// ruleTeeJob fans out each stream job j reads more than once that can be
// read once (plan.Opens.Fanned: stdin, a 'go' stream's pushed queue, a
// socket; issue 22 item 1, "a DAG where one source feeds several
// readers"): a self-join, a UNION ALL of two queries over it, a view or
// WITH name over it read twice, a semi or anti join whose build side is
// its own probe stream, side branches' and the main query's IN subqueries
// over it, at any nesting. Flink runs these with one source operator whose
// output goes to each reader; so does streamql: the job opens the stream
// once and its tee (executor/tee.go) gives every reader every row
// (plan.Job.Tees, shared with the parts of its derived relations, which
// EXPLAIN shows as one Scan and Tee feeding every reader, plan.Tree
// sharedReads). A stream that can be
// read again (a file, values, nexmark, datagen, Kafka outside a consumer
// group) keeps one open per read: each read decodes on its own, in
// parallel where the strategy allows, which is faster than one decoder
// feeding both (docs/performance.md). The reads it cannot run (a Kafka
// consumer group's stream read twice in the group) stay refused by
// ruleReadOnce and ruleReadOnceJob. It runs last of the job's rules but
// the replay's, on the outermost job (a derived relation's parts are
// planned first and get the job's tees).
func ruleTeeJob(j *Job) {
	opens := map[*catalog.Stream]plan.Opens{}
	j.Opens(opens, false)
	var tees []plan.Tee
	for st, o := range opens {
		if o.Fanned(st) {
			tees = append(tees, plan.Tee{Stream: st, Readers: o.N})
		}
	}
	sort.Slice(tees, func(i, k int) bool { return tees[i].Stream.Name < tees[k].Stream.Name })
	j.ShareTees(tees)
}
