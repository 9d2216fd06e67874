package route

import (
	"context"

	"streamql/executor/expr"
	"streamql/executor/flow"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// Gate is the operator in front of a branch's WHERE (a semi or anti join,
// SPEC 2.2: the executor's markJoin), nil for a branch without one. Split
// reads the rows offered to the branch, in order, and appends each to one of
// its two ports or to neither:
//
//   - pass: the join passes the row (SEMI: it has a partner; ANTI: it has
//     none); the branch's WHERE then decides whether the branch takes it;
//   - rest: the join does not pass it; it goes on to the next branch;
//   - neither: the join cannot decide the row yet (an event-time join whose
//     build watermark has not passed it, while a stopped job drains its held
//     rows): it goes to no branch at all, this one or a later one, and no
//     WHERE sees it.
//
// It returns pass and rest, in the order of offered; each has room for
// len(offered) more rows. What the join's expressions do over the offered
// rows, pending ones included, is its own (SPEC 2.10). The router reads the
// ports only, never why.
type Gate interface {
	Split(b *vector.Batch, offered, pass, rest []int32) ([]int32, []int32)
}

// Stage is branch k's step of first-match routing (SPEC 2.1): its input is
// the rows offered to it, those no branch before took (the rest port of
// stage k-1; every live row for the first); its taken port gets the rows its
// gate passes and its WHERE takes, its rest port, which is stage k+1's
// input, the others, both in input order. Its gate may keep a row off both
// (Gate). It counts the rows offered (decided by its gate), those its gate
// passed and those it took (EXPLAIN ANALYZE's BranchFlow). It keeps no rows.
type Stage struct {
	gate  Gate
	where *expr.Kernel // nil for none
	pass  []int32      // the gate's pass port
	grest []int32      // the gate's rest port
	flow  []int64      // its Offered, Partnered, Taken
}

// Split routes the rows offered of b through the stage: it appends the rows
// it takes to taken and those it leaves to rest, in order, and returns both;
// taken and rest have room for len(offered) more rows, and neither may share
// offered's array.
func (s *Stage) Split(b *vector.Batch, offered, taken, rest []int32) ([]int32, []int32) {
	if s.gate == nil {
		s.flow[0] += int64(len(offered))
		s.flow[1] += int64(len(offered))
		switch {
		case s.where == nil:
			taken = append(taken, offered...)
		default:
			taken, rest = partition(taken, rest, offered, s.where.Eval(b, offered))
		}
		s.flow[2] += int64(len(taken))
		return taken, rest
	}
	pass, grest := s.gate.Split(b, offered, s.pass[:0], s.grest[:0])
	s.pass, s.grest = pass, grest
	s.flow[0] += int64(len(pass) + len(grest))
	s.flow[1] += int64(len(pass))
	nt := len(taken)
	if s.where == nil && len(grest) == 0 {
		taken = append(taken, pass...)
	} else {
		// merge the gate's two ports back into the order of offered (the
		// rows on neither are left out), the WHERE deciding over pass
		var w *vector.Vec
		if s.where != nil {
			w = s.where.Eval(b, pass)
		}
		p, q := 0, 0
		for _, i := range offered {
			switch {
			case p < len(pass) && pass[p] == i:
				p++
				if w == nil || (w.B[i] && !w.Null[i]) {
					taken = append(taken, i)
				} else {
					rest = append(rest, i)
				}
			case q < len(grest) && grest[q] == i:
				q++
				rest = append(rest, i)
			}
		}
	}
	s.flow[2] += int64(len(taken) - nt)
	return taken, rest
}

// Router is the process operator (SPEC 2.1): first-match routing over
// ordered branches, one Stage per branch, stage k's rest port feeding stage
// k+1 (with plan.Job.Fanout every stage is offered every row). The stages are fused into one loop over a batch (no batch or call
// between them but Split), which is the router's whole per-batch work where
// no branch has a gate. It pushes its own Step, whose Parts (one per branch,
// sides then main: plan.Job.AllBranches) are the stages' taken ports,
// selecting the input rows; the LIMIT (stateless.Limit) and the projections
// (stateless.Project) come after it. It keeps no rows and allocates nothing
// per batch.
type Router struct {
	stages []Stage // sides, then main
	// fanout offers every row to every stage (plan.Job.Fanout): each takes
	// the rows its gate and WHERE take, whatever the stages before took
	fanout bool
	taken  [][]int32
	rest   [2][]int32
	out    flow.Step
	down   *flow.Emitter
}

// New returns the router of job's branches; gates are each branch's gate,
// in plan.Job.AllBranches order, nil for a branch without one (gates nil
// when no branch has one). It pushes nowhere and counts nothing until Wire.
// Its WHERE kernels are compiled in the job's expression context exprs
// (nil: failed calls dropped).
func New(job *plan.Job, gates []Gate, exprs *expr.Context) *Router {
	branches := job.AllBranches()
	r := &Router{down: &flow.Emitter{}, stages: make([]Stage, len(branches)), fanout: job.Fanout}
	r.taken = make([][]int32, len(branches))
	r.Wire(r.down, make([]int64, 3*len(branches)))
	for k, b := range branches {
		s := &r.stages[k]
		s.where = exprs.Compile(b.Where)
		if gates != nil && gates[k] != nil {
			s.gate = gates[k]
			s.pass, s.grest = make([]int32, 0, vector.Cap), make([]int32, 0, vector.Cap)
		}
	}
	r.out.Parts = make([]flow.Part, len(branches))
	for k, b := range branches {
		r.taken[k] = make([]int32, 0, vector.Cap)
		r.out.Parts[k] = flow.Part{Output: b.Output, Cols: make([]*vector.Vec, len(b.Project))}
	}
	r.rest[0] = make([]int32, 0, vector.Cap)
	r.rest[1] = make([]int32, 0, vector.Cap)
	r.out.Errors.Name = job.ErrorsConfig().ErrorsSide
	return r
}

// Wire makes r push into down and count, per branch k (in
// plan.Job.AllBranches order), the rows offered to it, those its gate
// passed and those it took into counts[3k], counts[3k+1] and counts[3k+2]
// (EXPLAIN ANALYZE's BranchFlow); counts has room for 3 per branch.
func (r *Router) Wire(down *flow.Emitter, counts []int64) {
	r.down = down
	for k := range r.stages {
		r.stages[k].flow = counts[3*k : 3*k+3 : 3*k+3]
	}
}

// Push implements flow.Operator: route in's live rows, with its malformed
// rows and marks, and push the routed step on.
func (r *Router) Push(ctx context.Context, port flow.Port, in *flow.Step) error {
	r.out.Errors.Rows = in.Errors.Rows
	r.out.Marks = in.Marks
	r.out.Sel = in.Sel // the live rows, for an aggregate behind an event-time join
	r.out.Chunks = r.out.Chunks[:0]
	return r.down.Push(ctx, port, r.Route(in.In, in.Sel))
}

// Watermark implements flow.Operator: events pass on.
func (r *Router) Watermark(ctx context.Context, wm flow.Watermark) error {
	return r.down.Watermark(ctx, wm)
}

// Finish implements flow.Operator.
func (r *Router) Finish(ctx context.Context) error { return r.down.Finish(ctx) }

// Route routes the rows sel of b through the stages, each row to the first
// branch whose gate and WHERE take it (with fanout, to every branch whose
// gate and WHERE take it), into r's output step (its In b, each Part's Sel
// the rows its branch took, its Kinds b's), and returns that step, valid
// until the next call.
func (r *Router) Route(b *vector.Batch, sel []int32) *flow.Step {
	r.out.In = b
	r.out.N = b.N
	rest := append(r.rest[0][:0], sel...)
	spare := r.rest[1]
	for k := range r.stages {
		taken, left := r.stages[k].Split(b, rest, r.taken[k][:0], spare[:0])
		if !r.fanout { // (fanout: the next stage is offered every row again)
			spare, rest = rest, left
		}
		r.taken[k] = taken
		r.out.Parts[k].Sel = taken
		r.out.Parts[k].Kinds = b.Kinds // (SPEC 2.8: kinds pass through routing, filters and projections)
	}
	r.rest[0], r.rest[1] = rest[:0], spare[:0]
	return &r.out
}

// partition appends the rows of rest where w is TRUE to taken and the others
// to left, in order, and returns both; taken and left have room for
// len(rest) more rows. It has no branch per row: each row is written to both
// and counted in one (a WHERE's outcome is as unpredictable as the data).
func partition(taken, left, rest []int32, w *vector.Vec) ([]int32, []int32) {
	nt, nl := len(taken), len(left)
	taken, left = taken[:nt+len(rest)], left[:nl+len(rest)]
	for _, i := range rest {
		var t, null int // 0 or 1 each, without a branch
		if w.B[i] {
			t = 1
		}
		if w.Null[i] {
			null = 1
		}
		in := t &^ null
		taken[nt], left[nl] = i, i
		nt += in
		nl += 1 - in
	}
	return taken[:nt], left[:nl]
}
