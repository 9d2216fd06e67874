package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// timedBuild is an unbounded build side read concurrently with the probe stream
// (SPEC 2.2, event-time strategy).
type timedBuild struct {
	j    *plan.Join
	port Port // the build side's input of the job's operators
	src  Source
	ks   *keySet
	es   *StreamErrors // the job's count: side rows when emitted, the rest after the reader ends
	// read counts what the reader goroutine met (its own, so no race with es)
	read StreamErrors
}

// heldChunk is a copy of a probe batch whose rows wait for the build watermarks.
// Rows [next, b.N) are not yet routed; bad are the batch's malformed rows for the
// errors side output, badAt the At of every malformed row not yet counted ('side'
// and 'skip'): a malformed row counts when the rows before it are routed, so the
// counts on stderr equal the rows written (issue 9: LIMIT and Ctrl-C).
type heldChunk struct {
	b     *vector.Batch
	next  int
	bad   []ErrorRow
	badAt []int
	// badPos is the source position of each row of badAt: its partition and
	// offset, for a replay (the emitted frontier, holder.Drop)
	badPos []int64
	bytes  int64 // charged to the held rows' StateAccount
	nbad   int   // len(badAt) when the batch came (hand-back, see holdAndRoute)
}

// maxFree is how many routed held batches are kept for reuse.
const maxFree = 4

// leftMsg is one step of the probe stream's reader goroutine: a decoded batch
// (valid until ack), ErrWaiting, io.EOF or an error.
type leftMsg struct {
	b   *vector.Batch
	bad []BadRow
	err error
}

// runHeld runs a job with event-time joins (SPEC 2.2): build sides are read by
// their own goroutines into shared key state; probe rows are copied and held, in
// order, and routed once every build watermark has passed their event time (or
// the build stream ended). Output depends only on the inputs, never on how the
// streams interleave: a build row enters the state before its stream's watermark
// passes it, and a late build row never does.
//
// Held rows keep only the columns the job's branches read, and are charged to
// acct: a job whose held rows pass 'state.max-bytes' stops with a
// *StateLimitError naming the build stream whose watermark stalled.
//
// The probe stream is read by a goroutine of its own, so that a held row is
// released as soon as a build watermark passes it, except when src is a
// connector.Replayer (a Kafka source, which commits its group's offsets from
// inside Next, kafkaJob.checkpoint: the checkpoint flushes the sinks and reads
// the held rows, so it must run between the job's pushes): then Next is
// called on the job's goroutine, between releases (it returns within
// kafkaPoll, with ErrWaiting when nothing came), and the held rows are given
// to the source's replay (newHeldReplay, replay.go).
func runHeld(ctx context.Context, oc opContext, job *plan.Job, src Source, sink Sink, stats *Stats, joins map[*plan.Branch]*keySet, timed []*timedBuild, acct *StateAccount) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	notify := make(chan struct{}, 1)
	poke := func() {
		select {
		case notify <- struct{}{}:
		default:
		}
	}
	for _, tb := range timed {
		tb := tb
		queue := func(rows []ErrorRow) error {
			tb.ks.mu.Lock()
			for _, r := range rows {
				r.Raw = append([]byte(nil), r.Raw...)
				tb.ks.pending = append(tb.ks.pending, r)
			}
			tb.ks.mu.Unlock()
			return nil
		}
		tb.read = StreamErrors{Stream: tb.es.Stream, Policy: tb.es.Policy, Side: tb.es.Side}
		g.Go(func() error { return readBuild(gctx, tb.j, tb.port, tb.src, tb.ks, &tb.read, queue, true, poke) })
	}
	leftCh := make(chan leftMsg)
	ack := make(chan struct{})
	b := vector.NewBatch(job.BatchTypes)
	var bad []BadRow
	read := func() leftMsg { // the probe source's next batch (valid until the next read)
		bad = bad[:0]
		err := src.Next(b, &bad)
		return leftMsg{b: b, bad: bad, err: err}
	}
	var next func() leftMsg // the probe source read on the job's goroutine (nil: by the reader below)
	if replayerOf(src) != nil {
		next, ack = read, nil // (leftCh is never sent on: it only stands for the stream not ended)
	} else {
		g.Go(func() error {
			for {
				m := read()
				select {
				case leftCh <- m:
				case <-gctx.Done():
					return nil
				}
				if m.err != nil && !errors.Is(m.err, ErrWaiting) {
					return nil
				}
				select {
				case <-ack:
				case <-gctx.Done():
					return nil
				}
			}
		})
	}
	err := holdAndRoute(gctx, oc.live, job, src, sink, stats, joins, timed, leftCh, next, ack, notify, acct)
	cancel()
	// A build reader's error cancels gctx, so holdAndRoute may report only
	// that cancellation: the reader's error is the job's (a reset socket is
	// exit status 1, not an interrupt).
	if gerr := g.Wait(); gerr != nil && !errors.Is(gerr, context.Canceled) && (err == nil || errors.Is(err, context.Canceled)) {
		err = gerr
	}
	for _, tb := range timed {
		if tb.es.Policy != "side" {
			tb.es.Malformed += tb.read.Malformed // read, so skipped or failed
		}
	}
	return err
}

