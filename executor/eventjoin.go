package executor

import (
	"context"
	"errors"
	"io"
	"math"

	"golang.org/x/sync/errgroup"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/planner"
)

// timedBuild is an unbounded build side read concurrently with the probe stream
// (SPEC 2.2, event-time strategy).
type timedBuild struct {
	j   *planner.Join
	src Source
	ks  *keySet
	es  *StreamErrors // the job's count: side rows when emitted, the rest after the reader ends
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
}

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
func runHeld(ctx context.Context, job *planner.Job, src Source, sink Sink, stats *Stats, probers map[*planner.Branch]*prober, timed []*timedBuild) error {
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
		g.Go(func() error { return readBuild(gctx, tb.j, tb.src, tb.ks, &tb.read, queue, true, poke) })
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
	err := holdAndRoute(gctx, job, src, sink, stats, probers, timed, leftCh, ack, notify)
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

func holdAndRoute(ctx context.Context, job *planner.Job, src Source, sink Sink, stats *Stats, probers map[*planner.Branch]*prober, timed []*timedBuild, leftCh <-chan leftMsg, ack chan<- struct{}, notify <-chan struct{}) error {
	st := job.Stream
	es := stats.stream(st)
	r := newRouter(job, probers)
	wm := newWatermarker(job)
	et := st.EventTime
	var held []*heldChunk
	var free []*vector.Batch
	var failing error // 'errors'='fail' met: route what is held, then fail
	in := leftCh      // nil once the probe stream ended (or failed)
	sel := make([]int32, 0, vector.Cap)
	for {
		// route what every build watermark has passed, in order
		limit, inf := buildWatermark(timed)
		for len(held) > 0 {
			c := held[0]
			k := c.next
			for k < c.b.N && (inf || c.b.Cols[et].I[k] < limit) {
				k++
			}
			if k > c.next || (c.next == c.b.N && len(c.badAt) > 0) {
				sel = sel[:0]
				for i := c.next; i < k; i++ {
					sel = append(sel, int32(i))
				}
				r.out.Bad = r.out.Bad[:0]
				for len(c.bad) > 0 && (c.bad[0].At <= k) {
					r.out.Bad = append(r.out.Bad, c.bad[0])
					c.bad = c.bad[1:]
				}
				done := r.route(c.b, sel)
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
				if err := sink.Rows(&r.out); err != nil {
					return err
				}
				if done {
					return nil
				}
				c.next = k
			}
			if c.next < c.b.N {
				break
			}
			free = append(free, c.b)
			held = held[1:]
		}
		if err := drainBuildErrors(timed, sink); err != nil {
			return err
		}
		if in == nil && len(held) == 0 {
			if failing != nil {
				es.Malformed++ // the row that failed the job was reached
			}
			return failing
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
			in = nil
			continue
		case errors.Is(m.err, ErrWaiting):
			ack <- struct{}{}
			if err := sink.Flush(); err != nil {
				return err
			}
			continue
		case m.err != nil:
			return m.err
		}
		c, failure := holdBatch(st, src, m, es, wm, &free, stats)
		held = append(held, c)
		if failure != nil {
			failing, in = failure, nil
			continue
		}
		ack <- struct{}{}
	}
}

// buildWatermark returns the smallest build watermark of the job's event-time
// joins: a probe row with event time t is decided when t < limit, or always when
// inf (every build stream ended). With an unset watermark nothing is decided.
func buildWatermark(timed []*timedBuild) (limit int64, inf bool) {
	inf = true
	for _, tb := range timed {
		tb.ks.mu.Lock()
		ended, set, wm := tb.ks.ended, tb.ks.wmSet, tb.ks.wm
		tb.ks.mu.Unlock()
		if ended {
			continue
		}
		if !set {
			return math.MinInt64, false
		}
		if inf || wm < limit {
			limit, inf = wm, false
		}
	}
	return limit, inf
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

// copyRows copies rows [0, n) of src into dst (same layout), strings included.
func copyRows(dst, src *vector.Batch, n int) {
	dst.Reset()
	dst.N = n
	copy(dst.Pos, src.Pos[:n])
	for c, s := range src.Cols {
		d := dst.Cols[c]
		copy(d.Null, s.Null[:n])
		switch {
		case d.I != nil:
			copy(d.I, s.I[:n])
		case d.F != nil:
			copy(d.F, s.F[:n])
		case d.B != nil:
			copy(d.B, s.B[:n])
		case d.S != nil:
			for i := 0; i < n; i++ {
				if !s.Null[i] {
					d.SetString(i, s.S[i])
				}
			}
		}
	}
}

// holdBatch stamps the probe batch's watermark column, applies the errors policy
// and copies the batch's good rows into a held chunk.
func holdBatch(st *catalog.Stream, src Source, m leftMsg, es *StreamErrors, wm *watermarker, free *[]*vector.Batch, stats *Stats) (*heldChunk, error) {
	b := m.b
	stats.Rows += int64(b.N + len(m.bad))
	n := b.N
	var failure error
	var bad []ErrorRow
	var badAt []int
	if len(m.bad) > 0 {
		// counted when routed (holdAndRoute), not here
		tmp := *es
		n, failure = handleBad(st, src, m.bad, b.N, &tmp, &bad)
		for i := range bad {
			bad[i].Raw = append([]byte(nil), bad[i].Raw...)
		}
		if failure == nil {
			for _, x := range m.bad {
				badAt = append(badAt, x.Index)
			}
		} else {
			for _, x := range m.bad {
				if x.Index >= n {
					break
				}
				badAt = append(badAt, x.Index)
			}
		}
	}
	sel := make([]int32, n)
	for i := range sel {
		sel[i] = int32(i)
	}
	wm.stamp(b, sel)
	var dst *vector.Batch
	if k := len(*free); k > 0 {
		dst, *free = (*free)[k-1], (*free)[:k-1]
	} else {
		types := make([]catalog.Type, len(b.Cols))
		for i, c := range b.Cols {
			types[i] = c.Type
		}
		dst = vector.NewBatch(types)
	}
	copyRows(dst, b, n)
	return &heldChunk{b: dst, bad: bad, badAt: badAt}, failure
}
