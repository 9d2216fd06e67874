// Package aggregate is the window and updating aggregate operator of a job
// (SPEC 2.4, 2.8; issue 22 item 6): after the router, it takes the rows each
// aggregating branch took and keeps per window × group accumulators
// (executor/agg), fires a window once when the watermark of its stream
// reaches the window's end, right after the row that moved it, sends the
// rows whose windows all fired to the late outputs, emits an updating GROUP
// BY's changes (+I, -U, +U, -D) and a window TVF's rows, and pushes what it
// made as Chunks placed at their arrival ordinals (SPEC 4).
//
// Files: aggregate.go (the Operator and one branch's aggregate, aggOp: New,
// Push, the malformed times), aggwindow.go (window assignment, sessions,
// firing), agggroups.go (the groups, their keys and hash tables),
// aggemit.go (the rows of fired windows), groupagg.go (the updating
// aggregate's changes and the state TTL), aggreplay.go and checkpoint.go (a
// Kafka group source's replay: the hold frontier, a partition's drop, the
// Replay the executor's replay.go gives), partial.go (the aggregate's side
// of the parallel window aggregate: the Partial of a worker's chain and the
// ChunkAgg the job's Operator merges; the executor's paragg.go runs the
// workers).
//
// It imports the executor's base packages (flow, state), the kernels
// (executor/agg, expr, vector, window, format, op), the SQL types (catalog),
// the connector registry (connector.KafkaPartitionOf) and the plan, never the
// executor that builds and runs it (layering_test.go): the builder gives it
// what it needs of the job through Options and Wire, the replay through Replay,
// and reads its counters through Counters and LateRows.
package aggregate
