package aggregate

import (
	"context"
	"math"
	"slices"
	"streamql/executor/expr"

	"streamql/catalog"
	"streamql/executor/agg"
	"streamql/executor/flow"
	"streamql/executor/state"
	"streamql/executor/vector"
	"streamql/executor/window"
	"streamql/planner/plan"
)

// The aggregate's side of the parallel window aggregate (the executor's
// paragg.go runs it: the workers, the chunks, the merge's order): a
// worker's chain ends in a Partial in place of the Operator, which adds
// the rows of one chunk to a ChunkAgg's partial aggregates (aggPartial) with
// the chunk's own watermark and records the cuts; the job's Operator then
// merges a ChunkAgg (ChunkAgg.Merge), cut by cut, firing at each as the
// sequential path fires after that row.

// paraggMaxMergeWork bounds the merge of one chunk: it walks the chunk's
// partial windows at each cut (a grid point of the windows' ends its
// watermark crossed), so a chunk of many cuts and many windows (windows far
// smaller than the time its rows span) is given back to the sequential path
// when cuts × partial windows passes it. After such chunks the rest of the
// file takes the sequential path (the rule of the chunks given back).
const paraggMaxMergeWork = 1 << 20

// ChunkAgg is what a worker made of one chunk of the input (the executor's
// paggOut holds one, with the worker's counts): its partial aggregates, one
// per aggregate of the job (Operator.ops' order), and where the merge must
// fire. Its memory is reused from chunk to chunk (Partial.Start).
type ChunkAgg struct {
	ops []*aggPartial
	// rowEnd is the job-wide arrival number of the chunk's last row
	// (Partial.rowBase plus its rows): the merge moves Operator.row to it
	rowEnd int64
	dirty  bool // a malformed row, too many late rows: the merge decodes the chunk again
	// the cuts, in row order: L after the row (cutWm[j]) and each partial
	// aggregate's arrival number of that row (cutSeq[j·len(ops)+k])
	cutWm  []int64
	cutSeq []int64
	cutRow []int32 // per cut: the chunk's rows up to and including the one that moved the watermark there
	// the chunk's late rows (SPEC 2.4: all their windows ended at or before the
	// chunk's own watermark, or a NULL time), copied, in row order: their
	// number in the chunk and the aggregate (index in ops) that took each
	late    *vector.Batch
	lateRow []int32
	lateOp  []int32
	// the merge's batch of late rows (pushLate), reused, and the late rows
	// pushed so far; the output of each branch's part
	lateOut    flow.Step
	latePushed int
	branchOut  []int
	lateParts  []flow.Part
	lateSel    [][]int32
	moved      [][]int // merge's scratch: per aggregate, per partial window, its groups moved
}

// arenaSize is the initial arena of a VARCHAR column of a ChunkAgg's late rows:
// 16 bytes a row (the executor's sources start theirs so).
const arenaSize = 16 << 10

// NewChunkAgg returns the memory of one chunk in flight: a partial of each of
// ao's aggregates, charged to free (a budget without limit: the job's
// aggregate is charged when they are merged).
func NewChunkAgg(ao *Operator, free *state.Budget) *ChunkAgg {
	o := &ChunkAgg{late: vector.NewBatch(ao.job.BatchTypes)}
	for _, v := range o.late.Cols {
		if v.Type == catalog.Varchar {
			v.Arena = make([]byte, 0, arenaSize)
		}
	}
	for range ao.lateSel {
		o.lateSel = append(o.lateSel, make([]int32, 0, vector.Cap))
	}
	for _, br := range ao.job.AllBranches() {
		o.branchOut = append(o.branchOut, br.Output)
	}
	for _, g := range ao.ops {
		o.ops = append(o.ops, newAggPartial(g.br, free, ao.exprs))
	}
	return o
}

// Dirty reports whether the merge must decode the chunk again on the
// sequential path: a row of it was malformed, or it had more late rows than
// a batch holds.
func (o *ChunkAgg) Dirty() bool { return o.dirty }

// SetDirty gives the chunk back to the sequential path (a row the worker
// read was malformed: the errors policy and the positions are the
// sequential path's).
func (o *ChunkAgg) SetDirty() { o.dirty = true }

