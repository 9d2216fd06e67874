// Package executor runs a plan.Job (planner/plan): a source decodes typed batches, the
// watermark assigner stamps each row with the watermark before it (SPEC 2.3), the
// process operator routes each row to the first side branch that takes it or to
// the main query (SPEC 2.1), and a Sink receives one batch per output port
// (Step), which it reads in output order through the Merger. Malformed
// rows follow the stream's errors policy (SPEC 1, bad input). Push-based: the
// source owns the loop; cancellation is checked once per batch (DESIGN: executor).
// Each step is an Operator (operator.go), built from the plan in build.go.
//
// A job's operators and sources get their configuration when the job is
// built, never through the context.Context, which carries cancellation only
// (issue 22 item 4; TestNoContextValues): opContext (the live status, the
// chunk size of the parallel paths) and openOpts (a join's build side, the
// state budget's account of a source, the derived relations' hub), which
// reach a connector as connector.Env's fields.
//
// # Row kinds: the one output contract of updating results
//
// An updating relation (SPEC 2.8: a regular outer join, GROUP BY without a
// window over an unbounded stream, and every operator after one; later
// Top-N, deduplication and the CDC formats) is a changelog whose rows have a
// kind, vector.RowKind: +I, -U, +U, -D. The contract, for every operator that
// makes or passes such rows and every sink:
//
//   - A batch carries its rows' kinds in vector.Batch.Kinds (nil: all +I; an
//     append-only operator never allocates it). A Part or Chunk of a Step
//     batch carries them in Part.Kinds, indexed like its Cols (row Sel[k]'s
//     kind is Kinds[Sel[k]]); read one with Part.KindAt.
//   - An operator that makes updating rows sets Kinds on what it emits (op.Join
//     on its joined batches, the updating aggregate on its Chunks,
//     groupagg.go). Operators that pass rows through (route, filter, project,
//     limit) pass the input batch's Kinds on unchanged; vector.Batch.AppendRows
//     copies them.
//   - Whether an output is updating, and its upsert key, is the planner's
//     decision (plan.Output.Updating, UpsertKey; EXPLAIN shows it per
//     operator), never inferred from a batch: an updating output prints its
//     kinds even when a batch has none (all +I).
//   - A sink that writes an updating output prints each row's kind (the
//     renderers: an op column, "op", +I[...]; the library: Rows.Kind) or
//     applies it (the table renderer's materialized result: +I and +U add a
//     row, -U and -D take back an equal one). A consumer of an updating input
//     retracts what -U and -D take back (agg.State.Retract).
//   - Sink streams that accept only inserts never see an updating output: the
//     planner refuses the query (rule_sink.go).
package executor
