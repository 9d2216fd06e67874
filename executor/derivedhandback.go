package executor

import (
	"context"
	"sync"
	"sync/atomic"

	"streamql/executor/vector"
	"streamql/planner/plan"
)

// A derived relation over a stream that hands back what a job does not use
// (stdin, SPEC 1: the session's next job reads on after the last row used)
// hands back the rows after the last one its reading job used: an outer
// LIMIT over a subquery, view or WITH name of stdin leaves the rest of stdin
// to the next statement. Its parts' jobs read ahead of the reading job, so
// each part's source is gated (derivedGate): the part's job pulls its next
// batch only once the reading job has taken every main row it gave, so the
// rows the reading job has not taken all come from the source's last batch,
// the only one a source can hand back. Each main row carries the row of that
// batch it was made at (captureSink.add), and the reading job's cut
// (derivedSource.Unread) becomes the part's account (derivedGate.Used),
// which its source reads when it closes (connector.HandsBack).

// derivedHandsBack reports whether a part of d reads, not whole, a stream
// that hands back (plan.Derived.HandsBack).
func derivedHandsBack(d *plan.Derived) bool { return d.HandsBack() }

// derivedGate is one part's gate and hand-back account (see above).
type derivedGate struct {
	ctx context.Context
	// pending counts the main batches sent and not yet given whole by the
	// reading job; drained is signalled when it falls to 0
	pending atomic.Int64
	drained chan struct{}
	// pulls counts the batches the part's source gave (rows or malformed
	// rows); bad are the malformed rows' indexes in the last one (the
	// part's goroutine only)
	pulls int64
	bad   []int
	// origins are free origin slices for the part's main batches
	origins chan []int32

	mu      sync.Mutex
	cut     bool  // the reading job cut (derivedSource.Unread)
	cutPull int64 // the pull of the last row it used (0: none used)
	cutRow  int   // rows of that pull used: the last used row's + 1
}

func newDerivedGate(ctx context.Context, n int) *derivedGate {
	return &derivedGate{ctx: ctx, drained: make(chan struct{}, 1), origins: make(chan []int32, n+1)}
}

// origin returns a slice for a main batch's rows' origins.
func (g *derivedGate) origin() []int32 {
	select {
	case o := <-g.origins:
		return o
	default:
		return make([]int32, vector.Cap)
	}
}

// done takes back a main batch given whole, with its origins.
func (g *derivedGate) done(o []int32) {
	if o != nil {
		select {
		case g.origins <- o:
		default:
		}
	}
	if g.pending.Add(-1) == 0 {
		select {
		case g.drained <- struct{}{}:
		default:
		}
	}
}

// setCut records the reading job's last used row of the part: row rows-1 of
// its source's pull at (at 0: none).
func (g *derivedGate) setCut(at int64, rows int) {
	g.mu.Lock()
	g.cut, g.cutPull, g.cutRow = true, at, rows
	g.mu.Unlock()
}

// settle waits until the reading job has taken every main row the part
// gave (pending 0) or the part's context ends: the reading job's cut
// (derivedSource.Unread records it, then drainCut stops the part) or its
// stop.
func (g *derivedGate) settle() {
	for g.pending.Load() > 0 {
		select {
		case <-g.drained:
		case <-g.ctx.Done():
			return
		}
	}
}

// Used returns, with the reading job's cut, the rows
// of the source's last batch up to the last row used (none when that row
// came from an earlier batch), with the malformed rows before them; ok
// false when the reading job did not cut (it used all it took, or failed).
func (g *derivedGate) Used() (rows, bad int, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.cut || g.pulls == 0 {
		return 0, 0, false
	}
	if g.cutPull == g.pulls {
		rows = g.cutRow
	}
	for _, i := range g.bad {
		if i < rows {
			bad++
		}
	}
	return rows, bad, true
}

// derivedGatedSource is a part's source under its gate: Next waits until the
// reading job has taken every main row given so far.
type derivedGatedSource struct {
	Source
	g *derivedGate
}

// Next implements Source.
func (s *derivedGatedSource) Next(b *vector.Batch, bad *[]BadRow) error {
	for s.g.pending.Load() > 0 {
		select {
		case <-s.g.drained:
		case <-s.g.ctx.Done():
			return s.g.ctx.Err()
		}
	}
	n := len(*bad)
	err := s.Source.Next(b, bad)
	if err == nil && (b.N > 0 || len(*bad) > n) {
		s.g.mu.Lock()
		s.g.pulls++
		s.g.bad = s.g.bad[:0]
		for _, r := range (*bad)[n:] {
			s.g.bad = append(s.g.bad, r.Index)
		}
		s.g.mu.Unlock()
	}
	return err
}

// Unread implements Unreader (the part's job's own cut).
func (s *derivedGatedSource) Unread(rows int) {
	if u, ok := s.Source.(Unreader); ok {
		u.Unread(rows)
	}
}

// UnreadAfter implements Unreader.
func (s *derivedGatedSource) UnreadAfter(rows, bad int) {
	if u, ok := s.Source.(Unreader); ok {
		u.UnreadAfter(rows, bad)
	}
}

// gate puts o, a part's main source, under g when it takes back what a
// job did not use (Unreader: stdin, or a join, UNNEST or derived relation
// over it); otherwise o is kept.
func (g *derivedGate) gate(o opened) opened {
	if g == nil {
		return o
	}
	if !takesBack(o.src) {
		return o
	}
	o.src = &derivedGatedSource{Source: o.src, g: g}
	return o
}

