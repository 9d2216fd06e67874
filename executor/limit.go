package executor

import (
	"context"

	"streamql/executor/expr"
	"streamql/planner/plan"
)

// limitOp is the main query's LIMIT (SPEC 2, SPEC 2.4), the one operator that
// decides where a LIMIT ends the job. It counts the main output's rows as
// they pass: the main part's rows of a plain main query, or the main
// output's chunks of an aggregating one (its windows' or groups' rows, SPEC
// 2.4: "LIMIT n counts the output rows of the aggregate"). When the main
// output gets its n-th row the job ends right after it: the main output keeps
// its rows up to the n-th, and everything after that point in the batch's
// output order goes (the side parts' and late parts' rows, the malformed rows,
// the marks, and the chunks after it); side outputs hold what was routed until
// then, and the side rows of a firing step before the main query's stay
// (SPEC 2.4). Push then returns errLimitReached after pushing the batch on.
//
// endedAt tells the source driver the last input row of the batch the job
// used, from which it counts the rows read and the malformed rows once (SPEC
// 3, SPEC 1) and hands the rest of stdin back (SPEC 1): no count is made
// before the cut and corrected after it.
type limitOp struct {
	main    int   // the main part's index in Step.Parts
	out     int   // the main query's output (plan.Job.Outputs)
	chunks  bool  // the main query aggregates: its rows come as chunks
	limit   int64 // -1: none
	emitted int64 // rows given to main so far
	last    int   // when done: the last input row of the batch the job used (-1: none)
	done    bool
	down    *Emitter
}

// newLimit returns the LIMIT of job's main query (a limit of -1 when it has
// none, or no main query).
func newLimit(job *plan.Job) *limitOp {
	l := &limitOp{main: len(job.Branches), limit: -1, last: -1, down: &Emitter{}}
	if m := job.Main; m != nil {
		l.limit, l.out, l.chunks = m.Limit, m.Output, m.Agg != nil
	}
	return l
}

// endedAt reports whether the LIMIT ended the job in the last batch pushed,
// and the last input row of that batch the job used (-1 when it ended before
// the batch's first row: a firing at the stream's end).
func (l *limitOp) endedAt() (int, bool) { return l.last, l.done }

// Push implements Operator.
func (l *limitOp) Push(ctx context.Context, port Port, r *Step) error {
	l.last, l.done = -1, false
	switch {
	case l.limit < 0:
	case l.chunks:
		l.limitChunks(r)
	case r.Parts != nil:
		p := &r.Parts[l.main]
		if room := l.limit - l.emitted; int64(len(p.Sel)) >= room {
			p.Sel = p.Sel[:room]
			l.done = true
			if room > 0 {
				l.last = int(p.Sel[room-1])
				l.cutRows(r)
				nc := len(r.Chunks)
				for nc > 0 && r.Chunks[nc-1].At > l.last {
					nc--
				}
				r.Chunks = r.Chunks[:nc]
			}
		}
		l.emitted += int64(len(p.Sel))
	}
	if err := l.down.Push(ctx, port, r); err != nil {
		return err
	}
	if l.done {
		return errLimitReached
	}
	return nil
}

// limitChunks counts the main output's rows in r's chunks (an aggregating main
// query) and, at the chunk that holds the n-th, ends the job there: the chunk
// keeps its rows up to the n-th, the chunks after it go, and so does what comes
// after the input row before it (its At).
func (l *limitOp) limitChunks(r *Step) {
	for k := range r.Chunks {
		c := &r.Chunks[k]
		if c.Output != l.out {
			continue
		}
		room := l.limit - l.emitted
		if int64(len(c.Sel)) < room {
			l.emitted += int64(len(c.Sel))
			continue
		}
		c.Sel = c.Sel[:room]
		l.emitted += room
		l.done, l.last = true, c.At-1
		r.Chunks = r.Chunks[:k+1]
		l.cutRows(r)
		r.N = min(r.N, c.At)
		return
	}
}

// cutRows drops from r the input rows after input row l.last, and the
// malformed rows and marks after it (see limitOp).
func (l *limitOp) cutRows(r *Step) {
	last := l.last
	nb := len(r.Errors.Rows)
	for nb > 0 && r.Errors.Rows[nb-1].At > last {
		nb--
	}
	r.Errors.Rows = r.Errors.Rows[:nb]
	nm := len(r.Marks)
	for nm > 0 && r.Marks[nm-1].At > last {
		nm--
	}
	r.Marks = r.Marks[:nm]
	for k := range r.Parts { // the side branches', and the late parts after the router's
		if k == l.main && !l.chunks {
			continue
		}
		p := &r.Parts[k]
		n := len(p.Sel)
		for n > 0 && int(p.Sel[n-1]) > last {
			n--
		}
		p.Sel = p.Sel[:n]
	}
}

// Watermark implements Operator: events pass on.
func (l *limitOp) Watermark(ctx context.Context, wm Watermark) error {
	return l.down.Watermark(ctx, wm)
}

// Finish implements Operator.
func (l *limitOp) Finish(ctx context.Context) error { return l.down.Finish(ctx) }

// projectOp computes each part's output columns (its branch's select list,
// compiled) for the rows the part holds, in place: row Sel[k]'s values at
// index Sel[k] of the part's Cols.
type projectOp struct {
	project [][]*expr.Kernel // per part
	down    *Emitter
}

func newProject(job *plan.Job) *projectOp {
	p := &projectOp{down: &Emitter{}}
	for _, b := range job.AllBranches() {
		if b.Agg != nil { // its projection reads the aggregate row (aggregate.go)
			p.project = append(p.project, nil)
			continue
		}
		p.project = append(p.project, expr.CompileAll(b.Project))
	}
	return p
}

// Push implements Operator.
func (o *projectOp) Push(ctx context.Context, port Port, r *Step) error {
	o.apply(r)
	return o.down.Push(ctx, port, r)
}

// apply projects r's parts (none in a batch of operators' rows only).
func (o *projectOp) apply(r *Step) {
	if r.Parts == nil {
		return
	}
	for k, ks := range o.project {
		p := &r.Parts[k]
		for c, e := range ks {
			p.Cols[c] = e.Eval(r.In, p.Sel)
		}
	}
}

// Watermark implements Operator: events pass on.
func (o *projectOp) Watermark(ctx context.Context, wm Watermark) error {
	return o.down.Watermark(ctx, wm)
}

// Finish implements Operator.
func (o *projectOp) Finish(ctx context.Context) error { return o.down.Finish(ctx) }
