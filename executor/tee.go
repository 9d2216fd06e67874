package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/records"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// teeSet is the fan-outs of one job (plan.Job.Tees; issue 22 item 1, "a DAG
// where one source feeds several readers"), shared by the jobs of the
// derived relations it reads (runMode.tees): per stream that can be read
// once and that the job reads more than once, the tee that opens it once.
type teeSet struct {
	ctx    context.Context // the job's: the one source outlives any reader's own context
	budget *StateBudget
	tees   map[*catalog.Stream]*tee
}

// newTeeSet returns the fan-outs of job, whose state budget is budget, nil
// when it has none.
func newTeeSet(ctx context.Context, job *plan.Job, budget *StateBudget) *teeSet {
	if len(job.Tees) == 0 {
		return nil
	}
	s := &teeSet{ctx: ctx, budget: budget, tees: map[*catalog.Stream]*tee{}}
	for _, t := range job.Tees {
		s.tees[t.Stream] = &tee{st: t.Stream, readers: t.Readers, pull: make(chan struct{}, 1)}
	}
	return s
}

// of returns the tee of st, nil when st is not fanned out (s may be nil).
func (s *teeSet) of(st *catalog.Stream) *tee {
	if s == nil {
		return nil
	}
	return s.tees[st]
}

// close closes the source of every tee that opened one and whose readers
// did not all close it (the job ended before some reader opened: a LIMIT
// 0 reads nothing); the job's readers have all ended by then.
func (s *teeSet) close() {
	if s == nil {
		return
	}
	for _, t := range s.tees {
		t.closeSource()
	}
}

// tee is one source fanned out to its readers: the first reader to open it
// opens the stream (through the job's source hook, once), and each
// reader's Next gives the rows in the source's order. A reader whose queue
// is empty pulls the source's next batch (one pull at a time: the pull
// token), which goes into every reader's queue as a copy; so a reader that
// reads ahead (a build side read whole first, one input of a join read
// while the other waits for its watermark) never waits for a slower one,
// and a slower one finds its rows queued: no reader waits on another, which
// cannot deadlock however the readers are driven (on one goroutine or
// several). The queued rows are counted against 'state.max-bytes'
// (account): past it the job stops naming the tee and what to do.
//
// Malformed rows go to the reader that pulled them only (SPEC 1, 2.3:
// each malformed row once in the errors output), and a join whose two
// inputs read one tee reports their late rows once, in its left input's
// late output (joinInput.echo): the fan-out's decisions, written down in
// the README's composition section and in EXPLAIN's Tee node. The source's
// position texts and progress are the one source's.
//
// A source that hands back what the job did not use (stdin, SPEC 1: the
// session's next job reads on from the end of the last row used) is told,
// when it closes, the furthest any reader went (handBack): each reader
// keeps what its job used of the last batch it took (its Unreader calls,
// or its job's flow.HandBack), and the later of the readers' positions in
// the source's last batch is what the job used of it.
type tee struct {
	st      *catalog.Stream
	readers int // as planned (plan.Tee.Readers)
	pull    chan struct{}

	mu      sync.Mutex
	src     Source // nil until the first reader opens
	openErr error
	opened  int // readers opened so far
	closed  int // readers closed so far
	queues  []*teeQueue
	free    []*vector.Batch // copies taken, for the next copies
	types   []catalog.Type
	account *StateAccount
	end     error // io.EOF or the source's error, once it came
	srcDone bool  // the source is closed
	// pulls counts the source's batches pulled so far (each Next that gave
	// rows or malformed rows): the source's last batch is pull number pulls
	pulls int
	// handsBack is the source's hand-back handle (SourceHandles.HandsBack:
	// stdin), nil when it has none; each reader then offers its own
	// (teeReader.SetHandBack), read when it closes
	handsBack connector.HandsBack
	// readersOf are the readers opened so far, in open order (handBack)
	readersOf []*teeReader

	// pb and bad are the pulled batch and its malformed rows, used under
	// the pull token only; after ErrWaiting the next pull passes pb again
	// (a live source's decoder may be filling it)
	pb  *vector.Batch
	bad []BadRow
}

// teeQueue is one reader's queue of copies not taken yet, with their
// bytes as charged.
type teeQueue struct {
	q      []*vector.Batch
	bytes  []int64
	pulls  []int // each one's pull number (tee.pulls)
	closed bool
}

