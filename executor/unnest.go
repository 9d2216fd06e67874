package executor

import (
	"context"

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
	// rows (nil: none, or 'watermark.max-future', whose refused rows must
	// not move it); wmCol the output's watermark column, into which each
	// unnested row gets its input row's stamp (stamps, NULL where stamped
	// is false: the input's watermark before it), which the watermark
	// assigner carries (watermarker.carried) before moving the watermark
	// by the row itself; cur and set the watermark after the rows read.
	wm      *expr.Kernel
	wmCol   int
	stamps  []int64
	stamped []bool
	cur     int64
	set     bool
}

// carriesWatermark reports whether the unnesting source of job stamps its
// rows with its input stream's watermark (unnestSource.wm), which the
// job's watermark assigner then carries: a job with CROSS JOIN UNNEST and
// a WATERMARK, without 'watermark.max-future'.
func carriesWatermark(job *plan.Job) bool {
	if job.Unnest == nil || job.Watermark == nil || job.WatermarkCol < 0 {
		return false
	}
	_, future := job.Stream.MaxFuture()
	return !future
}

// newUnnestSource opens job.Unnest's inner stream through env, as o says.
func newUnnestSource(ctx context.Context, job *plan.Job, env *Env, o openOpts) (*unnestSource, error) {
	u := job.Unnest
	in, err := env.openWith(ctx, u.Inner, o)
	if err != nil {
		return nil, err
	}
	s := &unnestSource{inner: in.src, k: o.exprs.Compile(u.Expr), in: vector.NewBatch(u.InnerTypes), ncols: len(u.Inner.Columns), left: u.Left, ordinality: u.Ordinality, rowFields: u.RowFields, wmCol: -1}
	if carriesWatermark(job) {
		s.wm, s.wmCol = o.exprs.Compile(job.Watermark), job.WatermarkCol // (over the stream's columns, which the input rows have at the same indexes)
		s.stamps, s.stamped = make([]int64, vector.Cap), make([]bool, vector.Cap)
	}
	return s, nil
}

// stampInput computes the input stream's watermark before each row of in
// (stamps, stamped) and after them (cur, set), rows in ascending order.
func (s *unnestSource) stampInput() {
	if s.wm == nil {
		return
	}
	if len(s.stamps) < s.in.N {
		s.stamps, s.stamped = make([]int64, s.in.N), make([]bool, s.in.N)
	}
	v := s.wm.Eval(s.in, s.sel)
	for _, i := range s.sel {
		s.stamps[i], s.stamped[i] = s.cur, s.set
		if !v.Null[i] && (!s.set || v.I[i] > s.cur) {
			s.cur, s.set = v.I[i], true
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
			if s.fill(b); b.N > 0 {
				return nil
			}
		}
		if err := s.innerErr; err != nil {
			s.innerErr = nil
			return err
		}
		s.in.Reset() // (a source may return at its end without touching the batch: its last rows are given already)
		err := s.inner.Next(s.in, bad)
		if s.in.N > 0 {
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

// fill appends unnested rows to b until it is full or in is all given.
func (s *unnestSource) fill(b *vector.Batch) {
	x, in := s.x, s.in
	for s.row < in.N && b.N < vector.Cap {
		r := s.row
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
			b.N++
		}
		if s.el >= n {
			s.row, s.el = s.row+1, 0
		}
	}
	if s.row >= in.N {
		s.pending = false
	}
}

// Position renders an input position (Source.Position).
func (s *unnestSource) Position(line int64) string { return s.inner.Position(line) }

// Progress is the inner source's (Source.Progress).
func (s *unnestSource) Progress() (read, total int64) { return s.inner.Progress() }

// Close closes the inner source.
func (s *unnestSource) Close() error { return s.inner.Close() }
