package stateless

import (
	"context"

	"streamql/executor/expr"
	"streamql/executor/flow"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// RankCalc is the query over the main query's rank operator fused into
// its job (plan.Rank.Where and Calc: the planner's ruleFuseRankCalc, a
// condition beside a Top-N's bound or an expression in its select list,
// Flink's Calc over a Rank). It sits between the rank operator and the
// sink: of each chunk of the main output (the operator's changes, in its
// Output columns) it keeps the rows Where holds for, each with its kind
// (SPEC 2.8: a filter passes kinds through), and computes Calc's columns
// of them, in place of the chunk's. Rows of other outputs, watermarks and
// the end pass on as they are. It allocates nothing per row: its
// selections and kernels are made per chunk of a step the first time a
// step has that many.
type RankCalc struct {
	out   int // the main output
	where *expr.Kernel
	calc  []*plan.Expr
	exprs *expr.Context
	// per chunk of the main output in a step (the k-th), its kernels,
	// selection and columns: a step's chunks are all in the sink at once
	sets [][]*expr.Kernel
	sels [][]int32
	cols [][]*vector.Vec
	view vector.Batch
	down *flow.Emitter
}

// NewRankCalc returns the fused query of job's main rank operator
// (plan.Rank.Fused must hold), its expressions compiled in the job's
// expression context exprs (nil: failed calls dropped), pushing into down.
func NewRankCalc(job *plan.Job, down *flow.Emitter, exprs *expr.Context) *RankCalc {
	r := job.Main.Rank
	return &RankCalc{out: job.Main.Output, where: exprs.Compile(r.Where), calc: r.Calc, exprs: exprs, down: down}
}

// Push implements flow.Operator: the main output's chunks are filtered and
// projected, then r goes on.
func (o *RankCalc) Push(ctx context.Context, port flow.Port, r *flow.Step) error {
	x := 0
	for k := range r.Chunks {
		if c := &r.Chunks[k]; c.Output == o.out {
			o.apply(x, &c.Part)
			x++
		}
	}
	return o.down.Push(ctx, port, r)
}

// apply filters and projects p, the x-th chunk of the main output in its
// step.
func (o *RankCalc) apply(x int, p *flow.Part) {
	for x >= len(o.sets) {
		o.sets = append(o.sets, o.exprs.CompileAll(o.calc))
		o.sels = append(o.sels, make([]int32, 0, vector.Cap))
		o.cols = append(o.cols, make([]*vector.Vec, len(o.calc)))
	}
	n := 0
	for _, i := range p.Sel {
		n = max(n, int(i)+1)
	}
	o.view = vector.Batch{Cols: p.Cols, N: n}
	if o.where != nil {
		w := o.where.Eval(&o.view, p.Sel)
		kept := o.sels[x][:0]
		for _, i := range p.Sel {
			if w.B[i] && !w.Null[i] {
				kept = append(kept, i)
			}
		}
		o.sels[x], p.Sel = kept, kept
	}
	if o.calc != nil {
		cols := o.cols[x]
		for j, k := range o.sets[x] {
			cols[j] = k.Eval(&o.view, p.Sel)
		}
		p.Cols = cols
	}
}

// Watermark implements flow.Operator: events pass on.
func (o *RankCalc) Watermark(ctx context.Context, wm flow.Watermark) error {
	return o.down.Watermark(ctx, wm)
}

// Finish implements flow.Operator.
func (o *RankCalc) Finish(ctx context.Context) error { return o.down.Finish(ctx) }
