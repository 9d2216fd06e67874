package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"streamql/executor/expr"

	"golang.org/x/sync/errgroup"

	"streamql/catalog"
	"streamql/executor/aggregate"
	"streamql/executor/connector"
	"streamql/executor/flow"
	"streamql/executor/op"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// timedBuild is an unbounded build side read concurrently with the probe stream
// (SPEC 2.2, event-time strategy): a reader of its own (portReader, a
// goroutine) reads its source and the job's scheduler (routeHeld) pushes
// each batch into the join's build operator (feed), on the job's goroutine.
type timedBuild struct {
	j    *plan.Join
	port Port // the build side's input of the job's operators
	src  Source
	mb   *semiBuild
	es   *StreamErrors // the job's count: side rows when emitted, the rest when the job ends
	// read counts what the feed met (the 'side' rows are counted into es
	// when emitted, probeHold.buildErrors)
	read StreamErrors
	feed *buildFeed
	r    *portReader // reads src for the scheduler, at port
	// pending are the malformed build rows of the 'side' policy the feed
	// met, which the hold emits after its next release (buildErrors)
	pending []ErrorRow
}

// portReader reads one source of an event-time join job for the job's
// scheduler (routeHeld), the same way for every input port: the probe
// stream's (port 0) and each event-time join's build side (port k, the
// join's Port.Input). On a goroutine of its own (run, for a source's
// blocking Next) it hands each batch on the scheduler's one channel and
// reads the next only once the scheduler acks it (ack): one batch of each
// port is in flight at most, and a batch stays valid until acked. A source
// whose checkpoint must run between the job's pushes (a replayed Kafka
// source, SourceHandles.Replayer) is read on the scheduler's goroutine
// instead (read, no run), as is a bounded join's build side, read whole
// before the first probe row (readBuild).
type portReader struct {
	port int // the input port: 0 the probe stream, k a build side
	src  Source
	b    *vector.Batch
	bad  []BadRow
	// waits hands ErrWaiting (nothing came) to the scheduler, which then
	// flushes the sink (the probe stream: its rows may wait for more);
	// without it the reader reads again (a build side)
	waits bool
	acks  chan struct{} // the scheduler is done with the last batch (room for one: never blocks)
}

// portMsg is one step of a portReader: the batch read from its port's
// source with its malformed rows (valid until the scheduler acks it), or
// ErrWaiting, io.EOF or an error.
type portMsg struct {
	r   *portReader
	b   *vector.Batch
	bad []BadRow
	err error
}

// newPortReader returns the reader of src, whose batches have types, at
// port; waits says whether ErrWaiting reaches the scheduler.
func newPortReader(port int, src Source, types []catalog.Type, waits bool) *portReader {
	return &portReader{port: port, src: src, b: vector.NewBatch(types), waits: waits, acks: make(chan struct{}, 1)}
}

// read calls the source's Next once: the batch it gave (valid until the
// next read), with its malformed rows and Next's error.
func (r *portReader) read() portMsg {
	r.bad = r.bad[:0]
	err := r.src.Next(r.b, &r.bad)
	return portMsg{r: r, b: r.b, bad: r.bad, err: err}
}

// run reads the source until it ends, fails or ctx ends, handing each
// batch to the scheduler on ch and waiting for its ack before it reads the
// next; the end or the error is the last message.
func (r *portReader) run(ctx context.Context, ch chan<- portMsg) {
	for ctx.Err() == nil {
		m := r.read()
		if !r.waits && errors.Is(m.err, ErrWaiting) {
			continue
		}
		select {
		case ch <- m:
		case <-ctx.Done():
			return
		}
		if m.err != nil && !errors.Is(m.err, ErrWaiting) {
			return
		}
		select {
		case <-r.acks:
		case <-ctx.Done():
			return
		}
	}
}

// ack lets the reader read its next batch (a reader waits for one ack per
// batch handed, so it never blocks).
func (r *portReader) ack() { r.acks <- struct{}{} }

