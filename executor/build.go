package executor

import (
	"context"
	"fmt"

	"streamql/executor/aggregate"
	"streamql/executor/connector"
	"streamql/executor/expr"
	"streamql/executor/flow"
	"streamql/executor/rank"
	"streamql/executor/route"
	"streamql/executor/stateless"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// build.go is the one place that turns a plan.Job into running operators
// (operator.go), as go-mysql-server's rowexec builder does: the probe stream's
// chain (watermark assigner → router → sink), and each join's build side.

// chain is the running operators of a job's probe stream.
type chain struct {
	timed  bool             // chainOpts.timed
	head   Operator         // where the source driver pushes: the assigner's wrapper
	assign *watermarker     // the watermark assigner
	router *route.Router    // the router (executor/route)
	held   []*markJoin      // the event-time joins, the gates of their branches' stages (a drain sets their drain)
	hold   Operator         // the event-time join's hold (chainOpts.hold), wrapped: routeHeld gives it the build watermark on port 1; nil: none
	limit  *stateless.Limit // the main query's LIMIT, for where it ended the job (EndedAt)
	rank   *rank.Operator   // the main query's Rank (SPEC 2.9), nil when none (a replay's Top-N: replay.go)
	// sideRanks are the side branches' rank operators a replay rebuilds
	// (plan.Job.SideRankReplayed; replay.go)
	sideRanks []*rank.Operator
	sink      *sinkOp // the last operator, which counts the rows of each branch and output (Analysis)
	stats     []*OpStats
}

// chainOpts adds operators to a chain: after the router, before the LIMIT and
// the projections, in order (an aggregate, SPEC 2.4; tests). Each is made with
// the emitter it pushes into.
type chainOpts struct {
	afterRouter []func(down *Emitter) (Operator, string)
	// src is the probe stream's source (the positions of its rows), and
	// parts the partitions its stream declares (SourceHandles.Partitions;
	// nil: none), which give the chain's watermark assigner one watermark
	// per partition (SPEC 2.5). Every chain that reads a source is built with
	// them here, so none can miss them.
	src   Source
	parts connector.PartitionedSource
	// left is the source's swapped join's left rows (opened.left; nil:
	// none), for a thin Top-N (plan.Rank.Thin)
	left rank.SwapLeft
	// timed makes the operators time their calls (Stats.timed: EXPLAIN
	// ANALYZE); without it OpStats.Nanos stays 0.
	timed bool
	// budget is the job's state budget, and stats its counts (the late rows
	// notice), for the main query's Rank (SPEC 2.9); nil: none.
	budget *StateBudget
	stats  *Stats
	// live is the session's live status the aggregate's late rows are
	// counted into where they reach the sink (aggChain; nil: none).
	live *Live
	// exprs is the job's expression context, which records the failed calls
	// of the chain's expressions (expr.Context; nil: dropped, tests)
	exprs *expr.Context
	// marks makes the watermark assigner fill Step.Marks also when no
	// operator reads them: the sink does (runMode.marks)
	marks bool
	// hold makes the operator that holds the rows between the watermark
	// assigner and the router, pushing into down (the router): an
	// event-time join's hold (semijoin.go's probeHold, SPEC 2.2), into
	// which the assigner stamps the rows as they come (watermarker.pushHeld)
	// and which releases them into the router when the scheduler says
	// (routeHeld); nil: none
	hold func(down *Emitter) Operator
}

// buildChain builds the probe stream's operators of job: the watermark
// assigner, the hold of opts (an event-time join's), the router over the job's branches (each branch's join a MARK
// join, markJoin, over its build state in joins, as the gate operator of the
// branch's stage), the
// operators of opts, the main query's LIMIT, the projections, and sink.
func buildChain(job *plan.Job, joins map[*plan.Branch]*semiBuild, sink Sink, opts chainOpts) *chain {
	c := &chain{timed: opts.timed}
	var ops []*flow.Instrumented
	next := Operator(nil)
	add := func(op Operator, name string, down *Emitter) {
		w := flow.Instrument(op, name, down, opts.timed)
		ops = append(ops, w)
		next = w
	}
	nb := len(job.AllBranches())
	// parts: the rows of each branch, then each branch's BranchFlow (the
	// router's counts, analyzeflow.go), so that a morsel worker's are added
	// with the rest (copyStats, addStats)
	c.sink = &sinkOp{sink: sink, parts: make([]int64, nb+3*nb), nb: nb, outputs: make([]int64, len(job.Outputs)), exprs: opts.exprs}
	add(c.sink, "sink", nil)
	if job.Main != nil && job.Main.Rank != nil && job.Main.Rank.Fused() { // the query over it (the planner's ruleFuseRankCalc)
		down := flow.NewEmitter(next)
		add(stateless.NewRankCalc(job, down, opts.exprs), "calc", down)
	}
	// SPEC 2.9 (executor/rank): the main query's Rank, then (upstream) each
	// side branch's, over the rows it took (SPEC 2.1): each takes its own
	// part of the routed rows and passes the others' on
	bs := job.AllBranches()
	for k := len(bs) - 1; k >= 0; k-- {
		if bs[k].Rank == nil {
			continue
		}
		var rk Operator
		down := flow.NewEmitter(next)
		var late *[]*LateRows
		if opts.stats != nil {
			late = &opts.stats.Late
		}
		if r, err := rank.NewFor(job, k, opts.budget, late, opts.exprs); err != nil {
			rk = failedOp{fmt.Errorf("the plan's %s cannot run: %w", bs[k].Rank.Kind.NodeKind(), err)}
		} else {
			r.Wire(down, &c.sink.parts[k]) // (the rows the query took, counted before the operator takes them)
			if bs[k] == job.Main {
				if opts.left != nil {
					r.Thin(opts.left) // (a Top-N after a swapped join: plan.Rank.Thin)
				}
				c.rank = r
			} else if job.SideRankReplayed(bs[k]) {
				c.sideRanks = append(c.sideRanks, r)
			}
			rk = r
		}
		add(rk, string(bs[k].Rank.Kind.NodeKind()), down)
	}
	down := flow.NewEmitter(next)
	add(stateless.NewProject(job, down, opts.exprs), "project", down)
	down = flow.NewEmitter(next)
	c.limit = stateless.NewLimit(job, down)
	add(c.limit, "limit", down)
	marks := opts.marks
	for _, b := range bs {
		if b.Rank != nil && rank.ReadsMarks(b.Rank) {
			marks = true // (its rows right after the row that moved the watermark)
		}
	}
	for k := len(opts.afterRouter) - 1; k >= 0; k-- {
		down := flow.NewEmitter(next)
		op, name := opts.afterRouter[k](down)
		if ao, ok := op.(*aggregate.Operator); ok {
			// the source for malformed rows' positions; the LIMIT may end the
			// job at any row of an aggregating main query
			ao.Wire(opts.src, c.limit.CutsChunks())
			c.sink.lateRows, c.sink.live = ao.LateRows(), opts.live
		}
		if _, ok := op.(MarkReader); ok {
			marks = true
		}
		add(op, name, down)
	}
	var gates []route.Gate
	if len(joins) > 0 {
		for _, b := range job.AllBranches() {
			var g route.Gate
			if ks := joins[b]; ks != nil {
				m := newMarkJoin(b.Join, ks, opts.exprs)
				g = m
				if b.Join.EventTime() {
					c.held = append(c.held, m)
				}
			}
			gates = append(gates, g)
		}
	}
	c.router = route.New(job, gates, opts.exprs)
	down = flow.NewEmitter(next)
	c.router.Wire(down, c.sink.parts[nb:]) // (counted with the sink's parts)
	add(c.router, "router", down)
	if opts.hold != nil {
		down = flow.NewEmitter(next)
		add(opts.hold(down), "hold", down)
		c.hold = next
	}
	c.assign = newWatermarker(job, opts.exprs)
	c.assign.holds = opts.hold != nil
	c.assign.partitionBy(opts.parts)
	if c.assign.max != nil {
		c.assign.max.src = opts.src
	}
	if us, ok := opts.src.(*unnestSource); ok && us.wm != nil { // (CROSS JOIN UNNEST: its input rows are checked by the same rule, one per job)
		us.refuse = c.assign.max
	}
	if marks {
		c.assign.marks, c.assign.buf = true, make([]Mark, 0, vector.Cap)
	}
	c.assign.down = flow.NewEmitter(next)
	add(c.assign, "watermark", c.assign.down)
	c.head = next
	for k := len(ops) - 1; k >= 0; k-- { // source order
		c.stats = append(c.stats, ops[k].Stats())
	}
	return c
}

// ttlNow is the processing-time clock of 'table.exec.state.ttl' the
// aggregate reads (aggregate.Options.Now), epoch ms; nil: the system's
// clock (tests replace it).
var ttlNow func() int64

// aggChain returns the chain options that put job's aggregate operator after
// the router (build.go); *made is set to the operator.
// derive says that the batches come without marks (the rows an event-time join
// releases, SPEC 2.2): the operator then reads the watermark after each row from
// the stamped watermark column of the next row. live is the session's live
// status the operator counts late rows into (nil: none). exprs is the job's
// expression context (chainOpts.exprs).
func aggChain(job *plan.Job, budget *StateBudget, stats *Stats, made **aggregate.Operator, derive bool, live *Live, exprs *expr.Context) chainOpts {
	return chainOpts{live: live, exprs: exprs, afterRouter: []func(down *Emitter) (Operator, string){
		func(down *Emitter) (Operator, string) {
			*made = aggregate.New(job, aggregate.Options{Budget: budget, Late: &stats.Late, Malformed: stats.malformed, Derive: derive, Now: ttlNow, Exprs: exprs}, down)
			return *made, "aggregate"
		},
	}}
}

// buildJoinBuild returns the operator that absorbs the rows of j's build side
// (arriving at port) into mb, on the job's goroutine (buildFeed). Its
// counters are mb.stats (Analysis).
func buildJoinBuild(j *plan.Join, mb *semiBuild) Operator {
	w := flow.Instrument(&joinBuild{mb: mb}, joinName(j)+" (build)", nil, true) // (read once, apart from the probe's hot path: always timed)
	mb.stats = w.Stats()
	return w
}

// sinkOp is the chain's last operator: it hands routed batches to the Sink,
// counting, once per batch, the rows of each part (branch) and each output
// (EXPLAIN ANALYZE, Analysis).
type sinkOp struct {
	sink    Sink
	parts   []int64      // per Step part
	outputs []int64      // per job output
	nb      int          // the branches: parts[:nb] are theirs, parts[nb:] their flows
	late    *lateTracker // EXPLAIN ANALYZE's late rows (analyzeflow.go), nil otherwise
	rep     *replay      // a group source's replay: its replayed rows' outputs are dropped (nil: none)
	// lateRows counts the rows of each window's late part (parts[nb+k]: the
	// aggregate's late part k, aggregate.Operator.LateRows) for the notices (SPEC
	// 2.4); they are counted here, where they reach the sink, after a LIMIT
	// cut what came after its end
	lateRows []*LateRows
	live     *Live // the session's live status, which counts the late rows too (nil: none)
	// exprs is the job's expression context: a batch in which a call failed
	// the job is not written (errCallFailed)
	exprs *expr.Context
}

// Push implements Operator.
func (s *sinkOp) Push(ctx context.Context, _ Port, r *Step) error {
	if s.exprs.Failed() {
		return errCallFailed
	}
	s.rep.filter(r)
	if s.lateRows != nil {
		s.countLate(ctx, r)
	}
	for k := range r.Parts {
		p := &r.Parts[k]
		if k < s.nb { // the branches' parts; an aggregate's late parts come after them
			s.parts[k] += int64(len(p.Sel))
		}
		s.outputs[p.Output] += int64(len(p.Sel))
	}
	for k := range r.Chunks {
		c := &r.Chunks[k]
		s.outputs[c.Output] += int64(len(c.Sel))
	}
	s.late.count(r)
	if err := s.sink.Rows(r); err != nil {
		return err
	}
	s.rep.handed() // (a replay's state and outputs agree again)
	return nil
}

// countLate adds the rows of r's late parts to their windows' counts and to
// the live status (SPEC 2.4's notices, SPEC 4: late rows): the rows this run
// writes, so each late row counts once, as the malformed rows' summary and
// the join's and window Top-N's late counts do. A replayed late row (its
// output was written by the run before) was dropped by rep.filter already.
func (s *sinkOp) countLate(ctx context.Context, r *Step) {
	n := 0
	for k := s.nb; k < len(r.Parts) && k-s.nb < len(s.lateRows); k++ {
		got := len(r.Parts[k].Sel)
		if c := s.lateRows[k-s.nb]; c != nil {
			c.Rows += int64(got)
		}
		n += got
	}
	if lv := s.live; lv != nil && n > 0 {
		lv.Late.Add(int64(n))
	}
}

// Watermark implements Operator: a sink has no use for it.
func (s *sinkOp) Watermark(context.Context, Watermark) error { return nil }

// Finish implements Operator: the sink is closed by Run, also after a failure.
func (s *sinkOp) Finish(context.Context) error { return nil }

// joinBuild is the build side of a hash semi/anti join (SPEC 2.2): the rows
// pushed into it are evaluated into the columns of the join's MARK operator
// and pushed into its port 1 (semiBuild.absorb), whose state they enter.
type joinBuild struct {
	mb *semiBuild
}

// Push implements Operator: absorb r's live rows.
func (o *joinBuild) Push(_ context.Context, _ Port, r *Step) error {
	return o.mb.absorb(r.In, r.Sel)
}

// Watermark implements Operator: the build watermark is kept per row by
// absorb (a late build row never enters the state).
func (o *joinBuild) Watermark(context.Context, Watermark) error { return nil }

// Finish implements Operator: the build stream ended, its watermark is +∞.
func (o *joinBuild) Finish(ctx context.Context) error {
	return o.mb.op.Finish(ctx, 1)
}

// newStep returns the batch a source driver pushes into a chain: its buffers
// for the live rows and the malformed rows.
func newStep(errorSide string) *Step {
	return &Step{Sel: make([]int32, 0, vector.Cap), Errors: ErrorPort{Name: errorSide}}
}

// failedOp is an operator that could not be built: its first call fails
// with the reason (a plan the executor cannot run is a bug, never a crash).
type failedOp struct{ err error }

func (f failedOp) Push(context.Context, flow.Port, *flow.Step) error { return f.err }
func (f failedOp) Watermark(context.Context, flow.Watermark) error   { return f.err }
func (f failedOp) Finish(context.Context) error                      { return f.err }
