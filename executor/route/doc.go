// Package route owns the router of a job's probe stream (SPEC 2.1; issue 22
// item 2): a flow.Operator with one input port and one output port per
// branch, which sends each row of a batch to the first branch, sides in
// declaration order then the main query, whose gate and WHERE take it. A
// branch's gate is a predicate the builder gives it (Gate: a semi or anti
// join's MARK, the executor's markJoin), evaluated before the WHERE, and,
// for a row an operator before it has not decided yet, the decision to send
// the row nowhere (Gate.Pending: an event-time join's, while a stopped job
// drains its held rows); the router knows nothing of joins. Its output is one Step whose Parts select
// the input rows of each branch (the LIMIT and the projections come after
// it), and it counts per branch the rows offered, partnered and taken
// (EXPLAIN ANALYZE's BranchFlow, the counts it is wired to).
//
// It imports executor/flow (the operator contract), executor/expr (the
// WHERE's kernels), executor/vector and planner/plan only; never the
// executor that builds and drives it, the join state, an operator package,
// a connector or the planner (layering_test.go).
package route
