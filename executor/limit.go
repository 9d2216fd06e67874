package executor

import (
	"context"

	"streamql/executor/expr"
	"streamql/planner/plan"
)

// limitOp is the main query's LIMIT (SPEC 2): once the main output has its
// n-th row the job ends there: the main part keeps its first rows up to the
// n-th, and the side parts, the malformed rows, the marks and the rows
// operators made lose what comes after that row (the rest of the input is not
// read; side outputs hold what was routed until then). Push then returns
// errLimitReached after pushing the batch on; done and cutAt tell the source
// driver where the job ended (stdin hands the rest back, SPEC 1).
type limitOp struct {
	main    int   // the main part's index in Routed.Parts
	limit   int64 // -1: none
	emitted int64 // rows given to main so far
	cutAt   int   // the input row where the LIMIT ended the job, or -1
	done    bool
	down    *Emitter
}

// newLimit returns the LIMIT of job's main query (a limit of -1 when it has
// none, or no main query).
func newLimit(job *plan.Job) *limitOp {
	l := &limitOp{main: len(job.Branches), limit: -1, cutAt: -1, down: &Emitter{}}
	if job.Main != nil && job.Main.Agg == nil { // an aggregate's LIMIT is its operator's (aggregate.go)
		l.limit = job.Main.Limit
	}
	return l
}

// Push implements Operator.
func (l *limitOp) Push(ctx context.Context, port Port, r *Routed) error {
	l.cutAt, l.done = -1, false
	if l.limit >= 0 && r.Parts != nil {
		p := &r.Parts[l.main]
		if room := l.limit - l.emitted; int64(len(p.Sel)) >= room {
			for _, i := range p.Sel[room:] {
				r.Dest[i] = -1
			}
			p.Sel = p.Sel[:room]
			l.done = true
			if room > 0 {
				l.cut(r, p.Sel[room-1])
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

// cut drops from r what comes after input row last (see limitOp).
func (l *limitOp) cut(r *Routed, last int32) {
	l.cutAt = int(last)
	nb := len(r.Bad)
	for nb > 0 && r.Bad[nb-1].At > int(last) {
		nb--
	}
	r.Bad = r.Bad[:nb]
	nm := len(r.Marks)
	for nm > 0 && r.Marks[nm-1].At > int(last) {
		nm--
	}
	r.Marks = r.Marks[:nm]
	nc := len(r.Chunks)
	for nc > 0 && r.Chunks[nc-1].At > int(last) {
		nc--
	}
	r.Chunks = r.Chunks[:nc]
	for k := range r.Parts { // the side branches', and the late parts after the router's
		if k == l.main {
			continue
		}
		p := &r.Parts[k]
		n := len(p.Sel)
		for n > 0 && p.Sel[n-1] > last {
			r.Dest[p.Sel[n-1]] = -1
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
func (o *projectOp) Push(ctx context.Context, port Port, r *Routed) error {
	o.apply(r)
	return o.down.Push(ctx, port, r)
}

// apply projects r's parts (none in a batch of operators' rows only).
func (o *projectOp) apply(r *Routed) {
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
