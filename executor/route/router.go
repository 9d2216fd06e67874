package route

import (
	"context"

	"streamql/executor/expr"
	"streamql/executor/flow"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// Predicate is a branch gate's BOOLEAN predicate over the rows sel of a
// batch (a join's MARK: "has a partner", three-valued). Eval returns a
// vector indexed like the batch's rows; it is read at the rows of sel only.
type Predicate interface {
	Eval(b *vector.Batch, sel []int32) *vector.Vec
}

// Gate is a branch's gate, the first of its predicates, before its WHERE:
// Pred over the rows offered to the branch (a join's MARK), nil for a branch
// without one. A row passes the gate when the predicate is TRUE, or FALSE
// with Anti (ANTI JOIN, NOT EXISTS, NOT IN: the mark negated); a NULL does
// not pass (SPEC 2.1). The WHERE sees the rows that passed the gate only.
//
// Pending, nil for a gate whose rows are always decided, is the decision of
// the operator that fed the router (an event-time join's, the executor's
// pendingJoin): TRUE at an offered row the branch cannot decide yet (a
// stopped job drains rows its build watermark has not passed). Such a row
// goes to no branch at all, this one or a later one, and no WHERE sees it;
// Pred is still evaluated over it (what its expressions do is observable).
// Pending's Eval is called before Pred's, and may return nil: every row is
// decided. The router reads its values only, never why.
type Gate struct {
	Pred    Predicate
	Anti    bool
	Pending Predicate
}

// Router is the process operator (SPEC 2.1): first-match routing over
// ordered branches, each branch's gate and WHERE. It pushes its own Step,
// whose Parts (one per branch, sides then main: plan.Job.AllBranches)
// select the input rows; the LIMIT (stateless.Limit) and the projections
// (stateless.Project) come after it. It keeps no rows and allocates nothing
// per batch.
type Router struct {
	branches []*plan.Branch // sides, then main
	taken    [][]int32
	rest     [2][]int32
	out      flow.Step
	gates    []Gate // per branch, the zero Gate for none
	cand     []int32
	down     *flow.Emitter
	where    []*expr.Kernel // per branch, nil for none
	flow     []int64        // per branch k: flow[3k:3k+3] its Offered, Partnered, Taken
}

// New returns the router of job's branches; gates are each branch's gate,
// in plan.Job.AllBranches order (nil when no branch has one). It pushes
// nowhere and counts nothing until Wire. Its WHERE kernels are compiled in
// the job's expression context exprs (nil: failed calls dropped).
func New(job *plan.Job, gates []Gate, exprs *expr.Context) *Router {
	r := &Router{branches: job.AllBranches(), down: &flow.Emitter{}}
	r.taken = make([][]int32, len(r.branches))
	r.flow = make([]int64, 3*len(r.branches))
	r.gates = gates
	if r.gates == nil {
		r.gates = make([]Gate, len(r.branches))
	}
	r.cand = make([]int32, 0, vector.Cap)
	for _, b := range r.branches {
		r.where = append(r.where, exprs.Compile(b.Where))
	}
	r.out.Parts = make([]flow.Part, len(r.branches))
	for k, b := range r.branches {
		r.taken[k] = make([]int32, 0, vector.Cap)
		r.out.Parts[k] = flow.Part{Output: b.Output, Cols: make([]*vector.Vec, len(b.Project))}
	}
	r.rest[0] = make([]int32, 0, vector.Cap)
	r.rest[1] = make([]int32, 0, vector.Cap)
	r.out.Errors.Name = job.Stream.Shared().ErrorsSide
	return r
}

// Wire makes r push into down and count, per branch k (in
// plan.Job.AllBranches order), the rows offered to it, those its gate
// passed and those it took into counts[3k], counts[3k+1] and counts[3k+2]
// (EXPLAIN ANALYZE's BranchFlow); counts has room for 3 per branch.
func (r *Router) Wire(down *flow.Emitter, counts []int64) {
	r.down, r.flow = down, counts
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

// Route routes the rows sel of b, each to the first branch whose gate and
// WHERE take it, into r's output step (its In b, each Part's Sel the rows
// its branch took, its Kinds b's), and returns that step, valid until the
// next call.
func (r *Router) Route(b *vector.Batch, sel []int32) *flow.Step {
	r.out.In = b
	r.out.N = b.N
	rest := append(r.rest[0][:0], sel...)
	spare := r.rest[1]
	for k, br := range r.branches {
		taken := r.taken[k][:0]
		var gate *vector.Vec // the branch's gate's values (a join's marks), nil without a gate
		g := r.gates[k]
		cand := rest
		if g.Pred != nil {
			var pending *vector.Vec // (read first: a decision, once made, stays)
			if g.Pending != nil {
				pending = g.Pending.Eval(b, rest)
			}
			gate = g.Pred.Eval(b, rest)
			if pending != nil { // a row not decided yet goes nowhere
				kept := rest[:0]
				for _, i := range rest {
					if !pending.B[i] {
						kept = append(kept, i)
					}
				}
				rest = kept
			}
			cand = r.cand[:0]
			for _, i := range rest {
				if gate.B[i] != g.Anti && !gate.Null[i] {
					cand = append(cand, i)
				}
			}
			r.flow[3*k+1] += int64(len(cand))
		} else {
			r.flow[3*k+1] += int64(len(rest))
		}
		r.flow[3*k] += int64(len(rest))
		if br.Where == nil && gate == nil {
			taken = append(taken, rest...)
			rest = rest[:0]
		} else {
			var w *vector.Vec
			if wk := r.where[k]; wk != nil {
				w = wk.Eval(b, cand)
			}
			left := spare[:0]
			if gate == nil {
				taken, left = partition(taken, left, rest, w)
			} else {
				for _, i := range rest {
					if gate.B[i] != g.Anti && !gate.Null[i] && (w == nil || (w.B[i] && !w.Null[i])) {
						taken = append(taken, i)
					} else {
						left = append(left, i)
					}
				}
			}
			spare, rest = rest, left
		}
		r.taken[k] = taken
		r.flow[3*k+2] += int64(len(taken))
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