// runEventJoin runs a job with event-time joins (SPEC 2.2): every input is
// read by a reader of its own (portReader: the probe stream at port 0, each
// build side at its join's port) and the job's scheduler (routeHeld) pushes
// what they read, on its goroutine, into the operators: a build side's
// batches into its MARK join operator, the probe rows, in order, into the
// semi join operator in its Hold mode (op.SemiJoin, op.SemiSpec.Hold),
// whose right input is the smallest build watermark (the one scheduler:
// buildWatermark), and routes them once every build watermark has passed
// their event time (or the build stream ended), each branch's join
// deciding as the router's MARK gate (markjoin.go). Output depends only on
// the inputs, never on how the streams interleave: a build row enters the
// state before its stream's watermark passes it, and a late build row never
// does.
//
// Held rows keep only the columns the job's branches read, and are charged to
// acct: a job whose held rows pass 'state.max-bytes' stops with a
// *StateLimitError naming the build stream whose watermark stalled.
//
// The probe stream's reader runs on a goroutine of its own, as the build
// sides' do, so that a held row is released as soon as a build watermark
// passes it, except when the probe stream declares a replay
// (SourceHandles.Replayer: a Kafka source, which commits its group's
// offsets from inside Next, kafkaJob.checkpoint: the checkpoint flushes the
// sinks and reads the held rows, so it must run between the job's pushes):
// then the scheduler calls its read on the job's goroutine, between
// releases (Next returns within kafkaPoll, with ErrWaiting when nothing
// came), and the held rows are given to the source's replay (the
// probeHold's Checkpoint, newHeldReplay in replay.go).
func runEventJoin(ctx context.Context, oc opContext, job *plan.Job, probe opened, sink Sink, stats *Stats, joins map[*plan.Branch]*semiBuild, timed []*timedBuild, acct *StateAccount) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	msgs := make(chan portMsg) // every reader's, the scheduler's one input
	for _, tb := range timed {
		tb := tb
		queue := func(rows []ErrorRow) error { // (emitted after the hold's next release, probeHold.buildErrors)
			for _, r := range rows {
				r.Raw = append([]byte(nil), r.Raw...) // (the reader reuses its batch once acked)
				tb.pending = append(tb.pending, r)
			}
			return nil
		}
		tb.read = StreamErrors{Stream: tb.es.Stream, Policy: tb.es.Policy, Side: tb.es.Side}
		tb.feed = newBuildFeed(tb.j, tb.port, tb.src, tb.mb, &tb.read, queue)
		tb.r = newPortReader(tb.port.Input, tb.src, tb.j.BuildTypes, false)
		g.Go(func() error { tb.r.run(gctx, msgs); return nil })
	}
	pr := newPortReader(0, probe.src, job.BatchTypes, true)
	polled := probe.h.Replayer != nil // (read on the job's goroutine: its checkpoint runs between pushes)
	if !polled {
		g.Go(func() error { pr.run(gctx, msgs); return nil })
	}
	err := routeHeld(gctx, oc.live, oc.exprs, job, probe, sink, stats, joins, timed, pr, polled, msgs, acct)
	cancel()
	_ = g.Wait() // (the readers hand their errors to routeHeld)
	for _, tb := range timed {
		if tb.es.Policy != "side" {
			tb.es.Malformed += tb.read.Malformed // read, so skipped or failed
		}
	}
	return err
}

// heldScheduler is routeHeld's state: the one scheduler of an event-time
// join job, on the job's goroutine, over its input ports (port 0 the probe
// stream, read by probe; port k a build side, timed's join whose
// Port.Input is k), each read by its portReader.
type heldScheduler struct {
	job     *plan.Job
	src     Source // the probe stream's
	probe   *portReader
	polled  bool // probe is read here (read), not by a goroutine of its own
	msgs    <-chan portMsg
	builds  []*timedBuild // by port (nil: the probe's, or a bounded join's)
	timed   []*timedBuild
	hold    *probeHold
	ch      *chain
	sink    Sink
	stats   *Stats
	es      *StreamErrors // the probe stream's
	open    bool          // the probe stream has not ended nor failed
	ended   bool          // the probe stream ended (io.EOF)
	failing error         // 'errors'='fail' met: route what is held, then fail
	// due[p]: port p's reader waits for its ack, which it gets once the
	// port's operator accepts another batch (accepts, ackAccepted)
	due  []bool
	idle bool // a polled probe said ErrWaiting last: released rows are flushed at once
	// in is the probe stream's batch pushed into the chain (push), and
	// pushCtx the push's context: a batch read is held also when the job
	// stopped meanwhile (what a stop leaves held is drained, handed back or
	// read again), so the push is not cancelled
	in      *Step
	pushCtx context.Context
}