// reader returns a new reader of t for a job whose context is ctx; open
// opens the stream's one source (at the first reader). It fails with the
// source's open error, and when the job opens more readers than planned
// (plan.Tee.Readers: a planner fault, named).
func (t *tee) reader(ctx context.Context, set *teeSet, open func(ctx context.Context) (opened, error)) (opened, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.opened >= t.readers {
		return opened{}, fmt.Errorf("stream %s: the job opens it more than the %d times planned for its fan-out; this is a fault of streamql, please report it", t.st.Name, t.readers)
	}
	if t.opened == 0 {
		o, err := open(set.ctx)
		t.src, t.openErr, t.handsBack = o.src, err, o.h.HandsBack
		t.pb = vector.NewBatch(t.st.Types())
		t.account = set.budget.Account("Tee "+t.st.Name, "rows of stream "+t.st.Name+" its readers have not taken yet")
		t.account.Detail = t.detail
		for range t.readers {
			t.queues = append(t.queues, &teeQueue{})
		}
	}
	if t.openErr != nil {
		return opened{}, t.openErr
	}
	r := &teeReader{t: t, ctx: ctx, q: t.queues[t.opened], index: t.opened}
	t.opened++
	t.readersOf = append(t.readersOf, r)
	o := opened{src: r, tee: t}
	if t.handsBack != nil {
		o.h.HandsBack = r
	}
	return o, nil
}

// detail says, when the queued rows pass the budget, how many readers the
// tee has and what to do (the LimitError's Detail).
func (t *tee) detail() string {
	return fmt.Sprintf("one read of stream %s fanned out to %d readers: a reader read ahead of another, such as a join's build side read whole first; declare the stream over a file to let each reader read it on its own", t.st.Name, t.readers)
}

// closeSource closes t's source once (t.mu not held), telling it first
// what the job used of its last batch (handBack).
func (t *tee) closeSource() {
	t.mu.Lock()
	src := t.src
	done := t.srcDone || src == nil
	t.srcDone = true
	if !done {
		t.handBack()
	}
	t.mu.Unlock()
	if !done {
		_ = src.Close()
	}
}

// handBack tells a source that takes back what a job did not use
// (Unreader: stdin, SPEC 1) what the job used of its last batch: the later
// of its readers' positions in it (teeReader.at, rows and bad: the first
// rows good rows and the first bad malformed rows, which the source's
// UnreadAfter takes as the later of the two); all of it when a reader
// used all of it; none of it when no reader took it. (Only the last batch
// can go back, as for a job that reads the source alone; the rows of the
// earlier batches were all used: the reader that pulled the last batch
// had taken every batch before it, a reader pulling only when its queue
// is empty.) t.mu held.
func (t *tee) handBack() {
	u, ok := t.src.(Unreader)
	if !ok || t.pulls == 0 {
		return
	}
	rows, bad := 0, 0
	for _, r := range t.readersOf {
		if r.at != t.pulls {
			continue
		}
		if r.rows < 0 {
			return // (a reader used all of it: nothing goes back)
		}
		rows, bad = max(rows, r.rows), max(bad, r.bad)
	}
	u.UnreadAfter(rows, bad)
}

