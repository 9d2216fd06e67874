// Package executor runs a plan.Job (planner/plan): a source decodes typed batches, the
// watermark assigner stamps each row with the watermark before it (SPEC 2.3), the
// process operator routes each row to the first side branch that takes it or to
// the main query (SPEC 2.1), and a Sink receives the routed batches. Malformed
// rows follow the stream's errors policy (SPEC 1, bad input). Push-based: the
// source owns the loop; cancellation is checked once per batch (DESIGN: executor).
// Each step is an Operator (operator.go), built from the plan in build.go.
package executor