// routeHeld is runEventJoin on the job's goroutine, its scheduler: it takes
// what its input ports' readers read from msgs (or, when polled, reads the
// probe stream's reader here, msgs then carrying the build sides' only),
// pushes the build sides' batches into their joins' build operators and
// the probe stream's into the semi join operator's Hold mode, and routes
// the held rows once every build watermark passed them, in order. A build
// reader's error (its source's, a malformed row's under 'errors'='fail',
// its keys past 'state.max-bytes') stops the job as a stop does (drain)
// and is the job's.
func routeHeld(ctx context.Context, lv *Live, exprs *expr.Context, job *plan.Job, probe opened, sink Sink, stats *Stats, joins map[*plan.Branch]*semiBuild, timed []*timedBuild, pr *portReader, polled bool, msgs <-chan portMsg, acct *StateAccount) error {
	src := probe.src
	st := job.Stream
	es := stats.stream(st)
	aggs := job.HasAggregates() // SPEC 2.4: windows over the joined rows, fired by their stamped watermarks
	// (an updating aggregate after the join is replayed with the held rows)
	replayed := polled && (!aggs || job.HeldAggReplayed())
	wcol := -1
	if replayed && job.WatermarkCol >= 0 {
		wcol = job.WatermarkCol // the hold frontier's w is its first held row's stamp
	}
	hold, err := newProbeHold(job, wcol, acct)
	if err != nil {
		return err
	}
	defer hold.unaccount()
	// The hold is the operator between the chain's watermark assigner, which
	// stamps the probe rows as they come, and its router, into which it
	// releases them (build.go).
	opts := chainOpts{}
	var agg *aggregate.Operator
	if aggs {
		opts = aggChain(job, acct.Budget(), stats, &agg, true, lv, exprs)
	}
	opts.src, opts.parts, opts.timed, opts.exprs = src, probe.h.Partitions, stats.timed, exprs
	opts.hold = func(down *Emitter) Operator { hold.down = down; return hold }
	ch := buildChain(job, joins, sink, opts)
	ch.assign.refuseParts = aggs && !job.HeldAggReplayed()             // (an updating aggregate fires nothing by time)
	fp := &process{st: st, src: src, sink: sink, es: es, exprs: exprs} // the failed calls of the released rows (udf_errors.go)
	ch.assign.live = lv.probe(job)
	hold.ch, hold.fp, hold.es, hold.timed, hold.sink = ch, fp, es, timed, sink
	if replayed {
		hold.replayBy(probe.h.Replayer, agg)
	}
	if an := stats.Analysis; an != nil {
		an.setChain(ch, agg)
		an.hold = hold
	}
	// A stdin probe stream hands back what the job did not use to the next
	// job reading stdin (SPEC 1): the hold takes one batch at a time
	// (probeHold.oneBatch) and says what was used (probeHold.Used). A group
	// source reads again what a failing row left unused (probeHold.fail).
	u, unreads := src.(Unreader)
	handBack := unreads && st.Connector != nil && st.Connector.ReadsStdin
	if handBack && probe.h.HandsBack != nil {
		probe.h.HandsBack.SetHandBack(hold) // (read when the source closes)
	}
	if unreads && polled {
		hold.unread = u
	}
	// a stop routes no held row when they are read again (a group
	// source's, by the partitions' next owner: their outputs would be
	// written twice), handed back (stdin's, to the next job) or when an
	// aggregate follows the join (a released row's stamp may fire a window
	// that a row not yet decided would have joined)
	hold.oneBatch, hold.keep = handBack, polled || handBack || agg != nil
	s := &heldScheduler{job: job, src: src, probe: pr, polled: polled, msgs: msgs, timed: timed, hold: hold, ch: ch, sink: sink, stats: stats, es: es, open: true,
		in: newStep(plan.ErrorsStream(st).Shared().ErrorsSide), pushCtx: context.WithoutCancel(ctx)}
	for _, tb := range timed {
		for len(s.builds) <= tb.port.Input {
			s.builds = append(s.builds, nil)
		}
		s.builds[tb.port.Input] = tb
	}
	s.due = make([]bool, max(len(s.builds), 1))
	return s.run(ctx, lv)
}

// run is the scheduler's loop: the batches that came, pushed into their
// operators; the held rows every build watermark passed, routed; then it
// waits for the next batch of any port.
func (s *heldScheduler) run(ctx context.Context, lv *Live) error {
	hold := s.hold
	for {
		// the batches that came, pushed into their operators (each reader
		// waits for its ack: one batch of each port at most)
		for range len(s.timed) + 1 {
			select {
			case m := <-s.msgs:
				if stop, err := s.take(ctx, m); stop {
					return err
				}
			default:
			}
		}
		// the smallest build watermark, the hold's port 1: it routes what
		// every build watermark has passed, in order, then the build sides'
		// malformed rows met meanwhile
		released := hold.released
		bw, _ := buildWatermark(s.timed)
		if err := s.ch.hold.Watermark(ctx, bw); err != nil {
			if errors.Is(err, errLimitReached) {
				return nil // (the LIMIT ended the job: what it cut stays held)
			}
			return err
		}
		lv.holding(hold.j.Held())
		if hold.released != released && s.idle {
			if err := s.sink.Flush(); err != nil {
				return err
			}
		}
		if !s.ackAccepted(ctx) {
			return hold.drain(ctx, ctx.Err())
		}
		if !s.open && !hold.holds() {
			return s.finish(ctx)
		}
		var m portMsg
		if s.polled && s.open {
			// (the build batches are taken at the loop's top, within
			// kafkaPoll of their coming)
			if err := ctx.Err(); err != nil {
				return err // (the job stopped: the source's own context goes on)
			}
			m = s.probe.read()
			s.idle = errors.Is(m.err, ErrWaiting)
		} else {
			select {
			case m = <-s.msgs:
			case <-ctx.Done():
				return hold.drain(ctx, ctx.Err())
			default:
				if err := s.sink.Flush(); err != nil {
					return err
				}
				select {
				case m = <-s.msgs:
				case <-ctx.Done():
					return hold.drain(ctx, ctx.Err())
				}
			}
		}
		if stop, err := s.take(ctx, m); stop {
			return err
		}
	}
}

// take pushes a reader's message into its port's operator: a build side's
// into its join's build operator (buildFeed.push, then the reader goes
// on once the operator accepts: ackAccepted), the probe stream's into the
// hold (takeProbe). stop says the job
// ends with err.
func (s *heldScheduler) take(ctx context.Context, m portMsg) (stop bool, err error) {
	if m.r.port == 0 {
		return s.takeProbe(ctx, m)
	}
	tb := s.builds[m.r.port]
	end, err := tb.feed.push(ctx, m.b, m.bad, m.err)
	if err != nil {
		_ = s.hold.drain(ctx, context.Canceled) // (what a stop still routes)
		return true, err
	}
	s.due[m.r.port] = !end
	if !s.ackAccepted(ctx) {
		return true, s.hold.drain(ctx, ctx.Err())
	}
	return false, nil
}

