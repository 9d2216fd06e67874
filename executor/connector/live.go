package connector

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"streamql/executor/vector"
)

// The machinery shared by the sources that wait for input (stdin, socket, a
// followed file):
//
//	reader goroutine ──chunks──► feed (io.Reader) ──► decoder goroutine ──batches──► Next
//
// The reader goroutine (pump.run) does the blocking reads. The decoder goroutine
// decodes into the job's batch when Next asks for one. When the decoder is about
// to wait for a chunk, the feed signals it, and Next returns ErrWaiting if it
// returned rows since its last ErrWaiting: the job flushes its sinks while the
// decoder keeps waiting, and the next Next call picks up the batch it fills.

const (
	chunkSize = 64 << 10
	nChunks   = 4
	// tickEvery makes a waiting live source return ErrWaiting now and then, so a
	// table sink can render its chunk once a second (SPEC 4) while no row comes.
	tickEvery = 250 * time.Millisecond
)

type chunk struct {
	buf []byte
	n   int
	err error // the read's error (io.EOF at the end), after the n bytes
}

// pump reads an io.Reader in its own goroutine, chunk by chunk, into a fixed set of
// reused buffers.
type pump struct {
	chunks chan chunk
	free   chan []byte

	// What a feed left when its job ended, for the next feed over the same pump
	// (stdin is read by one pump for the whole session): the unread rest of a
	// chunk, and the final error once the reader met it.
	mu      sync.Mutex
	rest    []byte
	restBuf []byte
	end     error
	used    bool // a feed's decoder used bytes: the input no longer starts at its start
}

func newPump() *pump {
	p := &pump{chunks: make(chan chunk, nChunks), free: make(chan []byte, nChunks)}
	for range nChunks {
		p.free <- make([]byte, chunkSize)
	}
	return p
}

