package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// derivedHub is what the sources of derived relations (SPEC 2.6) opened
// by one job need of it: the job (its DerivedOutputs), its sink (set once
// it exists, before the first Next) and its stats. runWith gives it to the
// sources it opens (openOpts.hub).
type derivedHub struct {
	job   *plan.Job
	sink  Sink
	stats *Stats
	// budget is the job's 'state.max-bytes' budget, which its derived
	// relations' jobs charge too (runMode.budget)
	budget *StateBudget
	// tees are the job's fan-outs (tee.go), which its derived relations'
	// jobs read through too (runMode.tees); nil when none
	tees *teeSet
	// once says which of the job's reads of a stream read twice reports
	// its malformed rows (reportonce.go), shared with its derived
	// relations' jobs (runMode.once); nil when none is
	once *reportOnce
	// timed: the job's operators time their calls (EXPLAIN ANALYZE), and
	// so do its derived relations' jobs (runMode.timed)
	timed bool
	// cut: a LIMIT of a relation may stop the job's reads before their end
	// (runMode.cut), and so its derived relations' parts' reads
	cut bool
}

// derivedSource is the Source of a derived relation (plan.Derived: a
// subquery, WITH name, view or UNION ALL, SPEC 2.6). Each part's job runs
// on a goroutine of its own, into a sink that hands its main rows, its other
// outputs' rows (late rows) and its malformed rows, in its order, through a
// bounded channel. The relation's rows are the main rows: part by part in
// turn (a message each), or, for a UNION ALL whose parts have event time,
// row by row in event-time order (the earliest head row first, the first
// part on a tie), so the output is deterministic. The other rows go to the
// reading job's outputs (Job.DerivedOutputs) as they come, on the reading
// job's goroutine. With plan.Derived.Stamps each main row carries its
// input's watermark before it into the reading batch's watermark column,
// which the reader's watermark assigner takes (watermarker.carry); with
// plan.Derived.StreamWatermarks that is its partition's (a Kafka stream's, or a
// file's split by `streamql test --shuffle`), and the stream's
// before and after the row follow in two more columns (captureSink's
// streamWm, watermarker.advanceParts).
type derivedSource struct {
	st  *catalog.Stream
	d   *plan.Derived
	env *Env
	hub *derivedHub
	// buildSide: the relation is read as a join's build side, and so are the
	// sources of its parts' jobs (runMode.buildSide)
	buildSide bool
	ctx       context.Context
	stop      context.CancelFunc
	// parent is the reading job's context: Next stops when it is done; the
	// parts' jobs stop with ctx, which for a relation that hands back is
	// done only at Close, so that a part reading a relation of its own
	// closes it, handing back its cut, before that relation's parts stop
	// (derivedhandback.go)
	parent context.Context
	parts  []*derivedPart
	next   int // the part whose turn it is (round robin)
	rows   int64
	fail   error
	lateR  Step
	sel    []int32
	// waits: the relation is unbounded, so its parts are polled, not
	// waited for one by one: Next gives the rows of a part that has some
	// ready (by turns: the part whose turn it is when it has, else the
	// next that has; in event-time order: the rows before a part that has
	// none ready), and when none has, ErrWaiting if rows were given since
	// the last ErrWaiting (dirty), as a live source does
	// (connector.ErrWaiting: the reading job flushes its sinks, so its
	// rows show while the input waits, SPEC 4, and the live table
	// redraws), else it waits until a part sends (ready). A quiet part
	// then holds back neither the other parts' rows nor the output. A
	// bounded relation's Next waits for each part in turn, as before.
	waits, dirty bool
	// ready gets a token (cap 1) after each message a part sends
	ready chan struct{}
	// tick ends idle's wait after derivedTick (made at its first wait)
	tick *time.Timer
	// handsBack: a part reads a stream that hands back (stdin), so each
	// part's source is gated (derivedhandback.go); segs are the runs of
	// parts' rows the last Next gave, for Unread
	handsBack bool
	segs      []derivedSeg
}

// derivedTick is how long idle waits for a part's message before it returns
// ErrWaiting anyway, as a live source's tick does (connector's tickEvery):
// a join reading the relation and another input then reads the other one
// meanwhile, and a table sink renders.
const derivedTick = 250 * time.Millisecond