// takeProbe takes what the probe stream's reader read: at its end the
// stream is closed; when nothing came the reader goes on and the sink is
// flushed; a batch is pushed into the chain (push: stamped by the watermark
// assigner and held by the hold with its malformed rows), and the reader
// goes on once the hold accepts another batch (ackAccepted).
func (s *heldScheduler) takeProbe(ctx context.Context, m portMsg) (stop bool, err error) {
	switch {
	case m.err == io.EOF:
		s.open, s.ended = false, true
		return false, nil
	case errors.Is(m.err, ErrWaiting):
		if !s.ackProbe(ctx) {
			return true, s.hold.drain(ctx, ctx.Err())
		}
		if err := s.sink.Flush(); err != nil {
			return true, err
		}
		return false, nil
	case m.err != nil:
		return true, m.err
	}
	failure, err := s.push(m)
	if err != nil {
		return true, s.hold.drain(ctx, s.hold.limitError(err))
	}
	if failure != nil {
		s.failing, s.open = failure, false
		return false, nil
	}
	s.due[0] = true
	if !s.ackAccepted(ctx) {
		return true, s.hold.drain(ctx, ctx.Err())
	}
	return false, nil
}

// push pushes the probe stream's batch of m into the chain's head, the
// watermark assigner, which stamps its good rows and pushes them into the
// hold (watermarker.pushHeld, probeHold.Push), under the stream's errors
// policy and its replay (admitBad, as every source driver applies them):
// the good rows before a failing malformed row ('errors'='fail', then
// failure is the job's *RowError and the hold is told: probeHold.fail),
// with the malformed rows on the errors port (Step.Errors: Rows those the
// errors output gets, Read every one the hold keeps). err is the chain's
// (a *StateLimitError when the held rows pass 'state.max-bytes',
// ErrJoinAggregateParts).
func (s *heldScheduler) push(m portMsg) (failure, err error) {
	b, r := m.b, s.in
	r.Errors.Rows, r.Errors.Read = r.Errors.Rows[:0], r.Errors.Read[:0]
	// (the malformed rows are counted when released, probeHold.release)
	bad, n, failure := admitBad(s.hold.rep, s.job.Stream, s.src, m.bad, b.N, s.es.Policy, &r.Errors.Rows)
	s.stats.Rows += int64(b.N + len(bad))
	if failure != nil {
		s.hold.fail(bad[0].Index) // (the rows from the failing one on are not read)
	} else {
		for _, x := range bad {
			r.Errors.Read = append(r.Errors.Read, BadAt{At: x.Index, Line: x.Line})
		}
	}
	r.SelectRows(b, 0, n)
	return failure, s.ch.head.Push(s.pushCtx, Port{}, r)
}

// accepts reports whether the operator at input port p takes another
// batch now: the hold's Accepts for the probe stream (port 0), a build
// side's MARK operator always. It is the one rule the scheduler acks its
// readers by (a two-input join's would be joinSource.pick's: doc.go).
func (s *heldScheduler) accepts(p int) bool { return p != 0 || s.hold.Accepts() }

// ackAccepted lets each reader that waits for its ack (due) read its next
// batch when its port's operator accepts another (accepts); it reports
// false when ctx ended before the probe stream's reader was acked
// (ackProbe).
func (s *heldScheduler) ackAccepted(ctx context.Context) bool {
	for p, d := range s.due {
		if !d || !s.accepts(p) {
			continue
		}
		s.due[p] = false
		if p > 0 {
			s.builds[p].r.ack()
		} else if !s.ackProbe(ctx) {
			return false
		}
	}
	return true
}

// ackProbe lets the probe stream's reader go on (a polled one reads when
// the scheduler calls it); it reports false when ctx ended first (Ctrl-C
// must not read on).
func (s *heldScheduler) ackProbe(ctx context.Context) bool {
	if s.polled {
		return true
	}
	if ctx.Err() != nil {
		return false
	}
	s.probe.ack()
	return true
}

// finish ends the job once the probe stream has ended or failed and no row
// is held: the error of 'errors'='fail', or the stream's end (+∞, SPEC 2.3,
// which fires the windows behind the join), or nil.
func (s *heldScheduler) finish(ctx context.Context) error {
	if s.failing != nil {
		s.es.Malformed++ // the row that failed the job was reached
		return s.failing
	}
	if !s.ended {
		return nil
	}
	err := s.ch.assign.Finish(ctx) // +∞ (SPEC 2.3), then Finish
	if errors.Is(err, errLimitReached) {
		err = nil // (the windows fired at the stream's end gave the main query its LIMIT)
	}
	if ferr := s.hold.fp.failures(nil); ferr != nil && (err == nil || errors.Is(err, errCallFailed)) {
		err = ferr // (calls in the windows fired at the end)
	}
	return err
}