// run reads r until a read error (io.EOF included), handing each chunk over, or
// until ctx is done.
func (p *pump) run(ctx context.Context, r io.Reader) {
	for {
		var buf []byte
		select {
		case buf = <-p.free:
		case <-ctx.Done():
			return
		}
		n, err := r.Read(buf)
		select {
		case p.chunks <- chunk{buf: buf, n: n, err: err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// feed is the io.Reader a decoder reads a pump through. Only the decoder
// goroutine calls Read.
type feed struct {
	ctx     context.Context
	p       *pump
	cur     []byte // unread bytes of the current chunk
	buf     []byte // the current chunk's buffer, returned to the pump once read
	n       int64  // bytes Read returned
	err     error  // the reader's error after cur
	waiting chan struct{}
}

func newFeed(ctx context.Context, p *pump) *feed {
	f := &feed{ctx: ctx, p: p, waiting: make(chan struct{}, 1)}
	p.mu.Lock()
	f.cur, f.buf, f.err = p.rest, p.restBuf, p.end
	p.rest, p.restBuf = nil, nil
	p.mu.Unlock()
	return f
}

// Read implements io.Reader. Before it waits for a chunk it signals on waiting.
func (f *feed) Read(b []byte) (int, error) {
	if err := f.ctx.Err(); err != nil {
		return 0, err // the job ended: stop even inside an endless record
	}
	for len(f.cur) == 0 {
		if f.buf != nil {
			f.p.free <- f.buf // never blocks: free holds every buffer
			f.buf = nil
		}
		if f.err != nil {
			return 0, f.err
		}
		var c chunk
		select {
		case c = <-f.p.chunks:
		default:
			select {
			case f.waiting <- struct{}{}:
			default:
			}
			select {
			case c = <-f.p.chunks:
			case <-f.ctx.Done():
				return 0, f.ctx.Err()
			}
		}
		f.cur, f.buf, f.err = c.buf[:c.n], c.buf, c.err
	}
	n := copy(b, f.cur)
	f.cur = f.cur[n:]
	f.n += int64(n)
	return n, nil
}

// detach leaves what the feed did not read, after back (what the decoder read
// from the feed and did not use), to the next feed over the pump. It is called
// once the decoder goroutine has stopped.
func (f *feed) detach(back []byte) {
	f.p.mu.Lock()
	defer f.p.mu.Unlock()
	if f.n > int64(len(back)) {
		f.p.used = true
	}
	if len(back) > 0 {
		rest := make([]byte, 0, len(back)+len(f.cur))
		rest = append(append(rest, back...), f.cur...)
		if f.buf != nil {
			f.p.free <- f.buf // never blocks: free holds every buffer
		}
		f.cur, f.buf = rest, nil
	}
	f.p.rest, f.p.restBuf = f.cur, f.buf
	if f.err != nil { // the reader's end: stdin's pump, shared by jobs, is never cancelled
		f.p.end = f.err
	}
}

// live is a Source over a pump: the decoder runs in its own goroutine so that Next
// can return ErrWaiting while it waits (see the top of this file).
type live struct {
	name   string // "stream s" for messages
	ctx    context.Context
	cancel context.CancelFunc
	g      errgroup.Group
	dec    Decoder
	feed   *feed
	req    chan *vector.Batch
	res    chan error
	bad    []BadRow // the decoder goroutine's until it sends on res
	read   atomic.Int64
	tick   *time.Ticker
	pos    func(line int64) string

	inflight bool     // the decoder goroutine holds a batch
	used     int      // rows of the last batch returned that the job used (-1: all; Unread)
	usedBad  int      // its malformed rows the job used (UnreadAfter)
	hb       HandBack // the job's account of what it used, read at Close (nil: none)
	dirty    bool     // rows were returned since the last ErrWaiting
	closed   bool
	unblock  func() // ends a blocked read (closes a connection); may be nil
	release  func() error
	// usedLines is told at Close how many input lines the job consumed (stdin's
	// line base, SPEC 1); may be nil.
	usedLines func(lines int64)
}

// startLive starts a live source over p. read, when not nil, is started in the
// source's group as the pump's reader (it must return once ctx is done, perhaps
// after unblock). release runs in Close after every goroutine has stopped.
func startLive(ctx context.Context, name string, p *pump, newDec NewDecoder, pos func(int64) string, read func(ctx context.Context), unblock func(), release func() error) (*live, error) {
	cctx, cancel := context.WithCancel(ctx)
	l := &live{used: -1, name: name, ctx: cctx, cancel: cancel, req: make(chan *vector.Batch), res: make(chan error), pos: pos, unblock: unblock, release: release}
	l.feed = newFeed(cctx, p)
	dec, err := newDec(l.feed)
	if err != nil {
		cancel()
		if unblock != nil {
			unblock()
		}
		if release != nil {
			release()
		}
		return nil, err
	}
	l.dec = dec
	if read != nil {
		l.g.Go(func() error { read(cctx); return nil })
	}
	l.g.Go(l.decode)
	l.tick = time.NewTicker(tickEvery)
	return l, nil
}

// decode is the decoder goroutine: it decodes into each batch Next hands over.
func (l *live) decode() error {
	for {
		var b *vector.Batch
		select {
		case b = <-l.req:
		case <-l.ctx.Done():
			return nil
		}
		l.bad = l.bad[:0]
		err := l.dec.Decode(b, &l.bad)
		l.read.Store(l.dec.BytesRead())
		select {
		case l.res <- err:
		case <-l.ctx.Done():
			return nil
		}
	}
}

// Next implements Source. After ErrWaiting the caller must pass the same batch
// again: the decoder goroutine may be filling it.
func (l *live) Next(b *vector.Batch, bad *[]BadRow) error {
	if !l.inflight {
		select {
		case l.req <- b:
			l.inflight = true
		case <-l.ctx.Done():
			return l.ctx.Err()
		}
	}
	for {
		select { // a ready batch wins over a tick
		case err := <-l.res:
			return l.got(err, bad)
		default:
		}
		select {
		case err := <-l.res:
			return l.got(err, bad)
		case <-l.feed.waiting:
			if l.dirty {
				l.dirty = false
				return ErrWaiting
			}
		case <-l.tick.C:
			l.dirty = false
			return ErrWaiting
		case <-l.ctx.Done():
			return l.ctx.Err()
		}
	}
}

func (l *live) got(err error, bad *[]BadRow) error {
	l.inflight = false
	*bad = append(*bad, l.bad...)
	switch {
	case err == nil:
		l.dirty = true
		return nil
	case err == io.EOF:
		return io.EOF
	case l.ctx.Err() != nil:
		return l.ctx.Err()
	}
	return fmt.Errorf("%s: %w", l.name, err)
}

func (l *live) Position(line int64) string { return l.pos(line) }

func (l *live) Progress() (int64, int64) { return l.read.Load(), 0 }

// Unread implements Unreader (see Close).
func (l *live) Unread(rows int) { l.used, l.usedBad = rows, 0 }

// UnreadAfter implements Unreader (see Close).
func (l *live) UnreadAfter(rows, bad int) { l.used, l.usedBad = rows, bad }

// SetHandBack implements HandsBack: Close reads hb.
func (l *live) SetHandBack(hb HandBack) { l.hb = hb }

// Close stops the goroutines and waits for them. What the decoder read and
// the job did not use (a batch decoded but not returned, or the rows after
// the last one used, see Unread) goes back in front of the pump's unread
// input, for the next job reading the same pump (stdin).
func (l *live) Close() error {
	if l.closed {
		return nil
	}
	l.closed = true
	l.cancel()
	if l.unblock != nil {
		l.unblock()
	}
	l.g.Wait()
	l.tick.Stop()
	used, usedBad := l.used, l.usedBad
	if l.hb != nil {
		if rows, bad, ok := l.hb.Used(); ok {
			used, usedBad = rows, bad
		}
	}
	if l.inflight {
		used, usedBad = 0, 0 // the decoder's last batch never reached the job
	}
	l.feed.detach(restOf(l.dec, used, usedBad))
	if l.usedLines != nil {
		l.usedLines(linesUsed(l.dec, used, usedBad))
	}
	if l.release != nil {
		return l.release()
	}
	return nil
}