// Redo makes room for the rows of chunk k, given back to the sequential
// path: they follow the chunks before it in arrival numbers.
func (ao *Operator) Redo(k int64) {
	base := k << 32
	for _, g := range ao.ops {
		g.seq = max(g.seq, base)
	}
	ao.row = max(ao.row, base)
}

// Budget returns the job's state budget, which ao's aggregates are charged
// to.
func (ao *Operator) Budget() *state.Budget { return ao.ops[0].acct.Budget() }

// Partial is the partial aggregate of a worker's chain, in place of the
// aggregate operator (Operator): it adds the rows each aggregating branch
// took to the current chunk's partial aggregates with the chunk's own
// watermark, keeps the late rows, and records the cuts.
type Partial struct {
	cur  *ChunkAgg
	at   []int      // the router part of each aggregate
	grid [][2]int64 // per aggregate: the step and offset of its window ends
	next []int64    // per aggregate: its grid's first point after wm
	// minNext is the least of next: a move below it reaches no grid point
	// (crosses' answer without its loop), once wmSet
	minNext int64
	wmCol   int
	pos     []int     // per aggregate: its taken rows before the current mark
	seq0    []int64   // per aggregate: its arrival number before the batch
	taken   [][]int32 // per aggregate: the rows it took
	wmSet   bool      // the chunk has a watermark (L) so far
	base    int32     // the chunk's rows before the batch
	// rowBase is the job-wide arrival number before the chunk's first row
	// (chunk k: k<<32; aggOp.rowAt, aggGroup.firstAt)
	rowBase int64
	lates   []int64 // the batch's late rows: row<<8 | aggregate, sorted before they are kept
	out     flow.Step
	parts   []flow.Part
	down    *flow.Emitter
}

// ReadsMarks implements flow.MarkReader: cuts are where the watermark moved.
func (*Partial) ReadsMarks() {}

// NewPartial returns the partial aggregate of a worker's chain, in place of
// ao, over batches whose watermark column is wmCol (-1: none), pushing the
// router's batches on to down with the aggregates' rows taken out.
func NewPartial(ao *Operator, wmCol int, down *flow.Emitter) *Partial {
	p := &Partial{at: ao.at, wmCol: wmCol, down: down, pos: make([]int, len(ao.ops)), seq0: make([]int64, len(ao.ops)), taken: make([][]int32, len(ao.ops))}
	for _, g := range ao.ops {
		p.grid = append(p.grid, gridOf(g.a.Window))
		p.next = append(p.next, 0)
	}
	return p
}

// Start makes po aggregate chunk k (its index: arrival numbers from k<<32)
// into o, from no rows and an unset watermark.
func (po *Partial) Start(k int64, o *ChunkAgg) {
	o.dirty = false
	o.cutWm, o.cutSeq, o.cutRow = o.cutWm[:0], o.cutSeq[:0], o.cutRow[:0]
	o.late.Reset()
	o.lateRow, o.lateOp = o.lateRow[:0], o.lateOp[:0]
	po.base, po.lates = 0, po.lates[:0]
	po.rowBase = k << 32
	for _, a := range o.ops {
		// (o may hold the partials of a chunk the reader dropped unmerged:
		// its guessed start was inside a quoted field)
		a.resetPartial()
		a.seq = k << 32
	}
	po.cur = o
	po.wmSet = false
}

