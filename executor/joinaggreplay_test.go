package executor

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/vector"
	"streamql/parser"
	"streamql/planner"
)

// The replay of an aggregate after a join of two Kafka streams (issue 23
// item 6; the connector package doc, "A join followed by an aggregate";
// joinreplay.go's newJoinAggReplay): processes of a real job (Run) over two
// brokerless models of a consumer group's topics (jaSource, two partitions
// each, keyed by the join key) are killed at random points (SIGKILL: no
// last checkpoint; the open transaction's outputs are lost), each restarted
// one reading again from the group's commits, and what the committed
// transactions hold must be, byte for byte and in order, the changelog of one
// uninterrupted run.

// jaGroup is one seed's topics and the consumer group's commits, shared by
// the processes.
type jaGroup struct {
	t     *testing.T
	rng   *rand.Rand
	parts [2][][]replayRow         // per input (l, r), per partition, the rows in offset order
	store [2]map[int32]ejCommitted // per input, the committed offset and mark of each partition
	kept  []string                 // the outputs of committed transactions
	moved int                      // the moves handed to the replays (jaMove)
	log   []string                 // what happened, for a failure's message
	// mu: the sources of a job whose inputs are derived relations (a
	// window TVF's subquery) run on goroutines of their own, each calling
	// Next, which draws from rng and writes log (a race -race found)
	mu sync.Mutex
	// aborts: a checkpoint aborts at random instead of committing, as a
	// transaction the group refused (jaProc.abort)
	aborts bool
	// stops: a run's error is kept in err, not a failure
	// (TestJoinWindowSidesOldMarks)
	stops bool
	err   error
	// noG: the commits carry no g (ReplayMark.Windows), as a streamql
	// before it wrote them (TestJoinWindowSidesOldMarks)
	noG bool
}

// jaProc is one process: its two sources (SourceHandles of one job), its
// sink's open transaction, and when it dies.
type jaProc struct {
	g      *jaGroup
	src    [2]*jaSource
	sink   *jaSink
	ctx    context.Context
	cancel context.CancelFunc
	steps  int  // Next calls left before the kill
	final  bool // the last process: it reads every row and ends
	// owns, when not nil, are the partitions the process holds at its
	// start, and moves the assignment changes at later Next calls (by the
	// count of Next calls so far, next): TestJoinReplayPartitionMoves
	owns  []int32
	moves []jaMove
	next  int
}

// jaMove is an assignment change of partition p of input s at the
// process's Next call number at (jaProc.moves); the source it concerns
// hands it to the Replay at its own next Next, a revoke after a checkpoint
// (kafkaSource: the commit before a rebalance goes on, the callbacks'
// changes before Next returns). An assignment waits while the other
// input's source has a revoke of the partition not handed over yet
// (peerRevokes): the balancer gives a partition back to a process only
// after both its members gave it up; handed in the other order, one
// input's rows were read again while the other's stayed in the join's
// state, and pairs were made twice (seed 348 of a FULL join, 261 of a
// window after an INNER one, among 800).
type jaMove struct {
	at, s  int
	p      int32
	assign bool
}

// jaSource is one input's source in a process: a model of kafkaSource in a
// consumer group (every partition assigned at its first Next from the
// group's commit; a batch counts as used at the source's next Next; the
// job's checkpoint runs inside Next and commits both inputs in one
// transaction, kafkaJob.checkpoint).
type jaSource struct {
	twoParts // (Position, Progress, Close, Partition)
	proc     *jaProc
	s        int
	rep      connector.Replay
	started  bool
	next     map[int32]int64
	given    map[int32]int64
	used     map[int32]int64
	marks    map[int32]connector.ReplayMark
	// owned are the partitions the source holds (jaProc.owns; nil: every
	// one), and moves the changes of them not yet handed to the Replay
	owned map[int32]bool
	moves []jaMove
}