// holdAndRoute is runHeld on the job's goroutine: it holds the probe batches
// from leftCh (or, when next is not nil, from next: the source read here,
// leftCh then only standing for a stream not ended) and routes the held rows
// once every build watermark passed them, in order.
func holdAndRoute(ctx context.Context, lv *Live, job *plan.Job, src Source, sink Sink, stats *Stats, joins map[*plan.Branch]*keySet, timed []*timedBuild, leftCh <-chan leftMsg, next func() leftMsg, ack chan<- struct{}, notify <-chan struct{}, acct *StateAccount) error {
	st := job.Stream
	es := stats.stream(st)
	// The held rows are stamped on arrival by the chain's watermark assigner
	// and routed, once released, through its router into the sink (build.go).
	opts := chainOpts{}
	var agg *aggOperator
	if job.HasAggregates() { // SPEC 2.4: windows over the joined rows, fired by their stamped watermarks
		opts = aggChain(job, acct.budget, stats, &agg, true, lv)
	}
	opts.src, opts.timed = src, stats.timed
	ch := buildChain(job, joins, sink, opts)
	r, wm := ch.limit, ch.assign
	step := newStep(ch.router.out.ErrorSide)
	wm.live = lv.probe(job)
	et := st.EventTime
	hold := &holder{acct: acct, stamp: ch.stats[0], wcol: -1}
	defer hold.release()
	var rep *replay // a group source's replay of the held rows (nil: none)
	if next != nil && agg == nil {
		rep = newHeldReplay(src, ch, hold)
	}
	if rep != nil && job.WatermarkCol >= 0 {
		hold.wcol = job.WatermarkCol // the hold frontier's w is its first held row's stamp
	}
	hold.types = heldTypes(job, hold.wcol)
	if an := stats.Analysis; an != nil {
		an.setChain(ch, agg)
		an.hold = hold
	}
	var failing error // 'errors'='fail' met: route what is held, then fail
	in := leftCh      // nil once the probe stream ended (or failed)
	ended := false    // the probe stream ended (io.EOF)
	// A stdin probe stream hands back what the job did not use to the next
	// job reading stdin (SPEC 1). The source can only take back rows of its
	// last batch, so its next batch is asked for (ack) only once every row of
	// the last one is routed: at most one batch is held, and its rows are the
	// source's rows one for one. Output is the same: a held row waits for the
	// build watermarks, never for more probe rows.
	u, handBack := src.(Unreader)
	handBack = handBack && st.Connector != nil && st.Connector.ReadsStdin
	ackDue := false // the last batch is held: ack once it is routed
	idle := false   // next's source said ErrWaiting last: released rows are flushed at once
	cut, failAt := -1, -1
	if handBack {
		defer func() {
			switch {
			case cut >= 0:
				u.Unread(cut + 1) // LIMIT: the rows after its last row go back
			case failAt >= 0 && len(hold.held) == 0:
				u.UnreadAfter(failAt, 1) // 'errors'='fail': the rows after the failing row go back
			case len(hold.held) > 0: // Ctrl-C, an error: what was not routed goes back
				c := hold.held[0]
				u.UnreadAfter(c.next, c.nbad-len(c.badAt))
			}
		}()
	}
	// release routes the held rows [c.next, k) of c, with the malformed rows
	// among them; stop says holdAndRoute returns err (nil: a LIMIT ended the
	// job).
	released := false
	release := func(ctx context.Context, c *heldChunk, k int) (stop bool, err error) {
		step.selectRows(c.b, c.next, k)
		step.Bad = step.Bad[:0]
		bad0, badAt0, badPos0 := c.bad, c.badAt, c.badPos
		for len(c.bad) > 0 && (c.bad[0].At <= k) {
			step.Bad = append(step.Bad, c.bad[0])
			c.bad = c.bad[1:]
		}
		rep.changed() // (torn until the push went through: it may be cut before the sinks)
		perr := ch.route.Push(ctx, Port{}, step)
		if cerr := ctx.Err(); cerr != nil && errors.Is(perr, cerr) {
			c.bad = bad0
			return true, perr // cancelled before these rows were routed: they stay held
		}
		done := errors.Is(perr, errLimitReached)
		if perr == nil || done {
			rep.handed()
		}
		released = true
		// count the malformed rows released with these rows; after a LIMIT's
		// last row none are read (the router's cut drops them likewise)
		cutoff := k
		last, ended := r.endedAt()
		if done {
			cutoff = -1 // (a Top-N's own LIMIT, rank.go: no row of the batch counts)
			if ended {
				cutoff = last
			}
		}
		for len(c.badAt) > 0 && c.badAt[0] <= k {
			if c.badAt[0] <= cutoff {
				es.Malformed++
			}
			c.badAt, c.badPos = c.badAt[1:], c.badPos[1:]
		}
		if perr != nil && !done {
			return true, perr
		}
		if done {
			cut = -1
			if ended {
				cut = last
			}
			if cut >= 0 { // the rows after the LIMIT's last row were not used: held for the replay
				c.next = cut + 1
				c.bad = bad0[sort.Search(len(bad0), func(i int) bool { return bad0[i].At > cut }):]
				j := sort.Search(len(badAt0), func(i int) bool { return badAt0[i] > cut })
				c.badAt, c.badPos = badAt0[j:], badPos0[j:]
				rep.touch()
			}
			return true, nil
		}
		c.next = k
		rep.touch()
		return false, nil
	}
	// drain is what a job stopped while it holds rows (Ctrl-C, SIGTERM, its
	// held rows past 'state.max-bytes') still routes: the held rows whose
	// first branch that takes them is decided (a side branch before any
	// event-time join, or a join whose build watermark passed them), in
	// order, so that every row routed to an output reaches it (SPEC 4: a stop
	// flushes what was routed); a row a join cannot decide yet goes nowhere
	// (markJoin.drain). It returns cause. A group source's rows are read
	// again by the partitions' next owner instead (their outputs would be
	// written twice), and stdin's go back to the next job; a job that
	// aggregates the joined rows routes nothing more.
	drain := func(cause error) error {
		// (not with an aggregate behind the join: a released row's stamp may
		// fire a window that a row not yet decided would have joined)
		if next != nil || handBack || agg != nil || len(hold.held) == 0 { // (next: a group source, replayed)
			return cause
		}
		for _, m := range ch.marks {
			m.drain = m.j.EventTime() // (markJoin.drain: a NULL mark, which the router's gate stops)
		}
		dctx := context.WithoutCancel(ctx)
		for len(hold.held) > 0 {
			c := hold.held[0]
			if c.next < c.b.N || len(c.badAt) > 0 {
				if stop, err := release(dctx, c, c.b.N); stop {
					if err != nil && !errors.Is(err, errLimitReached) {
						return errors.Join(cause, err)
					}
					return cause
				}
			}
			hold.pop()
		}
		return cause
	}
	for {
		// route what every build watermark has passed, in order
		limit, inf, _ := buildWatermark(timed)
		released = false
		for len(hold.held) > 0 {
			c := hold.held[0]
			k := c.next
			for k < c.b.N && (inf || c.b.Cols[et].I[k] < limit) {
				k++
			}
			if k > c.next || (c.next == c.b.N && len(c.badAt) > 0) {
				if stop, err := release(ctx, c, k); stop {
					return err
				}
			}
			if c.next < c.b.N {
				break
			}
			hold.pop()
		}
		lv.holding(hold)
		if released && idle {
			if err := sink.Flush(); err != nil {
				return err
			}
		}
		if ackDue && len(hold.held) == 0 {
			ackDue = false
			if !sendAck(ctx, ack) {
				return drain(ctx.Err())
			}
		}
		if err := drainBuildErrors(timed, sink); err != nil {
			return err
		}
		if in == nil && len(hold.held) == 0 {
			if failing != nil {
				es.Malformed++ // the row that failed the job was reached
				return failing
			}
			if ended {
				err := ch.assign.Finish(ctx) // +∞ (SPEC 2.3), then Finish
				if errors.Is(err, errLimitReached) {
					err = nil // (the windows fired at the stream's end gave the main query its LIMIT)
				}
				return err
			}
			return nil
		}
		var m leftMsg
		var got bool
		if next != nil && in != nil {
			// (the build watermarks are read again at the loop's top,
			// within kafkaPoll of a notification)
			if err := ctx.Err(); err != nil {
				return err // (a build reader failed: the source's own context goes on)
			}
			m, got = next(), true
			idle = errors.Is(m.err, ErrWaiting)
		} else {
			select {
			case m, got = <-in:
			case <-notify:
			case <-ctx.Done():
				return drain(ctx.Err())
			default:
				if err := sink.Flush(); err != nil {
					return err
				}
				select {
				case m, got = <-in:
				case <-notify:
				case <-ctx.Done():
					return drain(ctx.Err())
				}
			}
		}
		if !got {
			continue
		}
		switch {
		case m.err == io.EOF:
			in, ended = nil, true
			continue
		case errors.Is(m.err, ErrWaiting):
			if !sendAck(ctx, ack) {
				return drain(ctx.Err())
			}
			if err := sink.Flush(); err != nil {
				return err
			}
			continue
		case m.err != nil:
			return m.err
		}
		m.bad = rep.filterBad(m.bad) // (a replay's malformed rows went to their output already)
		if err := aggOverParts(job, agg, wm, m.b); err != nil {
			return err // (before the batch is routed: no window fired)
		}
		failure, err := hold.batch(st, src, m, es, wm, stats)
		if err != nil {
			return drain(hold.limitError(err, timed))
		}
		if err := aggOverParts(job, agg, wm, nil); err != nil {
			return err
		}
		if failure != nil {
			failing, in = failure, nil
			failAt = m.bad[0].Index
			if u, ok := src.(Unreader); ok && next != nil {
				// the failing row and what follows it are not used: a
				// group source does not commit them (it stops there again)
				u.UnreadAfter(failAt, 1)
			}
			continue
		}
		if handBack {
			ackDue = true
			continue
		}
		if !sendAck(ctx, ack) {
			return drain(ctx.Err())
		}
	}
}

