package strategy

import (
	"context"
	"errors"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/records"
	"streamql/executor/vector"
)

// Decoding ahead on a second goroutine (DESIGN: executor; issue 6). A bounded
// file job is CPU-bound in two halves of similar cost: decoding, and routing
// plus encoding plus writing. Prefetch then lets a producer goroutine decode the
// next rows while the job's goroutine routes and encodes the previous ones.
//
// The rows travel in groups of up to groupBatches batches (fewer hand-offs),
// and only groups groups exist (deepGroups for a deep Prefetch), reused: memory
// stays bounded (16 batches of vector.Cap rows an Ahead reader or Prefetch,
// 32 for a deep Prefetch: about 2 MB for 3 columns), and the producer waits when all are
// full. Four groups, not two, absorb the jitter of two goroutines of
// similar speed (measured on 2 cores: 0.58 s instead of 0.80 s for 10M rows);
// eight, about 1.5 ms of decoding, absorb a third goroutine's (an updating
// output's encoder, cmd/streamql/render/changeenc.go): with four, the
// producer and the encoder took turns on one CPU while the job's goroutine
// waited for either (the unbounded GROUP BY: 0.83 s instead of 0.67 s for 10M
// rows, docs/performance.md; sixteen were no faster, and cost a Top-N job
// 8 MiB more of peak RSS). So eight are for that job only (the planner's
// plan.Job.PrefetchDeep: an updating GROUP BY whose changelog the encoder
// goroutine writes); every other job keeps four, which cost it less memory
// (the Top-10 per key: 36 MiB of peak RSS instead of 42, no more CPU,
// docs/performance.md). Groups are handed over through
// channels in order, so the output order is the input order. A source's
// VARCHAR values and Raw texts are valid only until its next Next, so the
// producer copies them into memory of the group before it decodes more (a few
// bytes per row). Everything else stays on the job's goroutine: routing,
// expressions, the sink, and the errors policy. The source's Next (and a
// wrapper's, see the executor's Env.SetSourceHook) runs on the producer goroutine, one call
// at a time; Position is called on the job's goroutine meanwhile.

const (
	groups       = 4
	deepGroups   = 8
	groupBatches = 4
	arenaSize    = 16 << 10 // initial arena of a VARCHAR column: 16 bytes a row
)

// group is what the producer decoded: batches b[:n], each with its malformed
// rows, and err, the error of the Next call after them (nil while the source
// goes on).
type group struct {
	b    [groupBatches]*vector.Batch
	bad  [groupBatches][]records.BadRow
	prep [groupBatches]any // AheadOptions.Prepare's, nil without it
	n    int
	err  error
	raw  []byte // backing of the bad rows' Raw copies
}

// detach copies what batch k of g still shares with the source (VARCHAR values,
// the malformed rows' raw text) into memory of its own, so the source may be
// called again.
func (g *group) detach(k int) {
	g.b[k].OwnStrings()
	g.raw = records.OwnRaw(g.raw, g.bad[k])
}

