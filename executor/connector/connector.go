// Package connector holds the sources of SPEC 1, one file per connector: file
// (bounded, or following appends with 'follow'), stdin, socket, datagen,
// nexmark (nexmark*.go: the Nexmark benchmark's events), values and go; kafka
// and upsert-kafka (a topic's source and sink, SPEC 2.5, 2.8) live in the
// package kafka below it, which implements the contract this package declares
// for them (partition.go: positions, PartitionedSource, the replay marks). file
// and kafka are also sinks. Each connector registers once, from its init (Register): the
// catalog.ConnectorSpec (options, bounded rule, checks, the capabilities it
// declares, catalog.Caps) and its Driver (the source opener; for values, the
// inserter), held in the spec's Source. The engine reads a stream's declared
// capabilities through the typed handles caps.go binds once per open
// (OpenSink, BindSink, BindSource), never by asking what an opened source or
// sink implements; TestDeclaredCapsMatch keeps each declaration true. executor.Env.Open looks the Driver up from the stream's spec; nothing
// outside this package switches on a connector's name or reads a stream's
// option strings (registry_test.go checks both): a spec's Configure parses the
// options into the stream's typed catalog.Config when it is declared
// (configureFile, configureKafka), and the engine reads that. What a connector keeps across a session's jobs (the shared stdin, a values
// stream's rows) lives in the session's State under a key of its own.
//
// Live sources (stdin, socket, a followed file, a paced datagen) return
// ErrWaiting from Next when no row is ready and they are about to wait, so the
// job flushes its sinks and rows show at once (SPEC 4). They stop promptly when
// the job's context is cancelled: blocking reads run in goroutines (errgroup)
// that Close ends and waits for.
//
// # Scale-out over Kafka partitions, and replay (issue 13, SPEC 2.5)
//
// Processes running one script with one 'properties.group.id' share the
// topic's partitions (kafka's CoPartitionBalancer: cooperative and sticky,
// partition i of every topic of the job's group sources to one process). What a process
// has done for a partition p is described to the next owner of p, and to
// itself after a crash, only by p's committed group offset and its commit
// metadata: there is no state store. This section is the contract between
// the commit (package kafka: kafkaSource, kafkaJob.checkpoint, kafkaTxn) and the replay.
//
// Frontiers, per partition p of a group source, in the process that owns p:
//
//   - U_p, the used frontier: every row of p with offset < U_p has gone through
//     the job, its direct outputs (side branches, INTO STREAM, a non-aggregate
//     main, late rows, malformed rows) handed to the sinks, or is held by the
//     event-time join, which copies a batch's rows before asking for the next
//     (kafkaSource.used; the job asks for the next batch only after routing
//     and writing, or holding, this one).
//   - e_p, the emitted frontier: the offset of the first row of p read
//     whose direct outputs are not handed to the sinks yet: the first probe
//     row (or malformed row) of p the event-time join holds, U_p when it
//     holds none (Replay.Emitted).
//   - H_p, the hold frontier: the smallest offset of a row of p still held in
//     open state (a row of an open window or session of a group, a probe row
//     held by the event-time join), U_p when there is none.
//   - w_p: p's watermark before the row at H_p (that row's CURRENT_WATERMARK
//     stamp, kept by the state with the offset); when H_p = U_p, p's
//     watermark now (the one before the row at U_p).
//   - f_p: the largest value the stream's watermark had at a firing while p
//     counted in it, not idle (it is the minimum over the partitions, so p's
//     own watermark was at least that): every window with end <= f_p has fired
//     for p's groups and its rows were handed to the sinks. The commit writes
//     the larger of it and the f read at the assignment (I7).
//
// A checkpoint (every KafkaCommitEvery between polls, before a rebalance is
// allowed to go on, and when the job ends) makes the outputs handed to the
// sinks durable and then commits for each owned p: offset H_p, metadata
// "sq1 e=e_p w=w_p f=f_p" (e never below the e read at the assignment, I7). With 'exactly-once' both are one transaction: the
// outputs since the last checkpoint, of every exactly-once sink of the job
// (one kafkaTxn), and TxnOffsetCommit with the group member and generation
// (KIP-447). With 'at-least-once' the sinks are flushed and acknowledged, then
// OffsetCommit. The invariants:
//
//   - I1 (accounted) every row of p with offset < H_p is done: its direct
//     outputs and every window it belongs to are in committed outputs.
//   - I2 (rebuildable) reading p again from H_p, in offset order, from
//     watermark w_p, rebuilds exactly p's open state at the commit. It holds
//     because lateness and window membership are functions of p's rows alone
//     (one watermark per partition, SPEC 2.5) and because an aggregate's
//     groups each hold rows of one partition only: the topic is partitioned by
//     the grouping key (SPEC 2.5; EXPLAIN says so and warns).
//   - I3 (no repeated row) a row of [H_p, e) read again goes into state only:
//     its direct outputs are committed already and are not written again.
//     A row from e on had no output yet and is processed as new. For the
//     event-time join this needs no record of the build side's progress at
//     the commit (no "b="): the join releases its held rows in order (the
//     longest prefix of them that every build watermark passed, stopping at
//     the first row it did not), so the rows of p it holds are the last ones
//     read of p, every row of p before the first of them (e_p) was routed to
//     the sinks, and none from it on was. A probe row read again is held and
//     released with the same output whatever the build side's progress
//     then (the join's output depends only on its inputs, SPEC 2.2), and a
//     restarted process reads the build side whole again.
//   - I4 (no repeated window) a window (or session) of a group of p with
//     end <= f goes to no output on replay: it fired, and what replay rebuilds
//     of it lacks its rows before H_p. A TUMBLE, HOP or CUMULATE row of p is
//     not added to its windows with end <= f at all (they hold nothing
//     then); a SESSION of p rebuilt with end <= f is dropped when it fires.
//   - I2 for SESSION: whether a row merges into an open session must not
//     depend on the other partitions (which decide when it fires), so a
//     session is closed for a row once the row's partition's watermark
//     reached its end (SPEC 2.4's late rule, per partition), even before it
//     fires; a key's sessions then are a function of its partition's rows.
//     (With one stream, or one partition, a session is fired by then: the
//     rule changes nothing there.)
//   - I5 (atomic) with exactly-once, the outputs that the frontiers describe
//     commit or abort with them. A crashed process's open transaction aborts
//     (fenced by a successor with its transactional id, kafkaTxnID, when
//     the successor's exactly-once sink opens, kafkaSink.fence, even if it
//     writes nothing; with no successor, after
//     'properties.transaction.timeout.ms'), leaving the previous commit's
//     frontiers, which describe exactly what read_committed readers see.
//     Until it aborts, the open transaction holds read_committed readers of
//     the outputs at its first record (the last stable offset): rows other
//     processes committed after it are delayed, never lost.
//   - I6 (stable read) a new owner reads p's offset with require_stable
//     (kafkaSource.stableOffsets): a transaction of the old owner that holds
//     offsets of the topic is resolved first, else the owner would start
//     before offsets that are about to commit and write their rows twice.
//   - I7 (monotone) H_p, e and f never go back: a partition assigned again
//     starts from the committed values, forgetting what the process used of
//     it before (adjustOffsets), and commits only from there on.
//
// The checkpoint runs inside the source's Next, on the job's goroutine
// between two pushes, so that it flushes the sinks with no push in flight and
// reads the state as the outputs left it (a job with an event-time join
// calls Next there too, between releases, not from a reader goroutine).
// A rebalance runs only between polls after a checkpoint (BlockRebalanceOnPoll,
// AllowRebalance in kafkaSource.commit), so a process that loses p has
// committed everything it wrote for p. The group's callbacks run between that
// AllowRebalance and the return of the next poll, and the source hands the
// changes they noted to the state before its Next returns, also when the poll
// brought nothing (ErrWaiting): the job goes on after it, and an event-time
// join would release held rows of p into the next transaction while p's next
// owner reads them again from the commit (TestKafkaRevokeReachesTheStateBeforeNextReturns;
// the executor's TestReplayHeldJoinRows, its late-revoke rule). A bounded
// group source that reached its end is polled no more while the job goes
// on: its rebalances go on only in a window at each checkpoint of another
// group source of the job, right after the commit, and their changes reach
// the state inside it (kafka's kafkaSource.rebalanceWindow); at any other
// time a revoke would let the job release the state's rows of p into a
// transaction that commits them without p's offsets. On a revoke the state
// drops p's groups
// (I2: they hold no other partition's rows), the probe rows of p the join
// holds (and its held malformed rows of p) and p's watermark. A process that
// gains p (or starts, or rewinds after an aborted transaction) first drops
// what it held of p, then seeds p's watermark with w; the stream's watermark
// (the partitions' minimum) goes down to it, so that p's windows fire as soon
// as the minimum passes their end rather than when p catches up with where
// the stream was (a window that fired before holds no group of p; one that
// p's rows open again fires again, with p's groups alone). A process that
// lost p without knowing (its session expired) is a zombie: its offset commits
// carry an old generation and are refused, so its transaction aborts. Its
// rows of p move p's commit (else a crash would repeat them: I1, I3, I4),
// so a transaction of it that carries no offset, and commits unchecked,
// holds none of them (kafka's kafkaJob.checkpoint). With
// 'at-least-once' a crash between the flush and the commit replays from the
// previous H with the previous e: rows are repeated, never lost. With
// 'exactly-once' a transaction whose offset commit the group refuses aborts,
// and every group source of the job rewinds to its last commit, also one
// whose offsets it did not carry, each telling its state at once (kafka's
// rewindAborted): a join's state is rebuilt only from both inputs read
// again (TestKafkaAbortRewindsEveryGroupSource, the executor's
// TestJoinAggregateReplayAfterAborts). A commit the
// group refuses (a rebalance began, the generation moved on, the member was
// removed: a zombie) leaves the offsets uncommitted; the next checkpoint
// commits them if the partitions are still the process's, else their next
// owner reads those rows again.
//
// A job cancelled inside a batch (SIGTERM, SIGINT) can be cut between two
// operators after the batch moved the partitions' watermarks and f_p, or
// fired windows, and before its outputs reached the sinks: the state is then
// torn (Replay.Torn; the executor's replay.go notes each push that changes
// it and each one the sinks take). The event-time join stamps its probe rows
// on arrival, moving the partitions' watermarks, but its held rows carry
// their stamps (w_p is the first one's), so arrival does not tear the state;
// a release of held rows does until it went through (cut before the sinks,
// part of it may be in the open transaction while the rows stay held). A torn job's last checkpoint commits no
// offset and aborts the open transaction: committed, f_p would suppress on
// replay windows that no output holds, and H_p would pass the rows of fired
// windows never written. The partitions' next owner reads again from the
// previous commit. A job that ends after its last batch went through (not
// torn) counts that batch in U_p before its last checkpoint
// (kafkaSource.closeUsed): w_p and f_p include it, and H_p = U_p before it
// would seed the next owner with a watermark past the batch's rows, which
// it would drop as late.
//
// What runs: a stateless job commits U_p and no metadata (H_p = U_p). A job
// with an aggregate (TUMBLE, HOP, CUMULATE, SESSION, GROUP BY, a global
// aggregate) gives its state to the source (Replayer, Replay: the executor's
// replay.go) and commits H_p with the mark (ReplayMark, partition.go; kafka/kafkareplay.go). A
// job with an event-time join gives its held probe rows (the executor's
// probeHold.replayBy): it commits H_p = e_p = the first held row of p, w_p its
// CURRENT_WATERMARK stamp (or p's watermark now when only malformed rows of
// p are held), so the rows held at a crash or a move are read again. A job
// with an event-time join and a window aggregate (or an updating one with a
// TTL or mini-batch) commits U_p (EXPLAIN says to run it in one process; an
// updating aggregate otherwise is replayed with the held rows: "A join
// followed by an aggregate"): the window aggregate after the join fires by the released
// rows' stamps, which are their partitions' watermarks at arrival, so f_p
// would not say which windows reached the outputs (I4). Each group keeps the
// partition, offset and watermark of its first row (not per row: the hot
// path does not change); the hold frontier is computed from them at a
// checkpoint. A group that holds rows of several partitions (a topic not
// partitioned by the grouping key, against SPEC 2.5) counts in each
// partition's hold frontier, and is kept when one of them is revoked. Tests:
// the executor's replay_test.go (random rows, crash points and assignment
// orders for TUMBLE, HOP, CUMULATE and SESSION: two processes emit what one
// does), ejreplay_test.go (an event-time SEMI and ANTI join: processes
// killed, stopped, cut inside a release, losing and gaining partitions (a
// revoke also during a poll that brought nothing while the build side moves
// on) and aborting at random commit what one does), tests/kafka_replay_test.go (a
// kill inside open windows against the broker; the restarted process emits
// what an uninterrupted run does), tests/kafka_ejreplay_test.go (a kill
// while the join holds rows) and
// the crash harness of tests/kafka_scale_test.go (the split job and a TUMBLE
// job; kills, restarts, a process added and one removed).
//
// A join of two Kafka streams of one group (SPEC 2.7; both with event time,
// neither updating, not a lookup join, its rows going straight to outputs:
// the executor's joinReplayable; interval, regular and temporal joins) reads
// both in the group, each input a source with its own Replay (the
// executor's joinreplay.go). The join emits in event-time order, so what it
// wrote is what lies below its watermark: f_p is the join's watermark, and
// an output whose time (its later row's event time, a padding's interval
// end or, when that is before the row's own time, the row's time:
// op.Join.padAt; a temporal join's left row's time) is below the f of the
// assignment is not written again (op.JoinReplay). H_p is the oldest row of p of that
// input still in the join's state, held or still able to join (and an
// outer row's first partner, so that the row is partnered again; for a
// temporal join's right input each key's current version, which any later
// left row may join: read again from there in event-time order, the
// versions are rebuilt as they were, a version below H_p having been
// replaced by one at or after it), w_p its stamp; e_p = U_p, for the late
// and malformed rows. The cost of a crash is that re-reading: a regular
// join without 'table.exec.state.ttl' keeps every row, so its H_p is the
// first row of p the job read; with a TTL, rows leave the state as the
// join's watermark passes their time by the TTL, and H_p follows. The
// topics are co-partitioned (same count, keyed by the join key, a temporal
// join's right topic by its PRIMARY KEY; checked when the job starts), and
// the group's processes each read partition i of both: kafka's
// CoPartitionBalancer gives partition i of every topic of the job to one
// process (each input is a group member of its own) and moves the pair
// together. The two members of a process get, or lose, a partition in
// callbacks at different moments, so while one input reads a partition
// the other does not, the join holds every row: that input's watermark,
// which counts the partitions the other reads (without a watermark of its
// own there), goes to the join as none, and the join's watermark goes down
// to the minimum with a partition that came, whose rows lie below it (the
// executor's joinSource.rewind, op.Join.Rewind); f_p is never below the
// join's largest watermark while p counted in it, and an input whose peer
// no longer reads p commits p's last H_p from when it did (its rows there
// may be the partners of the other's dropped rows). A window aggregate
// after the join scales out too: its watermark over the joined rows
// follows the join's down when a partition comes and up again (the
// executor's joinwincap.go), so the partition's pairs, read again, are
// late for no window, and each window is written once across the
// processes (I4 as below: a window of the partition at or below its
// mark's f gets no row; the process's other partitions keep the f they
// had), beside side branches too (with g: see "A window aggregate over a
// join"). A group with a member that does not
// announce the co-partitioning protocol (another version, another client)
// falls back to cooperative-sticky, which gives each topic's partitions
// out independently: every member parses its assignment with the chosen
// protocol, so each source of this version learns of it at that
// rebalance (kafka's fallbackBalancer), and a job with two sources in the
// group stops there, naming the group and its topics
// (kafkaJob.mixedGroup; tests/kafka_join_test.go's
// TestKafkaJoinStopsInAMixedGroup); as a backstop, the join's two inputs
// holding different partitions for longer than a bound stop the job too,
// naming the join (the executor's joinapart.go). Tests: the executor's
// TestJoinReplayPartitionMoves and TestJoinWindowPartitionMoves (against
// windows computed from the whole input), the crash harness's scale-out join tests
// (tests/kafka_joinreplay_test.go, ...ScalesOutCrashesExactlyOnce), op's
// TestJoinReplayAfterACrash
// (a crash anywhere, every kind, regular with and without a TTL, interval)
// and TestTemporalReplayAfterACrash, and tests/kafka_joinreplay_test.go (the
// crash harness with an interval, a temporal and a regular join, and an
// aggregate after an interval join: "A join followed by an aggregate").
//
// A lookup join (SPEC 2.7: a bounded right side, read whole by every
// process) whose probe side is a Kafka stream of a group reads the probe in
// the group, each process its partitions (no co-partitioning: the right
// side is every process's). Without event time on the probe it holds no
// probe row (op.Join's probesBatches), and each partition commits U_p, as a
// stateless job does. With event time it holds the probe rows until their
// watermark passes them: the probe input alone gets its joinReplay (H_p the
// oldest held row, f_p the join's watermark), and a replayed row's pairs and
// its LEFT padding are not written again (tests/kafka_lookupreplay_test.go,
// the crash harness with both).
//
// # What is not replayed, and refused
//
// The state no replay rebuilds (planner/plan's Job.Unreplayed): a window
// Top-N other than over a window TVF's rows (that one is replayed, beside
// side branches' aggregates too: see "Event-time rank operators" and
// "Updating operators"); a subquery,
// view or WITH relation over streams of a group (read by its parts, or by
// a join or UNNEST in them: plan.Derived.Group), whose parts' jobs read the
// streams whole, every partition, and commit no offsets (as members of the
// group they would split the partitions between them, and commit apart
// from the reading job's sinks: the executor's derived.go), and so any
// state over it (a Top-N, aggregate or join; but see "Updating operators"
// for the relations planned as one job with the state over them); a join with an updating input or
// an input without event time, and a join of two streams followed by a
// Top-N other than "A Top-N after a join" replays, or by an aggregate
// other than those "A join followed by an aggregate" and "A window
// aggregate over a join" replay (a regular outer join's, or one with a TTL or mini-batch:
// these read their inputs whole and commit nothing); an event-time semi or
// anti join in a job with a window aggregate (or an updating one with a TTL
// or mini-batch). Such a job with
// an 'exactly-once' Kafka sink is refused at planning (the operator named,
// with what to do: an at-least-once sink, or one process without the
// group), since after a crash its result would silently not be one
// uninterrupted run's; with an 'at-least-once' sink it runs, saying so on
// stderr when it starts (plan.Job.ReplayNotice), and EXPLAIN's strategy says
// "not replayed" (tests/kafka_unreplayed_test.go).
//
// # A join followed by an aggregate (issue 23 item 6)
//
// An updating aggregate (GROUP BY without a window, or a global aggregate,
// SPEC 2.8) after a join of two Kafka streams of one group whose output is
// append-only (an interval join of any kind, an INNER regular join, a
// temporal join: plan.Job.JoinAggReplayed; not with 'table.exec.state.ttl',
// whose clock behind a join is processing time, nor mini-batch, whose
// changes depend on the batches; no Top-N) is replayed with the join. Its
// commit is, per partition of each input, the smaller of two frontiers,
// and two things change from the join's own replay:
//
//   - The aggregate's frontier names rows of both inputs. Its groups never
//     close, so each is rebuilt from all its pairs: each input's H_p is the
//     first row of p the job read since p came to the process (the
//     executor's joinReplay.first; at a restart that is the committed
//     offset, which therefore stays where the job first read p), w_p that
//     row's stamp. The join's own EachRow(s) is never below it. The cost is
//     the re-reading, as for an updating aggregate over one stream (see
//     "Updating operators"): the topics' retention must keep those rows.
//   - The join writes again, into the aggregate only, its outputs below
//     its f (op.Join.SetRewrite, op.Temporal's): a pair (or an outer
//     interval join's padding, a temporal join's left row) whose time is
//     below the join's watermark at the commit is in committed outputs
//     already (the join emits in event-time order), so instead of leaving
//     it out the join emits it in a batch of joined rows of its own (Old); the
//     aggregate adds those rows to its groups without writing their changes
//     (I3, as for a row below e), and no other output of the job takes them
//     (the executor's replay.filter with newJoinAggReplay). From the first
//     pair at or above f on, the groups hold exactly the pairs an
//     uninterrupted run's held there, so each change is that run's (the
//     join's output depends only on its inputs, SPEC 2.7, and an updating
//     aggregate's changelog has one change per row, whatever the batches).
//
// The aggregate fires nothing by time; a window aggregate over joined rows
// is the next section's. e_p of each input is the rows read: the rows used,
// and those of the input's last batch, which the join took whole (its late
// and malformed rows written) before the checkpoint, run from the other
// input's Next, counts it as used (joinReplay.Emitted). A revoked partition
// of the left input takes the aggregate's groups of it along (a joined row's
// position is its left row's; the topics are co-partitioned by the join
// key). Tests: the executor's TestJoinAggregateReplayAfterKills (processes
// of a real job over two brokerless group topics killed at random points,
// 120 seeds for each of aggregates over INNER, LEFT and FULL interval, an
// INNER regular and a LEFT temporal join, and the join alone: the committed
// changelog is one uninterrupted run's; it fails without the rewrite, the
// first-row frontier or Emitted's last batch) and tests/kafka_joinreplay_test.go's
// TestKafkaJoinAggregateCrashesExactlyOnce (the crash harness).
//
// # A window aggregate over a join (issue 23 item 6, issue 24 item 5)
//
// A window over joined rows reads a view, subquery or WITH relation (SPEC
// 2.6; a window TVF over one side of a join is refused). When that
// relation is an append-only join of two Kafka streams of one group (an
// INNER, LEFT or RIGHT interval join, a temporal join) and a TUMBLE, HOP,
// CUMULATE or SESSION aggregate reads it with nothing beside it (Nexmark q7's and
// q8's shape), the planner plans both as one job (planner's
// ruleFuseJoinWindow; plan.Job.JoinWindowReplayed), which reads both
// streams in the group: the join, then the aggregate over its rows. The
// aggregate fires by the relation's watermark over the joined rows (the
// chain's assigner: the join's output time, less the join's delay,
// plan.BothJoin.OutputTime), as it does over the relation, so the output
// is the relation reader's; no joined row is late for it (the join gives
// none below that watermark). Its replay is the updating aggregate's
// above, with I1-I5 read so:
//
//   - I1, I2: H_p of each input is the first row of p the job read since
//     p came to the process (joinReplay.first), w_p its stamp: reading both
//     topics again from there rebuilds the join's state, and every pair of
//     every open window, in the same order (the join's output depends only
//     on its inputs, SPEC 2.7). (Bounding H_p by the open windows' pairs is
//     not done: a pair's rows are not the first rows of p the window took,
//     since the join gives its pairs in event-time order, not in offset
//     order.)
//   - f_p, of both inputs, is the aggregate's watermark at the commit (not
//     the join's): every window with end <= f fired, and its rows were
//     handed to the sinks (the checkpoint runs in an input's Next, once the
//     job came back for more joined rows: joinReplay.Torn).
//   - I3: the join writes again every output of a row read again (op.Join's
//     rewrite), those below f in batches of their own (Old), which the
//     aggregate takes as the others; they go to no other output. A pair has
//     no output of its own here, so what is old decides nothing; the
//     windows do.
//   - I4: a pair (its position is its left row's, so p is the left
//     input's partition; a RIGHT join's padded right row's is its own, in
//     the right topic's partition p, which the co-partitioned topics give
//     to the same process as the left's p (one process per group), the
//     left mark's f, the aggregate's watermark at the commit, saying of
//     its windows what it says of a pair's) is not added to a window with end <= the f of p's
//     mark (joinOldReplay.FiredBy): that window fired, and no window is
//     written twice; a window above f gets every pair again, so none is
//     written short of one. A SESSION rebuilt with end <= f is dropped
//     when it fires (its rows are not refused as they come: a session's
//     end moves as rows merge into it).
//   - I2 for SESSION: the aggregate's watermark over the joined rows is
//     one for all partitions and no joined row is below it (the join's
//     delay), so a row never merges into a session that fired (its end is
//     at or below that watermark, so at or below the row's time): a key's
//     sessions are a function of the joined rows alone, which the replay
//     gives again from the first row read, in the same order. (Over one
//     stream of several partitions it takes SPEC 2.4's late rule per
//     partition instead, above.)
//   - I5: as for any job.
//
// Side branches over the relation beside the window (SPEC 2.1), each a
// filter and projection of the joined rows, are planned in the job (the
// planner's inlineSides) and write each pair they take when the join
// emits it. Their replay adds a frontier to the mark: f is the join's
// watermark at the commit (not the aggregate's, which is lower by the
// join's delay), so every pair the run before wrote, to a side output or
// into a window, is below f and comes again as old, for the aggregate
// only (I3: the executor's replay.filter drops the side parts of old
// batches); g (ReplayMark.Windows) is the aggregate's watermark at the
// commit, the f above, and I4 reads it: a window of p at or below its
// mark's g gets no pair (FiredBy), one above it every pair, old or new,
// and fires once. When a partition comes to a running process the
// window's watermark follows the join's down and up as without side
// branches (joinwincap.go), so the window scales out beside them too (the
// executor's TestJoinWindowSidesPartitionMoves, the crash harness's
// TestKafkaJoinWindowSidesScalesOutCrashesExactlyOnce). Such a job's
// marks always carry g (math.MinInt64 before a window fired); a mark with
// f and no g was written by a streamql before g, whose rule the executor
// keeps while it holds such a partition (joinSource.oldRule): f alone,
// the windows that fire while old pairs go through taken for the run
// before's and dropped at the sink (exact when every partition came at
// the process's start: the aggregate, taking all the old pairs in the
// same order, reaches the watermark it had at the commit), and a
// partition coming once the window has a watermark stops the job
// (errWindowMoved), saying to restart the group's processes
// (TestJoinWindowSidesOldMarks). Tests: the executor's
// TestJoinWindowSidesReplayAfterKills, TUMBLE, SESSION and HOP beside one
// or two side branches over INNER, LEFT and RIGHT interval and LEFT
// temporal joins, a RIGHT one with its upper bound below 0, 40 seeds
// each; it fails with the aggregate's watermark as f (side rows written
// twice), with f as the windows' frontier too (windows lost) or with none
// (windows written twice),
// or, over the RIGHT join, with a padding taken for written by its
// interval's end alone: op.Join.padAt.
//
// A side branch may also aggregate the joined rows it takes (the
// planner's fuseSideAgg): a TUMBLE, HOP, CUMULATE or SESSION aggregate on
// the relation's event time, or an updating GROUP BY or global aggregate
// without mini-batch or 'table.exec.state.ttl'. Its aggregate is one more
// of the job's aggregate operator's (as beside a window over one stream),
// and the replay above holds for it unchanged: H_p is already the first
// row the job read of p, so its groups and open windows are rebuilt from
// all their pairs; the old pairs go into its state (I3: an updating
// aggregate writes no change of a replayed row), and its windows fire by
// the one watermark over the joined rows, so g says which of them fired
// as it says of the main window's (FiredBy). The commit is the minimum over the operators by construction:
// each input's partition commits the first row the job read of it, which
// no operator's state is older than. Test: the executor's
// TestJoinWindowStatefulSidesReplayAfterKills (an updating GROUP BY, a
// global aggregate, a HOP and a SESSION beside TUMBLE, SESSION and HOP
// windows over INNER, LEFT and RIGHT interval and LEFT temporal joins, 40
// seeds each; it fails when g is not the windows' frontier),
// and tests/kafka_joinreplay_test.go's
// TestKafkaJoinWindowSidesCrashesExactlyOnce (the crash harness: a TUMBLE
// over a RIGHT interval join whose upper bound is below 0, beside a side
// branch of its padded rows and a side HOP aggregate, SIGKILLed at random
// moments, against the reference's rows; it fails the same way).
//
// Tests: the executor's TestJoinWindowReplayAfterKills (TUMBLE, HOP,
// CUMULATE and SESSION over INNER, LEFT and RIGHT interval joins and a
// LEFT temporal join, a SESSION partitioned by a column the join does not
// key on among them, 40 seeds each, processes killed at random points; it fails with the join's
// watermark as f, without FiredBy, or without the rewrite),
// TestJoinWindowFusedIsTheRelations (the one job's output is, row for row,
// the relation's read as a job of its own) and
// tests/kafka_joinreplay_test.go's TestKafkaJoinWindowCrashesExactlyOnce
// (the crash harness, against windows computed from the rows alone). Not
// replayed (plan.Derived.joinWindowWhy says why in the refusal): a window
// aggregate beside a side branch with state of its own other than the
// aggregates above (an event-time join, a mini-batch aggregate: state
// after the join that this replay does not rebuild; a Top-N is the main
// query's only); a cascaded window over a window of the join (the outer
// windows hold inner windows that fired before a crash, which an exact
// replay would fire again from the old pairs into the outer windows only,
// with the join's watermark as f as beside side branches; but a job runs
// one aggregate operator after its join, so the inner windows are a
// relation of their own, read whole, as over one stream); and any window over a regular join, which is
// refused at planning everywhere (its output has no event time, SPEC
// 2.7).
//
// # A Top-N after a join (issue 23 item 6, issue 24 item 5)
//
// An updating Top-N (ROW_NUMBER, RANK or DENSE_RANK over the unbounded
// joined rows, SPEC 2.9; no aggregate, no side branch) after a join of two Kafka streams of one group whose output is
// append-only (the joins of "A join followed by an aggregate";
// plan.Job.JoinRankReplayed) is replayed with the join as the updating
// aggregate is: its partitions never close, so H_p of each input is the
// first row of p the job read since p came (I1, I2); the join writes again
// every output of a row read again, those below its f in batches of their
// own (Old), which go into the Top-N's state only, their changes not
// written again (I3: rank.Operator's noteRow, through the executor's
// newJoinRankReplay), and to no other output; from the first pair at or
// above f on the Top-N holds exactly the rows an uninterrupted run's held
// (the join gives its pairs in the same order, and a Top-N's changes
// follow its rows one by one, SPEC 2.8), so each change is that run's. It
// fires nothing by time (no I4). A revoked partition of the left input
// takes its rows out of the Top-N's state. Test: the executor's
// TestJoinTopNReplayAfterKills (ROW_NUMBER, RANK, DENSE_RANK after INNER
// and LEFT interval, INNER regular and LEFT temporal joins, 40 seeds each;
// fails without the rewrite or without the Top-N's replay) and
// tests/kafka_joinreplay_test.go's TestKafkaJoinTopNCrashesExactlyOnce.
// A query that filters or computes expressions over such a Top-N (a
// condition beside the rank's bound, WHERE rn <= 3 AND v > 2, or an
// expression in its select list) is fused after it into the join's job
// (planner's ruleFuseRankCalc; plan.Rank.Where, Calc): it keeps no state
// and filters and projects the changes the Top-N writes, so the replay
// writes none of them again (the executor's TestJoinTopNCalcReplayAfterKills,
// 40 seeds per query; TestJoinTopNCalcFusedIsTheRelations: the one job's
// output is the Top-N's read as a relation of its own;
// TestKafkaJoinTopNCalcCrashesExactlyOnce).
//
// An updating aggregate after an event-time semi or anti join (SPEC 2.2;
// plan.Job.HeldAggReplayed, the same aggregates) is replayed with the probe
// rows the join holds: the aggregate is a second Checkpoint of the held
// rows' replay (the executor's probeHold.replayBy), so H_p is the smaller of
// p's first held row and its first row that made a group, e_p the first
// held row; the rows read again below e are held and released as before
// (the build side is read whole again) and go into the groups only (I3),
// their direct outputs not written again. It fires nothing by time, so
// the released rows' stamps (each its partition's watermark) decide
// nothing, and such a job runs over a topic of several partitions
// (ErrJoinAggregateParts stops a window's). Test: the executor's
// TestReplayHeldJoinRowsAggregated (SEMI and ANTI with GROUP BY, processes
// killed, cut, moved and aborted, 100 seeds each; fails when the aggregate
// is left out of the replay).
//
// # Updating operators (SPEC 2.8, 2.9; issue 24 item 5)
//
// An updating aggregate (GROUP BY without a window, a global aggregate) and
// an updating Top-N over the stream's rows keep state that never closes: a
// group or a Top-N partition lives as long as the job. Their state is
// rebuilt by replay, not snapshotted, the simplest rule that is correct: the
// hold frontier H_p of such a job is the first row of p that went into the
// state since p came to the process (an aggregate group's first row,
// aggGroup.held; the Top-N's first row of p, executor/rank's Operator.first),
// so the committed offset stays there while e_p = U_p moves on. The next
// owner of p (or the process restarted after a crash) reads p again from
// H_p: rows below e go into the state only (I3: the aggregate's change and
// the Top-N's changes of such a row are in committed outputs already), and
// from e on each row's changes are those of an uninterrupted run, because
// the state then holds exactly p's rows before it (I2: the topic is
// partitioned by the grouping or PARTITION BY key; EXPLAIN says so). The
// mark's w for a Top-N is p's watermark now (it has no time of its own, and
// e = U_p, so the rows read again end where p's watermark is). The cost is
// the replay: a restart or a partition move reads p from the first row the
// job's state took, so it grows with the topic (bounded by the topic's
// retention, which must keep that row: a job whose state outlives the
// retention loses it). Each change still goes to the sinks once with
// 'exactly-once' (I5): a read_committed reader of an upsert-kafka sink
// applying upserts and tombstones sees one uninterrupted run's changes
// (tests/kafka_updating_test.go).
//
// A Top-N over a subquery's unbounded GROUP BY of the stream is planned as
// one job (planner's ruleFuseRankAgg; plan.Job.AggRankReplayed): the
// aggregate, then the Top-N over its changes (op.RetractTopN). Both are
// Checkpoints of one replay; H_p is the smaller of their holds (the
// aggregate's first row of p that made a group; the Top-N's first change
// of p, never earlier). On a replay the aggregate writes the change of
// every row (the executor's passReplay), each at its input row's position,
// and the Top-N takes the changes of rows below e into its state only
// (their outputs are committed), so from e on its changes are one
// uninterrupted run's (tests/kafka_updating_test.go,
// TestKafkaTopNOverGroupByCrashesExactlyOnce). So is a Top-N over a view
// or WITH relation that is such a GROUP BY; a condition on the groups'
// rows before the Top-N ranks them joins the aggregate's HAVING (both keep
// or drop each row of a change alone); and a query that filters and
// projects such a Top-N (a condition beside the rank's bound, WHERE rn <= 3
// AND c > 5, or an expression in its select list: Flink's Calc over a
// Rank) is fused after it (planner's ruleFuseRankCalc; plan.Rank.Where and
// Calc, executor/stateless's RankCalc): it keeps no state and filters the
// changes the Top-N writes, so a replay writes none of them again
// (TestKafkaTopNOverGroupByCalcCrashesExactlyOnce). A Top-N,
// deduplication or updating aggregate directly over a relation that only
// filters and projects the stream is planned over the stream (planner's
// ruleInlineView): the relation's WHERE and select list are computed
// before the operator, which is replayed as over the stream's rows
// (TestKafkaTopNOverViewCrashesExactlyOnce,
// TestKafkaGroupByOverViewCrashesExactlyOnce); a deduplication's late
// rows are the relation's, its select list computed for them
// (plan.Rank.LateProject; late rows read again below e are not written
// again, I3: the executor's TestReplayDedupOverView,
// TestDedupOverViewInlinedIsTheRelations,
// TestKafkaDedupOverViewCrashesExactlyOnce). An updating aggregate over
// such a relation that drops the stream's event time is planned so too:
// the job runs the stream's WATERMARK, whose stamps the groups keep for
// w_p as over the stream, while 'table.exec.state.ttl' keeps the
// processing-time clock it had over the relation (plan.Aggregate.
// ProcTimeTTL; the executor's TestReplayAggregateOverTimelessView,
// TestKafkaGroupByOverTimelessViewCrashesExactlyOnce). So is a TUMBLE, HOP,
// CUMULATE or SESSION aggregate over such a relation whose DESCRIPTOR names the
// stream's WATERMARK FOR column projected as it is (issue 24 item 5, issue
// 23 item 6): planned over the stream, it is a window aggregate over the
// stream's rows, replayed by I1-I4 as one (H_p its open windows' oldest
// row, f_p the stream's watermark at a firing; SESSION's PARTITION BY keys
// the relation's expressions); the relation's WHERE is
// computed before it, the stream's watermark, per partition, carried
// through it (SPEC 2.6), and its late rows are the relation's rows, its
// select list computed for them (plan.Aggregate.LateProject; late rows
// read again below e are not written again, I3). The executor's
// TestReplayWindowOverView (TUMBLE, HOP, CUMULATE, SESSION, a LATE INTO
// SIDE, 40 seeds each, cut inside a batch too) and
// TestWindowOverViewInlinedIsTheRelations (the one job's output, late rows
// too, is the relation's read as a job of its own, one partition; that
// job computes the relation's watermark again over the rows its WHERE
// keeps, which the one job does not). So is such a window with side
// branches over the relation that filter and project its rows (planner's
// inlineSides): each side is planned over the stream with the relation's
// WHERE before its own, so SPEC 2.1's first match over the stream's rows
// gives it the relation's rows it took, and it keeps no state (its rows
// read again below e are not written again, I3; the executor's
// TestReplayWindowOverViewWithSides, TestWindowOverViewWithSidesInlinedIsTheRelations,
// tests/kafka_rankreplay_test.go's TestKafkaWindowOverViewWithSidesCrashesExactlyOnce).
// A window over such a relation on a time it computes has no event time;
// one with side branches over the relation that aggregate is not
// replayed. A rank operator over the
// stream's rows (a Top-N, deduplication, OVER aggregation or ORDER BY the
// event time) in the main query of a job whose side branches aggregate
// (plan.Job.RankBesideAggs) is replayed with them: both are Checkpoints of
// one replay, the commit is the smaller hold frontier (replay.Hold), and
// each takes the rows read again below e into its own state, writing
// nothing of them again (the aggregate's opReplay, the rank's noteRow); the
// fire frontier f_p is the stream's watermark at an event both fired at
// (TestReplayRankBesideSideAggregates,
// TestKafkaTopNBesideSideGroupByCrashesExactlyOnce). So is a window Top-N
// over a window TVF's rows beside side branches' aggregates: the TVF's
// Aggregate passes the rows read again on into the window Top-N's state
// (passReplay) while the side branches' hold theirs back
// (aggregate.Operator.StartReplayPassing). A Top-N over a view's GROUP BY
// of the stream with side branches over the view (planner's
// ruleFuseRankAggSides; plan.Job.Fanout, AggRankReplayed) is one job over
// the stream in which every branch computes the GROUP BY, every row
// offered to every branch, each branch's aggregate taking the groups'
// changes its first-match routing over the view gives it (its HAVING):
// the main query's aggregate passes the changes of the rows read again on
// into the Top-N's state, the side branches' aggregates take those rows
// into their groups only, and the commit is the smallest hold frontier
// (TestReplayTopNOverGroupByWithSides,
// TestKafkaTopNOverGroupByWithSideCrashesExactlyOnce; TestFanoutRoutesTheViewsChanges
// checks the routing against the view's changelog). So are side branches
// over such a view with a main query that filters and projects its rows,
// or with none: every branch's aggregate takes the rows read again into
// its groups only (TestKafkaViewGroupByWithSideCrashesExactlyOnce). The
// groups are kept once per branch.
//
// # Event-time rank operators (SPEC 2.9)
//
// Deduplication keeping the first row, an OVER aggregation and ORDER BY the
// event time emit a row when the stream's watermark passes its time. Their
// f_p is the stream's watermark at the last event they got while p counted
// in it (executor/rank's Operator.fired); H_p is the oldest row of p they hold
// (Over's and TimeSort's rows to emit or in a frame; deduplication's first
// row of p taken, its keys outliving their rows), with w its stamp. The next
// owner reads p from H_p into state, takes its watermark back (the rows read
// again may lie below the one it had: the operator's DropWhere), and does
// not emit again a row of p whose time is below f_p (rank.Operator.writtenRow)
// (tests/kafka_rankreplay_test.go). A watermark raises f_p whether or not it
// fires a row; the state is torn from the raise until the event has gone
// through every operator (the executor's replay.through), so that a mark
// raised by a watermark that fired nothing commits at the next checkpoint
// too (tests/kafka_rankreplay_test.go), not only after one that wrote rows. A window Top-N over a window TVF's rows
// is one of them: a window fires when the watermark reaches its end, so its
// rows are written when end <= f_p; H_p is the oldest row of p its open
// windows rank (the rows it cut have no output), and the TVF's window
// assignment before it (an Aggregate that keeps nothing) passes the rows
// read again on into its state, but gives no row to a window with
// end <= f_p (I4).
//
// A side branch that ends with one of these operators, or an updating
// Top-N, over the rows it takes from the stream by first match (SPEC 2.1
// with 2.9; plan.Job.SideRankReplayed: no aggregate or join of its own, no
// event-time join in the job) is replayed as the main query's: it is one
// more of the job's Checkpoints, H_p the smallest of theirs, and it takes
// the rows of its part read again below e into its state only (the
// executor's TestReplaySideBranchRanks,
// tests/kafka_rankreplay_test.go's TestKafkaSideBranchDedupCrashesExactlyOnce).
package connector

