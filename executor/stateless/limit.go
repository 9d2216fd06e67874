// Package stateless holds the operators of a job's chain that keep no state
// of the rows they pass (DESIGN: executor; issue 22 item 6): the main
// query's LIMIT (Limit, the one operator that decides where a LIMIT ends the
// job), the branches' projections (Project) and the query fused over the
// main query's rank operator (RankCalc: plan.Rank.Where and Calc). Each is a
// flow.Operator the executor's builder (build.go) makes and wires to its
// downstream emitter.
//
// It imports executor/flow, executor/expr (the compiled select lists),
// executor/vector (the batches the kernels read) and planner/plan, and must
// never import the executor itself, a stateful
// operator's package, the planner or a connector (layering_test.go).
package stateless

import (
	"context"

	"streamql/executor/expr"
	"streamql/executor/flow"
	"streamql/planner/plan"
)

// Limit is the main query's LIMIT (SPEC 2, SPEC 2.4), the one operator that
// decides where a LIMIT ends the job. It counts the main output's rows as
// they pass: the main part's rows of a plain main query, or the main
// output's chunks of an aggregating one (its windows' or groups' rows, SPEC
// 2.4: "LIMIT n counts the output rows of the aggregate"). When the main
// output gets its n-th row the job ends right after it: the main output keeps
// its rows up to the n-th, and everything after that point in the batch's
// output order goes (the side parts' and late parts' rows, the malformed rows,
// the marks, and the chunks after it); side outputs hold what was routed until
// then, and the side rows of a firing step before the main query's stay
// (SPEC 2.4). Push then returns flow.ErrLimitReached after pushing the batch on.
//
// EndedAt tells the source driver the last input row of the batch the job
// used, from which it counts the rows read and the malformed rows once (SPEC
// 3, SPEC 1) and hands the rest of stdin back (SPEC 1): no count is made
// before the cut and corrected after it.
type Limit struct {
	main    int   // the main part's index in Step.Parts
	out     int   // the main query's output (plan.Job.Outputs)
	chunks  bool  // the main query aggregates: its rows come as chunks
	limit   int64 // -1: none
	emitted int64 // rows given to main so far
	last    int   // when done: the last input row of the batch the job used (-1: none)
	done    bool
	down    *flow.Emitter
}

// NewLimit returns the LIMIT of job's main query (a limit of -1 when it has
// none, or no main query), which pushes into down.
func NewLimit(job *plan.Job, down *flow.Emitter) *Limit {
	l := &Limit{main: len(job.Branches), limit: -1, last: -1, down: down}
	if m := job.Main; m != nil {
		l.limit, l.out, l.chunks = m.Limit, m.Output, m.Agg != nil
	}
	return l
}

// EndedAt reports whether the LIMIT ended the job in the last batch pushed,
// and the last input row of that batch the job used (-1 when it ended before
// the batch's first row: a firing at the stream's end).
func (l *Limit) EndedAt() (int, bool) { return l.last, l.done }

// CutsChunks reports whether the LIMIT may end the job at any row of an
// aggregating main query (it has a LIMIT, counted in the aggregate's chunks):
// the aggregate then hands its main rows on as it makes them.
func (l *Limit) CutsChunks() bool { return l.chunks && l.limit >= 0 }

// Push implements flow.Operator.
func (l *Limit) Push(ctx context.Context, port flow.Port, r *flow.Step) error {
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
		return flow.ErrLimitReached
	}
	return nil
}

// limitChunks counts the main output's rows in r's chunks (an aggregating main
// query) and, at the chunk that holds the n-th, ends the job there: the chunk
// keeps its rows up to the n-th, the chunks after it go, and so does what comes
// after the input row before it (its At).
func (l *Limit) limitChunks(r *flow.Step) {
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
// malformed rows and marks after it (see Limit).
func (l *Limit) cutRows(r *flow.Step) {
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

// Watermark implements flow.Operator: events pass on.
func (l *Limit) Watermark(ctx context.Context, wm flow.Watermark) error {
	return l.down.Watermark(ctx, wm)
}

// Finish implements flow.Operator.
func (l *Limit) Finish(ctx context.Context) error { return l.down.Finish(ctx) }

// Project computes each part's output columns (its branch's select list,
// compiled) for the rows the part holds, in place: row Sel[k]'s values at
// index Sel[k] of the part's Cols.
type Project struct {
	project [][]*expr.Kernel // per part
	down    *flow.Emitter
}

// NewProject returns the projections of job's branches (nil for an
// aggregating branch, whose projection reads the aggregate's row), compiled
// in the job's expression context exprs (nil: failed calls dropped), which
// push into down.
func NewProject(job *plan.Job, down *flow.Emitter, exprs *expr.Context) *Project {
	p := &Project{down: down}
	for _, b := range job.AllBranches() {
		if b.Agg != nil { // its projection reads the aggregate row (aggregate.go)
			p.project = append(p.project, nil)
			continue
		}
		p.project = append(p.project, exprs.CompileAll(b.Project))
	}
	return p
}

// Push implements flow.Operator.
func (o *Project) Push(ctx context.Context, port flow.Port, r *flow.Step) error {
	o.Apply(r)
	return o.down.Push(ctx, port, r)
}

// Apply projects r's parts (none in a batch of operators' rows only).
func (o *Project) Apply(r *flow.Step) {
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

// Watermark implements flow.Operator: events pass on.
func (o *Project) Watermark(ctx context.Context, wm flow.Watermark) error {
	return o.down.Watermark(ctx, wm)
}

// Finish implements flow.Operator.
func (o *Project) Finish(ctx context.Context) error { return o.down.Finish(ctx) }