func (x *jaSource) SetReplay(r connector.Replay) { x.rep = r }
func (x *jaSource) Partitions(dst []int32) []int32 {
	for p := range x.proc.g.parts[x.s] {
		if x.holds(int32(p)) {
			dst = append(dst, int32(p))
		}
	}
	return dst
}

// holds reports whether the source holds partition p (owned).
func (x *jaSource) holds(p int32) bool { return x.owned == nil || x.owned[p] }

// assign gives the source partition p from the group's commit.
func (x *jaSource) assign(p int32) {
	g := x.proc.g
	c := g.store[x.s][p]
	x.next[p], x.used[p] = c.off, c.off
	x.marks[p] = c.mark
	if x.owned != nil {
		x.owned[p] = true
	}
	if x.rep != nil { // (none bound: a job that does not replay its input, as CROSS JOIN UNNEST's)
		x.rep.Assign(p, c.off, c.mark, c.ok)
	}
	g.log = append(g.log, fmt.Sprintf("%d: assign %d from %d %+v", x.s, p, c.off, c.mark))
}

// applyMoves hands the source's pending moves to the Replay (jaMove).
func (x *jaSource) applyMoves() {
	pr := x.proc
	for _, m := range pr.moves {
		if m.at == pr.next {
			pr.src[m.s].moves = append(pr.src[m.s].moves, m)
		}
	}
	kept := x.moves[:0]
	for _, m := range x.moves {
		if x.owned[m.p] == m.assign {
			continue
		}
		if m.assign && x.peerRevokes(m.p) {
			// (kafka's CoPartitionBalancer gives a partition back to a
			// process only in a generation after both of its members gave
			// it up: the other input's revoke comes first)
			kept = append(kept, m)
			continue
		}
		pr.g.moved++
		if m.assign {
			x.assign(m.p)
			continue
		}
		pr.checkpoint()
		delete(x.owned, m.p)
		x.rep.Revoke(m.p)
		pr.g.log = append(pr.g.log, fmt.Sprintf("%d: revoke %d", x.s, m.p))
	}
	x.moves = kept
}

// peerRevokes reports whether the other input's source holds partition p
// and has a revoke of it not handed to its Replay yet.
func (x *jaSource) peerRevokes(p int32) bool {
	o := x.proc.src[1-x.s]
	if o == nil || !o.holds(p) {
		return false
	}
	for _, m := range o.moves {
		if !m.assign && m.p == p {
			return true
		}
	}
	return false
}
func (x *jaSource) IdleTimeout() time.Duration     { return 0 }
func (x *jaSource) TopicPartitions() (string, int) { return fmt.Sprint("t", x.s), 2 }

// Next implements Source.
func (x *jaSource) Next(b *vector.Batch, _ *[]BadRow) error {
	g, pr := x.proc.g, x.proc
	g.mu.Lock()
	defer g.mu.Unlock()
	b.Reset()
	for p, off := range x.given {
		x.used[p] = max(x.used[p], off)
	}
	clear(x.given)
	if err := pr.ctx.Err(); err != nil {
		return err
	}
	if !x.started {
		x.started = true
		for p := range g.parts[x.s] {
			if x.holds(int32(p)) {
				x.assign(int32(p))
			}
		}
	}
	if pr.next++; x.owned != nil {
		x.applyMoves()
	}
	if x.rep != nil && x.rep.Torn() {
		g.t.Errorf("the replay of input %d is torn at its Next: the checkpoint there would commit nothing", x.s)
	}
	if !pr.final {
		if pr.steps--; pr.steps <= 0 {
			g.log = append(g.log, "kill")
			pr.cancel()
			return pr.ctx.Err()
		}
		if g.rng.Intn(4) == 0 {
			pr.checkpoint()
		}
	}
	var ps []int32
	for p, rows := range g.parts[x.s] {
		if x.holds(int32(p)) && x.next[int32(p)] < int64(len(rows)) {
			ps = append(ps, int32(p))
		}
	}
	if len(ps) == 0 {
		if pr.final {
			return io.EOF
		}
		return ErrWaiting
	}
	for n := 1 + g.rng.Intn(8); n > 0 && len(ps) > 0; n-- {
		k := g.rng.Intn(len(ps))
		p := ps[k]
		r := g.parts[x.s][p][x.next[p]]
		i := b.N
		b.Cols[0].SetString(i, []byte(r.k))
		b.Cols[0].Null[i] = false
		b.Cols[1].I[i], b.Cols[1].Null[i] = r.ts, false
		b.Pos[i] = connector.KafkaPosition(p, r.off)
		b.N++
		x.next[p]++
		x.given[p] = x.next[p]
		if x.next[p] == int64(len(g.parts[x.s][p])) {
			ps = append(ps[:k], ps[k+1:]...)
		}
	}
	return nil
}

