// Package executor builds and runs a plan.Job (planner/plan): a source
// decodes typed batches, the watermark assigner stamps each row with the
// watermark before it (SPEC 2.3), the router sends each row to the first side
// branch that takes it or to the main query (SPEC 2.1), and a Sink receives
// one batch per output port (flow.Step), which it reads in output order
// through the flow.Merger. Malformed rows follow the stream's errors policy
// (SPEC 1, bad input). Push-based: the source owns the loop; cancellation is
// checked once per batch (DESIGN: executor). Each step is a flow.Operator,
// built from the plan in one place, build.go, and driven by run.go.
//
// # Packages (issue 22 item 6)
//
// The executor is the builder and the runner; what the operators share and
// some operator families live in packages of their own below it, which never
// import it (layering_test.go says what each may import):
//
//   - executor/flow: the contracts between operators and the runner
//     (Operator, Emitter, Port, Watermark, Mark, the instrumented wrapper,
//     Step, Sink, Merger, Checkpoint, Frontier, LateRows); flow.go keeps
//     their names here as aliases for the executor's code and its clients;
//   - executor/state: the state budget (Budget, Account, LimitError) and the
//     heap limit; budget.go keeps the executor's names of it;
//   - executor/stateless: the main query's LIMIT and the projections;
//   - executor/route: the router (SPEC 2.1; issue 22 items 2 and 3), one
//     stage per branch (route.Stage: a taken port, its branch's output, and
//     a rest port feeding the next stage; fused into one loop), each with
//     its gate and WHERE, one output part per branch; a branch's gate is the
//     operator the builder puts in front of its WHERE (route.Gate: a semi or
//     anti join's MARK, markjoin.go, with a pass and a rest port, which puts
//     a row it cannot decide yet on neither), so it knows nothing of joins;
//   - executor/rank: the operator a main query ends with (SPEC 2.9) and its
//     side of a Kafka replay;
//   - executor/aggregate: the window and updating aggregate (SPEC 2.4, 2.8),
//     its side of a Kafka replay (it is a flow.Checkpoint and reaches the
//     replay through aggregate.Replay, which replay.go's opReplay gives it
//     as it does rank.Replay) and the aggregate's side of the parallel window
//     aggregate (aggregate.Partial, ChunkAgg); the builder gives it the job
//     through aggregate.Options and Wire (the malformed rows' policy and
//     positions, the late rows' counts, the main query's LIMIT) and EXPLAIN
//     ANALYZE reads its Counters; RowError moved to executor/flow with it,
//     for the operators to return;
//   - executor/sinkstream: the writers of sink streams and dead letters,
//     through the handles of the capabilities each sink stream declares
//     (connector.OpenSink; catalog.Caps);
//   - executor/strategy: the execution strategies of a bounded file that
//     the planner chooses (plan.Job.Strategy) and EXPLAIN prints: decoding
//     ahead (Prefetch), parallel decoding (Chunked over a ParallelReader),
//     and the chunk pipeline (Pipeline, NextChunk) that the morsel path, the
//     lookup morsel path and the parallel window aggregate run their
//     workers' chains on; it drives
//     the job through a Feed (the process's batch step) and never sees an
//     operator;
//   - executor/source: the decoding of a stream's bytes by its format
//     (NewDecoder; NewValueDecoder and NewChangeDecoder for a record on its
//     own), given to the connectors through connector.Env, and the source of
//     a stream with computed or METADATA columns (NewComputed).
//
// What stays here is coupled to the runner: the watermark assigner
// (watermark.go, its per-partition watermarks in partwm.go and
// 'watermark.max-future' in maxfuture.go: the replay seeds and reads its
// partitions' watermarks); the router's gates (the MARK joins of markjoin.go
// over op.SemiJoin's Mark mode, fed by join.go's semiBuild); the source
// drivers and the choice of the
// strategy's runner (run.go); the replay (replay.go)
// and EXPLAIN ANALYZE (analyze*.go); the chain side of the three chunk
// pipelines (morsel.go: the workers' chains that route and encode, and the
// writer; lookupmorsel.go: a lookup join's left file probed on the workers
// against its finished right side, each worker with its own probe, op.Join's
// ProbeCopy, and morsel.go's chains and writer; paragg.go: the parallel window aggregate's workers, its merge order
// and the chunks it gives back), which build chains of their own
// (buildChain); the event-time join
// (semijoin.go), the sources (source.go: the job's Env that opens them, derived.go,
// joinsource.go: a join's two inputs, ports of its scheduler, which pushes
// the joined rows into the chain, joinSource.run, or is pulled, Next;
// unnest.go, maxfuture.go; tee.go: one open of a stream that
// can be read once fanned out to the job's readers of it, plan.Job.Tees,
// which hands back to stdin the furthest any reader's job used, each
// reader an Unreader and a HandsBack of its own; derivedhandback.go: a
// derived relation's parts over stdin gated, so that what its reading job
// did not take is in the source's last batch, and handed back when the
// part's source closes; joinhandback.go: a join's cut mapped to its
// inputs' last batches; unnest.go's Unread: to the input rows unnested;
// takesBack (source.go) keeps these accounts off the other paths;
// joinpipe.go: an interval join of two files on goroutines of its own, its
// inputs read ahead, its sink calls replayed by the job's goroutine before
// the joined batch they came before) and the live status (live.go).
//
// # The event-time join and the router: what is left (issue 22 item 3)
//
// The event-time semi and anti join is the semi join operator in its Hold
// mode (op.SemiJoin) under the job's scheduler, routeHeld (semijoin.go,
// heldScheduler), and the MARK gates of the router's stages (markjoin.go),
// each over the semi join operator in its Mark mode. What depends on what:
//
//   - Which rows are released, and when, is the operator's: held in order,
//     released once every build watermark passed them, as the hold's answer
//     to a Watermark on its port 1 (probeHold.Watermark: the smallest build
//     watermark, buildWatermark, which the scheduler pushes through the
//     chain's wrapper of the hold, chain.hold). A released row's marks are
//     decided, so the router only routes it.
//   - The router is one stage per branch (route.Stage: a taken port and a
//     rest port feeding the next stage, fused into one loop), and a semi or
//     anti join is the gate operator of its branch's stage (markJoin, a
//     route.Gate: its pass port goes to the branch's WHERE, its rest port to
//     the next stage). It is evaluated over the rows offered to its branch
//     (those no branch before took), not by the join before the router: its
//     key and condition expressions must see the offered rows only, as a
//     WHERE does (their NULLs are counted by EXPLAIN ANALYZE; a failing
//     call's row goes to the errors output, SPEC 2.10).
//   - A stopped job's drain (Ctrl-C, SIGTERM, its held rows past
//     'state.max-bytes', a build side's error) routes the held rows whose
//     first branch that takes them is decided: a row is routed when every
//     event-time join at a branch up to the one that takes it has had its
//     own build watermark pass the row; which branch takes it depends on the
//     WHEREs and marks before it, so the hold cannot tell without routing.
//     The decision is the join's own (markJoin.drain, set by the drain): it
//     emits a row it cannot decide yet on neither of its ports, and the
//     router, which sees only the ports, sends it nowhere.
//   - The MARK is op.SemiJoin's, in its Mark mode (op/semimark.go): the
//     build side's state is the operator's (each distinct build key encoded,
//     with its earliest event time, charged by key bytes plus
//     op.MarkKeyOverhead, which EXPLAIN ANALYZE and the 'state.max-bytes'
//     errors show), the build readers' batches are evaluated into its right
//     columns (keys, build condition, event time, each row's watermark) by
//     joinBuild and pushed into its port 1 (semiBuild.absorb, join.go), and
//     the stage's gate (markJoin) evaluates the probe keys and condition,
//     which executor/op, below executor/expr, cannot, and asks the operator
//     for the offered rows' marks (op.SemiJoin.Marks).
//   - The scheduler reads every input the same way (step 3's first slice,
//     done): each input port has a reader (portReader: port 0 the probe
//     stream, port k the build side of the join whose Port.Input is k), a
//     goroutine each for a source's blocking Next, that only reads and
//     hands each batch on the scheduler's one channel, reading the next
//     once the scheduler acks it (one batch of each port in flight). A
//     probe stream that declares a replay (a Kafka group source, whose
//     checkpoint runs inside Next and must fall between the job's pushes)
//     has no goroutine: the scheduler calls its reader's read on the job's
//     goroutine when nothing else is to do. The scheduler (heldScheduler.
//     run) takes each message by its port (take): a build side's batch into
//     its MARK operator (buildFeed, the bounded strategy's feed too,
//     readBuild), the probe stream's into the chain and so the hold
//     (takeProbe, push); between
//     messages it pushes the smallest build watermark into the hold as a
//     Watermark on its port 1, and the hold releases what it passed. The
//     marks, the build state and the release are the job's goroutine's, so
//     there is no lock, and a build side's error is the job's as it comes.
//   - The release is the hold's (probeHold.releaseDecided, release): it
//     routes the rows it decided, with the malformed rows between them,
//     keeps the LIMIT's cut (its ordinal, for stdin's hand-back and the
//     replay; its Watermark then returns errLimitReached, which ends the
//     job as a LIMIT does every driver's) and drains a stopped job's held
//     rows (drain).
//   - The malformed probe rows are the hold's own (step 1 of the three
//     below, done): the operator's errors port (op.HoldErrors) takes each
//     batch's malformed rows ('side' and 'skip') after its good rows, each
//     a row of op.HeldErrorTypes carrying its ordinal (the good rows
//     before it) and its source position, and they leave with the rows
//     before them (op.SemiJoin.ErrorsUpTo, HeldError, DoneErrors:
//     probeHold.release routes the 'side' ones on the Step's errors port
//     and counts them all, issue 9), a Kafka partition's drop renumbers
//     them (op.SemiJoin.DropHeld) and the replay's frontiers read their
//     positions there (probeHold.Frontiers).
//   - What a stdin probe stream hands back reaches the source through the
//     hold (step 2, done): probeHold is the job's flow.HandBack (Used),
//     read from the rows it still holds (after a LIMIT's cut, the rows
//     after the LIMIT's last row, probeHold.cut; after 'errors'='fail' the
//     failing row, probeHold.failed; after a stop, what was not routed),
//     and routeHeld gives it to the source's hand-back handle
//     (SourceHandles.HandsBack, bound for catalog.CapHandBack), which the
//     stdin source reads when it closes; the max-future filter's handle
//     gives it in the connector's rows (futureHandsBack). A Kafka replay
//     reads the held rows, the LIMIT's cut included, through the
//     Checkpoint (probeHold.Frontiers).
//   - The hold is an operator of the chain (step 3's second slice, done):
//     probeHold, between the watermark assigner and the router
//     (chainOpts.hold, build.go), counted by its wrapper as every operator
//     is. The scheduler applies the probe stream's errors policy, as every
//     source driver does (heldScheduler.push: admitBad), and pushes the
//     batch's Step into the chain's head: the assigner stamps its rows as
//     they come (watermarker.pushHeld: no watermark event, the hold
//     releases by the build watermarks) and pushes it into the hold, whose
//     Push holds the good rows and the malformed rows of the Step's errors
//     port (Errors.Read: each one's ordinal and source position, 'skip'
//     rows too, which Errors.Rows does not carry; Errors.Rows: the text of
//     the 'side' ones). The hold releases into the router through its
//     downstream emitter (probeHold.release), and passes the stream's end
//     on. The assigner also refuses a second partition of a source whose
//     joined rows an aggregate fires by their stamps
//     (watermarker.refuseParts, ErrJoinAggregateParts), which the
//     scheduler checked before.
//   - What the scheduler kept is the hold's (step 3's third slice, done).
//     The scheduler acks the probe stream's reader once the hold accepts
//     another batch (probeHold.Accepts: always, but a stdin probe stream,
//     which can hand back rows of its last batch only, once nothing is
//     held: oneBatch). A failing malformed row ('errors'='fail') is told
//     to the hold (probeHold.fail), which has a group source read it and
//     what follows again (UnreadAfter) as stdin gets them back (Used).
//     The held rows' replay is set up by the hold, the job's Checkpoint
//     (probeHold.replayBy); the malformed rows a replay reads again are
//     dropped before the errors policy as every source driver drops them
//     (admitBad, shared with process.batch). The build sides' malformed
//     rows of the 'side' policy are emitted by the hold after each release
//     (probeHold.buildErrors, each build side's in turn: a shared 'errors'
//     output keeps today's order), and whether a stop routes what is held
//     is the hold's too (probeHold.keep).
//   - One scheduling core (step 3's fourth slice, its step 1, done):
//     portScheduler (portsched.go) holds the ports' readers (portReader),
//     the one channel of those on goroutines of their own, the polled
//     ports (read on the scheduler's goroutine when it asks which port to
//     read, next), and the one rule by which it acks a reader whose batch
//     was taken (ackAccepted: accepts, whether the port's operator takes
//     another batch now; a stopped job acks no goroutine's reader). The
//     event-time join job's scheduler (heldScheduler) runs under it, its
//     rule heldScheduler.accepts (the hold's Accepts for the probe, a MARK
//     build always), and so does op.Join's source (joinsource.go, on the
//     job's goroutine), whose two inputs are its polled ports and whose
//     choice of input is its rule (joinSource.accepts: the input whose
//     watermark is behind, joinSource.behind, a lookup join's
//     right one until it ends, a swapped join's left one; the other one
//     meanwhile when the one behind has no row ready). TestJoinReadOrder
//     holds the join's read order to SPEC 2.7's.
//   - op.Join's inputs are ports, its joined rows pushed (step 3's fourth
//     slice, its steps 2 and 3, done): each input of a join is a port of
//     the core with a reader of its own (joinInput.r, a portReader): its
//     source's Next into the reader's batch, or the batches of the
//     input's parallel reader (ParallelJoinInputs, the lookup morsel
//     path's fallback: chunked.Reader) or of its read-ahead goroutine
//     (PipelinedJoin: strategy.Ahead), which the reader hands on
//     (portReader.from). What it read goes through the input's port stage
//     (joinSource.intake, was readBatch: the replay's malformed rows read
//     before dropped, unread; the errors policy; the input's watermarker
//     and 'watermark.max-future', refuseFuture; joinreplay.go's noteBatch;
//     the pushed-down filter, filterPushed; the computed keys) into
//     op.Join; the rows refuseFuture and filterPushed keep go to batches
//     of the input's own (kept, filtered), never into the reader's, which
//     stays the batch its source decodes into
//     (TestJoinInputReaderKeepsItsBatch). On the job's goroutine the join's scheduler is its push
//     shape (joinSource.run, from runBudget): it reads the input the
//     core's rule takes, pushes it through the port stage, and pushes the
//     joined rows the join emitted, queued in order (its late rows and
//     its inputs' malformed rows are written as the read meets them,
//     before them), into the chain's head (process.batch) one batch at a
//     time before it reads again; RowSource and Unread read the pushed
//     batch's input positions (give). A grouped join's two Kafka inputs
//     are two polled ports whose checkpoints, inside their reads, run
//     between pushes, once the rows given went through (joinReplay.Torn).
//     The pull shape (joinSource.Next, one step of the same loop: step,
//     give) stays for a job that reads the join on a goroutine of its
//     own, the pipelined join (joinpipe.go), or through a wrapper (a
//     derived relation's part over stdin, gated: derivedhandback.go).
//   - What is left of step 3, one scheduler: (4) joinpipe.go's goroutines
//     do not ask the core which input to read: each input's Ahead decodes
//     its bounded file ahead unasked (the join's goroutine takes its
//     batches by the core's rule), and the join runs on a goroutine of its
//     own, pulled (Next). A join of two streams is never an event-time
//     semi join's probe stream in one job: the joined rows have no event
//     time of their own (plan.JoinedStream), so the planner refuses an
//     unbounded build side over them (the planner's joinedProbeError; it
//     was planned, and the hold's layout panicked), and the form it
//     advises, a subquery over the join selecting its output time, is a
//     derived relation: its part's job runs the join in the push shape
//     on a goroutine of its own into a captureSink (derived.go), and the
//     hold's probe reader reads the relation as any other. The join's two
//     inputs and the build sides as ports of one portScheduler, the joined
//     rows pushed into the hold, would first need the joined rows to
//     carry the join's output time in the job itself (as a window over a
//     join's does: the planner's rule_fuse_join_window.go, the job's
//     watermark over the joined rows), the hold then keeping that column
//     (heldTypes); then heldScheduler's loop takes joinSource's polled
//     ports (step, read) in place of port 0's reader, and a join input
//     whose Next blocks (stdin) becomes a goroutine's reader whose batch
//     waits, taken only when joinSource.accepts takes it, so that the
//     build sides' batches and releases go on meanwhile. op.Join itself
//     does not change.
//
// A source's capabilities are its stream's declaration (catalog.Caps, issue
// 22 item 5), bound to typed handles once, when the job opens the stream
// (Env.Open, source.go's opened: connector.BindSource's SourceHandles):
// partitions, record metadata, replay and topic (a consumer group),
// parallel decoding (strategy's readers and pipelines) and stdin's
// hand-back (HandsBack); and a sink's kinds,
// dead letters and abort (connector.OpenSink). The engine reads the handles
// and never unwraps a source to find them (issue 22 item 1): a source hook
// returns the handles of its wrapper (SourceHook: the CLI's progress counts
// keep the source's but the parallel reader, SourceHandles.Wrapped; `streamql
// test --shuffle` gives a file partitions of its own), as the max-future
// filter (maxfuture.go) does.

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
// window over an unbounded stream, an updating Top-N, a stream read in a
// CDC format, and every operator after one) is a changelog whose rows have a
// kind, vector.RowKind: +I, -U, +U, -D. The contract, for every operator that
// makes or passes such rows and every sink:
//
//   - A batch carries its rows' kinds in vector.Batch.Kinds (nil: all +I; an
//     append-only operator never allocates it). A Part or Chunk of a Step
//     batch carries them in Part.Kinds, indexed like its Cols (row Sel[k]'s
//     kind is Kinds[Sel[k]]); read one with Part.KindAt.
//   - An operator that makes updating rows sets Kinds on what it emits (op.Join
//     on its joined batches, the updating aggregate on its Chunks,
//     executor/aggregate, an updating Top-N, executor/rank). Operators that pass
//     rows through (route, filter, and executor/stateless's project and
//     limit) pass the input batch's Kinds on unchanged;
//     vector.Batch.AppendRows copies them, and SwapRows moves them with the
//     rows (a join source hands its joined batches on so, executor/joinsource.go).
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