// errNotReady is fill's: the part has no message ready (a polled part,
// derivedSource.waits).
var errNotReady = errors.New("derived relation: no rows ready")

// derivedPart is one running part of a derived relation.
type derivedPart struct {
	job    *plan.Job
	outMap []int
	ch     chan derivedMsg
	done   chan struct{}
	head   *vector.Batch // main rows being given
	at     int
	ended  bool
	// free takes back the part's batches of main rows once given (release),
	// for its captureSink to fill again: at most derivedBatches of them
	// exist, so the part's job waits while the reading job is behind.
	free chan *vector.Batch
	// gate is the part's gate and hand-back account (derivedhandback.go),
	// nil when the relation does not hand back; headOrigin and headPull
	// are the head's rows' origins and source pull; released the origins
	// of the heads given whole since the last Next, whose rows the reading
	// job has used once it asks for more (gate.done then); last* and
	// prev* the pull and row+1 of the furthest row of that pull a row given
	// was made at, at the end of this Next and of the one before
	gate               *derivedGate
	headOrigin         []int32
	headPull           int64
	released           [][]int32
	lastPull, prevPull int64
	lastRow, prevRow   int
	// stop ends a gated part's job at the reading job's cut (drainCut)
	stop context.CancelFunc
	// given counts the rows of each of the part's outputs other than its
	// main one (its late outputs') that went to the reading job's sink
	// (fill), nil before the first: the end-of-job notice counts those
	// (addStats), not the rows a part that ran ahead of the reading job's
	// cut routed after it
	given map[int]int64
	// final is the part's job's stats, set before done closes: those of a
	// part stopped at the reading job's end, whose end message Close does
	// not take
	final *Stats
}

// derivedBatches is how many batches of main rows (each up to vector.Cap
// rows) a derived relation's part may have between its job and the reading
// job: the one its sink fills, the ones sent, the one being given. Its job
// waits for one to come back when all are out (back-pressure), so the rows
// queued between the two jobs take at most this many batches, each reused
// with its arenas. (It was a channel of 4 messages, each a new batch: up to
// 7 batches and all of them garbage once given; Nexmark q23 held about 25
// MiB in them at its peak, issue 26.) At least 1; tests set it to 1 to make
// each job wait for the other at every batch.
var derivedBatches = 3

// derivedBatchesMade counts the batches of main rows the parts' sinks have
// made in this process (captureSink.next), for the tests: a part makes at
// most derivedBatches of them, however many rows it gives.
var derivedBatchesMade atomic.Int64

// derivedMsg is one message of a part's job: rows of its output Out (0 its
// main output), malformed rows bound for the errors output ErrSide, or its
// end with its stats and error.
type derivedMsg struct {
	out     int
	b       *vector.Batch
	errSide string
	errs    []ErrorRow
	end     bool
	stats   *Stats
	err     error
	// errPull is the source pull (derivedGate.pulls) of errs when they are
	// the malformed rows of a gated part's source, errAt their places in
	// it (ErrorRow.At: the good rows before each); 0 for others
	errPull int64
	errAt   []int
	// origin and pull: each main row's row in its source's pull number
	// pull (a gated part's, derivedhandback.go); nil when not gated
	origin []int32
	pull   int64
}

// newDerivedSource opens the relation st (its connector plan.DerivedConnector),
// read by the job of hub (as a join's build side when buildSide); its parts
// start at the first Next.
func newDerivedSource(ctx context.Context, st *catalog.Stream, env *Env, hub *derivedHub, buildSide bool) (Source, error) {
	d := plan.DerivedOf(st)
	if d == nil || hub == nil {
		return nil, fmt.Errorf("relation %s: not planned as a query (SPEC 2.6)", st.Name)
	}
	// A relation over Kafka streams of a consumer group is read whole, every
	// partition, as a build side is: its parts' jobs would each join the
	// group and split the partitions between them (a UNION ALL of one
	// stream read half its rows), and their offsets would commit apart from
	// the reading job's sinks (SPEC 2.5; plan.Derived.Group, EXPLAIN says so).
	buildSide = buildSide || d.Group() != ""
	ds := &derivedSource{st: st, d: d, env: env, hub: hub, buildSide: buildSide, waits: !st.Bounded(), ready: make(chan struct{}, 1), handsBack: derivedHandsBack(d)}
	ds.parent = ctx
	if ds.handsBack {
		ctx = context.WithoutCancel(ctx) // (the parts stop at Close, after the cut is handed down)
	}
	ds.ctx, ds.stop = context.WithCancel(ctx)
	return ds, nil
}

