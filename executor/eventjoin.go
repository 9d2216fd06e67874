package executor

import (
	"context"
	"errors"
	"io"
	"math"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"streamql/catalog"
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
	bytes int64 // charged to the held rows' StateAccount
	nbad  int   // len(badAt) when the batch came (hand-back, see holdAndRoute)
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
func runHeld(ctx context.Context, job *plan.Job, src Source, sink Sink, stats *Stats, probers map[*plan.Branch]*prober, timed []*timedBuild, acct *StateAccount) error {
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
	g.Go(func() error {
		b := vector.NewBatch(job.BatchTypes)
		var bad []BadRow
		for {
			bad = bad[:0]
			err := src.Next(b, &bad)
			select {
			case leftCh <- leftMsg{b: b, bad: bad, err: err}:
			case <-gctx.Done():
				return nil
			}
			if err != nil && !errors.Is(err, ErrWaiting) {
				return nil
			}
			select {
			case <-ack:
			case <-gctx.Done():
				return nil
			}
		}
	})
	err := holdAndRoute(gctx, job, src, sink, stats, probers, timed, leftCh, ack, notify, acct)
	cancel()
	if gerr := g.Wait(); err == nil && gerr != nil && !errors.Is(gerr, context.Canceled) {
		err = gerr
	}
	for _, tb := range timed {
		if tb.es.Policy != "side" {
			tb.es.Malformed += tb.read.Malformed // read, so skipped or failed
		}
	}
	return err
}

func holdAndRoute(ctx context.Context, job *plan.Job, src Source, sink Sink, stats *Stats, probers map[*plan.Branch]*prober, timed []*timedBuild, leftCh <-chan leftMsg, ack chan<- struct{}, notify <-chan struct{}, acct *StateAccount) error {
	st := job.Stream
	es := stats.stream(st)
	// The held rows are stamped on arrival by the chain's watermark assigner
	// and routed, once released, through its router into the sink (build.go).
	opts := chainOpts{}
	var agg *aggOperator
	if hasAggregates(job) { // SPEC 2.4: windows over the joined rows, fired by their stamped watermarks
		opts = aggChain(job, acct.budget, stats, &agg, true)
	}
	opts.src = src
	ch := buildChain(job, probers, sink, opts)
	r, wm := ch.limit, ch.assign
	step := newStep(ch.router.out.ErrorSide)
	lv := liveOf(ctx)
	wm.live = lv.probe(job)
	et := st.EventTime
	hold := &holder{types: heldTypes(job), acct: acct, stamp: ch.stats[0]}
	defer hold.release()
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
	for {
		// route what every build watermark has passed, in order
		limit, inf, _ := buildWatermark(timed)
		for len(hold.held) > 0 {
			c := hold.held[0]
			k := c.next
			for k < c.b.N && (inf || c.b.Cols[et].I[k] < limit) {
				k++
			}
			if k > c.next || (c.next == c.b.N && len(c.badAt) > 0) {
				step.selectRows(c.b, c.next, k)
				step.Bad = step.Bad[:0]
				for len(c.bad) > 0 && (c.bad[0].At <= k) {
					step.Bad = append(step.Bad, c.bad[0])
					c.bad = c.bad[1:]
				}
				perr := ch.route.Push(ctx, Port{}, step)
				if cerr := ctx.Err(); cerr != nil && errors.Is(perr, cerr) {
					return perr // cancelled before these rows were routed: they stay held
				}
				done := errors.Is(perr, errLimitReached)
				// count the malformed rows released with these rows; after a LIMIT's
				// last row none are read (the router's cut drops them likewise)
				cutoff := k
				if done {
					cutoff = r.cutAt
				}
				for len(c.badAt) > 0 && c.badAt[0] <= k {
					if c.badAt[0] <= cutoff {
						es.Malformed++
					}
					c.badAt = c.badAt[1:]
				}
				if perr != nil && !done {
					return perr
				}
				if done {
					cut = r.cutAt
					return nil
				}
				c.next = k
			}
			if c.next < c.b.N {
				break
			}
			hold.pop()
		}
		lv.holding(hold)
		if ackDue && len(hold.held) == 0 {
			ackDue = false
			if !sendAck(ctx, ack) {
				return ctx.Err()
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
				return ch.assign.Finish(ctx) // +∞ (SPEC 2.3), then Finish
			}
			return nil
		}
		var m leftMsg
		var got bool
		select {
		case m, got = <-in:
		case <-notify:
		case <-ctx.Done():
			return ctx.Err()
		default:
			if err := sink.Flush(); err != nil {
				return err
			}
			select {
			case m, got = <-in:
			case <-notify:
			case <-ctx.Done():
				return ctx.Err()
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
				return ctx.Err()
			}
			if err := sink.Flush(); err != nil {
				return err
			}
			continue
		case m.err != nil:
			return m.err
		}
		failure, err := hold.batch(st, src, m, es, wm, stats)
		if err != nil {
			return hold.limitError(err, timed)
		}
		if failure != nil {
			failing, in = failure, nil
			failAt = m.bad[0].Index
			continue
		}
		if handBack {
			ackDue = true
			continue
		}
		if !sendAck(ctx, ack) {
			return ctx.Err()
		}
	}
}

// sendAck hands the probe batch back to the reader goroutine; it reports false
// when ctx ended first (the reader may have gone: Ctrl-C must not hang the job).
func sendAck(ctx context.Context, ack chan<- struct{}) bool {
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
}

// heldTypes returns the layout of held chunks: the job's batch types, with
// catalog.Unknown (a NULL-only vector) for each column no branch reads, the
// event time excepted (SPEC 2.2: held rows keep only what the query needs).
func heldTypes(job *plan.Job) []catalog.Type {
	need := make([]bool, len(job.BatchTypes))
	need[job.Stream.EventTime] = true
	for _, b := range append(append([]*plan.Branch{}, job.Branches...), job.Main) {
		if b == nil {
			continue
		}
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
		tmp := *es
		n, failure = handleBad(st, src, m.bad, b.N, &tmp, &bad)
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
		var dst *vector.Batch
		if k := len(h.free); k > 0 {
			dst, h.free = h.free[k-1], h.free[:k-1]
		} else {
			dst = vector.NewBatch(h.types)
		}
		dst.Reset()
		c = &heldChunk{b: dst}
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
	}
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
	_ = h.acct.Grow(-c.bytes)
	if len(h.free) < maxFree {
		h.free = append(h.free, c.b)
	}
}

// release returns the bytes of the chunks still held (the job ends).
func (h *holder) release() {
	for _, c := range h.held {
		_ = h.acct.Grow(-c.bytes)
	}
	h.held = nil
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
