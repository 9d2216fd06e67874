package executor

import (
	"context"
	"errors"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/planner/plan"
)

// joinroute.go routes a join input's rows through the side branches
// pending on its stream in the input's port stage (SPEC 2.1, 2.7; the
// planner's rule_route_join.go plans the input as the relation of the rows
// no branch takes, a plan.Derived of kind plan.RoutedKind whose one part is
// the branches' job over the stream, main SELECT *). The port reader reads
// the stream itself; joinSource.intake applies its errors policy, then
// pushes the batch into the part's chain (build.go: its watermark assigner,
// router, the branches' operators), whose sink is the route (Rows): the
// branches' rows go to the reading job's sink, their outputs mapped
// (plan.Job.DerivedOutputs), and the rows the main port took, a selection
// of the read batch, are gathered into the input's batch in the relation's
// layout, with the watermark stamps a derived part's captureSink gives them
// (derived.go), which the join then takes. No goroutine, no channel, no
// batch of the part's own between the two: the derived relation's part
// (derivedSource) copied each routed row twice and ran the branches on a
// goroutine of their own.

// joinRoute is the routing of one join input (joinInput.route).
type joinRoute struct {
	part   *plan.Job // d's one part: the stream, its branches, main SELECT *
	outMap []int     // the part's outputs in the reading job's (-1: none)
	c      *chain
	in     *Step // the batch pushed into c
	js     *joinSource
	job    *plan.Job // the reading job (its outputs: outMap)
	// stats are the part's (Stats.Parts, EXPLAIN ANALYZE)
	stats *Stats
	// out is the batch of the rows no branch took, in the input's layout
	// (plan.JoinInput.Types): the part's main columns, then, with
	// plan.Derived.Stamps, each row's watermark stamp (the part's
	// CURRENT_WATERMARK column) and, with StreamWatermarks, the stream's
	// watermark before and after the row (swm, over the Step's marks)
	out      *vector.Batch
	stampCol int
	streamWm bool
	swm      int64
	swmSet   bool
	fwd      Step // the branches' rows of a routed Step, outputs mapped
	parts    []Part
	chunks   []Chunk
	kept     bool // done ran
}

// routedPart returns the branches' job of the join input in when its port
// stage routes its stream's rows through them (plan.Derived.RoutedPart);
// nil otherwise, the input then read as any derived relation
// (derivedSource).
func routedPart(in *plan.JoinInput) *plan.Job {
	return plan.DerivedOf(in.Stream).RoutedPart()
}

// newJoinRoute opens input s of js, whose branches' job is part
// (routedPart): the stream's source, read by the input's port reader in
// the part's batch layout, and the part's chain, its state charged to
// budget. The caller closes the source it returns.
func newJoinRoute(ctx context.Context, js *joinSource, s int, part *plan.Job, env *Env, budget *StateBudget, opens openOpts) (*joinRoute, opened, error) {
	in := &js.both.Inputs[s]
	d := plan.DerivedOf(in.Stream)
	// (a relation over Kafka streams of a group is read whole, every
	// partition, as newDerivedSource reads it)
	o, err := env.openWith(ctx, part.Stream, openOpts{buildSide: opens.buildSide || d.Group() != "", hub: opens.hub, exprs: opens.exprs})
	if err != nil {
		return nil, o, err
	}
	rt := &joinRoute{part: part, js: js, stats: &Stats{timed: js.stats.timed}, out: vector.NewBatch(in.Types), stampCol: -1}
	if opens.hub != nil {
		rt.job, rt.outMap = opens.hub.job, opens.hub.job.DerivedOutputs[part]
	}
	if d.Stamps {
		rt.stampCol, rt.streamWm = part.WatermarkCol, d.StreamWatermarks
	}
	opts := chainOpts{src: o.src, parts: o.h.Partitions, timed: js.stats.timed, budget: budget, stats: rt.stats, exprs: opens.exprs, marks: rt.streamWm}
	rt.c = buildChain(part, nil, rt, opts)
	rt.stats.Analysis = newAnalysis(part)
	rt.stats.Analysis.setChain(rt.c, nil)
	return rt, o, nil
}

// errorsBy makes the part's chain report its refusals
// ('watermark.max-future') by es, the input's count of its stream's
// malformed rows, into its errors output.
func (rt *joinRoute) errorsBy(es *StreamErrors) {
	rt.in = newStep(es.Side)
	rt.stats.Streams = append(rt.stats.Streams, es) // (EXPLAIN ANALYZE's Decode line of the part)
	if m := rt.c.assign.max; m != nil {
		m.es = es
	}
}

// renameLate names the output of l, late rows of an output of the part,
// as the reading job names it (derivedSource.addStats does so for a
// part's).
func (rt *joinRoute) renameLate(l *LateRows) {
	if k := partOutput(rt.part, rt.outMap, l.Output); k >= 0 {
		l.Output = rt.job.Outputs[rt.outMap[k]].Name
	}
}

// route pushes the good rows of b (0..n-1, their malformed rows handled;
// read rows with the malformed ones, counted as the part's Scan read them)
// through the part's chain and returns the batch of the rows no branch
// took (out), or the error of a failed call, the chain or the sink.
func (rt *joinRoute) route(ctx context.Context, s int, b *vector.Batch, n, read int) (*vector.Batch, error) {
	rt.stats.Rows += int64(read)
	rt.out.Reset()
	rt.in.Errors.Rows = rt.in.Errors.Rows[:0]
	rt.in.SelectRows(b, 0, n)
	err := rt.c.head.Push(ctx, Port{}, rt.in)
	if ferr := rt.js.ownFailures(s, b); ferr != nil && (err == nil || errors.Is(err, errCallFailed)) {
		err = ferr
	}
	return rt.out, err
}

