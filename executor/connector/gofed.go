package connector

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"streamql/catalog"
	"streamql/executor/vector"
)

// feedDepth is the number of batches a Go-fed stream queues before Push blocks
// (besides the batch being filled).
const feedDepth = 4

// feedMaxBytes bounds the text (VARCHAR bytes) a Go-fed stream queues: Push
// blocks once the queued rows hold that much, as it does at feedDepth full
// batches, so that large rows pushed with no job reading cannot exhaust the
// memory (issue 30). A row larger than the bound still goes into an empty
// queue. A batch is full at vector.Cap rows or feedBatchBytes of text.
const (
	feedMaxBytes   = 32 << 20
	feedBatchBytes = feedMaxBytes / (feedDepth + 1)
)

// ErrFeedClosed is returned by Feed.Push after Feed.Close.
var ErrFeedClosed = errors.New("stream closed")

func init() {
	Register(&catalog.ConnectorSpec{
		Name: "go", Doc: "rows come from Go code through the streamql package's Session.Push; unbounded until CloseStream",
		Bounded:      never,
		PushedFromGo: true,
	}, &Driver{
		Open: func(ctx context.Context, st *catalog.Stream, env *Env) (Source, error) {
			return FeedOf(st, env).Open(ctx), nil
		},
	})
}

// feedKey is the key of a Go-fed stream's Feed in Env.State: a stream declared
// anew under a dropped one's name is another *catalog.Stream, with a new Feed.
type feedKey struct{ st *catalog.Stream }

// FeedOf returns the session's Feed of the Go-fed stream st, made at the first
// call.
func FeedOf(st *catalog.Stream, env *Env) *Feed {
	return env.State.Get(feedKey{st}, func() any { return NewFeed(st) }).(*Feed)
}

// Feed is the queue of a Go-fed stream ('connector'='go'): rows pushed by Go
// code (streamql.Session.Push), read by the jobs over the stream, each row
// once, in push order. It is unbounded until Close. The queue is bounded
// (feedDepth batches of up to vector.Cap rows, and the batch being filled, and
// at most feedMaxBytes of text): Push blocks while the job is behind, or while
// no job reads the stream. Push
// and Close are safe for concurrent use; rows of concurrent pushers interleave
// in no fixed order.
//
// Push queues its batch as soon as the queue is empty, so a slow pusher's rows
// show at once, and rows gather into full batches while the reader is behind.
// Nobody blocks while holding mu: a waiter takes the current wake channel under
// mu and waits on it after unlocking; the other side closes it (a broadcast).
type Feed struct {
	stream string
	cols   []catalog.Column
	types  []catalog.Type

	mu     sync.Mutex
	queue  []*vector.Batch // batches ready for the reader, oldest first
	cur    *vector.Batch   // the batch being filled, or nil
	free   []*vector.Batch // batches the reader gave back
	seq    int64           // rows pushed so far: the position of the next row
	bytes  int             // text bytes of the rows in queue and cur
	curB   int             // text bytes of the rows in cur
	closed bool
	space  chan struct{} // closed when the reader takes a batch
	avail  chan struct{} // closed when a batch is queued, or at Close
}

// NewFeed returns the empty feed of the Go-fed stream st.
func NewFeed(st *catalog.Stream) *Feed {
	return &Feed{
		stream: st.Name, cols: st.Columns, types: st.Types(),
		space: make(chan struct{}), avail: make(chan struct{}),
	}
}

// Push appends one row, a value per column of the stream in declaration order:
// int64 (or any Go integer) for BIGINT, float64 (float32, or an integer) for
// DOUBLE, string or []byte for VARCHAR, bool for BOOLEAN, time.Time or int64
// epoch ms for TIMESTAMP, nil for NULL. It blocks while the queue is full and
// returns ctx.Err() when ctx ends first (the row is then not pushed),
// ErrFeedClosed after Close, and an error naming the stream and column for a
// row of the wrong width or a value of the wrong type (not pushed either).
func (f *Feed) Push(ctx context.Context, row []any) error { return f.PushOr(ctx, row, nil) }

