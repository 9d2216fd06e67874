package executor

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"

	"streamql/catalog"
	"streamql/executor/vector"
)

// portScheduler is the scheduling core of a job's input ports (issue 22
// item 3, one scheduler; doc.go, "What is left of step 3"): the event-time
// join job's scheduler (heldScheduler: port 0 the probe stream, port k a
// build side) and a two-input join's source (joinSource: port 0 the left
// input, 1 the right) run under it. Each port has a reader that reads its
// next batch only once the scheduler acks the last (one batch of each port
// in flight): a reader on a goroutine of its own (portReader.run, for a
// source's blocking Next) hands its batches on the core's one channel
// (msgs); a polled port is read on the scheduler's goroutine, when the
// scheduler asks which port to read (next: a source whose checkpoint runs
// inside Next and must fall between the job's pushes, a Kafka group
// source, or a join's input). One rule says which reader reads on
// (accepts: whether port p's operator takes another batch now): after
// each batch taken the scheduler acks every port whose reader waits (due)
// and whose operator accepts (ackAccepted), and next reads only a polled
// port that was acked and accepts. It is the scheduler's goroutine's: no
// lock; the readers' goroutines touch only their portReader.
type portScheduler struct {
	msgs chan portMsg // the goroutine readers' batches, the scheduler's one input
	// readers are the ports' readers, by port; nil for a port that has
	// none (a bounded build side, read whole first: readBuild)
	readers []*portReader
	polled  []bool // port p is read on the scheduler's goroutine (next), not by a goroutine of its own
	due     []bool // port p's batch was taken and more are to come: its reader waits for its ack
	ready   []bool // polled port p was acked (or not read yet): next may read it
	// accepts is the one rule: whether port p's operator takes another
	// batch now (heldScheduler.accepts, joinSource.accepts)
	accepts func(p int) bool
}

// newPortScheduler returns the core of n input ports (0 to n-1), none of
// them with a reader yet (add), whose readers read on by accepts.
func newPortScheduler(n int, accepts func(p int) bool) *portScheduler {
	return &portScheduler{msgs: make(chan portMsg), readers: make([]*portReader, n), polled: make([]bool, n), due: make([]bool, n), ready: make([]bool, n), accepts: accepts}
}

// add makes r port p's reader (nil: the scheduler reads p itself, when
// next returns it); polled says p is read on the scheduler's goroutine,
// ready at once, else start runs r on a goroutine of its own.
func (c *portScheduler) add(p int, r *portReader, polled bool) {
	c.readers[p], c.polled[p], c.ready[p] = r, polled, polled
}

// start runs the reader of each port that is not polled on a goroutine of
// g until ctx ends, handing its batches on msgs.
func (c *portScheduler) start(ctx context.Context, g *errgroup.Group) {
	for p, r := range c.readers {
		if r != nil && !c.polled[p] {
			g.Go(func() error { r.run(ctx, c.msgs); return nil })
		}
	}
}

// next returns the polled port to read now: the first (by port) that was
// acked and whose operator accepts a batch (readable), -1 when none.
func (c *portScheduler) next() int {
	for p := range c.ready {
		if c.readable(p) {
			return p
		}
	}
	return -1
}

// readable reports whether polled port p may be read now: it was acked (or
// not read yet) and its operator accepts a batch.
func (c *portScheduler) readable(p int) bool { return c.ready[p] && c.accepts(p) }

// reading notes that the scheduler reads polled port p now (next's port,
// or a port read whole first): it is not read again before it is acked.
func (c *portScheduler) reading(p int) { c.ready[p] = false }

// read reads polled port p's next batch with its reader (reading).
func (c *portScheduler) read(p int) portMsg {
	c.reading(p)
	return c.readers[p].read()
}

// taken notes that what port p read was taken by its operator: more says
// more is to come (not the port's end), and its reader then waits for its
// ack (ackAccepted).
func (c *portScheduler) taken(p int, more bool) { c.due[p] = more }

// ackAccepted acks each port's reader that waits for its ack (due) when
// the port's operator accepts another batch (accepts), in port order. It
// reports false, acking no more, when ctx ended before a goroutine's
// reader was acked: a stopped job reads on no port (Ctrl-C leaves stdin's
// next rows unread, SPEC 1).
func (c *portScheduler) ackAccepted(ctx context.Context) bool {
	for p, d := range c.due {
		if !d || !c.accepts(p) {
			continue
		}
		c.due[p] = false
		if !c.ack(ctx, p) {
			return false
		}
	}
	return true
}

// ack lets port p's reader read its next batch: a polled port becomes
// ready (next), a goroutine's reader reads on. It reports false when ctx
// ended first (the goroutine's reader is not acked).
func (c *portScheduler) ack(ctx context.Context, p int) bool {
	if c.polled[p] {
		c.ready[p] = true
		return true
	}
	if ctx.Err() != nil {
		return false
	}
	c.readers[p].ack()
	return true
}

// portReader reads one source of an event-time join job for the job's
// scheduler (routeHeld, under its portScheduler), the same way for every
// input port: the probe stream's (port 0) and each event-time join's build
// side (port k, the join's Port.Input). On a goroutine of its own (run,
// for a source's blocking Next) it hands each batch on the scheduler's one
// channel and reads the next only once the scheduler acks it (ack): one
// batch of each port is in flight at most, and a batch stays valid until
// acked. A source whose checkpoint must run between the job's pushes (a
// replayed Kafka source, SourceHandles.Replayer) is read on the
// scheduler's goroutine instead (read, no run: a polled port), as is a
// bounded join's build side, read whole before the first probe row
// (readBuild).
//
// A join's two inputs (joinSource: port 0 the left input, 1 the right)
// are polled ports too, each read by its portReader: from its source's
// Next into the reader's batch, or, when the input is decoded by a reader
// that hands batches of its own (from: a parallel join input's
// chunked.Reader, a pipelined join's strategy.Ahead), from that reader.
type portReader struct {
	port int // the input port: 0 the probe stream, k a build side
	src  Source
	b    *vector.Batch
	bad  []BadRow
	// from, when set, gives the port's batches instead of src's Next: each
	// one its own, valid until its next Next (the reader's batch b is then
	// not used)
	from batchSource
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

// batchSource is a reader that hands batches of its own (chunked.Reader,
// strategy.Ahead): the rows of a Source, cut where it cuts them, each
// batch valid until the next call; io.EOF at the end.
type batchSource interface {
	Next() (*vector.Batch, []BadRow, error)
}

// read reads the port's next batch once: the batch its source's Next gave
// into the reader's batch (or from's, when set), valid until the next
// read, with its malformed rows and the read's error.
func (r *portReader) read() portMsg {
	if r.from != nil {
		b, bad, err := r.from.Next()
		return portMsg{r: r, b: b, bad: bad, err: err}
	}
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