// checkpoint commits, in one transaction, both inputs' frontiers
// (kafkaSource.toCommit: H_p never below the commit, e never below the
// mark's) and the sink's outputs since the last one; a torn job commits
// nothing.
func (pr *jaProc) checkpoint() {
	g := pr.g
	for _, x := range pr.src {
		if x.rep == nil || !x.started {
			return // (a source not opened yet, or not given its replay: nothing to commit)
		}
		if x.rep.Torn() {
			g.log = append(g.log, "checkpoint: torn")
			return
		}
	}
	if g.aborts && g.rng.Intn(3) == 0 {
		pr.abort()
		return
	}
	for _, x := range pr.src {
		for p := range g.parts[x.s] {
			p := int32(p)
			if !x.holds(p) {
				continue // (its commit is its owner's, or the one before)
			}
			used := x.used[p]
			off, wm, wmSet := x.rep.Hold(p, used)
			m := connector.ReplayMark{Emitted: max(x.rep.Emitted(p, used), x.marks[p].Emitted), WM: wm, WMSet: wmSet}
			m.Fired, m.FiredSet = x.rep.Fired(p)
			m.Windows, m.WindowsSet = x.rep.Windows(p)
			m.KeepFired(x.marks[p])
			if g.noG {
				m.Windows, m.WindowsSet = 0, false
			}
			off = max(off, g.store[x.s][p].off)
			g.store[x.s][p] = ejCommitted{off: off, mark: m, ok: true}
			x.marks[p] = m
		}
	}
	g.kept = append(g.kept, pr.sink.out[pr.sink.from:]...)
	pr.sink.from = len(pr.sink.out)
	g.log = append(g.log, fmt.Sprintf("checkpoint %v %v (%d rows kept)", g.store[0], g.store[1], len(g.kept)))
}

// abort is a checkpoint whose transaction the group refused (kafka's
// errRebalanced): its outputs are dropped, and both inputs' sources go back
// to their partitions' commits, their Replays told at once (kafka's
// rewindAborted), also an input with nothing to commit.
func (pr *jaProc) abort() {
	g := pr.g
	pr.sink.out = pr.sink.out[:pr.sink.from]
	g.log = append(g.log, "checkpoint: aborted")
	for _, x := range pr.src {
		clear(x.given)
		for p := range g.parts[x.s] {
			if x.holds(int32(p)) {
				x.assign(int32(p))
			}
		}
	}
}

// jaSink is an orderSink that writes each row's change kind too; from is
// where the open transaction begins.
type jaSink struct {
	orderSink
	from int
}

// jaRows returns random rows of one input: keys k0 to k3, key ki in
// partition i mod 2 (the topics are co-partitioned by the join key), times
// rising by up to 1.5 s per partition, one in eight going back up to 6 s
// (some of them late); no time is in used (the join orders rows of equal
// times by their arrival, which differs from run to run), and it is noted
// there.
func jaRows(rng *rand.Rand, n int, used map[int64]bool) [][]replayRow {
	parts := make([][]replayRow, 2)
	ts := [2]int64{int64(rng.Intn(3000)), int64(rng.Intn(3000))}
	for range n {
		k := rng.Intn(4)
		p := k % 2
		ts[p] += int64(rng.Intn(1500))
		at := ts[p]
		if rng.Intn(8) == 0 {
			at -= int64(rng.Intn(6000))
		}
		for used[at] {
			at++
		}
		used[at] = true
		parts[p] = append(parts[p], replayRow{int32(p), int64(len(parts[p])), fmt.Sprint("k", k), at})
	}
	return parts
}