import (
	"context"
	"errors"
	"io"
	"strconv"
	"time"

	"streamql/executor/records"
	"streamql/executor/vector"
)

// ErrWaiting is returned by Source.Next when the source has no row ready and is
// about to wait for input; the job flushes its sinks and calls Next again with
// the same batch (a live source may still be filling it).
var ErrWaiting = errors.New("source waiting for input")

// BadRow is a malformed input row (records.BadRow, shared by all decoders).
type BadRow = records.BadRow

// Outager is a Source that can lose its server for a while and ride it out
// (Kafka, issue 30): Outage says so for the live status, "" when all is well.
type Outager interface {
	Outage() string
}

// Source produces batches of a stream's rows.
type Source interface {
	// Next resets b and fills it with the next rows (b.N >= 0), appending malformed
	// rows to *bad. It returns io.EOF at the end, ErrWaiting (see there), the
	// context's error once the job's context is cancelled, or a read error.
	Next(b *vector.Batch, bad *[]BadRow) error
	// Position renders a source position for messages and the errors side output
	// (SPEC 1: path:line with the path as written, stdin:line, host:port:line, or
	// the row number).
	Position(line int64) string
	// Progress returns the bytes read so far and the total (0 when unknown).
	Progress() (read, total int64)
	// Close releases the source; it stops and waits for its goroutines.
	Close() error
}

