package executor

import (
	"context"
	"errors"
	"fmt"
	"io"

	"streamql/catalog"
	"streamql/executor/expr"
	"streamql/executor/op"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// semiBuild is a semi/anti join's build side as the job holds it (SPEC 2.2:
// the build side keeps distinct keys only, not rows): the MARK join operator
// that keeps them (op.SemiJoin in its Mark mode, semimark.go: each key
// encoded, with the earliest event time of a build row that had it, charged
// to the job's 'state.max-bytes' by its bytes plus op.MarkKeyOverhead, which
// EXPLAIN ANALYZE shows), the build side's compiled expressions, which absorb
// evaluates into the columns it pushes into the operator's port 1, and what
// the job reads of it. Only the job's goroutine reads and writes it: the
// build rows are pushed by the bounded strategy's readBuild before the first
// probe row, and by the event-time strategy's scheduler (routeHeld) between
// the releases of held probe rows, whose marks the router asks for
// (markJoin).
type semiBuild struct {
	op *op.SemiJoin
	j  *plan.Join
	// event-time strategy only
	live *liveWatermark // nil without a live status
	// the build side's compiled expressions, and the batch of their values
	// (and the event time) absorb pushes into op: markLayout's
	buildFilter, buildWM *expr.Kernel
	buildKeys            []*expr.Kernel
	cols                 *vector.Batch
	cond, time, wm       int // cols' columns (markLayout's Columns)
	// acct is the account op charges (nil: no limit)
	acct *StateAccount
	// stats are the counters of the build side's operator (buildJoinBuild)
	stats *OpStats
}

// markLayout returns the layout of the columns absorb pushes into the MARK
// join's port 1 for j's build side (op.MarkLayout): the build keys, in key
// order, then the build condition (BOOLEAN), the event time and each row's
// watermark (the build stream's WATERMARK expression) when j has them.
func markLayout(j *plan.Join) op.MarkLayout {
	l := op.MarkLayout{KeyTypes: j.KeyTypes, NullSafe: j.NullSafe, Cond: j.BuildFilter != nil, Time: catalog.Unknown}
	if j.EventTime() {
		l.Time, l.WM = j.BuildTypes[j.BuildTime], true
	}
	return l
}

// newSemiBuild returns the empty build side of j, charging acct (nil: no
// limit) for its keys, its expressions compiled in the job's expression
// context exprs. The MARK operator is built from the layout absorb fills
// (markLayout), so it cannot refuse it.
func newSemiBuild(j *plan.Join, acct *StateAccount, exprs *expr.Context) *semiBuild {
	l := markLayout(j)
	types, cond, time, wm := l.Columns()
	return &semiBuild{op: newMarkOp(j, l, acct), j: j, acct: acct, cols: &vector.Batch{Cols: make([]*vector.Vec, len(types))}, cond: cond, time: time, wm: wm,
		buildFilter: exprs.Compile(j.BuildFilter), buildWM: exprs.Compile(j.BuildWatermark), buildKeys: exprs.CompileAll(j.BuildKeys)}
}

// newMarkOp returns the MARK join operator of j (op.SemiJoin in Mark mode)
// over right columns laid out as l, charging acct (nil: no limit).
func newMarkOp(j *plan.Join, l op.MarkLayout, acct *StateAccount) *op.SemiJoin {
	var a op.Account
	if acct != nil {
		a = acct
	}
	return op.NewMarkJoin(l, j.Mode == plan.Anti, j.NullAware, a)
}

// joinName names j's operator in messages, as EXPLAIN does.
func joinName(j *plan.Join) string {
	mode := "semi"
	if j.Mode == plan.Anti {
		mode = "anti"
	}
	return fmt.Sprintf("the %s join %s", mode, j.Text)
}

// absorb evaluates the build rows sel of b (rows 0..len(sel)-1: a reader's
// batch) into the columns of markLayout and pushes them into the MARK join's
// port 1: a row whose build condition holds enters the state; with the
// event-time strategy each row is checked against the build watermark
// before it (a late row never enters the state) and then advances the
// watermark (SPEC 2.2, 2.3). It returns a *StateLimitError when the new keys
// take the job's state past 'state.max-bytes'.
func (mb *semiBuild) absorb(b *vector.Batch, sel []int32) error {
	if n := len(sel); n > 0 && int(sel[n-1]) != n-1 {
		return fmt.Errorf("%s: the build rows pushed must be a batch's first rows", joinName(mb.j))
	}
	c := mb.cols
	if mb.cond >= 0 {
		c.Cols[mb.cond] = mb.buildFilter.Eval(b, sel)
	}
	for k, e := range mb.buildKeys {
		c.Cols[k] = e.Eval(b, sel)
	}
	if mb.time >= 0 {
		c.Cols[mb.time] = b.Cols[mb.j.BuildTime]
	}
	if mb.wm >= 0 {
		c.Cols[mb.wm] = mb.buildWM.Eval(b, sel)
	}
	c.N = len(sel)
	err := mb.op.Push(context.Background(), 1, c)
	wmv, set, _ := mb.op.RightWatermark()
	mb.live.store(wmv, set) // once per batch
	return err
}

// watermark returns the build watermark (set false: none yet) and whether
// the build stream ended.
func (mb *semiBuild) watermark() (wm int64, set, ended bool) { return mb.op.RightWatermark() }

// readBuild reads the build side of j until it ends, on the job's goroutine
// (the bounded strategy: before the first probe row), with the reader of
// an event-time join's ports (portReader.read), pushing its rows into
// the join's build operator (build.go), which absorbs them into mb, at port.
// Malformed build rows follow the build stream's errors policy; with 'side'
// they are handed to emit.
func readBuild(ctx context.Context, j *plan.Join, port Port, src Source, mb *semiBuild, es *StreamErrors, emit func([]ErrorRow) error) error {
	f := newBuildFeed(j, port, src, mb, es, emit)
	r := newPortReader(port.Input, src, j.BuildTypes, false) // (read here: no goroutine)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		m := r.read()
		if end, err := f.push(ctx, m.b, m.bad, m.err); end || err != nil {
			return err
		}
	}
}