// Close implements Source: with the reading job's cut (derivedGate.Used),
// the source is told it, in place of its own job's account, before it
// closes. A part's job that stopped before its source's end (its own
// failure: 'errors'='fail' at a malformed row, SPEC 1) closes while the
// reading job may still cut inside the rows it gave, so Close first waits
// until the reading job has cut or taken every row given (settle): a row
// after the cut, the failing one too, is the next statement's.
func (s *derivedGatedSource) Close() error {
	s.g.settle()
	if rows, bad, ok := s.g.Used(); ok {
		s.Source.(Unreader).UnreadAfter(rows, bad)
	}
	return s.Source.Close()
}

// derivedSeg is a run of rows of one part's main batch a derivedSource's
// Next gave: rows at..at+n of the given batch, rows from.. of the part's
// batch, made at the origins' rows of the source's pull.
type derivedSeg struct {
	p      *derivedPart
	at, n  int
	from   int
	origin []int32
	pull   int64
}

// Unread implements Unreader: the reading job used the first rows rows of
// the last batch Next gave; each gated part's account is the furthest row
// of its source's last pull that a used row was made at (SPEC 1: the next
// job reads on after the last row used).
func (ds *derivedSource) Unread(rows int) {
	for _, p := range ds.parts {
		if p.gate == nil {
			continue
		}
		at, row := p.prevPull, p.prevRow
		for _, s := range ds.segs {
			if s.p != p || s.at >= rows || s.origin == nil {
				continue
			}
			if s.pull != at {
				at, row = s.pull, 0
			}
			row = furthest(s.origin[s.from:s.from+min(rows-s.at, s.n)], row)
		}
		p.gate.setCut(at, row)
	}
	for _, p := range ds.parts {
		if p.gate != nil && !p.ended {
			ds.drainCut(p)
		}
	}
}

// drainCut ends gated part p's job at the reading job's cut (Unread, on
// the reading job's goroutine, while its sink is open) and takes what the
// job sends until it ends: the rows are dropped (past the cut), but for its
// join's late rows (joinLate: the join's cut keeps them, joinhandback.go), the
// malformed rows go to the errors output and the job's counts to the
// reading job's, each malformed row of the source's last pull only when
// the cut comes after it (derivedGate.Used), the others being handed back
// for the next job to report (SPEC 1: a malformed row is reported once, by
// the statement whose cut it precedes). A join in the part holds its own
// input's and cuts them alike (joinHandBack).
func (ds *derivedSource) drainCut(p *derivedPart) {
	p.stop()
	if p.head != nil {
		p.release()
	}
	var held []derivedMsg
	for !p.ended {
		var m derivedMsg
		select {
		case m = <-p.ch:
		case <-ds.ctx.Done():
			return
		}
		switch {
		case m.end:
			p.ended = true
			rows, bad, ok := p.gate.Used()
			p.gate.mu.Lock()
			last, after := p.gate.pulls, len(p.gate.bad)-bad
			p.gate.mu.Unlock()
			if !ok {
				rows, after = -1, 0
			}
			for _, h := range held {
				errs := h.errs
				if h.errPull == last && rows >= 0 {
					errs = errs[:0]
					for k, r := range h.errs {
						if h.errAt[k] < rows {
							errs = append(errs, r)
						}
					}
				}
				if len(errs) > 0 {
					_ = ds.hub.sink.Errors(h.errSide, errs) // (the job ends at its cut anyway)
				}
			}
			if m.stats != nil && after > 0 {
				es := plan.ErrorsStream(p.job.Stream).Name
				for _, e := range m.stats.Streams {
					if e.Stream == es && e.Policy != "fail" {
						e.Malformed = max(0, e.Malformed-int64(after))
					}
				}
			}
			ds.addStats(p, m.stats)
		case m.errs != nil:
			held = append(held, m)
		case m.b != nil && m.out == 0 && p.job.Main != nil:
			p.free <- m.b // (its sink may need it to send what comes before its end)
		case m.b != nil && joinLate(p.job, m.out):
			_ = ds.passOn(p, m) // (its join's late rows: the join's own cut hands none of them back, joinhandback.go; an error of the sink's is the job's, which ends here anyway)
		}
	}
}

// joinLate reports whether output k of job is the late output of an input
// of its join (plan.BothJoin.LateOutput).
func joinLate(job *plan.Job, k int) bool {
	return job.Both != nil && (job.Both.LateOutput[0] == k || job.Both.LateOutput[1] == k)
}

// UnreadAfter implements Unreader: a derived relation has no malformed rows
// of its own.
func (ds *derivedSource) UnreadAfter(rows, _ int) { ds.Unread(rows) }

// furthest returns the greater of row and one past the furthest of
// origins, rows of one source pull (-1: a row made with no input row,
// which uses none). Rows made out of their input's order (a Top-N's, an
// OVER's) make the furthest, not the last, the row the cut is after.
func furthest(origins []int32, row int) int {
	for _, o := range origins {
		row = max(row, int(o)+1)
	}
	return row
}

var (
	_ Unreader = (*derivedSource)(nil)
	_ Unreader = (*derivedGatedSource)(nil)
)