// Decoder turns a byte stream into batches (executor.Decoder has the same
// methods: csv, json, ...).
type Decoder interface {
	Decode(b *vector.Batch, bad *[]BadRow) error
	BytesRead() int64
}

// Unreader is a Source that can give back the rows of its last batch that the
// job did not use, so that a later job reading the same input (the session's
// stdin, SPEC 1) continues exactly after the last row used. A job that stops
// inside a batch (the main query's LIMIT) calls Unread before Close.
type Unreader interface {
	// Unread tells the source that only the first rows good rows of the batch
	// its last Next gave were used (and none of the malformed rows after them).
	Unread(rows int)
	// UnreadAfter tells the source that the first rows good rows and the
	// first bad malformed rows of that batch were used, and nothing after
	// the later of the two (a job that 'errors'='fail' stopped at its first
	// malformed row; a job stopped while rows were held).
	UnreadAfter(rows, bad int)
}

// HandBack is a job's account of what it used of the last batch a source
// that hands back gave it (stdin, SPEC 1: the session's next job reads on
// after the last row used), kept by the operator that holds the source's
// rows back (the executor's event-time join: its held rows, which after a
// LIMIT's cut or a stop are the rows not used). It is flow.HandBack.
type HandBack interface {
	// Used returns the first rows good rows and the first bad malformed
	// rows of the last batch the job used (as UnreadAfter takes them), and
	// ok false when it used all of it.
	Used() (rows, bad int, ok bool)
}