// start runs each part's job on a goroutine of its own.
func (ds *derivedSource) start() {
	for _, job := range ds.d.Parts {
		n := max(derivedBatches, 1)
		p := &derivedPart{job: job, outMap: ds.hub.job.DerivedOutputs[job], ch: make(chan derivedMsg, n), done: make(chan struct{}), free: make(chan *vector.Batch, n)}
		ds.parts = append(ds.parts, p)
		jobCtx := ds.ctx
		if ds.handsBack && job.Main != nil {
			// (a gated part's job stops at the reading job's cut, before
			// the relation closes; its sink sends on until ds.ctx ends, so
			// that the cut drains what it reported then: drainCut)
			jobCtx, p.stop = context.WithCancel(ds.ctx)
			p.gate = newDerivedGate(jobCtx, n)
		}
		cs := &captureSink{ctx: ds.ctx, ch: p.ch, ready: ds.ready, job: job, free: p.free, limit: n, stampCol: -1, gate: p.gate}
		if ds.d.Stamps && job.Main != nil {
			cs.stampCol = job.WatermarkCol
			cs.streamWm = ds.d.StreamWatermarks
		}
		go func() {
			defer close(p.done)
			stats, err := runWith(jobCtx, job, ds.env, func() (Sink, error) { return cs, nil }, runMode{sinks: true, timed: ds.hub.timed, inner: true, buildSide: ds.buildSide, budget: ds.hub.budget, marks: cs.streamWm, tees: ds.hub.tees, once: ds.hub.once, gate: p.gate, cut: ds.hub.cut})
			if err == nil {
				err = cs.flush()
			}
			p.final = &stats
			cs.send(derivedMsg{end: true, stats: &stats, err: err})
		}()
	}
}

// Next implements Source: the relation's next rows, io.EOF once every part
// has ended, or ErrWaiting (with no row) when an unbounded relation's part
// has none ready after rows were given (derivedSource.waits).
func (ds *derivedSource) Next(b *vector.Batch, _ *[]BadRow) error {
	if ds.parts == nil {
		ds.start()
	}
	if ds.fail != nil {
		return ds.fail
	}
	b.Reset()
	ds.segs = ds.segs[:0]
	for _, p := range ds.parts {
		p.prevPull, p.prevRow = p.lastPull, p.lastRow
		if p.gate != nil {
			for _, o := range p.released { // (the reading job used them: it asks for more)
				p.gate.done(o)
			}
			p.released = p.released[:0]
		}
	}
	merge := len(ds.parts) > 1 && ds.d.TimeCol >= 0
	for b.N == 0 {
		live := 0
		for _, p := range ds.parts {
			if !p.ended {
				live++
			}
		}
		if live == 0 {
			return io.EOF
		}
		var err error
		if merge {
			err = ds.mergeRows(b)
		} else {
			err = ds.turnRows(b)
		}
		if err != nil {
			if b.N > 0 && !errors.Is(err, io.EOF) {
				ds.fail = err // (the rows before it first)
				break
			}
			return err
		}
	}
	for i := range b.N {
		ds.rows++
		b.Pos[i] = ds.rows
	}
	ds.dirty = ds.dirty || b.N > 0
	return nil
}

// turnRows gives rows of the part whose turn it is (then the next part's
// turn comes), or nothing when it ended. Polled (derivedSource.waits), a
// part with no rows ready passes its turn to the next, and when no part
// has any, idle decides.
func (ds *derivedSource) turnRows(b *vector.Batch) error {
	for {
		live := false
		for range ds.parts {
			p := ds.parts[ds.next]
			if p.ended {
				ds.next = (ds.next + 1) % len(ds.parts)
				continue
			}
			live = true
			err := ds.fill(p)
			if errors.Is(err, errNotReady) {
				ds.next = (ds.next + 1) % len(ds.parts)
				continue
			}
			if err != nil {
				return err
			}
			if p.head != nil {
				n := min(p.head.N-p.at, vector.Cap-b.N)
				ds.given(p, b.N, n)
				b.AppendRows(p.head, p.at, p.at+n)
				p.at += n
				if p.at == p.head.N {
					p.release()
				}
			}
			if p.head == nil {
				ds.next = (ds.next + 1) % len(ds.parts)
			}
			return nil
		}
		if !live {
			return nil
		}
		if err := ds.idle(); err != nil {
			return err
		}
	}
}