// enqueue adds a copy of t.pb to every reader's queue that is not closed,
// charging its bytes (t.mu held).
func (t *tee) enqueue() error {
	if t.types == nil {
		t.types = batchTypes(t.pb)
	}
	var err error
	for _, q := range t.queues {
		if q.closed {
			continue
		}
		var c *vector.Batch
		if n := len(t.free); n > 0 {
			c, t.free = t.free[n-1], t.free[:n-1]
			c.Reset()
		} else {
			c = vector.NewBatch(t.types)
		}
		c.AppendRows(t.pb, 0, t.pb.N)
		size := batchBytes(c)
		q.q, q.bytes, q.pulls = append(q.q, c), append(q.bytes, size), append(q.pulls, t.pulls)
		if e := t.account.Grow(size); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// batchBytes estimates the memory b's rows hold: a value slot per column
// and the position per row, and the strings in the columns' arenas.
func batchBytes(b *vector.Batch) int64 {
	n := int64(b.N) * int64(8+9*len(b.Cols))
	for _, c := range b.Cols {
		n += int64(len(c.Arena))
	}
	return n
}

// teeReader is one reader of a tee (a Source): its rows are the tee's
// source's, in order, each once.
type teeReader struct {
	t     *tee
	ctx   context.Context
	q     *teeQueue
	index int // in open order
	done  bool
	// arena holds the texts of the malformed rows this reader's last Next
	// gave (records.OwnRaw), valid until its next Next
	arena []byte
	// at is the pull number (tee.pulls) of the last batch this reader
	// gave, 0 when none; rows and bad what its job used of it (Unread,
	// UnreadAfter, or hb at Close), -1 when all of it
	at, rows, bad int
	// hb is the job's account of what it used (SetHandBack), read at Close
	hb connector.HandBack
}

// Next implements Source: the reader's next queued batch, or, when none is
// queued, the source's next batch pulled for every reader (with its
// malformed rows, which only this reader gets); the source's io.EOF or
// error once every queued batch is taken.
func (r *teeReader) Next(b *vector.Batch, bad *[]BadRow) error {
	t := r.t
	for {
		t.mu.Lock()
		if len(r.q.q) > 0 {
			c, size := r.q.q[0], r.q.bytes[0]
			r.at, r.rows, r.bad = r.q.pulls[0], -1, -1
			r.q.q, r.q.bytes, r.q.pulls = r.q.q[1:], r.q.bytes[1:], r.q.pulls[1:]
			b.Reset()
			b.AppendRows(c, 0, c.N)
			t.free = append(t.free, c)
			_ = t.account.Grow(-size)
			t.mu.Unlock()
			return nil
		}
		if t.end != nil {
			err := t.end
			t.mu.Unlock()
			return err
		}
		t.mu.Unlock()
		select {
		case t.pull <- struct{}{}:
		case <-r.ctx.Done():
			return r.ctx.Err()
		}
		err, rows := r.pullLocked(bad)
		<-t.pull
		if err != nil {
			return err
		}
		if !rows { // (malformed rows only: given with no row)
			b.Reset()
			return nil
		}
	}
}

// pullLocked pulls the source's next batch into every reader's queue,
// holding the pull token; its malformed rows go to bad. It returns
// ErrWaiting, the context's error or the budget's error for the reader to
// return, and whether rows came; the source's end (io.EOF or its error)
// is kept for every reader (t.end).
func (r *teeReader) pullLocked(bad *[]BadRow) (error, bool) {
	t := r.t
	t.mu.Lock()
	if len(r.q.q) > 0 || t.end != nil { // (another reader pulled meanwhile)
		t.mu.Unlock()
		return nil, true
	}
	t.mu.Unlock()
	t.bad = t.bad[:0]
	err := t.src.Next(t.pb, &t.bad)
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.bad) > 0 {
		r.arena = records.OwnRaw(r.arena[:0], t.bad) // (the decoder's buffer changes at the next pull, maybe another reader's)
		*bad = append(*bad, t.bad...)
	}
	if err == nil && (t.pb.N > 0 || len(t.bad) > 0) {
		t.pulls++
		if t.pb.N == 0 { // (malformed rows only, this reader's alone: it gave the batch)
			r.at, r.rows, r.bad = t.pulls, -1, -1
		}
	}
	switch {
	case errors.Is(err, ErrWaiting):
		return err, false
	case err != nil:
		t.end = err
		return nil, true
	case t.pb.N == 0:
		return nil, len(t.bad) == 0
	}
	if err := t.enqueue(); err != nil {
		t.end = err
		return err, false
	}
	return nil, true
}

// Position implements Source: the one source's position text.
func (r *teeReader) Position(line int64) string { return r.t.src.Position(line) }

// Progress implements Source: the one source's progress.
func (r *teeReader) Progress() (int64, int64) { return r.t.src.Progress() }

// Unread implements Unreader: the job used the first rows rows of the
// last batch this reader gave (tee.handBack).
func (r *teeReader) Unread(rows int) { r.UnreadAfter(rows, 0) }

// UnreadAfter implements Unreader: the job used the first rows good rows
// and the first bad malformed rows of the last batch this reader gave
// (tee.handBack).
func (r *teeReader) UnreadAfter(rows, bad int) {
	r.t.mu.Lock()
	r.rows, r.bad = rows, bad
	r.t.mu.Unlock()
}

// SetHandBack implements connector.HandsBack (the reader's
// SourceHandles.HandsBack when the tee's source has one): Close reads hb,
// whose account, when it says ok, replaces the Unreader calls
// (flow.HandBack: an event-time semi join's held rows).
func (r *teeReader) SetHandBack(hb connector.HandBack) { r.hb = hb }

// Close implements Source: the reader's queued rows are dropped and no more
// are queued for it; the last reader to close closes the source, telling
// it what the job used (tee.handBack).
func (r *teeReader) Close() error {
	t := r.t
	var rows, bad int
	var ok bool
	if r.hb != nil {
		rows, bad, ok = r.hb.Used()
	}
	t.mu.Lock()
	if r.done {
		t.mu.Unlock()
		return nil
	}
	if ok {
		r.rows, r.bad = rows, bad
	}
	r.done, r.q.closed = true, true
	var size int64
	for i, c := range r.q.q {
		size += r.q.bytes[i]
		t.free = append(t.free, c)
	}
	r.q.q, r.q.bytes, r.q.pulls = nil, nil, nil
	_ = t.account.Grow(-size)
	t.closed++
	last := t.closed == t.readers
	t.mu.Unlock()
	if last {
		t.closeSource()
	}
	return nil
}

var (
	_ Source              = (*teeReader)(nil)
	_ Unreader            = (*teeReader)(nil)
	_ connector.HandsBack = (*teeReader)(nil)
)