// HandsBack is a source that hands back what a job did not use and reads
// it from the job's HandBack when it closes (SourceHandles.HandsBack,
// bound for catalog.CapHandBack): SetHandBack, called on the job's
// goroutine before the source closes, gives it one; when the HandBack says
// ok, what it says replaces the Unreader calls.
type HandsBack interface {
	SetHandBack(hb HandBack)
}

// rester is a Decoder that can give back what it read and did not decode (see
// csvdec.Decoder.Rest: the input after the first rows good rows of its last
// batch; rows < 0 for all of them).
type rester interface {
	Rest(rows int) []byte
	// RestAfter is Rest after the first rows good rows and the first bad
	// malformed rows (see csvdec.Decoder.RestAfter).
	RestAfter(rows, bad int) []byte
}

// restOf returns what dec read and the job did not use: after the first rows
// good rows and the first bad malformed rows of its last batch (rows < 0: all
// of it was used), or nil when dec cannot give back.
func restOf(dec Decoder, rows, bad int) []byte {
	r, ok := dec.(rester)
	switch {
	case !ok:
		return nil
	case rows < 0:
		return r.Rest(-1)
	}
	return r.RestAfter(rows, bad)
}

// restLiner is a Decoder that tells the input line where what it hands back
// starts (csvdec.Decoder.RestLine; rows < 0: after all it decoded).
type restLiner interface {
	RestLine(rows, bad int) int64
}