// Push implements flow.Operator: r is the router's batch. A partial fires
// nothing, so each aggregate takes its rows apart from the others', and the
// cuts are found after them: an aggregate's arrival number after row i is
// the one before the batch plus its rows up to i.
func (po *Partial) Push(ctx context.Context, port flow.Port, r *flow.Step) error {
	o := po.cur
	if o.dirty {
		return nil
	}
	b := r.In
	var wm *vector.Vec
	if po.wmCol >= 0 {
		wm = b.Cols[po.wmCol]
	}
	for k, a := range o.ops {
		taken := r.Parts[po.at[k]].Sel
		po.taken[k], po.pos[k], po.seq0[k] = taken, 0, a.seq
		a.rowsIn += int64(len(taken))
		a.prepare(b, taken)
		for x := 0; x < len(taken); x++ {
			if n := a.tumbleRun(b, taken[x:], wm); n > 0 {
				if x += n; x == len(taken) {
					break
				}
			}
			i := taken[x]
			cw, cwSet := int64(0), false
			if wm != nil {
				cw, cwSet = wm.I[i], !wm.Null[i]
			}
			a.rowAt = po.rowBase + int64(po.base) + int64(i) + 1
			late, err := a.add(b, int(i), cw, cwSet)
			if err == errWindowRange {
				o.dirty = true // a malformed row: the sequential path makes it one
				return nil
			}
			if err != nil {
				return err
			}
			if late {
				po.lates = append(po.lates, int64(i)<<8|int64(k))
			}
		}
		a.addBatch()
	}
	if len(po.lates) > 0 {
		if o.late.N+len(po.lates) > vector.Cap {
			o.dirty = true // more late rows than a batch holds: the sequential path writes them
			return nil
		}
		slices.Sort(po.lates) // (a row goes to one aggregate: row order)
		for _, x := range po.lates {
			i, k := int(x>>8), int(x&0xff)
			o.late.AppendRows(b, i, i+1)
			o.lateRow, o.lateOp = append(o.lateRow, po.base+int32(i)), append(o.lateOp, int32(k))
		}
		po.lates = po.lates[:0]
	}
	for _, m := range r.Marks {
		if po.wmSet && m.Value < po.minNext {
			continue // (crosses is false)
		}
		if po.crosses(m.Value) {
			o.cutWm, o.cutRow = append(o.cutWm, m.Value), append(o.cutRow, po.base+int32(m.At)-1)
			for k, taken := range po.taken {
				for po.pos[k] < len(taken) && int(taken[po.pos[k]]) < m.At {
					po.pos[k]++
				}
				o.cutSeq = append(o.cutSeq, po.seq0[k]+int64(po.pos[k]))
			}
		}
		po.wmSet = true
	}
	po.base += int32(r.N)
	o.rowEnd = po.rowBase + int64(po.base)
	// On, as the aggregate pushes it: the aggregates' rows are not output rows.
	po.out = *r
	po.parts = append(po.parts[:0], r.Parts...)
	for k := range o.ops {
		po.parts[po.at[k]].Sel = nil
	}
	po.out.Parts = po.parts
	return po.down.Push(ctx, port, &po.out)
}

// crosses reports whether the chunk's watermark moving to v may fire a
// window: it was unset, or it reached a point of some aggregate's grid past
// the last one (po.next, the grid's next point after the watermark, which
// crosses keeps: one comparison per move).
func (po *Partial) crosses(v int64) bool {
	hit := !po.wmSet
	po.minNext = math.MaxInt64
	for k, g := range po.grid {
		if hit || v >= po.next[k] {
			hit = true
			po.next[k] = nextPoint(v, g[0], g[1])
		}
		po.minNext = min(po.minNext, po.next[k])
	}
	return hit
}

// nextPoint returns the first point offset + n·step (step > 0) after v, or
// v + 1 when that is not an int64 (far from any time: every move then cuts).
func nextPoint(v, step, offset int64) int64 {
	if v > math.MaxInt64/2 || v < math.MinInt64/2 || offset > math.MaxInt64/4 || offset < math.MinInt64/4 || step > math.MaxInt64/4 {
		if v == math.MaxInt64 {
			return v
		}
		return v + 1
	}
	return offset + (window.FloorDiv(v-offset, step)+1)*step
}

// Watermark implements flow.Operator: the chunk's events pass on.
func (po *Partial) Watermark(ctx context.Context, wm flow.Watermark) error {
	return po.down.Watermark(ctx, wm)
}

// Finish implements flow.Operator: a chunk's end is no stream's end (unused).
func (po *Partial) Finish(ctx context.Context) error { return nil }