// idle is called when no live part of a polled relation
// (derivedSource.waits) has a message ready: it returns ErrWaiting when
// rows were given since the last time it did, else it waits until a part
// sends a message (nil), derivedTick passes (ErrWaiting) or the job ends.
func (ds *derivedSource) idle() error {
	if ds.dirty {
		ds.dirty = false
		return ErrWaiting
	}
	if ds.tick == nil {
		ds.tick = time.NewTimer(derivedTick)
	} else {
		ds.tick.Reset(derivedTick)
	}
	defer ds.tick.Stop()
	select {
	case <-ds.ready:
		return nil
	case <-ds.tick.C:
		return ErrWaiting
	case <-ds.ctx.Done():
		return ds.ctx.Err()
	case <-ds.parent.Done():
		return ds.parent.Err()
	}
}

// mergeRows gives rows of a UNION ALL in event-time order: while every live
// part has a head row, the earliest (the first part on a tie). With the
// parts' watermark stamps (plan.Derived.Stamps) each row carries the least
// of the live parts' watermarks before their head rows (NULL when one is
// unset), the union's (SPEC 2.6). Polled (derivedSource.waits), it gives
// the rows taken so far when a live part has no row ready, and idle
// decides when it has taken none.
func (ds *derivedSource) mergeRows(b *vector.Batch) error {
	tc := ds.d.TimeCol
	wc := len(ds.st.Columns) // (the stamps' column, after the relation's)
next:
	for b.N < vector.Cap {
		best := -1
		var bt int64
		low, lowSet, lowNull := int64(0), false, false
		for k, p := range ds.parts {
			if p.ended {
				continue
			}
			if err := ds.fill(p); errors.Is(err, errNotReady) {
				if b.N > 0 {
					return nil
				}
				if err := ds.idle(); err != nil {
					return err
				}
				continue next
			} else if err != nil {
				return err
			}
			if p.head == nil {
				continue // (it ended)
			}
			c := p.head.Cols[tc]
			t := int64(-1 << 63)
			if !c.Null[p.at] {
				t = c.I[p.at]
			}
			if best < 0 || t < bt {
				best, bt = k, t
			}
			if ds.d.Stamps {
				switch w := p.head.Cols[wc]; {
				case w.Null[p.at]:
					lowNull = true
				case !lowSet || w.I[p.at] < low:
					low, lowSet = w.I[p.at], true
				}
			}
		}
		if best < 0 {
			return nil
		}
		p := ds.parts[best]
		ds.given(p, b.N, 1)
		b.AppendRows(p.head, p.at, p.at+1)
		if ds.d.Stamps {
			w := b.Cols[wc]
			w.Null[b.N-1], w.I[b.N-1] = lowNull || !lowSet, low
		}
		p.at++
		if p.at == p.head.N {
			p.release()
			if p.gate != nil {
				return nil // (its next rows wait until the reading job has used these: its gate)
			}
		}
	}
	return nil
}

// given records that rows p.at..p.at+n of p's head go to the given batch
// at row at (derivedSeg, for Unread), when p is gated, and moves p's
// furthest row given (lastPull, lastRow) past their origins.
func (ds *derivedSource) given(p *derivedPart, at, n int) {
	if p.gate == nil || p.headOrigin == nil || n == 0 {
		return
	}
	if k := len(ds.segs) - 1; k >= 0 && ds.segs[k].p == p && ds.segs[k].at+ds.segs[k].n == at && ds.segs[k].from+ds.segs[k].n == p.at && ds.segs[k].pull == p.headPull {
		ds.segs[k].n += n
	} else {
		ds.segs = append(ds.segs, derivedSeg{p: p, at: at, n: n, from: p.at, origin: p.headOrigin, pull: p.headPull})
	}
	if p.lastPull != p.headPull {
		p.lastPull, p.lastRow = p.headPull, 0
	}
	p.lastRow = furthest(p.headOrigin[p.at:p.at+n], p.lastRow)
}