// linesUsed returns how many input lines dec consumed when the job used the
// first rows good rows and bad malformed rows of its last batch (rows < 0:
// all): the line where restOf's rest starts, minus one; 0 when dec cannot tell.
func linesUsed(dec Decoder, rows, bad int) int64 {
	r, ok := dec.(restLiner)
	if !ok {
		return 0
	}
	return max(r.RestLine(rows, bad)-1, 0)
}

// NewDecoder returns the stream's decoder (its 'format' and format options) over r.
type NewDecoder func(r io.Reader) (Decoder, error)

// NewHandBackDecoder returns the decoder of a stream whose connector hands
// back what a job does not use (catalog.CapHandBack: stdin, SPEC 1) over r;
// continues says r goes on from where an earlier job stopped, not from the
// start of the input (a byte order mark or a header is only at the very
// start).
type NewHandBackDecoder func(r io.Reader, continues bool) (Decoder, error)

// Clock is the time a paced datagen stream follows. Tests inject a fake one so
// pacing is checked without sleeping.
type Clock interface {
	Now() time.Time
	// Sleep waits for d, or returns ctx.Err() once ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

// WallClock is the real clock.
type WallClock struct{}

// Now returns time.Now().
func (WallClock) Now() time.Time { return time.Now() }

// Sleep waits for d or until ctx is done.
func (WallClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// rowNumber renders a position of a source without lines (datagen, values): the
// row number (SPEC 1).
func rowNumber(line int64) string { return strconv.FormatInt(line, 10) }
