// Package flow is what runs between a job's operators (DESIGN: executor;
// issue 10 item 1, issue 22 item 6): the Operator interface and its
// downstream Emitter, the ports (Port) and watermark events (Watermark,
// Mark) they receive, the one instrumented wrapper around every operator
// call (Instrument, OpStats, OpError), what flows (Step: one batch per output
// port, with its chunks and errors port), the Sink a job's output reaches,
// and the one Merger that reads a Step in SPEC 4's output order; RowError,
// a malformed row's failure of a job ('errors'='fail'), which operators
// return; and what an operator that holds a source's rows back tells that
// source (checkpoint.go): Checkpoint, its frontiers for a Kafka replay, and
// HandBack, what a job used of the last batch of a source that hands back
// the rest (stdin).
//
// It owns those contracts and nothing that runs a job: the executor builds
// the operators (build.go) and drives them (run.go); the operators
// themselves live above it. It imports only executor/vector and the standard
// library, and must never import the executor, an operator package, the
// planner or a connector (layering_test.go).
//
// A job is a chain of push-based operators built from its plan.Job in one
// place, the executor's build.go: the source driver (run, runPrefetched, routeHeld, and
// readBuild for a join's build side) pulls batches from a Source, applies the
// stream's errors policy and pushes each batch into its chain:
//
//	probe stream: source → watermark assigner → router (ordered first-match
//	              branches, each with its gate, a semi/anti join's MARK
//	              (markjoin.go), and WHERE) → [an aggregate] → limit (the
//	              main query's LIMIT) → project (the branches' select
//	              lists) → sink
//	build side:   source → join build (the hash semi/anti join's key state)
//	event time:   source → held rows (the event-time join, semijoin.go, in
//	              op.SemiJoin's Hold mode; stamped on arrival by the
//	              chain's assigner) → router → ...
//
// In the event-time case the held rows are released in batches that are not
// the source's, so they reach the router without Marks: a MarkReader behind an
// event-time join reads the stamped watermark column instead (the Final event
// still comes once everything held is routed).
//
// What flows is a *Step (step.go): the input batch and its live rows before
// the router, one batch per output port after it (Parts: each output's rows,
// their arrival ordinals in Sel; the errors port; the late ports an operator
// adds). An operator owns the step it pushes on: the router pushes its own
// Step, whose ports point at the input rows (selection vectors, no copy), and
// an operator may add Chunks of rows it built itself (an aggregate's fired
// windows), each placed at an arrival ordinal (At). No operator merges the
// ports: every sink reads a step through the one Merger (step.go), which
// walks them in SPEC 4's output order with nothing allocated per row.
//
// Every call into an operator goes through one wrapper, Instrumented, that
// checks ctx (on Push: once per batch), counts rows in and out and the time spent in
// the operator itself (Instrument, OpStats, for EXPLAIN ANALYZE), and wraps an error in
// an *OpError, which keeps its message and unwraps to it (%w).
//
// Watermark events. The assigner stays exact per row (SPEC 2.3: each row's
// CURRENT_WATERMARK is the watermark before it, stamped into the batch's
// watermark column). Downstream operators learn the watermark two ways:
//   - as events: after each batch whose rows moved it, the assigner sends a
//     Watermark event with the stream's watermark after the batch, and at the
//     stream's end (io.EOF) a Final event (+∞, SPEC 2.3) before Finish; a
//     LIMIT, a failure or a cancellation ends the job with no Final event;
//   - within a batch, as Marks: when the chain holds an operator that fires on
//     the watermark (a MarkReader: a window aggregate), the assigner records
//     in Step.Marks each row that moved the watermark, as the number of input
//     rows up to and including it (At) and the new value. An aggregate walks
//     its rows and the marks in merge order, fires a window when a mark reaches
//     its end, and places the window's rows as a Chunk at that mark's At: right
//     after the row that moved the watermark (SPEC 2.4), even when that row
//     went to another output.
//
// The choice: a threshold the aggregate asks of the assigner (its next window
// end) cannot be exact, since a later row of the same batch may open a window
// that ends sooner; reading the stamped column needs it stamped for every job
// and a scan of every row in each aggregate. The marks cost one append per
// row that moves the watermark, and only in jobs with a MarkReader; a job
// without one pays one event per batch. Measured (BenchmarkAssignerMarks, 2
// cores): the assigner takes 2.6 ns a row without marks and 2.8 with them;
// the split job's CPU per row (BenchmarkDecodeRouteEncode) is unchanged.
package flow