// release gives p's head batch, whose rows have all been copied out
// (vector.Batch.AppendRows copies them), back to its sink to fill again.
func (p *derivedPart) release() {
	p.free <- p.head // (never blocks: at most cap(p.free) batches exist)
	if p.gate != nil {
		p.released = append(p.released, p.headOrigin)
	}
	p.head, p.at, p.headOrigin = nil, 0, nil
}

// fill makes p.head hold main rows, unless p has ended: it takes p's
// messages in order, passing on its other rows and its malformed rows, and
// at its end its stats. A polled part (derivedSource.waits) with no
// message ready gives errNotReady instead of waiting for one.
func (ds *derivedSource) fill(p *derivedPart) error {
	for p.head == nil && !p.ended {
		var m derivedMsg
		select {
		case m = <-p.ch:
		default:
			if ds.waits {
				return errNotReady
			}
			select {
			case m = <-p.ch:
			case <-ds.ctx.Done():
				return ds.ctx.Err()
			case <-ds.parent.Done():
				return ds.parent.Err()
			}
		}
		switch {
		case m.end:
			p.ended = true
			ds.addStats(p, m.stats)
			if m.err != nil {
				return m.err
			}
		case m.errs != nil:
			if err := ds.hub.sink.Errors(m.errSide, m.errs); err != nil {
				return err
			}
		case m.out == 0 && p.job.Main != nil:
			p.head, p.at = m.b, 0
			p.headOrigin, p.headPull = m.origin, m.pull
		default:
			if err := ds.passOn(p, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// passOn gives the rows of m, rows of p's output m.out other than its main
// one (late rows), to the reading job's output that output maps to
// (Job.DerivedOutputs), counting them given (derivedPart.given).
func (ds *derivedSource) passOn(p *derivedPart, m derivedMsg) error {
	k := -1
	if m.out < len(p.outMap) {
		k = p.outMap[m.out]
	}
	if k < 0 {
		return nil
	}
	ds.sel = ds.sel[:0]
	for i := range m.b.N {
		ds.sel = append(ds.sel, int32(i))
	}
	ds.lateR = Step{Chunks: []Chunk{{At: 0, Part: Part{Output: k, Sel: ds.sel, Cols: m.b.Cols}}}, In: m.b}
	if err := ds.hub.sink.Rows(&ds.lateR); err != nil {
		return err
	}
	if p.given == nil {
		p.given = map[int]int64{}
	}
	p.given[m.out] += int64(m.b.N)
	return nil
}

// addStats adds a part's counts to the reading job's: its late rows (the
// end-of-job notice), each query's as many as the reading job's sink got
// of its output (derivedPart.given: a part cut by the reading job's LIMIT
// counts the late rows it routed after the cut too, which were not given;
// SPEC 2.4 the notice counts the rows printed), and its streams' malformed
// rows; and keeps its stats, and those of the parts it read, for EXPLAIN
// ANALYZE (Stats.Parts).
func (ds *derivedSource) addStats(p *derivedPart, s *Stats) {
	if s == nil {
		return
	}
	out := ds.hub.stats
	if out.Parts == nil {
		out.Parts = map[*plan.Job]*Stats{}
	}
	out.Parts[p.job] = s
	for j, ps := range s.Parts {
		out.Parts[j] = ps
	}
	for _, l := range s.Late { // by the output's name in the reading job (plan: late-<relation> when renamed)
		given := int64(0)
		if k := partOutput(p.job, p.outMap, l.Output); k >= 0 {
			l.Output = ds.hub.job.Outputs[p.outMap[k]].Name
			if given = min(l.Rows, p.given[k]); given > 0 { // (the queries sharing an output take its rows given in turn)
				p.given[k] -= given
			}
		}
		l.Rows = given
		out.Late = append(out.Late, l)
	}
	for _, e := range s.Streams {
		found := false
		for _, o := range out.Streams {
			if o.Stream == e.Stream {
				o.Malformed += e.Malformed
				found = true
			}
		}
		if !found {
			out.Streams = append(out.Streams, e)
		}
	}
}

// Position implements Source: the relation's row number.
func (ds *derivedSource) Position(line int64) string {
	return fmt.Sprintf("%s row %d", ds.st.Name, line)
}

// Progress implements Source: unknown.
func (ds *derivedSource) Progress() (int64, int64) { return 0, 0 }

// Close implements Source: it stops the parts' jobs and waits for them.
//
// A part whose end the reading job did not take (it ended first: a LIMIT's
// cut, SPEC 2.2) adds its counts here, its late rows as many as were given
// (addStats), so the end-of-job notice counts every late row printed; the
// reading job's runWith closes its sources before it returns its stats.
func (ds *derivedSource) Close() error {
	ds.stop()
	for _, p := range ds.parts {
		<-p.done
		if !p.ended {
			p.ended = true
			ds.addStats(p, p.final)
		}
	}
	return nil
}

// captureSink is the sink of a derived relation's part: it copies the
// rows of each output in output order into batches of their own and sends
// them, with the malformed rows, to the reading job (derivedSource).
type captureSink struct {
	ctx    context.Context
	ch     chan<- derivedMsg
	ready  chan<- struct{} // derivedSource.ready
	job    *plan.Job
	cur    *vector.Batch
	curOut int
	m      Merger // the batch's output order
	// free gives back the batches of main rows the reading job has given
	// (derivedPart.release); made counts those made, at most limit
	// (derivedBatches)
	free        <-chan *vector.Batch
	made, limit int
	// gate is the part's gate (derivedhandback.go), nil when not gated;
	// curOrigin the origins of c.cur's main rows
	gate      *derivedGate
	curOrigin []int32
	// stampCol is the column of the part's input batch holding each row's
	// watermark before it (plan.Job.WatermarkCol), copied after the main
	// rows' columns when the relation carries it (plan.Derived.Stamps); -1
	// when it does not
	stampCol int
	// streamWm: the stamps are the rows' partitions' watermarks, and two
	// columns after them carry the stream's watermark before and after
	// each row (plan.Derived.StreamWatermarks), which swm follows over the
	// Step's marks (runMode.marks), across batches; before and after are
	// the row's being added
	streamWm      bool
	markRow       int // the input row c.before and c.after are of (-1: none yet in this Step)
	swm           int64
	swmSet        bool
	before, after int64
	beforeSet     bool
	afterSet      bool
}

// Rows implements Sink.
func (c *captureSink) Rows(r *Step) error {
	mi := 0 // the marks taken (streamWm)
	c.markRow = -1
	for seg := range c.m.Segments(r) {
		if seg.Chunk != nil {
			if err := c.chunk(r, seg.Chunk, &mi); err != nil {
				return err
			}
			continue
		}
		for i := seg.From; i < seg.To; i++ { // (the malformed rows go after the batch's rows, below)
			k := seg.Port[i]
			if k < 0 {
				continue
			}
			if c.streamWm {
				mi = c.streamMarks(r.Marks, mi, i)
			}
			p := &r.Parts[k]
			var stamp *vector.Vec
			if c.stampCol >= 0 && r.In != nil && c.stampCol < len(r.In.Cols) {
				stamp = r.In.Cols[c.stampCol] // (a part's rows are input rows, at their indexes)
			}
			if err := c.add(p.Output, p.Cols, i, p.KindAt(i), stamp, i); err != nil {
				return err
			}
		}
	}
	for ; c.streamWm && mi < len(r.Marks); mi++ { // (where rows after the last one given moved it)
		c.swm, c.swmSet = r.Marks[mi].Value, true
	}
	if err := c.flush(); err != nil {
		return err
	}
	if len(r.Errors.Rows) > 0 {
		return c.errors(r.Errors.Name, r.Errors.Rows, c.gate != nil)
	}
	return nil
}

// streamMarks sets c.before and c.after to the stream's watermark before
// and after input row i (SPEC 2.5: the partitions' minimum), taking the
// marks from mi on (each placed after the row that moved it, Mark.At);
// it returns the marks taken. The stream's watermark never goes back: the
// part reads every partition, in no consumer group (newDerivedSource).
func (c *captureSink) streamMarks(marks []Mark, mi, i int) int {
	if i == c.markRow {
		return mi // (another row made at input row i: c.before and c.after are its)
	}
	c.markRow = i
	mi, c.before, c.beforeSet = marksAround(marks, mi, i, &c.swm, &c.swmSet)
	c.after, c.afterSet = c.swm, c.swmSet
	return mi
}

// marksAround moves the stream's watermark (*wm, *set) over marks from mi
// on: those placed up to input row i (Mark.At <= i) give the watermark
// before the row, returned as before and beforeSet; those placed right
// after it (At == i+1) leave *wm, *set as the watermark after it. It
// returns the index of the first mark not taken. (captureSink.streamMarks
// and joinRoute.take stamp a derived part's rows with both.)
func marksAround(marks []Mark, mi, i int, wm *int64, set *bool) (next int, before int64, beforeSet bool) {
	for ; mi < len(marks) && marks[mi].At <= i; mi++ {
		*wm, *set = marks[mi].Value, true
	}
	before, beforeSet = *wm, *set
	for ; mi < len(marks) && marks[mi].At <= i+1; mi++ {
		*wm, *set = marks[mi].Value, true
	}
	return mi, before, beforeSet
}

// partOutput returns the index of the output of part (a derived relation's
// job) named name that the reading job writes (outMap[k] >= 0: its
// output outMap[k]), or -1 when none is.
func partOutput(part *plan.Job, outMap []int, name string) int {
	for k, o := range part.Outputs {
		if o.Name == name && k < len(outMap) && outMap[k] >= 0 {
			return k
		}
	}
	return -1
}

// chunk adds the rows of ck, rows an operator of the part made (a window
// TVF's windowed rows, a Top-N's changes, SPEC 2.4, 2.9), with the stamps
// of the input row of r they were made at (ck.At - 1: a row's own rows, or
// those a watermark it moved released), where r has it; *mi is the marks
// of r taken (streamWm). As a Flink operator forwards its input's
// watermark after what it emits for it, those rows carry the watermark
// before that input row. Rows made with no input row (at the stream's
// end, or before a batch's first row) carry none (NULL).
func (c *captureSink) chunk(r *Step, ck *Chunk, mi *int) error {
	var stamp *vector.Vec
	row := ck.At - 1
	if c.stampCol >= 0 && r.In != nil && c.stampCol < len(r.In.Cols) && row >= 0 && row < r.N {
		stamp = r.In.Cols[c.stampCol]
	}
	switch {
	case !c.streamWm:
	case stamp != nil:
		*mi = c.streamMarks(r.Marks, *mi, row)
	default:
		c.beforeSet, c.afterSet = false, false
	}
	for _, i := range ck.Sel {
		if err := c.add(ck.Output, ck.Cols, int(i), ck.KindAt(int(i)), stamp, row); err != nil {
			return err
		}
	}
	return nil
}

// add copies row i of cols, a row of output out whose change kind is kind
// (SPEC 2.8: a derived relation over an updating query gives its changes),
// into the batch being filled; with its watermark stamp, row si of stamp
// (nil: NULL, no stamp), when the batch carries one (stampCol).
func (c *captureSink) add(out int, cols []*vector.Vec, i int, kind vector.RowKind, stamp *vector.Vec, si int) error {
	if c.cur != nil && (c.curOut != out || c.cur.N == vector.Cap) {
		if err := c.flush(); err != nil {
			return err
		}
	}
	if c.cur == nil {
		if err := c.next(out); err != nil {
			return err
		}
	}
	at := c.cur.N
	dst := c.cur.Cols
	if c.stamped(out) {
		if c.streamWm {
			b, a := dst[len(dst)-2], dst[len(dst)-1]
			dst = dst[:len(dst)-2]
			b.Null[at], b.I[at] = !c.beforeSet, c.before
			a.Null[at], a.I[at] = !c.afterSet, c.after
		}
		w := dst[len(dst)-1]
		dst = dst[:len(dst)-1]
		w.Null[at], w.I[at] = stamp == nil || stamp.Null[si], 0
		if !w.Null[at] {
			w.I[at] = stamp.I[si]
		}
	}
	for k, d := range dst {
		copyWidened(d, at, cols[k], i)
	}
	if kind != vector.Insert && c.cur.Kinds == nil {
		c.cur.Kinds = make([]vector.RowKind, vector.Cap)
	}
	if c.cur.Kinds != nil {
		c.cur.Kinds[at] = kind
	}
	if c.curOrigin != nil {
		c.curOrigin[at] = int32(si) // (-1: made with no input row)
	}
	c.cur.N++
	return nil
}

// next makes c.cur an empty batch of output out's rows: for the main rows
// one of the part's batches (derivedBatches), waiting for the reading job to
// give one back when all are out (the job's context's error if it stops
// meanwhile); for other rows (late rows) a new one.
func (c *captureSink) next(out int) error {
	pooled := out == 0 && c.job.Main != nil && c.free != nil
	if pooled && c.made >= c.limit {
		select {
		case b := <-c.free:
			b.Reset()
			c.cur, c.curOut = b, out
			if c.gate != nil {
				c.curOrigin = c.gate.origin()
			}
			return nil
		case <-c.ctx.Done():
			return c.ctx.Err()
		}
	}
	var types []catalog.Type
	for _, col := range c.job.Outputs[out].Columns {
		types = append(types, col.Type)
	}
	if c.stamped(out) {
		types = append(types, c.job.BatchTypes[c.stampCol])
		if c.streamWm {
			types = append(types, c.job.BatchTypes[c.stampCol], c.job.BatchTypes[c.stampCol])
		}
	}
	if pooled {
		c.made++
		derivedBatchesMade.Add(1)
	}
	c.cur, c.curOut = vector.NewBatch(types), out
	if pooled && c.gate != nil {
		c.curOrigin = c.gate.origin()
	}
	return nil
}

// stamped reports whether the batches of output out carry the rows'
// watermark stamps after their columns: the main output's, when stampCol
// is set.
func (c *captureSink) stamped(out int) bool {
	return out == 0 && c.job.Main != nil && c.stampCol >= 0
}

// copyWidened sets row at of d to row i of s as vector.Vec.SetFrom does
// (strings copied into d's arena, an ARRAY, MAP or ROW value whole into d's
// child vectors, SPEC 2.10), and converts BIGINT to DOUBLE where a union
// part's column is widened (SPEC 2.6).
func copyWidened(d *vector.Vec, at int, s *vector.Vec, i int) {
	if d.Text != nil {
		d.Text[at] = nil
	}
	switch {
	case s.Null[i]:
		d.Null[at] = true
	case d.Type == catalog.Double && s.Type != catalog.Double:
		d.Null[at], d.F[at] = false, float64(s.I[i])
	default:
		d.SetFrom(at, s, i)
	}
}

// flush sends the batch being filled.
func (c *captureSink) flush() error {
	if c.cur == nil || c.cur.N == 0 {
		return nil
	}
	m := derivedMsg{out: c.curOut, b: c.cur}
	if c.curOrigin != nil {
		c.gate.mu.Lock()
		m.origin, m.pull = c.curOrigin, c.gate.pulls
		c.gate.mu.Unlock()
		c.gate.pending.Add(1)
	}
	c.cur, c.curOrigin = nil, nil
	return c.send(m)
}

// send sends m to the reading job, with a token on c.ready.
func (c *captureSink) send(m derivedMsg) error {
	select {
	case c.ch <- m:
	case <-c.ctx.Done():
		return c.ctx.Err()
	}
	select {
	case c.ready <- struct{}{}:
	default: // (a token is there already)
	}
	return nil
}

// Errors implements Sink: the rows are copied and sent.
func (c *captureSink) Errors(name string, rows []ErrorRow) error {
	return c.errors(name, rows, false)
}

// errors copies and sends rows, bound for the errors output name; pulled:
// they are the malformed rows of the gated source's last pull, sent with
// its number and their places in it (derivedMsg.errPull; drainCut).
func (c *captureSink) errors(name string, rows []ErrorRow, pulled bool) error {
	if err := c.flush(); err != nil {
		return err
	}
	m := derivedMsg{errSide: name, errs: make([]ErrorRow, len(rows))}
	if pulled {
		m.errAt = make([]int, len(rows))
		c.gate.mu.Lock()
		m.errPull = c.gate.pulls
		c.gate.mu.Unlock()
	}
	for k, r := range rows {
		if pulled {
			m.errAt[k] = r.At
		}
		r.Raw = append([]byte(nil), r.Raw...)
		r.At = 0
		m.errs[k] = r
	}
	return c.send(m)
}

// Flush implements Sink: what is buffered goes to the reading job.
func (c *captureSink) Flush() error { return c.flush() }

// Close implements Sink.
func (c *captureSink) Close() error { return nil }