// buildWatermark returns the smallest build watermark of the job's event-time
// joins, the hold's right input (port 1, SPEC 2.2): a probe row with event
// time t is decided when t < wm.Value, or always when wm.Final (every build
// stream ended); with wm unset (a build side has none yet) nothing is. by is
// the build side that sets it (nil when Final).
func buildWatermark(timed []*timedBuild) (wm Watermark, by *timedBuild) {
	wm = Watermark{Port: Port{Input: 1}, Final: true}
	for _, tb := range timed {
		v, set, ended := tb.mb.watermark()
		if ended {
			continue
		}
		if !set {
			return Watermark{Port: Port{Input: 1}}, tb
		}
		if wm.Final || v < wm.Value {
			wm, by = Watermark{Port: Port{Input: 1}, Value: v, Set: true}, tb
		}
	}
	return wm, by
}

// probeHold is the hold of an event-time join job: the operator of its
// chain between the watermark assigner and the router (build.go,
// chainOpts.hold), which holds the probe rows the assigner stamped and
// pushed (Push) and releases them into the router (release, through down)
// once the build watermark the scheduler (routeHeld) gives it on its port 1
// passed them (Watermark). The rows are the semi join operator's, in its
// Hold mode (op.SemiJoin, which charges them to the
// job's 'state.max-bytes' and says which are decided), and so are the
// malformed rows between them, as rows of the operator's errors port
// (op.HoldErrors), each at its ordinal (the good rows before it): they are
// routed (and counted) with the rows before them, so the counts on stderr
// equal the rows written (issue 9: LIMIT and Ctrl-C). It is the job's
// Checkpoint for a Kafka replay.
type probeHold struct {
	j      *op.SemiJoin
	down   *Emitter      // the router's: the released rows, then the stream's end
	out    *vector.Batch // the rows being routed (Take)
	errs   *vector.Batch // a batch's malformed rows, pushed on the errors port (op.HeldErrorTypes)
	stream string        // the probe stream's name (flow.ErrorRow.Stream)
	// batchAt is the ordinal of the last batch's first row and batchBad
	// its malformed rows held when it came; cut is the ordinal of the
	// LIMIT's last row once it ended the job (-1: none), and failed says
	// that the last batch's malformed row failed the job ('errors'='fail'):
	// stdin's hand-back (Used)
	batchAt  int64
	batchBad int
	cut      int64
	failed   bool
	acct     *StateAccount
	// the most rows held and bytes charged at once, after a batch came
	// (Analysis)
	maxRows, maxBytes int64
	wcol              int     // the stamped CURRENT_WATERMARK column (plan.Job.WatermarkCol), -1: none
	rep               *replay // told of each change of the held rows (replay.touch); nil: none
	// the release side (release), set once the chain is built (routeHeld):
	// ch the chain whose router the released rows go to (its LIMIT's end,
	// its event-time joins' drain), step the released rows pushed into it,
	// fp the failed calls of the released rows (udf_errors.go), es the
	// probe stream's counts (the malformed rows released)
	ch   *chain
	step *Step
	fp   *process
	es   *StreamErrors
	// released counts the releases (pushes into the router): the
	// scheduler flushes the sink after one when its source waits
	released int64
	// timed are the job's event-time joins' build sides, whose malformed
	// rows of the 'side' policy (timedBuild.pending) the hold emits into
	// sink after each release (buildErrors), and whose build watermark
	// names the stream that stalls a *StateLimitError (limitError)
	timed []*timedBuild
	sink  Sink
	// oneBatch: the probe stream hands back what the job did not use (a
	// stdin source, SPEC 1), which it can do only for rows of its last
	// batch, so the hold accepts its next batch only once every row of the
	// last one is routed (Accepts): its rows are then the source's rows one
	// for one from ordinal batchAt on (Used). Output is the same: a held row
	// waits for the build watermarks, never for more probe rows.
	oneBatch bool
	// keep: a stop routes none of the held rows (drain), which are read
	// again, handed back, or followed by an aggregate (routeHeld)
	keep bool
	// unread is the probe source that reads again what a failing row
	// ('errors'='fail') left unused (a group source, which then does not
	// commit it: fail); nil: none
	unread Unreader
}

// Accepts reports whether the hold takes another batch of the probe
// stream now (the scheduler acks its reader then: heldScheduler.
// ackAccepted): always, but with oneBatch only once nothing is held.
func (h *probeHold) Accepts() bool { return !h.oneBatch || !h.holds() }

// fail notes that the last batch's malformed row at index at (its good rows
// before it) failed the job ('errors'='fail'): a stdin source gets back the
// rows from it on (Used) and a group source (unread) reads them again, as
// it does not commit them (it stops there again).
func (h *probeHold) fail(at int) {
	h.failed = true
	if h.unread != nil {
		h.unread.UnreadAfter(at, 1)
	}
}