// ErrJoinAggregateParts is the error of a job whose aggregate (windows over
// the joined rows, SPEC 2.4) follows an event-time join over a source with
// more than one partition (SPEC 2.5): behind the join the aggregate fires by
// the released rows' CURRENT_WATERMARK stamps, which are each row's own
// partition's watermark rather than the stream's (their minimum), so windows
// would fire early and again with partial rows. The job stops before any
// window fires instead of giving wrong rows.
var ErrJoinAggregateParts = errors.New("a window or GROUP BY after an event-time join is not supported yet over a topic of more than one partition (its windows would fire by one partition's watermark); read a topic of one partition, or write the joined rows to a topic with INTO STREAM and aggregate them in a second job")

// aggOverParts returns ErrJoinAggregateParts, naming the stream, once the
// rows of job, which aggregates (agg not nil), come from more than one
// partition: those read so far, and those of b (nil: none), checked before
// b is routed, so no window has fired by then.
func aggOverParts(job *plan.Job, agg *aggOperator, wm *watermarker, b *vector.Batch) error {
	if agg == nil || wm.parts == nil || !wm.parts.manyParts(b) {
		return nil
	}
	return fmt.Errorf("stream %s: %w", job.Stream.Name, ErrJoinAggregateParts)
}

// sendAck hands the probe batch back to the reader goroutine; it reports false
// when ctx ended first (the reader may have gone: Ctrl-C must not hang the job).
func sendAck(ctx context.Context, ack chan<- struct{}) bool {
	if ack == nil { // (no reader goroutine: holdAndRoute reads the source)
		return true
	}
	select {
	case ack <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// buildWatermark returns the smallest build watermark of the job's event-time
// joins: a probe row with event time t is decided when t < limit, or always when
// inf (every build stream ended). With an unset watermark nothing is decided.
// by is the build side that sets the limit (nil when inf).
func buildWatermark(timed []*timedBuild) (limit int64, inf bool, by *timedBuild) {
	inf = true
	for _, tb := range timed {
		tb.ks.mu.Lock()
		ended, set, wm := tb.ks.ended, tb.ks.wmSet, tb.ks.wm
		tb.ks.mu.Unlock()
		if ended {
			continue
		}
		if !set {
			return math.MinInt64, false, tb
		}
		if inf || wm < limit {
			limit, inf, by = wm, false, tb
		}
	}
	return limit, inf, by
}

// drainBuildErrors emits the malformed build rows the reader goroutines queued
// and counts them (a queued row that is never emitted is not counted).
func drainBuildErrors(timed []*timedBuild, sink Sink) error {
	for _, tb := range timed {
		tb.ks.mu.Lock()
		rows := tb.ks.pending
		tb.ks.pending = nil
		tb.ks.mu.Unlock()
		if len(rows) > 0 {
			if err := sink.Errors(tb.es.Side, rows); err != nil {
				return err
			}
			tb.es.Malformed += int64(len(rows))
		}
	}
	return nil
}

// holder keeps the held probe rows of an event-time join job, in order, in
// chunks of up to vector.Cap rows: a batch is appended to the last chunk while it
// has room, so a live stream of small batches does not hold a batch per row.
// Each chunk keeps only the columns the job reads (types holds catalog.Unknown
// for the others) and is charged to acct.
type holder struct {
	held  []*heldChunk
	free  []*vector.Batch
	types []catalog.Type
	acct  *StateAccount
	rows  int64 // held rows not yet routed, for the limit's message
	// the most rows not yet routed and the most bytes held at once, after a
	// batch came (Analysis)
	maxRows, maxBytes int64
	// stamp are the counters of the chain's watermark assigner, which stamps
	// the rows here, on arrival, rather than in its Push (nil: none)
	stamp *OpStats
	wcol  int     // the stamped CURRENT_WATERMARK column (plan.Job.WatermarkCol), -1: none
	rep   *replay // told of each change of the held rows (replay.touch); nil: none
}

// heldTypes returns the layout of held chunks: the job's batch types, with
// catalog.Unknown (a NULL-only vector) for each column no branch reads, the
// event time excepted (SPEC 2.2: held rows keep only what the query needs),
// and column keep too when it is >= 0 (a replay's stamps).
func heldTypes(job *plan.Job, keep int) []catalog.Type {
	need := make([]bool, len(job.BatchTypes))
	need[job.Stream.EventTime] = true
	if keep >= 0 {
		need[keep] = true
	}
	for _, b := range job.AllBranches() {
		for c := range need {
			need[c] = need[c] || b.Uses == nil || (c < len(b.Uses) && b.Uses[c])
		}
	}
	types := make([]catalog.Type, len(need))
	for c, t := range job.BatchTypes {
		if need[c] {
			types[c] = t
		}
	}
	return types
}

// batchBytes is the memory a batch holds: its vectors' capacity and string arenas.
func batchBytes(b *vector.Batch) int64 {
	n := int64(cap(b.Pos)) * 8
	for _, v := range b.Cols {
		n += int64(cap(v.Null)) + 8*int64(cap(v.I)+cap(v.F)) + int64(cap(v.B)) + 24*int64(cap(v.S)) + int64(cap(v.Arena))
	}
	return n
}

// batch stamps the probe batch's watermark column, applies the errors policy and
// appends the batch's good rows to the held chunks. failure is the 'errors'='fail'
// error of a malformed row (the rows before it are held); err is a
// *StateLimitError when the held rows pass 'state.max-bytes'.
func (h *holder) batch(st *catalog.Stream, src Source, m leftMsg, es *StreamErrors, wm *watermarker, stats *Stats) (failure, err error) {
	b := m.b
	stats.Rows += int64(b.N + len(m.bad))
	n := b.N
	var bad []ErrorRow
	if len(m.bad) > 0 {
		// counted when routed (holdAndRoute), not here
		n, failure = handleBad(st, src, m.bad, b.N, es.Policy, &bad)
	}
	sel := make([]int32, n)
	for i := range sel {
		sel[i] = int32(i)
	}
	t := time.Now()
	wm.stamp(b, sel)
	if h.stamp != nil { // once per batch (Analysis)
		h.stamp.Batches++
		h.stamp.RowsIn += int64(n)
		h.stamp.RowsOut += int64(n)
		h.stamp.Nanos += time.Since(t).Nanoseconds()
	}
	if n == 0 && len(bad) == 0 && len(m.bad) == 0 {
		return failure, nil
	}
	var c *heldChunk
	if k := len(h.held); k > 0 && h.held[k-1].b.N+n <= vector.Cap {
		c = h.held[k-1]
	} else {
		c = &heldChunk{b: h.newBatch()}
		h.held = append(h.held, c)
	}
	off := c.b.N
	c.b.AppendRows(b, 0, n)
	for i := range bad {
		bad[i].Raw = append([]byte(nil), bad[i].Raw...)
		bad[i].At += off
	}
	c.bad = append(c.bad, bad...)
	for _, x := range m.bad {
		if x.Index >= n && failure != nil {
			break
		}
		c.badAt = append(c.badAt, x.Index+off)
		c.badPos = append(c.badPos, x.Line)
	}
	h.rep.touch()
	c.nbad = len(c.badAt)
	h.rows += int64(n)
	now := batchBytes(c.b)
	grow := now - c.bytes
	c.bytes = now
	err = h.acct.Grow(grow)
	h.maxRows = max(h.maxRows, h.rows-int64(h.held[0].next))
	if h.acct != nil {
		h.maxBytes = max(h.maxBytes, h.acct.Bytes())
	}
	return failure, err
}

// pop drops the first chunk, fully routed.
func (h *holder) pop() {
	c := h.held[0]
	h.held[0] = nil
	h.held = h.held[1:]
	h.rows -= int64(c.b.N)
	h.recycle(c)
	h.rep.touch()
}

// newBatch returns an empty batch of the held layout, a routed chunk's when
// one is free.
func (h *holder) newBatch() *vector.Batch {
	var b *vector.Batch
	if k := len(h.free); k > 0 {
		b, h.free = h.free[k-1], h.free[:k-1]
	} else {
		b = vector.NewBatch(h.types)
	}
	b.Reset()
	return b
}

// recycle gives back the bytes of chunk c, which the holder no longer holds,
// and keeps its batch for reuse (up to maxFree).
func (h *holder) recycle(c *heldChunk) {
	_ = h.acct.Grow(-c.bytes)
	if len(h.free) < maxFree {
		h.free = append(h.free, c.b)
	}
}

// release returns the bytes of the chunks still held (the job ends). The
// chunks stay, for a replay: the source's last checkpoint (Close) commits
// the first row of each partition still held.
func (h *holder) release() {
	for _, c := range h.held {
		_ = h.acct.Grow(-c.bytes)
		c.bytes = 0
	}
}

// limitError completes a *StateLimitError of the held rows with the build
// stream whose watermark holds them back.
func (h *holder) limitError(err error, timed []*timedBuild) error {
	var le *StateLimitError
	if !errors.As(err, &le) {
		return err
	}
	limit, _, by := buildWatermark(timed)
	if by == nil {
		return err
	}
	le.Operator = joinName(by.j)
	le.Stalled = by.j.Build.Name
	le.Rows = h.rows
	for _, c := range h.held {
		le.Rows -= int64(c.next)
	}
	le.WatermarkText = "unset: no row of it arrived yet"
	if limit != math.MinInt64 {
		le.WatermarkText = strconv.FormatInt(limit, 10)
		if t := by.j.Build.Columns[by.j.BuildTime].Type; t == catalog.Timestamp {
			v := vector.NewVec(t)
			v.I[0] = limit
			le.WatermarkText = string(vector.AppendValue(nil, t, v, 0))
		}
	}
	return le
}

// heldFirst is what a replay needs of the rows of one partition the holder
// holds (replay.Hold, replay.Emitted): off, the smallest offset of a held
// row, good or malformed (e_p); and, when a good row is held (stamped), the
// CURRENT_WATERMARK stamped on the first one (cw, cwSet false: NULL), which is
// p's watermark before the row at off too (a malformed row moves no
// watermark, and p's rows after off are all held).
type heldFirst struct {
	off     int64
	stamped bool
	goodOff int64
	cw      int64
	cwSet   bool
}

// Frontiers implements Checkpoint: each partition's first held row (good
// or malformed), with the CURRENT_WATERMARK stamped on its first good row
// (Timed: when one is held), all of them not yet routed (Emitted).
func (h *holder) Frontiers(dst map[int32]Frontier) {
	m := map[int32]heldFirst{}
	h.firstAll(m)
	for p, f := range m {
		dst[p] = Frontier{Off: f.off, Timed: f.stamped, WM: f.cw, WMSet: f.cwSet, Emitted: true}
	}
}

// firstAll sets dst[p] for each partition p with rows held (good rows not
// yet routed, malformed rows not yet counted), positions being Kafka's
// (connector.KafkaPosition). It walks every held row: a checkpoint's cost,
// not the hot path's.
func (h *holder) firstAll(dst map[int32]heldFirst) {
	for _, c := range h.held {
		var cw *vector.Vec
		if h.wcol >= 0 {
			cw = c.b.Cols[h.wcol]
		}
		for i := c.next; i < c.b.N; i++ {
			p, off := connector.KafkaPartitionOf(c.b.Pos[i])
			f, ok := dst[p]
			if !ok || off < f.off {
				f.off = off
			}
			if !f.stamped || off < f.goodOff {
				f.stamped, f.goodOff = true, off
				f.cw, f.cwSet = 0, false
				if cw != nil && !cw.Null[i] {
					f.cw, f.cwSet = cw.I[i], true
				}
			}
			dst[p] = f
		}
		for _, pos := range c.badPos {
			p, off := connector.KafkaPartitionOf(pos)
			if f, ok := dst[p]; !ok || off < f.off {
				f.off = off
				dst[p] = f
			}
		}
	}
}

// Drop implements Checkpoint: it removes the held rows of partition p
// (revoked, or assigned again: replay.Revoke), good and malformed, none of them routed or counted: p's
// next owner, or this process from p's committed offset, reads them again.
// Their bytes go back to the StateAccount; a chunk left empty goes.
func (h *holder) Drop(p int32) {
	of := func(pos int64) bool { q, _ := connector.KafkaPartitionOf(pos); return q == p }
	kept := h.held[:0]
	for _, c := range h.held {
		has := false
		for i := c.next; i < c.b.N && !has; i++ {
			has = of(c.b.Pos[i])
		}
		for k := 0; k < len(c.badPos) && !has; k++ {
			has = of(c.badPos[k])
		}
		if !has {
			kept = append(kept, c)
			continue
		}
		// rank[i-c.next]: the good rows kept before row i, the At of a
		// malformed row before row i in the new chunk
		rank := make([]int, c.b.N-c.next+1)
		dst := h.newBatch()
		for i := c.next; i < c.b.N; i++ {
			rank[i-c.next] = dst.N
			if !of(c.b.Pos[i]) {
				dst.AppendRows(c.b, i, i+1)
			}
		}
		rank[c.b.N-c.next] = dst.N
		nc := &heldChunk{b: dst}
		// c.bad (the 'side' policy's error rows) is c.badAt's rows one for
		// one when it has as many (holder.batch, holdAndRoute consume both
		// by At); otherwise it is empty ('skip', 'fail')
		pairs := len(c.bad) == len(c.badAt)
		for k, at := range c.badAt {
			if of(c.badPos[k]) {
				continue
			}
			nat := rank[max(at-c.next, 0)]
			nc.badAt, nc.badPos = append(nc.badAt, nat), append(nc.badPos, c.badPos[k])
			if pairs {
				e := c.bad[k]
				e.At = nat
				nc.bad = append(nc.bad, e)
			}
		}
		nc.nbad = len(nc.badAt)
		h.rows += int64(dst.N - c.b.N)
		h.recycle(c)
		if dst.N == 0 && len(nc.badAt) == 0 {
			h.recycle(nc) // (no bytes charged yet)
			continue
		}
		nc.bytes = batchBytes(dst)
		_ = h.acct.Grow(nc.bytes)
		kept = append(kept, nc)
	}
	clear(h.held[len(kept):])
	h.held = kept
	h.rep.touch()
}