// PushOr is Push, but when the queue is full it first calls wouldWait (when
// not nil): an error it returns comes back instead of waiting (the caller
// would wait for itself; streamql.ErrReentrant).
func (f *Feed) PushOr(ctx context.Context, row []any, wouldWait func() error) error {
	if len(row) != len(f.cols) {
		return fmt.Errorf("stream %s: a row has %d values, the stream has %d columns (%s)", f.stream, len(row), len(f.cols), columnList(f.cols))
	}
	for {
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			return fmt.Errorf("stream %s: %w", f.stream, ErrFeedClosed)
		}
		if f.cur != nil && f.curFull() && len(f.queue) < feedDepth {
			f.enqueue()
		}
		if (f.cur == nil || !f.curFull()) && (f.bytes < feedMaxBytes || f.bytes == 0) {
			err := f.add(row)
			f.mu.Unlock()
			return err
		}
		wait := f.space // full: wait for the reader
		f.mu.Unlock()
		if wouldWait != nil {
			if err := wouldWait(); err != nil {
				return err
			}
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// add appends row to f.cur (made when nil) and queues the batch when it is
// full or the reader is idle, and the queue has room. f.mu is held.
func (f *Feed) add(row []any) error {
	if f.cur == nil {
		if k := len(f.free); k > 0 {
			f.cur, f.free = f.free[k-1], f.free[:k-1]
			f.cur.Reset()
		} else {
			f.cur = vector.NewBatch(f.types)
		}
	}
	b := f.cur
	i := b.N
	before := textBytes(b)
	for c, v := range row {
		if err := setValue(b.Cols[c], i, v); err != nil {
			n := textBytes(b) - before // (text of the columns before, counted until taken)
			f.bytes += n
			f.curB += n
			return fmt.Errorf("stream %s, column %s %s: %v", f.stream, f.cols[c].Name, f.cols[c].Type, err)
		}
	}
	n := textBytes(b) - before
	f.bytes += n
	f.curB += n
	f.seq++
	b.Pos[i] = f.seq
	b.N++
	if (f.curFull() || len(f.queue) == 0) && len(f.queue) < feedDepth {
		f.enqueue()
	}
	return nil
}

// curFull says whether f.cur takes no more rows: vector.Cap of them, or
// feedBatchBytes of text. f.mu is held.
func (f *Feed) curFull() bool { return f.cur.N == vector.Cap || f.curB >= feedBatchBytes }

// textBytes returns the bytes of text in b's VARCHAR columns.
func textBytes(b *vector.Batch) int {
	n := 0
	for _, c := range b.Cols {
		n += len(c.Arena)
	}
	return n
}

// enqueue moves f.cur to the queue and wakes the reader. f.mu is held.
func (f *Feed) enqueue() {
	f.queue = append(f.queue, f.cur)
	f.cur = nil
	f.curB = 0
	close(f.avail)
	f.avail = make(chan struct{})
}

// Close ends the stream: a job reading it ends after the rows pushed before.
// Further pushes fail with ErrFeedClosed. Closing twice is harmless.
func (f *Feed) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		close(f.avail)
		close(f.space) // pushers waiting for room see closed
	}
}