// buildErrors emits the build sides' malformed rows of the 'side' policy
// met since the last release (timedBuild.pending), each build side's in
// turn, and counts them (a row never emitted is not counted).
func (h *probeHold) buildErrors() error {
	for _, tb := range h.timed {
		rows := tb.pending
		tb.pending = nil
		if len(rows) > 0 {
			if err := h.sink.Errors(tb.es.Side, rows); err != nil {
				return err
			}
			tb.es.Malformed += int64(len(rows))
		}
	}
	return nil
}

// replayBy gives the held rows, routed through the hold's chain, and the
// groups of the updating aggregate after them (agg, nil when none:
// plan.Job.HeldAggReplayed) to rs, the replay the probe source's stream
// declares (SourceHandles.Replayer), the hold being the job's Checkpoint.
// The rows are stamped on arrival and carry their stamps while held (the
// hold frontier's w is the first one's), so stamping alone does not tear
// the state (partWatermarks.rep stays nil); a release push does until it
// went through (release).
func (h *probeHold) replayBy(rs connector.Replayer, agg *aggregate.Operator) {
	r := newReplayOf(h.ch)
	r.add(h)
	if agg != nil { // (plan.Job.HeldAggReplayed: its groups' first rows hold too)
		agg.StartReplay(opReplay{r})
		r.add(agg)
	}
	h.rep = r
	r.attach(h.ch, rs)
}

// releaseDecided routes the held rows every build watermark has passed, in
// order, and the malformed rows up to them (release); its error is
// errLimitReached when the main query's LIMIT ended the job.
func (h *probeHold) releaseDecided(ctx context.Context) error {
	for {
		n := h.j.Decided(vector.Cap)
		if n == 0 && (h.j.Held() > 0 || h.j.HeldErrors() == 0) {
			return nil
		}
		if err := h.release(ctx, n); err != nil {
			return err
		}
	}
}

// release routes the first n held rows, with the malformed rows before
// the row after them, into the router. Its error is errLimitReached when
// the main query's LIMIT ended the job (the rows after the LIMIT's last
// row stay held: cut), the context's when it was cancelled before the
// rows were routed (they stay held), or the routing's.
func (h *probeHold) release(ctx context.Context, n int) error {
	hold, step, rep, es := h, h.step, h.rep, h.es
	h.released++
	r := h.ch.limit
	o := hold.j.Gone()
	hold.j.Take(hold.out, n)
	step.SelectRows(hold.out, 0, n)
	end := o + int64(n) // the malformed rows up to here go with these rows
	nbad := hold.j.ErrorsUpTo(end)
	step.Errors.Rows = hold.errorRows(step.Errors.Rows[:0], nbad, o)
	rep.changed() // (torn until the push went through: it may be cut before the sinks)
	perr := hold.down.Push(ctx, Port{}, step)
	if ferr := h.fp.failures(hold.out); ferr != nil && (perr == nil || errors.Is(perr, errCallFailed)) {
		perr = ferr
	}
	if cerr := ctx.Err(); cerr != nil && errors.Is(perr, cerr) {
		return perr // cancelled before these rows were routed: they stay held
	}
	done := errors.Is(perr, errLimitReached)
	// count the malformed rows released with these rows; after a LIMIT's
	// last row none are read (the router's cut drops them likewise)
	cutoff := end
	last, lended := r.EndedAt()
	if done {
		cutoff = -1 // (a Top-N's own LIMIT, rank.go: no row of the batch counts)
		if lended {
			cutoff = o + int64(last)
		}
	}
	for i := range nbad {
		if hold.j.HeldError(i).At <= cutoff {
			es.Malformed++
		}
	}
	if done && lended { // the rows after the LIMIT's last row were not used: held for the replay
		hold.cut = o + int64(last)
		hold.done(last+1, hold.cut)
		return errLimitReached
	}
	hold.j.DoneErrors(nbad) // (routed with these rows; a failure keeps the rows held)
	if perr != nil {        // (errLimitReached: a Top-N's own LIMIT, rank.go)
		return perr
	}
	hold.done(n, end)
	return nil
}

// drain is what a job stopped while it holds rows (Ctrl-C, SIGTERM, its
// held rows past 'state.max-bytes') still routes: the held rows whose first
// branch that takes them is decided (a side branch before any event-time
// join, or a join whose build watermark passed them), in order, so that
// every row routed to an output reaches it (SPEC 4: a stop flushes what was
// routed); a row a join cannot decide yet goes nowhere (markJoin.drain: the
// join puts it on neither of its stage's ports). It returns cause, with the
// error of the routing if one came. It routes none when the hold keeps
// them (keep: they are read again or handed back, or an aggregate follows
// the join).
func (h *probeHold) drain(ctx context.Context, cause error) error {
	if h.keep || !h.holds() {
		return cause
	}
	for _, m := range h.ch.held {
		m.drain = true // (a join keeps what it cannot decide yet off its stage's ports)
	}
	dctx := context.WithoutCancel(ctx)
	for h.holds() {
		if err := h.release(dctx, min(h.j.Held(), vector.Cap)); err != nil {
			if !errors.Is(err, errLimitReached) {
				return errors.Join(cause, err)
			}
			return cause
		}
	}
	return cause
}

