package executor

import (
	"context"
	"errors"
	"slices"
	"time"

	"streamql/executor/connector"
	"streamql/executor/expr"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// unnestSource is the Source of a job whose query has CROSS JOIN UNNEST
// (plan.Unnest, SPEC 2.10): it reads the inner stream and gives each of its
// rows once per element of the ARRAY (or entry of the MAP) the Unnest's
// expression gives for it, with the element (key and value) in the columns
// after the stream's. A row whose value is NULL or empty gives no row, or,
// for LEFT JOIN UNNEST, itself once with the new columns NULL. The
// expansion is lazy: one input row with a 100k-element array is given over
// as many batches as it fills, so memory does not grow with the number of
// rows one input row yields (issue 30's rule). Malformed input rows pass
// through to the job as they are. Each row carries its input row's
// watermark (the input stream's before it), so a row whose value gives no
// row still moves the job's watermark, at the next row given (wm).
type unnestSource struct {
	inner      Source
	k          *expr.Kernel
	in         *vector.Batch
	x          *vector.Vec // the expression's values for in's rows
	ncols      int         // the inner stream's columns
	row, el    int         // the next input row and element to give
	pending    bool        // in holds rows not all given
	innerErr   error       // the inner source's error, returned once in is given
	sel        []int32
	left       bool // LEFT JOIN UNNEST: a NULL or empty value keeps its row
	ordinality bool // WITH ORDINALITY: a last column with the position
	rowFields  bool // an ARRAY of ROW into a column per field (plan.Unnest.RowFields)
	kids       []*vector.Vec
	// The input stream's watermark (SPEC 2.3), which a row with a NULL or
	// empty value moves too, as Flink's unnest passes its input's
	// watermark on: wm is the job's WATERMARK expression over the input
	// rows (nil: none); wmCol the output's watermark column, into which
	// each unnested row gets its input row's stamp (stamps, NULL where
	// stamped is false: the input's watermark before it, its partition's
	// for a partitioned input), which the watermark assigner carries
	// (watermarker.carried; per partition, stampPartsSel) before moving
	// the watermark by the row itself; cur and set the watermark after the
	// rows read, per partition (indexed by number; one, 0, when parts is
	// nil). refuse is the job's watermark assigner's rule for refused rows
	// (maxfuture.go, SPEC 1 and 4: 'watermark.max-future', a window outside
	// int64; nil: none), the one the chain built (buildChain sets it),
	// applied to the input rows (maxFuture.tooFarIn): an input row it
	// refuses moves nothing, as the plain path's assigner refuses it.
	wm      *expr.Kernel
	wmCol   int
	stamps  []int64
	stamped []bool
	cur     []int64
	set     []bool
	parts   connector.PartitionedSource // the input's partitions (SourceHandles.Partitions), nil: none
	refuse  *maxFuture
	// origin is the input row (of in) each row of the last batch Next gave
	// was unnested from, and firstPartial whether its first row's input
	// row gave elements to an earlier batch too (Unread); kept only when
	// track, the inner source takes back what a job did not use (stdin)
	origin       []int32
	firstPartial bool
	track        bool
	// held are in's malformed rows not given yet, each at its index among
	// in's rows (BadRow.Index), which fill gives before the first row
	// unnested from the input row it came before (rows of the input rows
	// before it may fill several batches); badGiven counts those given
	// before the last batch Next gave and badNow those given with it
	// (UnreadAfter, in in's malformed rows)
	held             []BadRow
	badGiven, badNow int
	// waiting: the inner source's last Next returned ErrWaiting, so in
	// may still be being filled (a live source's decoder goroutine)
	waiting bool
}

// carriesWatermark reports whether the unnesting source of job stamps its
// rows with its input stream's watermark (unnestSource.wm), which the
// job's watermark assigner then carries: a job with CROSS JOIN UNNEST and
// a WATERMARK (its partitions' for a partitioned input, and with
// 'watermark.max-future' leaving out the input rows it refuses).
func carriesWatermark(job *plan.Job) bool {
	return job.Unnest != nil && job.Watermark != nil && job.WatermarkCol >= 0
}

// newUnnestSource opens job.Unnest's inner stream through env, as o says.
func newUnnestSource(ctx context.Context, job *plan.Job, env *Env, o openOpts) (*unnestSource, error) {
	u := job.Unnest
	in, err := env.openWith(ctx, u.Inner, o)
	if err != nil {
		return nil, err
	}
	s := &unnestSource{inner: in.src, k: o.exprs.Compile(u.Expr), in: vector.NewBatch(u.InnerTypes), ncols: len(u.Inner.Columns), left: u.Left, ordinality: u.Ordinality, rowFields: u.RowFields, wmCol: -1, track: takesBack(in.src)}
	if carriesWatermark(job) {
		s.wm, s.wmCol = o.exprs.Compile(job.Watermark), job.WatermarkCol // (over the stream's columns, which the input rows have at the same indexes)
		s.stamps, s.stamped = make([]int64, vector.Cap), make([]bool, vector.Cap)
		s.cur, s.set = make([]int64, 1), make([]bool, 1)
		s.parts = in.h.Partitions
	}
	return s, nil
}

// partitions returns the input's partitions as the job's watermark
// assigner reads them (SourceHandles.Partitions of the unnesting job, SPEC
// 2.5: a watermark per partition, the stream's their minimum), nil for an
// input without partitions or watermark.
func (s *unnestSource) partitions() connector.PartitionedSource {
	if s.parts == nil || s.wm == nil {
		return nil
	}
	return unnestParts{s}
}

// unnestParts is an unnesting source's partitions: its input's, of which
// a partition counts as still to come while rows of it are not given yet
// (pending: an input row's unnested rows span batches), so its watermark
// keeps holding the stream's back until they are stamped.
type unnestParts struct{ *unnestSource }

// Partition is the input's (the unnested rows keep their input row's
// position).
func (u unnestParts) Partition(pos int64) int32 { return u.parts.Partition(pos) }

// Partitions is the input's, and those of the input rows not all given.
func (u unnestParts) Partitions(dst []int32) []int32 {
	dst = u.parts.Partitions(dst)
	if !u.pending {
		return dst
	}
	for r := u.row; r < u.in.N; r++ {
		if p := u.parts.Partition(u.in.Pos[r]); !slices.Contains(dst, p) {
			dst = append(dst, p)
		}
	}
	return dst
}

// IdleTimeout is the input's.
func (u unnestParts) IdleTimeout() time.Duration { return u.parts.IdleTimeout() }

// stampInput computes the input stream's watermark (its row's partition's,
// for a partitioned input) before each row of in (stamps, stamped) and
// after them (cur, set), rows in ascending order; a row the plain path's
// assigner refuses (refuse: 'watermark.max-future', a window outside
// int64) moves nothing.
func (s *unnestSource) stampInput() {
	if s.wm == nil {
		return
	}
	if len(s.stamps) < s.in.N {
		s.stamps, s.stamped = make([]int64, s.in.N), make([]bool, s.in.N)
	}
	v := s.wm.Eval(s.in, s.sel)
	for _, i := range s.sel {
		p := 0
		if s.parts != nil {
			p = int(s.parts.Partition(s.in.Pos[i]))
			for len(s.cur) <= p {
				s.cur, s.set = append(s.cur, 0), append(s.set, false)
			}
		}
		s.stamps[i], s.stamped[i] = s.cur[p], s.set[p]
		if s.refuse != nil && s.refuse.tooFarIn(s.in, i, s.cur[p], s.set[p], s.ncols) {
			continue // (refused, as the assigner refuses it)
		}
		if !v.Null[i] && (!s.set[p] || v.I[i] > s.cur[p]) {
			s.cur[p], s.set[p] = v.I[i], true
		}
	}
}

// stamp writes input row r's stamp into output row o's watermark column.
func (s *unnestSource) stamp(b *vector.Batch, o, r int) {
	if s.wm != nil {
		c := b.Cols[s.wmCol]
		c.Null[o], c.I[o] = !s.stamped[r], s.stamps[r]
	}
}

// Next gives the next unnested rows (Source.Next): those of the input rows
// already read, else of the inner source's next batch; the inner source's
// error (io.EOF, ErrWaiting, ...) once its rows are all given.
func (s *unnestSource) Next(b *vector.Batch, bad *[]BadRow) error {
	b.Reset()
	for {
		if s.pending {
			if s.fill(b, bad); b.N > 0 || s.badNow > 0 {
				return nil
			}
		}
		if err := s.innerErr; err != nil {
			s.innerErr = nil
			return err
		}
		if !s.waiting {
			s.in.Reset() // (a source may return at its end without touching the batch: its last rows are given already)
		}
		before := len(*bad)
		err := s.inner.Next(s.in, bad)
		if s.waiting = errors.Is(err, ErrWaiting); s.waiting {
			// no row ready (connector.ErrWaiting): a live source (stdin,
			// a socket) may still be filling in, which goes to it again
			// untouched at the next call
			return err
		}
		s.badGiven, s.badNow = 0, 0
		if s.in.N > 0 {
			// (its malformed rows go with the rows they came before: fill)
			s.held = append(s.held[:0], (*bad)[before:]...)
			*bad = (*bad)[:before]
			s.sel = s.sel[:0]
			for i := range s.in.N {
				s.sel = append(s.sel, int32(i))
			}
			s.stampInput()
			s.x = s.k.Eval(s.in, s.sel)
			s.kids = s.x.Kids
			if s.rowFields { // (the element ROW's fields; a NULL element, below, gives NULLs)
				s.kids = s.x.Kids[0].Kids
			}
			s.row, s.el, s.pending = 0, 0, true
		}
		switch {
		case err != nil && !s.pending:
			return err
		case err != nil:
			s.innerErr = err // after the rows read with it
		case !s.pending:
			return nil // no row (malformed rows only, if any): the job handles them now
		}
	}
}

// fill appends unnested rows to b until it is full or in is all given,
// and to bad in's malformed rows before them (held), each before the first
// row unnested from the input row it came before (BadRow.Index: 'errors'=
// 'fail' stops there, and stdin hands back from there, SPEC 1).
func (s *unnestSource) fill(b *vector.Batch, bad *[]BadRow) {
	x, in := s.x, s.in
	s.origin, s.firstPartial = s.origin[:0], s.el > 0
	s.badGiven, s.badNow = s.badGiven+s.badNow, 0
	for s.row < in.N && b.N < vector.Cap {
		r := s.row
		if s.el == 0 {
			s.giveHeld(b, bad, r)
		}
		if x.Null[r] || x.Len[r] == 0 {
			if s.left { // LEFT JOIN UNNEST ... ON TRUE: the row once, NULL padded
				o := b.N
				for c := range s.ncols {
					b.Cols[c].ShareValue(o, in.Cols[c], r)
				}
				for k := range s.kids {
					b.Cols[s.ncols+k].Null[o] = true
				}
				if s.ordinality {
					b.Cols[s.ncols+len(s.kids)].Null[o] = true
				}
				b.Pos[o] = in.Pos[r]
				s.stamp(b, o, r)
				if s.track {
					s.origin = append(s.origin, int32(r))
				}
				b.N++
			}
			s.row, s.el = s.row+1, 0
			continue
		}
		off, n := x.Elems(r)
		for ; s.el < n && b.N < vector.Cap; s.el++ {
			o := b.N
			for c := range s.ncols {
				b.Cols[c].ShareValue(o, in.Cols[c], r)
			}
			for k, kid := range s.kids {
				d := b.Cols[s.ncols+k]
				if e := off + s.el; kid.Null[e] || s.rowFields && x.Kids[0].Null[e] {
					d.Null[o] = true
				} else {
					d.CopyValue(o, kid, e)
				}
			}
			if s.ordinality { // WITH ORDINALITY: the position, from 1
				d := b.Cols[s.ncols+len(s.kids)]
				d.Null[o], d.I[o] = false, int64(s.el+1)
			}
			b.Pos[o] = in.Pos[r]
			s.stamp(b, o, r)
			if s.track {
				s.origin = append(s.origin, int32(r))
			}
			b.N++
		}
		if s.el >= n {
			s.row, s.el = s.row+1, 0
		}
	}
	if s.row >= in.N {
		s.giveHeld(b, bad, in.N) // (those after in's last row)
		s.pending = false
	}
}

// giveHeld appends to bad, at b's next row, the held malformed rows that
// came before in's row r.
func (s *unnestSource) giveHeld(b *vector.Batch, bad *[]BadRow, r int) {
	k := s.badGiven + s.badNow
	for ; k < len(s.held) && s.held[k].Index <= r; k++ {
		br := s.held[k]
		br.Index = b.N
		*bad = append(*bad, br)
		s.badNow++
	}
}

// Position renders an input position (Source.Position).
func (s *unnestSource) Position(line int64) string { return s.inner.Position(line) }

// Progress is the inner source's (Source.Progress).
func (s *unnestSource) Progress() (read, total int64) { return s.inner.Progress() }

// Close closes the inner source.
func (s *unnestSource) Close() error { return s.inner.Close() }

// Unread implements Unreader: the job used the first rows rows of the last
// batch Next gave; the inner source (stdin, SPEC 1) is told the input rows
// up to the last one they were unnested from (unreadRows).
func (s *unnestSource) Unread(rows int) { s.UnreadAfter(rows, 0) }

// UnreadAfter implements Unreader: as Unread, with the first bad malformed
// rows of the last batch, after those of the inner batch given before it.
func (s *unnestSource) UnreadAfter(rows, bad int) {
	if u, ok := s.inner.(Unreader); ok {
		u.UnreadAfter(s.unreadRows(rows), s.badGiven+min(bad, s.badNow))
	}
}

// unreadRows maps the first rows rows of the last batch Next gave to the
// input rows of s.in they were unnested from: the input rows up to and
// including the last one's (a row whose elements were given in part counts
// as used); 0 rows used of the batch: the input rows before its first
// row's, and that one too when earlier batches gave some of its elements.
func (s *unnestSource) unreadRows(rows int) int {
	if len(s.origin) == 0 {
		return 0
	}
	if rows > 0 {
		return int(s.origin[min(rows, len(s.origin))-1]) + 1
	}
	if s.firstPartial {
		return int(s.origin[0]) + 1
	}
	return int(s.origin[0])
}