// buildFeed pushes the batches a join's build source gives into the join's
// build operator (buildJoinBuild), on the goroutine that owns the operator:
// the job's, for the bounded strategy (readBuild) and for the event-time one
// (the scheduler, routeHeld, whose build readers only read).
type buildFeed struct {
	j       *plan.Join
	port    Port
	src     Source
	op      Operator
	es      *StreamErrors
	emit    func([]ErrorRow) error
	step    *Step
	errRows []ErrorRow
}

// newBuildFeed returns the feed of j's build side read from src into mb at
// port, counting its malformed rows into es and handing those of the
// 'side' policy to emit.
func newBuildFeed(j *plan.Join, port Port, src Source, mb *semiBuild, es *StreamErrors, emit func([]ErrorRow) error) *buildFeed {
	return &buildFeed{j: j, port: port, src: src, op: buildJoinBuild(j, mb), es: es, emit: emit, step: newStep("")}
}

// push pushes what the source's Next gave: the batch b with its malformed
// rows bad, or err (io.EOF: the build stream ended, and the operator is
// finished; ErrWaiting: nothing came). end says the stream ended; an error
// (the source's, a malformed row's under 'errors'='fail', a
// *StateLimitError of the build keys) stops the job.
func (f *buildFeed) push(ctx context.Context, b *vector.Batch, bad []BadRow, err error) (end bool, _ error) {
	switch {
	case err == io.EOF:
		return true, f.op.Finish(ctx)
	case errors.Is(err, ErrWaiting):
		return false, nil
	case err != nil:
		return false, err
	}
	n := b.N
	if len(bad) > 0 {
		es := f.es
		f.errRows = f.errRows[:0]
		es.Malformed += countBad(es.Policy, len(bad))
		if n, err = handleBad(f.j.Build, f.src, bad, b.N, es.Policy, &f.errRows); err != nil {
			return false, err
		}
		if len(f.errRows) > 0 {
			if err := f.emit(f.errRows); err != nil {
				return false, err
			}
		}
	}
	f.step.SelectRows(b, 0, n)
	return false, f.op.Push(ctx, f.port, f.step)
}