// newProbeHold returns the empty hold of job's probe rows, keeping only the
// columns the job reads (heldTypes, with wcol when >= 0), charged to acct;
// its down is set when the chain is built (chainOpts.hold).
func newProbeHold(job *plan.Job, wcol int, acct *StateAccount) (*probeHold, error) {
	types := heldTypes(job, wcol)
	j, err := op.NewSemiJoin(op.SemiSpec{Hold: true, Types: [2][]catalog.Type{types, nil}, Time: [2]int{job.Stream.EventTime, -1}}, nil, acct)
	if err != nil {
		return nil, err
	}
	return &probeHold{j: j, out: vector.NewBatch(types), errs: vector.NewBatch(op.HeldErrorTypes), stream: job.Stream.Name, cut: -1, acct: acct, wcol: wcol,
		step: newStep(job.ErrorsConfig().ErrorsSide)}, nil
}

// Used implements flow.HandBack: what the job used of the probe source's
// last batch, read from the hold (a stdin source hands the rest to the
// session's next job, SPEC 1; it holds one batch at most, whose rows are
// the source's one for one from ordinal batchAt on). After a LIMIT's cut,
// its rows up to the LIMIT's last row (the rows after it stay held);
// after 'errors'='fail', every good row before the failing row and the
// failing row itself; stopped while rows are held (Ctrl-C, an error), its
// good rows before the first held one and its malformed rows routed or
// counted. ok is false when the job used all of it.
func (h *probeHold) Used() (rows, bad int, ok bool) {
	switch {
	case h.cut >= 0:
		return int(h.cut-h.batchAt) + 1, 0, true
	case h.failed && !h.holds():
		return int(h.j.Gone() - h.batchAt), h.batchBad + 1, true // (no malformed row is held under 'fail')
	case h.holds():
		return int(h.j.Gone() - h.batchAt), h.batchBad - h.j.HeldErrors(), true
	}
	return 0, 0, false
}

// (probeHold is the HandBack of a source that hands back, which reads it
// when it closes, connector.HandsBack.)
var _ flow.HandBack = (*probeHold)(nil)

// holds reports whether rows are held, good or malformed.
func (h *probeHold) holds() bool { return h.j.Held() > 0 || h.j.HeldErrors() > 0 }

// errorRows appends to dst the first n held malformed rows bound for the
// errors output ('errors'='side'), each placed among the rows taken from
// ordinal o on (flow.ErrorRow.At: the taken rows before it), and returns
// it. Their Raw points into the held rows: valid until they are done.
func (h *probeHold) errorRows(dst []ErrorRow, n int, o int64) []ErrorRow {
	for i := range n {
		e := h.j.HeldError(i)
		if e.Emit {
			dst = append(dst, ErrorRow{Stream: h.stream, Position: string(e.Position), Raw: e.Raw, Error: string(e.Reason), At: int(e.At - o)})
		}
	}
	return dst
}

// heldTypes returns the layout of held rows: the job's batch types, with
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

// Push implements Operator: it holds r's live rows, stamped by the
// watermark assigner (watermarker.pushHeld), which must be the first
// len(r.Sel) rows of r.In (the good rows before a failing malformed row:
// heldScheduler.push), and then the batch's malformed rows it keeps
// (r.Errors.Read, with the errors output's rows r.Errors.Rows one for one
// under 'side'), each at its ordinal. The rows are held even past the
// budget, and err is then a *StateLimitError.
func (h *probeHold) Push(ctx context.Context, _ Port, r *Step) error {
	b, n := r.In, len(r.Sel)
	if n > 0 && int(r.Sel[n-1]) != n-1 {
		return fmt.Errorf("the event-time join's hold of stream %s: the rows pushed must be a batch's first rows", h.stream)
	}
	if n == 0 && len(r.Errors.Read) == 0 && !h.failed {
		return nil
	}
	base := h.j.Gone() + int64(h.j.Held()) // the batch's first row's ordinal
	h.batchAt = base
	all := b.N
	b.N = n
	err := h.j.Push(ctx, 0, b) // (held even past the budget: then err)
	b.N = all
	// the malformed rows, after the good ones: each at its ordinal, at
	// most the next good row's
	if perr := h.holdBad(ctx, r.Errors.Read, r.Errors.Rows, base); perr != nil && err == nil {
		err = perr
	}
	h.batchBad = h.j.HeldErrors()
	h.rep.touch()
	h.maxRows = max(h.maxRows, int64(h.j.Held()))
	if h.acct != nil {
		h.maxBytes = max(h.maxBytes, h.acct.Bytes())
	}
	return err
}

// Watermark implements Operator. On port 1 wm is the smallest build
// watermark (buildWatermark, which the scheduler gives it between the
// batches it pushes): the hold routes the rows it passed, in order, with
// the malformed rows up to them (releaseDecided; SPEC 2.2), and its error
// is errLimitReached once the main query's LIMIT ended the job. On port 0,
// the probe stream's, the assigner in front sends only the stream's end
// (Final), which goes on to the router once every held row was released
// (heldScheduler.finish): the probe rows' own watermark releases nothing.
func (h *probeHold) Watermark(ctx context.Context, wm Watermark) error {
	if wm.Port.Input == 0 {
		return h.down.Watermark(ctx, wm)
	}
	switch {
	case wm.Final:
		_ = h.j.Finish(ctx, 1)
	case wm.Set:
		_ = h.j.Watermark(ctx, 1, wm.Value)
	}
	if err := h.releaseDecided(ctx); err != nil {
		return err
	}
	return h.buildErrors()
}