// gridOf returns the step and offset of the grid that every window end of
// w lies on.
func gridOf(w *plan.Window) [2]int64 {
	step := w.Size
	if window.KindOf(w.Func) != window.Tumble {
		step = gcd(w.Size, w.Slide)
	}
	return [2]int64{max(step, 1), w.Offset}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Usable reports whether the merge may use o as the worker made it, with the
// job's watermark wm (set) after the chunks before it: no row of it was late
// or malformed, no partial window ends at or before wm (see the doc
// above), and its merge is not too long (paraggMaxMergeWork).
func (o *ChunkAgg) Usable(wm int64, set bool) bool {
	if o.dirty {
		return false
	}
	windows := 0
	for _, a := range o.ops {
		if set && a.minEnd <= wm {
			return false
		}
		windows += len(a.open)
	}
	return int64(len(o.cutWm))*int64(windows) <= paraggMaxMergeWork
}

// NearLimit reports whether the job's state (charged to b, the job's
// budget), with o's partials merged, could pass half of 'state.max-bytes':
// from there on the job's rows take the sequential path (see
// 'state.max-bytes' above).
func (o *ChunkAgg) NearLimit(b *state.Budget) bool {
	var bytes int64
	for _, a := range o.ops {
		bytes += a.bytes
	}
	return b.Max() > 0 && b.Used()+bytes > b.Max()/2
}

// Merge moves o's partial aggregates into ao's, cut by cut, firing at each
// cut with the watermark max(wm, the cut's), as the sequential path fires
// after that row.
func (o *ChunkAgg) Merge(ctx context.Context, ao *Operator, wm int64, set bool) error {
	for len(o.moved) < len(o.ops) {
		o.moved = append(o.moved, nil)
	}
	for k, x := range o.ops {
		m := o.moved[k][:0]
		for range x.open {
			m = append(m, 0)
		}
		o.moved[k] = m
	}
	nops := len(o.ops)
	o.latePushed = 0
	for j := 0; j <= len(o.cutWm); j++ {
		for k, x := range o.ops {
			lim := int64(math.MaxInt64)
			if j < len(o.cutWm) {
				lim = o.cutSeq[j*nops+k]
			}
			if err := ao.ops[k].mergeFrom(x, lim, o.moved[k]); err != nil {
				return err
			}
		}
		if j < len(o.cutWm) {
			if err := o.pushLate(ctx, ao, o.cutRow[j]); err != nil {
				return err
			}
			v := o.cutWm[j]
			if set && wm > v {
				v = wm
			}
			if err := ao.fireAll(ctx, flow.Port{}, v, false); err != nil {
				return err
			}
		}
	}
	if err := o.pushLate(ctx, ao, math.MaxInt32); err != nil {
		return err
	}
	ao.row = max(ao.row, o.rowEnd) // (firstAt of the chunk's groups; the next chunk's rows come after)
	for k, x := range o.ops {
		ao.ops[k].seq = max(ao.ops[k].seq, x.seq)
		ao.ops[k].rowsIn += x.rowsIn // (x is reset when a worker starts the next chunk in o)
	}
	return nil
}

// pushLate pushes the chunk's late rows not pushed yet up to the chunk's row
// upTo (included) through ao's downstream, to their late outputs, as the
// aggregate routes them (SPEC 2.4, and SPEC 4: in row order between the other
// outputs' rows).
func (o *ChunkAgg) pushLate(ctx context.Context, ao *Operator, upTo int32) error {
	from, to := o.latePushed, o.latePushed
	for to < len(o.lateRow) && o.lateRow[to] <= upTo {
		to++
	}
	if to == from {
		return nil
	}
	for k := range o.lateSel {
		o.lateSel[k] = o.lateSel[k][:0]
	}
	for i := from; i < to; i++ {
		a := ao.ops[o.lateOp[i]]
		o.lateSel[a.lateIdx] = append(o.lateSel[a.lateIdx], int32(i))
	}
	o.lateParts = o.lateParts[:0]
	for _, out := range o.branchOut { // the branches' parts: no rows (their rows are the aggregates')
		o.lateParts = append(o.lateParts, flow.Part{Output: out})
	}
	for _, a := range ao.ops {
		if a.lateIdx >= 0 {
			o.lateParts = append(o.lateParts, flow.Part{Output: a.a.LateOutput, Sel: o.lateSel[a.lateIdx], Cols: o.late.Cols[:ao.ncols]})
		}
	}
	o.lateOut = flow.Step{N: to, Parts: o.lateParts, In: o.late, Errors: flow.ErrorPort{Name: ao.out.Errors.Name}}
	o.latePushed = to
	return ao.down.Push(ctx, flow.Port{}, &o.lateOut)
}

// mergeFrom moves into o the groups of the partial aggregate x whose first
// row is at or before lim (an arrival number) and that were not moved yet
// (moved: per window of x, in x.open's order, its groups moved so far), in
// x's window order and, within a window, in first-row order. A group o
// already has gets x's accumulators merged in (agg.State.Merge: exact); a new
// one takes them over. The state is charged as it grows ('state.max-bytes').
func (o *aggOp) mergeFrom(x *aggPartial, lim int64, moved []int) error {
	for wi, pws := range x.open {
		c, gs := moved[wi], pws.groups
		if c >= len(gs) || gs[c].first > lim {
			continue
		}
		ws := o.byWin[pws.win]
		if ws == nil {
			ws = o.openWindow(pws.win, "")
			o.byWin[pws.win] = ws
		}
		for ; c < len(gs) && gs[c].first <= lim; c++ {
			pg := gs[c]
			if h := o.lookup(ws, pg.hash, pg.keyb); h != nil {
				var grew int64
				for s := range h.states {
					grew -= h.states[s].Bytes()
				}
				o.lay.Merge(o.specs, h.states, pg.states)
				for s := range h.states {
					grew += h.states[s].Bytes()
				}
				if err := o.grow(grew); err != nil {
					return err
				}
				continue
			}
			o.keyBuf = append(o.keyBuf[:0], pg.keyb...)
			h := o.newGroup(pg.hash)
			h.first, h.firstAt = pg.first, pg.firstAt
			h.states, pg.states = pg.states, h.states
			o.insert(ws, h)
			n := o.groupBytes(len(h.keyb))
			for s := range h.states {
				n += h.states[s].Bytes()
			}
			if err := o.grow(n); err != nil {
				return err
			}
		}
		moved[wi] = c
	}
	return nil
}

// aggPartial is a partial of the parallel aggregate: the aggregate of a
// branch over one chunk's rows (charged to a budget without limit), whose
// rows are added to their groups' accumulators per batch (addBatch), and
// which the job's aggregate merges (aggOp.mergeFrom) instead of firing.
type aggPartial struct {
	*aggOp
	pend pending
}

// pending is what a partial's batch adds (aggOp.addTo, tumbleRun): each row's
// group's accumulators, its row in the batch and its arrival number.
type pending struct {
	states [][]agg.State
	rows   []int32
	seqs   []int64
}

// newAggPartial returns an empty partial of branch br's aggregate, charged
// to budget, its expressions compiled in the job's context exprs.
func newAggPartial(br *plan.Branch, budget *state.Budget, exprs *expr.Context) *aggPartial {
	x := &aggPartial{aggOp: buildAggOp(br, budget, exprs)}
	x.pend = pending{states: make([][]agg.State, 0, vector.Cap), rows: make([]int32, 0, vector.Cap), seqs: make([]int64, 0, vector.Cap)}
	x.aggOp.pend = &x.pend
	return x
}

// addBatch adds the rows addTo kept (pend) to their groups' accumulators,
// call by call (agg.AddBatch: one path for all the rows).
func (x *aggPartial) addBatch() {
	p := &x.pend
	if len(p.rows) == 0 {
		return
	}
	var grew int64
	for c, op := range x.callOps {
		grew += agg.AddBatch(op, &x.a.Calls[c].Spec, x.args[c], x.lay.At(c), p.states, p.rows, p.seqs)
	}
	clear(p.states) // (the groups' states stay theirs)
	p.states, p.rows, p.seqs = p.states[:0], p.rows[:0], p.seqs[:0]
	x.grow(grew) // the partials' budget has no limit
}

// resetPartial empties the partial for the next chunk, keeping its memory.
func (x *aggPartial) resetPartial() {
	o := x.aggOp
	o.release(o.open)
	clear(o.open)
	o.open = o.open[:0]
	clear(o.byWin)
	o.minEnd = math.MaxInt64
	o.acct.Grow(-o.bytes)
	o.bytes, o.rowsIn = 0, 0
	p := &x.pend
	clear(p.states)
	p.states, p.rows, p.seqs = p.states[:0], p.rows[:0], p.seqs[:0]
}