// Prefetch runs a job over src with a producer goroutine decoding ahead
// (plan.Prefetch): batches of types (without their text values when noText:
// a job that only aggregates, vector.Batch.NoText) go to feed on the
// caller's goroutine, in order, with deepGroups groups ahead when deep
// (plan.Job.PrefetchDeep), groups otherwise. It returns feed's error at the
// job's end, or ctx's; only after the producer has stopped, so the caller
// may close the source.
func Prefetch(ctx context.Context, types []catalog.Type, noText, deep bool, src connector.Source, feed Feed) error {
	o := AheadOptions{NoText: noText}
	if deep {
		o.groups = deepGroups
	}
	a := NewAhead(src, types, o)
	defer a.Close()
	for {
		b, bad, err := a.Next()
		if err != nil {
			_, err := feed(ctx, nil, nil, err)
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if end, err := feed(ctx, b, bad, nil); end {
			return err
		}
	}
}

// AheadOptions are the settings of an Ahead reader.
type AheadOptions struct {
	// NoText drops the batches' text values (vector.Batch.NoText).
	NoText bool
	// Owned says the source's batches share no memory with it once its
	// Next has returned (a pipelined join's joined rows, whose VARCHAR
	// values are the batch's own arenas'): the producer then copies
	// nothing; otherwise it copies each batch's VARCHAR values and its
	// malformed rows' raw texts (vector.Batch.OwnStrings,
	// records.OwnRaw) before it calls the source again.
	Owned bool
	// Prepare, when not nil, is called on the producer goroutine with
	// each batch the source gave and its malformed rows, before the reader
	// takes them: work on the batch alone that the reader would otherwise
	// do on its own goroutine (a pipelined join's key hashes and time
	// order, op.HoldPrep: issue 23, the join's goroutine the job's longest
	// path). p is what the call returned for the batch's place in its group
	// the time before (nil the first time), to reuse; what it returns now
	// the reader gets with the batch (Ahead.Prepared).
	Prepare func(b *vector.Batch, bad []records.BadRow, p any) any
	// groups is how many groups the reader has (0: groups; a deep
	// Prefetch: deepGroups).
	groups int
}

// Ahead reads a source on a producer goroutine of its own, ahead of its
// reader, which takes the batches in the source's order by Next (the pull
// form of Prefetch, which is built on it; plan.PipelinedJoin reads each
// input of a join and the join itself so). Memory is bounded: groups
// groups of groupBatches batches, reused; the producer waits when all are
// full. The source's Next (and Position, Progress meanwhile) must allow
// being called on another goroutine than the reader's, as for Prefetch.
type Ahead struct {
	free, full    chan *group
	stop, stopped chan struct{}
	cur           *group // the group Next takes batches from, nil before the first
	k             int    // the next batch of cur
	closed        bool
}

// NewAhead starts reading src ahead into batches of types (o's settings).
// The caller takes them by Next and must call Close (which waits for the
// producer to stop) before it closes src.
func NewAhead(src connector.Source, types []catalog.Type, o AheadOptions) *Ahead {
	n := o.groups
	if n == 0 {
		n = groups
	}
	a := &Ahead{free: make(chan *group, n), full: make(chan *group, n), stop: make(chan struct{}), stopped: make(chan struct{})}
	for range n {
		a.free <- newGroup(types, o.NoText)
	}
	go a.produce(src, o.Owned, o.Prepare)
	return a
}

// newGroup returns a group of empty batches of types (their NoText noText).
func newGroup(types []catalog.Type, noText bool) *group {
	g := &group{}
	for k := range g.b {
		g.b[k] = vector.NewBatch(types)
		g.b[k].NoText = noText
		for _, v := range g.b[k].Cols {
			if v.Type == catalog.Varchar {
				v.Arena = make([]byte, 0, arenaSize) // grows for longer text
			}
		}
	}
	return g
}

// produce is the producer goroutine: it fills free groups from src until
// src's error (io.EOF at its end) or Close.
func (a *Ahead) produce(src connector.Source, owned bool, prepare func(*vector.Batch, []records.BadRow, any) any) {
	defer close(a.stopped)
	for {
		var g *group
		select {
		case g = <-a.free:
		case <-a.stop:
			return
		}
		g.n, g.err, g.raw = 0, nil, g.raw[:0]
		for g.n < groupBatches {
			k := g.n
			g.bad[k] = g.bad[k][:0]
			err := src.Next(g.b[k], &g.bad[k])
			if err != nil && !errors.Is(err, connector.ErrWaiting) {
				g.err = err
				break
			}
			if err == nil {
				if !owned {
					g.detach(k)
				}
				if prepare != nil {
					if p := prepare(g.b[k], g.bad[k], g.prep[k]); p != g.prep[k] { // (stored once: no write barrier a batch)
						g.prep[k] = p
					}
				}
				g.n++
			}
			// ErrWaiting does not come from a bounded file; if it did,
			// the same batch is passed again, as the Source contract asks.
		}
		select {
		case a.full <- g:
		case <-a.stop:
			return
		}
		if g.err != nil {
			return
		}
	}
}

// Next returns the source's next batch and its malformed rows, valid until
// the next call of Next (as a Source's own batch is), or the source's error
// (io.EOF at its end), which it returns again on every later call.
func (a *Ahead) Next() (*vector.Batch, []records.BadRow, error) {
	for {
		if g := a.cur; g != nil {
			if a.k < g.n {
				a.k++
				return g.b[a.k-1], g.bad[a.k-1], nil
			}
			if g.err != nil {
				return nil, nil, g.err
			}
			a.free <- g
		}
		a.cur, a.k = <-a.full, 0
	}
}

// Prepared returns what AheadOptions.Prepare returned for the batch Next
// returned last (nil without Prepare), valid as that batch is.
func (a *Ahead) Prepared() any {
	if a.cur == nil || a.k == 0 {
		return nil
	}
	return a.cur.prep[a.k-1]
}

// Close stops the producer and waits for it, so that the caller may close
// the source. It may be called more than once.
func (a *Ahead) Close() {
	if a.closed {
		return
	}
	a.closed = true
	close(a.stop)
	<-a.stopped
}
