// Package route owns the router of a job's probe stream (SPEC 2.1; issue 22
// items 2 and 3): a flow.Operator with one input port and one output port per
// branch, which sends each row of a batch to the first branch, sides in
// declaration order then the main query, whose gate and WHERE take it. It is
// a chain of stages, one per branch (Stage): stage k's taken port is its
// branch's output, its rest port stage k+1's input; the stages are fused
// into one loop over each batch, which is the whole router where no branch
// has a gate. A branch's gate is the operator the builder puts in front of
// its WHERE (Gate: a semi or anti join, the executor's markJoin), with two
// ports of its own, pass (the WHERE decides) and rest (the next stage), and
// the freedom to put a row it cannot decide yet on neither (an event-time
// join while a stopped job drains its held rows): the router knows nothing
// of joins. Its output is one Step whose Parts select the input rows of each
// branch (the LIMIT and the projections come after it), and it counts per
// branch the rows offered, partnered and taken (EXPLAIN ANALYZE's
// BranchFlow, the counts it is wired to). A job whose rows fan out
// (plan.Job.Fanout: the branches of a view's GROUP BY planned over its
// stream, each routing the groups' changes by its aggregate's HAVING)
// offers every row to every stage instead, each taking the rows its gate
// and WHERE take.
//
// It imports executor/flow (the operator contract), executor/expr (the
// WHERE's kernels), executor/vector and planner/plan only; never the
// executor that builds and drives it, the join state, an operator package,
// a connector or the planner (layering_test.go).
package route