// jaPlan plans q over l and r, Kafka streams of group g (tornCatalog; r
// with PRIMARY KEY (k) when q joins it FOR SYSTEM_TIME), and returns the
// catalog and the job.
func jaPlan(t *testing.T, q string) (*catalog.Catalog, *planner.Job) {
	t.Helper()
	cat := tornCatalog(t)
	if strings.Contains(q, "SYSTEM_TIME") {
		cat.Lookup("r").PrimaryKey = []string{"k"} // (the versioned side: SPEC 2.7)
	}
	return cat, jaPlanWith(t, cat, q)
}

// jaPlanWith plans q over cat: one main query (planWith), or a script of
// CREATE VIEW statements, side branches and a last main query, as one job
// as a session would.
func jaPlanWith(t *testing.T, cat *catalog.Catalog, q string) *planner.Job {
	t.Helper()
	if !strings.Contains(q, ";") {
		return planWith(t, cat, q)
	}
	script, err := parser.Parse("test", q)
	if err != nil {
		t.Fatal(err)
	}
	p := &planner.Planner{Cat: cat, Source: q}
	var branches []*planner.Branch
	for _, st := range script.Stmts {
		switch s := st.(type) {
		case *parser.CreateView:
			v, err := p.PlanView(s)
			if err != nil {
				t.Fatal(err)
			}
			v.Name = s.Name
			cat.AddView(&catalog.View{Name: s.Name, Text: q, Stream: v})
		case *parser.Select:
			b, err := p.PlanSelect(s)
			if err != nil {
				t.Fatal(parser.FormatError("test", q, err.(*parser.Error)))
			}
			branches = append(branches, b)
		}
	}
	main := branches[len(branches)-1]
	job, err := planner.NewJob(main.Stream, branches[:len(branches)-1], main, q)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// jaRun runs q as one process over g's topics from g's commits: killed
// after steps Next calls (final: never; it reads every row and ends), its
// committed outputs added to g.kept.
func (g *jaGroup) jaRun(q string, steps int, final bool) {
	g.t.Helper()
	g.jaRunMoves(q, steps, final, nil, nil)
}

// jaRunMoves is jaRun of a process that holds the partitions owns at its
// start (nil: every one) and whose assignment changes by moves.
func (g *jaGroup) jaRunMoves(q string, steps int, final bool, owns []int32, moves []jaMove) {
	g.t.Helper()
	cat, job := jaPlan(g.t, q)
	if !job.JoinReplayed() {
		g.t.Fatalf("%s: the join is not planned as replayed", q)
	}
	for _, name := range []string{"l", "r"} { // (planned as Kafka streams in group g; read through jaSource)
		st := cat.Lookup(name)
		st.Config = st.Kafka()
		st.Connector = tornGroupSpec
	}
	var names []string
	for _, o := range job.Outputs {
		names = append(names, o.Name)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr := &jaProc{g: g, sink: &jaSink{orderSink: orderSink{names: names, kinds: true}}, ctx: ctx, cancel: cancel, steps: steps, final: final, owns: owns, moves: moves}
	tornGroupOpen = func(st *catalog.Stream, env *connector.Env) connector.Source {
		return newJaSource(pr, st)
	}
	_, err := Run(ctx, job, &Env{}, func() (Sink, error) { return pr.sink, nil })
	if err != nil && ctx.Err() == nil {
		if g.stops {
			g.err = err
			return
		}
		g.t.Fatalf("%s: %v", q, err)
	}
	if final {
		g.kept = append(g.kept, pr.sink.out[pr.sink.from:]...) // (its last transaction, at the end)
	}
}

// TestJoinAggregateReplayAfterKills (issue 23 item 6): an updating
// aggregate after an interval (INNER, LEFT, FULL), INNER regular or LEFT
// temporal join of two Kafka streams
// in a consumer group gives, over processes killed at random points (each
// restarted from the group's commits), the changelog of one uninterrupted
// run: the pairs (and paddings) the killed process wrote are joined again
// into the aggregate only (op.Join.SetRewrite, op.Temporal's) and the partitions are read again
// from the first row the job read (joinReplay.first), so no change is lost
// or repeated. The same over the join alone: a late row of the input whose
// last batch the checkpoint (in the other input's Next) does not count as
// used yet is not written again (joinReplay.Emitted). 120 seeds per query,
// random batches, interleavings, kills and checkpoints.
func TestJoinAggregateReplayAfterKills(t *testing.T) {
	queries := []string{
		"SELECT l.k, COUNT(*) AS n, SUM(r.ts) AS s FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '3' SECOND AND r.ts + INTERVAL '3' SECOND GROUP BY l.k",
		"SELECT l.k, COUNT(*) AS n, MAX(r.ts) AS m FROM l JOIN r ON l.k = r.k GROUP BY l.k",
		"SELECT COUNT(*) AS n, MIN(l.ts) AS lo FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts AND r.ts + INTERVAL '2' SECOND",
		"SELECT l.k, COUNT(*) AS n, COUNT(r.ts) AS m, SUM(r.ts) AS s FROM l LEFT JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '2' SECOND AND r.ts + INTERVAL '2' SECOND GROUP BY l.k",
		"SELECT COUNT(*) AS n, COUNT(l.ts) AS ln, COUNT(r.ts) AS rn FROM l FULL JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '1' SECOND AND r.ts + INTERVAL '1' SECOND",
		"SELECT l.k, COUNT(*) AS n, SUM(r.ts) AS s FROM l LEFT JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.k = r.k GROUP BY l.k",
		// the join alone (its late rows: each input's read rows, joinReplay.Emitted)
		"SELECT l.k, l.ts, r.ts AS rts FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '3' SECOND AND r.ts + INTERVAL '3' SECOND",
	}
	replayJoinQueries(t, queries, 120, nil, "")
}

// TestJoinAggregateReplayAfterAborts (issue 23 item 6): queries of
// TestJoinAggregateReplayAfterKills, TestJoinWindowReplayAfterKills and
// TestJoinTopNReplayAfterKills (an updating aggregate, a window aggregate
// and a Top-N after a join, and the join alone), with checkpoints that
// abort at random (a transaction the group refused, kafka's errRebalanced)
// besides the kills: both inputs are read again from their commits, and
// the committed outputs are still one uninterrupted run's; also a window
// beside side branches (sideJoinWindowQueries,
// statefulSideJoinWindowQueries: each window, side row and side change
// once), and aggregates whose groups hold pairs of both partitions (a
// global aggregate, a window not keyed by the join key, a SESSION
// partitioned by another column). Those groups stayed through the abort's
// rewinds, each partition's drop keeping a group that held another's rows,
// and the pairs read again were added to them (windows and counts twice
// theirs; seed 11 of the global ones) until aggregate.aggOp.dropped let a
// group go once every partition of its rows is read again. With only one input read
// again (the kafka connector before rewindAborted rewound only the sources
// whose offsets the transaction carried) the other's rows that the join
// had let go never pair again, and the aggregate's groups, dropped with
// the partition, count again from the first pair still able to join
// (TestKafkaJoinAggregateScalesOutCrashesExactlyOnce on 6b039f5).
func TestJoinAggregateReplayAfterAborts(t *testing.T) {
	for _, q := range append([]string{
		"SELECT l.k, COUNT(*) AS n, SUM(r.ts) AS s FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '3' SECOND AND r.ts + INTERVAL '3' SECOND GROUP BY l.k",
		"SELECT l.k, COUNT(*) AS n, COUNT(r.ts) AS m, SUM(r.ts) AS s FROM l LEFT JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '2' SECOND AND r.ts + INTERVAL '2' SECOND GROUP BY l.k",
		"SELECT l.k, COUNT(*) AS n, SUM(r.ts) AS s FROM l LEFT JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.k = r.k GROUP BY l.k",
		"SELECT l.k, l.ts, r.ts AS rts FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '3' SECOND AND r.ts + INTERVAL '3' SECOND",
		"WITH j AS (SELECT l.k, l.ts, r.ts AS rts FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '3' SECOND AND r.ts + INTERVAL '3' SECOND) " +
			"SELECT window_start, window_end, k, COUNT(*) AS n, SUM(rts) AS s FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end, k",
		rightJoinWindowQueries[0], sessionJoinWindowQueries[0], joinTopNCalcQueries[0],
		"SELECT k, ts, rts FROM (SELECT l.k, l.ts, r.ts AS rts, ROW_NUMBER() OVER (PARTITION BY l.k ORDER BY r.ts DESC) AS rn FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '3' SECOND AND r.ts + INTERVAL '3' SECOND) WHERE rn <= 2",
		// groups of both partitions: global aggregates, a global Top-N, a
		// SESSION partitioned by another column than the join key
		"SELECT COUNT(*) AS n, MIN(l.ts) AS lo FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts AND r.ts + INTERVAL '2' SECOND",
		"SELECT COUNT(*) AS n, COUNT(l.ts) AS ln, COUNT(r.ts) AS rn FROM l FULL JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '1' SECOND AND r.ts + INTERVAL '1' SECOND",
		"SELECT COUNT(*) AS n, MAX(r.ts) AS m FROM l JOIN r ON l.k = r.k",
		"SELECT k, ts, rts FROM (SELECT l.k, l.ts, r.ts AS rts, ROW_NUMBER() OVER (ORDER BY r.ts DESC) AS rn FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '3' SECOND AND r.ts + INTERVAL '3' SECOND) WHERE rn <= 2",
		sessionJoinWindowQueries[1],
	}, append(slices.Clone(sideJoinWindowQueries), statefulSideJoinWindowQueries...)...) {
		if !joinReplayKills(t, q, seeds(60), true) {
			return
		}
	}
}

// seeds is n, a quarter of it with -short.
func seeds(n int64) int64 {
	if testing.Short() {
		return n / 4
	}
	return n
}

// replayJoinQueries checks each of queries with joinReplayKills over
// seeds seeds (a quarter with -short), stopping at the first that fails;
// planned, if not nil, must hold for each query's plan (jaPlan), else the
// test fails with notPlanned.
func replayJoinQueries(t *testing.T, queries []string, n int64, planned func(*planner.Job) bool, notPlanned string) {
	t.Helper()
	for _, q := range queries {
		if _, job := jaPlan(t, q); planned != nil && !planned(job) {
			t.Fatalf("%s: %s", q, notPlanned)
		}
		if !joinReplayKills(t, q, seeds(n), false) {
			return
		}
	}
}

// joinReplayKills runs q for seeds 1 to seeds (joinAggReplayRun, with
// aborted checkpoints when aborts is true); it reports false once one
// failed, and fails when no process was killed, no checkpoint aborted
// (aborts) or the uninterrupted runs wrote nothing: the test would check
// nothing.
func joinReplayKills(t *testing.T, q string, seeds int64, aborts bool) bool {
	t.Helper()
	kills, rows, aborted := 0, 0, 0
	for seed := int64(1); seed <= seeds; seed++ {
		k, n, a := joinAggReplayRun(t, q, seed, aborts)
		kills, rows, aborted = kills+k, rows+n, aborted+a
		if t.Failed() {
			return false
		}
	}
	if kills == 0 || rows == 0 || aborts && aborted == 0 {
		t.Errorf("%s: %d kills, %d aborted checkpoints, %d rows written: the test checks nothing", q, kills, aborted, rows)
	}
	return true
}

// newJaSource returns the source of stream st (l or r) in process pr.
func newJaSource(pr *jaProc, st *catalog.Stream) *jaSource {
	s := 0
	if st.Name == "r" {
		s = 1
	}
	x := &jaSource{proc: pr, s: s, next: map[int32]int64{}, given: map[int32]int64{}, used: map[int32]int64{}, marks: map[int32]connector.ReplayMark{}}
	if pr.owns != nil {
		x.owned = map[int32]bool{}
		for _, p := range pr.owns {
			x.owned[p] = true
		}
	}
	pr.src[s] = x
	return x
}

// jaOutputs renders committed outputs for comparison: the main query's
// changelog in its order, then the late rows sorted (a late row goes out as
// it arrives, so where it falls among the joined rows, and among the other
// late rows, depends on how the inputs' batches interleave, which differs
// from run to run; that each is written once does not).
func jaOutputs(rows []string) string {
	var main, late []string
	for _, r := range rows {
		if strings.HasPrefix(r, "main: ") {
			main = append(main, r)
		} else {
			late = append(late, r)
		}
	}
	sort.Strings(late)
	return strings.Join(append(main, late...), "\n")
}

// joinAggReplayOnce runs q for one seed: processes killed until one reads
// to the end, against one uninterrupted run; it returns the kills and the
// rows the uninterrupted run wrote.
func joinAggReplayOnce(t *testing.T, q string, seed int64) (kills, rows int) {
	t.Helper()
	kills, rows, _ = joinAggReplayRun(t, q, seed, false)
	return kills, rows
}

// joinAggReplayRun is joinAggReplayOnce with checkpoints that abort at
// random when aborts is true (jaGroup.aborts); it returns the aborted
// checkpoints too.
func joinAggReplayRun(t *testing.T, q string, seed int64, aborts bool) (kills, rows, aborted int) {
	t.Helper()
	one, g, rng := jaSeed(t, q, seed)
	g.aborts = aborts
	for range 1 + rng.Intn(4) {
		g.jaRun(q, 2+rng.Intn(40), false)
		kills++
	}
	g.jaRun(q, 0, true)
	got, want := jaOutputs(g.kept), jaOutputs(one.kept)
	if got != want {
		t.Errorf("%s, seed %d: after %d kills the committed outputs are\n%s\nwant one uninterrupted run's\n%s\nlog:\n%s", q, seed, kills, got, want, strings.Join(g.log, "\n"))
	}
	if len(one.kept) == 0 {
		t.Logf("%s, seed %d: no output", q, seed)
	}
	return kills, len(one.kept), strings.Count(strings.Join(g.log, "\n"), "checkpoint: aborted")
}

// jaSeed draws seed's rows of both inputs (jaRows) and returns a group over
// them after one uninterrupted run of q (one), a group over them with no
// commit yet (g), and the rng g's runs draw from.
func jaSeed(t *testing.T, q string, seed int64) (one, g *jaGroup, rng *rand.Rand) {
	t.Helper()
	rng = rand.New(rand.NewSource(seed))
	var parts [2][][]replayRow
	used := map[int64]bool{}
	for s := range parts {
		parts[s] = jaRows(rng, 30+rng.Intn(50), used)
	}
	newGroup := func(rng *rand.Rand) *jaGroup {
		return &jaGroup{t: t, rng: rng, parts: parts, store: [2]map[int32]ejCommitted{{}, {}}}
	}
	one = newGroup(rand.New(rand.NewSource(seed)))
	one.jaRun(q, 0, true)
	return one, newGroup(rng), rng
}

// TestJoinReplayPartitionMoves (issue 23 item 6; joinSource.rewind): a
// process of a join of two co-partitioned Kafka streams in a consumer
// group gains partition 1 of one input, and some Next calls later of the
// other (two group members of one process, whose callbacks come at
// different moments: kafka's CoPartitionBalancer), while its watermarks,
// over partition 0, are ahead of partition 1's rows; later it loses
// partition 1 the same way (or loses it first and gains it again). Then a
// process reading every partition from the group's commits reads to the
// end. The committed outputs of the two are, as a multiset, one
// uninterrupted run's: a row of partition 1 is not handled before both
// inputs read it and their watermarks went down to it, and no partition's
// commit says an output was written that was not (150 seeds per query).
func TestJoinReplayPartitionMoves(t *testing.T) {
	queries := []string{
		"SELECT l.k, l.ts, r.ts AS rts FROM l JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '3' SECOND AND r.ts + INTERVAL '3' SECOND",
		"SELECT l.k, l.ts, r.ts AS rts FROM l LEFT JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '2' SECOND AND r.ts + INTERVAL '2' SECOND",
		"SELECT l.k, l.ts, r.ts AS rts FROM l FULL JOIN r ON l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '1' SECOND AND r.ts + INTERVAL '1' SECOND",
		"SELECT l.k, l.ts, r.ts AS rts FROM l JOIN r ON l.k = r.k",
		"SELECT l.k, l.ts, r.ts AS rts FROM l LEFT JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.k = r.k",
	}
	joinMovesQueries(t, queries, nil, "")
}

// joinMovesQueries checks each of queries with joinMovesOnce over 150
// seeds (37 with -short), stopping at the first that fails; planned, if
// not nil, must hold for each query's plan (jaPlan), else the test fails
// with notPlanned. It fails when no partition moved or the uninterrupted
// runs wrote nothing: the test would check nothing.
func joinMovesQueries(t *testing.T, queries []string, planned func(*planner.Job) bool, notPlanned string) {
	t.Helper()
	seeds := int64(150)
	if testing.Short() {
		seeds /= 4
	}
	for _, q := range queries {
		if _, job := jaPlan(t, q); planned != nil && !planned(job) {
			t.Fatalf("%s: %s", q, notPlanned)
		}
		moves, rows := 0, 0
		for seed := int64(1); seed <= seeds; seed++ {
			m, n := joinMovesOnce(t, q, seed)
			moves, rows = moves+m, rows+n
			if t.Failed() {
				return
			}
		}
		if moves == 0 || rows == 0 {
			t.Errorf("%s: %d moves, %d rows written: the test checks nothing", q, moves, rows)
		}
	}
}

// joinMovesOnce runs q for one seed (TestJoinReplayPartitionMoves): a
// process with partition 0 of both inputs (and 1 of both, or neither) that
// gains (loses) 1 on one input and then the other, loses (gains) it again
// the same way, and is killed; then a process that reads every partition
// to the end. It returns the moves handed to the replays and the rows the
// uninterrupted run wrote.
func joinMovesOnce(t *testing.T, q string, seed int64) (moves, rows int) {
	t.Helper()
	moves, rows, _ = joinMoves(t, q, seed)
	return moves, rows
}

// joinMoves is joinMovesOnce, returning the group too.
func joinMoves(t *testing.T, q string, seed int64) (moves, rows int, g *jaGroup) {
	t.Helper()
	one, g, rng := jaSeed(t, q, seed)
	owns, have := []int32{0}, rng.Intn(2) == 0
	if have {
		owns = append(owns, 1)
	}
	var plan []jaMove
	at := 1 + rng.Intn(30)
	for range 2 {
		first := rng.Intn(2)
		for _, s := range []int{first, 1 - first} {
			plan = append(plan, jaMove{at: at, s: s, p: 1, assign: !have})
			at += 1 + rng.Intn(12)
		}
		have = !have
	}
	g.jaRunMoves(q, at+rng.Intn(30), false, owns, plan)
	moves = g.moved
	g.jaRun(q, 0, true)
	got, want := slices.Sorted(slices.Values(g.kept)), slices.Sorted(slices.Values(one.kept))
	if !slices.Equal(got, want) {
		t.Errorf("%s, seed %d: partition 1 moved (%v, the process holding %v first), the committed outputs are\n%s\nwant one uninterrupted run's\n%s\nlog:\n%s", q, seed, plan, owns, strings.Join(got, "\n"), strings.Join(want, "\n"), strings.Join(g.log, "\n"))
	}
	return moves, len(one.kept), g
}