// finish ends the part's chain at the stream's end: the branches' Top-N
// operators write what they hold (build.go's Finish), and the part's
// counts are kept for EXPLAIN ANALYZE.
func (rt *joinRoute) finish(ctx context.Context, s int) error {
	err := rt.c.head.Finish(ctx)
	if ferr := rt.js.ownFailures(s, nil); ferr != nil && (err == nil || errors.Is(err, errCallFailed)) {
		err = ferr
	}
	rt.done()
	return err
}

// done keeps the part's stats in the reading job's (Stats.Parts), once:
// at the stream's end (finish), or when the join closes before it.
func (rt *joinRoute) done() {
	if rt.kept {
		return
	}
	rt.kept = true
	rt.stats.Analysis.finish(rt.part)
	out := rt.js.stats
	if out.Parts == nil {
		out.Parts = map[*plan.Job]*Stats{}
	}
	out.Parts[rt.part] = rt.stats
	for _, l := range rt.stats.Late { // (a branch's Top-N's late rows, by the output's name in the reading job, after the join's own)
		rt.renameLate(l)
		out.Late = append(out.Late, l)
	}
}

// Rows implements Sink for the part's chain: the rows of the main port
// (the part's output 0) join the input's batch (take); the branches'
// rows, the rows they made (a Top-N's) and the rows refused by
// 'watermark.max-future' go to the reading job's sink, their outputs
// mapped, in one Step over the same batch (no row copied).
func (rt *joinRoute) Rows(r *Step) error {
	rt.parts, rt.chunks = rt.parts[:0], rt.chunks[:0]
	for k := range r.Parts {
		p := r.Parts[k]
		if p.Output == 0 {
			rt.take(r, &p)
			continue
		}
		if p.Output = rt.mapOut(p.Output); p.Output >= 0 && len(p.Sel) > 0 {
			rt.parts = append(rt.parts, p)
		}
	}
	for k := range r.Chunks {
		ck := r.Chunks[k]
		if ck.Output = rt.mapOut(ck.Output); ck.Output >= 0 {
			rt.chunks = append(rt.chunks, ck)
		}
	}
	if rt.streamWm { // (the marks after the last row taken: the next batch's rows start there)
		for _, m := range r.Marks {
			rt.swm, rt.swmSet = m.Value, true
		}
	}
	if len(rt.parts) == 0 && len(rt.chunks) == 0 && len(r.Errors.Rows) == 0 {
		return nil
	}
	rt.fwd = Step{N: r.N, Parts: rt.parts, Chunks: rt.chunks, Errors: r.Errors, In: r.In, Sel: r.Sel, Marks: r.Marks}
	return rt.js.sink.Rows(&rt.fwd)
}

// mapOut is the reading job's output of the part's output k (-1: none).
func (rt *joinRoute) mapOut(k int) int {
	if k < len(rt.outMap) {
		return rt.outMap[k]
	}
	return -1
}

// take appends the rows of p, the main port's, to rt.out: each column's
// values as captureSink.add copies them, but a VARCHAR's bytes shared with
// r.In (the port reader's batch, valid until its next read, which is
// rt.out's lifetime too: the next batch of this input), and the stamps (stampCol, streamWm) it gives a derived part's main
// rows.
func (rt *joinRoute) take(r *Step, p *Part) {
	out := rt.out
	nc := len(p.Cols)
	var stamp *vector.Vec
	if rt.stampCol >= 0 && r.In != nil && rt.stampCol < len(r.In.Cols) {
		stamp = r.In.Cols[rt.stampCol]
	}
	mi := 0
	for _, j := range p.Sel {
		i := int(j)
		at := out.N
		for c := range nc {
			d, src := out.Cols[c], p.Cols[c]
			if d.Text != nil {
				d.Text[at] = nil
			}
			if src.Null[i] {
				d.Null[at] = true
				continue
			}
			if d.Type != src.Type { // (a BIGINT widened to DOUBLE: copyWidened)
				d.Null[at], d.F[at] = false, float64(src.I[i])
				continue
			}
			if d.Type == catalog.Varchar {
				d.S[at], d.Null[at] = src.S[i], false // (shared: no byte copied)
				continue
			}
			d.SetFrom(at, src, i)
		}
		if rt.stampCol >= 0 {
			w := out.Cols[nc]
			w.Null[at], w.I[at] = stamp == nil || stamp.Null[i], 0
			if !w.Null[at] {
				w.I[at] = stamp.I[i]
			}
			if rt.streamWm {
				var before int64
				var beforeSet bool
				mi, before, beforeSet = marksAround(r.Marks, mi, i, &rt.swm, &rt.swmSet)
				bc, ac := out.Cols[nc+1], out.Cols[nc+2]
				bc.Null[at], bc.I[at] = !beforeSet, before
				ac.Null[at], ac.I[at] = !rt.swmSet, rt.swm
			}
		}
		if p.Kinds != nil {
			if out.Kinds == nil {
				out.Kinds = make([]vector.RowKind, vector.Cap)
			}
			out.Kinds[at] = p.Kinds[i]
		} else if out.Kinds != nil {
			out.Kinds[at] = vector.Insert
		}
		if r.In != nil {
			out.Pos[at] = r.In.Pos[i]
		}
		out.N++
	}
}

// Errors implements Sink: the part's chain sends none (the port stage
// writes the stream's malformed rows), but passes them on if it did.
func (rt *joinRoute) Errors(name string, rows []ErrorRow) error {
	return rt.js.sink.Errors(name, rows)
}

// Flush implements Sink: the reading job flushes its sink itself.
func (rt *joinRoute) Flush() error { return nil }

// Close implements Sink: the reading job closes its sink itself.
func (rt *joinRoute) Close() error { return nil }