// Finish implements Operator: the probe stream ended and nothing is held
// (heldScheduler.finish), so the router's inputs ended too.
func (h *probeHold) Finish(ctx context.Context) error { return h.down.Finish(ctx) }

// holdBad pushes a batch's malformed rows bad (their error rows side, one
// for one under 'errors'='side', none otherwise) on the hold's errors port,
// the batch's first row being at ordinal base.
func (h *probeHold) holdBad(ctx context.Context, bad []BadAt, side []ErrorRow, base int64) error {
	if len(bad) == 0 {
		return nil
	}
	eb := h.errs
	eb.Reset()
	for k, x := range bad {
		if eb.N == vector.Cap {
			if err := h.j.Push(ctx, op.HoldErrors, eb); err != nil {
				return err
			}
			eb.Reset()
		}
		i := eb.N
		var e ErrorRow // ('skip': counted only, no text)
		if k < len(side) {
			e = side[k]
		}
		eb.Cols[op.HeldErrPosition].SetString(i, []byte(e.Position))
		eb.Cols[op.HeldErrRaw].SetString(i, e.Raw)
		eb.Cols[op.HeldErrReason].SetString(i, []byte(e.Error))
		eb.Cols[op.HeldErrEmit].B[i], eb.Cols[op.HeldErrEmit].Null[i] = k < len(side), false
		eb.Cols[op.HeldErrAt].I[i], eb.Cols[op.HeldErrAt].Null[i] = base+int64(x.At), false
		eb.Pos[i] = x.Line
		eb.N++
	}
	return h.j.Push(ctx, op.HoldErrors, eb)
}

// done drops the first n held rows, routed, and the malformed rows up to
// ordinal end (routed with them).
func (h *probeHold) done(n int, end int64) {
	h.j.Done(n)
	h.j.DoneErrors(h.j.ErrorsUpTo(end))
	h.rep.touch()
}

// unaccount returns the bytes of the rows still held (the job ends). The
// rows stay, for a replay: the source's last checkpoint (Close) commits the
// first row of each partition still held.
func (h *probeHold) unaccount() { h.j.Unaccount() }

// limitError completes a *StateLimitError of the held rows with the build
// stream whose watermark holds them back.
func (h *probeHold) limitError(err error) error {
	var le *StateLimitError
	if !errors.As(err, &le) {
		return err
	}
	wm, by := buildWatermark(h.timed)
	if by == nil {
		return err
	}
	le.Operator = joinName(by.j)
	le.Stalled = by.j.Build.Name
	le.Rows = int64(h.j.Held())
	le.WatermarkText = "unset: no row of it arrived yet"
	if wm.Set {
		le.WatermarkText = strconv.FormatInt(wm.Value, 10)
		if t := by.j.Build.Columns[by.j.BuildTime].Type; t == catalog.Timestamp {
			v := vector.NewVec(t)
			v.I[0] = wm.Value
			le.WatermarkText = string(vector.AppendValue(nil, t, v, 0))
		}
	}
	return le
}

// Frontiers implements Checkpoint: each partition's first held row (good
// or malformed, Kafka's positions: connector.KafkaPosition), with the
// CURRENT_WATERMARK stamped on its first good row (Timed: when one is held;
// that stamp is p's watermark before the first malformed row too, since a
// malformed row moves no watermark and p's rows after it are all held), all
// of them not yet routed (Emitted). It walks every held row: a checkpoint's
// cost, not the hot path's.
func (h *probeHold) Frontiers(dst map[int32]Frontier) {
	for i := range h.j.Held() {
		p, off := connector.KafkaPartitionOf(h.j.HeldPos(i))
		f, ok := dst[p]
		if !ok || off < f.Off {
			f.Off = off
		}
		if !f.Timed { // (held rows of p are in offset order: the first is p's first)
			f.Timed, f.WM, f.WMSet = true, 0, false
			if h.wcol >= 0 {
				if v, null := h.j.HeldInt(i, h.wcol); !null {
					f.WM, f.WMSet = v, true
				}
			}
		}
		f.Emitted = true
		dst[p] = f
	}
	for i := range h.j.HeldErrors() {
		p, off := connector.KafkaPartitionOf(h.j.HeldError(i).Pos)
		if f, ok := dst[p]; !ok || off < f.Off {
			f.Off, f.Emitted = off, true
			dst[p] = f
		}
	}
}

// Drop implements Checkpoint: it removes the held rows of partition p
// (revoked, or assigned again: replay.Revoke), good and malformed, none of
// them routed or counted: p's next owner, or this process from p's
// committed offset, reads them again. Their bytes go back to the
// StateAccount.
func (h *probeHold) Drop(p int32) {
	h.j.DropHeld(func(pos int64) bool { q, _ := connector.KafkaPartitionOf(pos); return q == p })
	h.rep.touch()
}