// take returns the next batch; or nil and io.EOF when the stream is closed and
// drained; or nil, nil and the channel that is closed when there may be more.
func (f *Feed) take() (*vector.Batch, <-chan struct{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b *vector.Batch
	switch {
	case len(f.queue) > 0:
		b = f.queue[0]
		n := copy(f.queue, f.queue[1:])
		f.queue[n] = nil
		f.queue = f.queue[:n]
	case f.cur != nil && f.cur.N > 0:
		b, f.cur, f.curB = f.cur, nil, 0
	case f.closed:
		return nil, nil, io.EOF
	default:
		return nil, f.avail, nil
	}
	f.bytes -= textBytes(b)
	if !f.closed {
		close(f.space)
		f.space = make(chan struct{})
	}
	return b, nil, nil
}

// give returns a batch the reader is done with, for Push to fill again.
func (f *Feed) give(b *vector.Batch) {
	f.mu.Lock()
	defer f.mu.Unlock()
	text := 0
	for _, c := range b.Cols {
		text += cap(c.Arena)
	}
	if len(f.free) < feedDepth+2 && text <= 2*feedBatchBytes { // (a batch of huge rows goes to the collector)
		f.free = append(f.free, b)
	}
}

// Open returns a source reading the feed from its next row.
func (f *Feed) Open(ctx context.Context) Source { return &feedSource{f: f, ctx: ctx} }

type feedSource struct {
	f      *Feed
	ctx    context.Context
	held   *vector.Batch // the feed batch the last Next's strings point into
	waited bool          // the last Next returned ErrWaiting
}

func (s *feedSource) release() {
	if s.held != nil {
		s.f.give(s.held)
		s.held = nil
	}
}

func (s *feedSource) Next(b *vector.Batch, _ *[]BadRow) error {
	s.release()
	for {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		src, wait, err := s.f.take()
		if err != nil {
			return err
		}
		if src == nil {
			if !s.waited {
				s.waited = true
				b.Reset()
				return ErrWaiting
			}
			select {
			case <-wait:
			case <-s.ctx.Done():
			}
			continue
		}
		s.waited = false
		s.held = src
		n := src.N
		b.ShareRows(src, n) // VARCHAR into held's arena, valid until the next Next
		return nil
	}
}

// Unread implements Unreader: the rows of the last batch after the first rows
// go back to the front of the feed, for the next job reading the stream (a
// LIMIT stops inside a batch; SPEC 1, as for stdin).
func (s *feedSource) Unread(rows int) {
	src := s.held
	if src == nil || rows >= src.N {
		return
	}
	rest := vector.NewBatch(s.f.types)
	rest.AppendRows(src, rows, src.N)
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queue = append([]*vector.Batch{rest}, f.queue...)
	f.bytes += textBytes(rest)
	close(f.avail)
	f.avail = make(chan struct{})
}

// A Go-fed stream hands back what a job did not use, as stdin does: checked
// here so that a change of Unreader cannot silently turn that off.
var _ Unreader = (*feedSource)(nil)

// UnreadAfter implements Unreader. Pushed rows are never malformed (Push
// checks each value), so it is Unread(rows).
func (s *feedSource) UnreadAfter(rows, _ int) { s.Unread(rows) }

func (s *feedSource) Position(line int64) string { return rowNumber(line) }

func (s *feedSource) Progress() (int64, int64) { return 0, 0 }

func (s *feedSource) Close() error {
	s.release()
	return nil
}

// setValue stores the Go value v as row i of the column vector c.
func setValue(c *vector.Vec, i int, v any) error {
	if v == nil {
		c.Null[i] = true
		return nil
	}
	c.Null[i] = false
	bad := func() error { return fmt.Errorf("cannot take a Go %T", v) }
	switch c.Type {
	case catalog.BigInt, catalog.Timestamp:
		if t, ok := v.(time.Time); ok && c.Type == catalog.Timestamp {
			c.I[i] = t.UnixMilli()
			return nil
		}
		n, ok := goInt(v)
		if !ok {
			return bad()
		}
		c.I[i] = n
	case catalog.Double:
		switch x := v.(type) {
		case float64:
			c.F[i] = x
		case float32:
			c.F[i] = float64(x)
		default:
			n, ok := goInt(v)
			if !ok {
				return bad()
			}
			c.F[i] = float64(n)
		}
	case catalog.Boolean:
		x, ok := v.(bool)
		if !ok {
			return bad()
		}
		c.B[i] = x
	case catalog.Varchar:
		start := len(c.Arena)
		switch x := v.(type) {
		case string:
			c.Arena = append(c.Arena, x...)
		case []byte:
			c.Arena = append(c.Arena, x...)
		default:
			return bad()
		}
		c.S[i] = c.Arena[start:len(c.Arena):len(c.Arena)]
	default:
		return bad()
	}
	return nil
}

// goInt returns v as an int64 when it is a Go integer that fits.
func goInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint:
		if uint64(x) <= math.MaxInt64 {
			return int64(x), true
		}
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	}
	return 0, false
}

func columnList(cols []catalog.Column) string {
	s := ""
	for i, c := range cols {
		if i > 0 {
			s += ", "
		}
		s += c.Name + " " + c.Type.String()
	}
	return s
}
