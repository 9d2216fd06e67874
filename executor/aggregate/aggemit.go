// The aggregate's emitter: a fired group as a row (writeRow), HAVING and the
// projection into output chunks (chunk), and the firing of due windows in
// SPEC 2.4's order across the aggregates of a step (fireStep, fireAll,
// emitMerged).

package aggregate

import (
	"cmp"
	"context"
	"slices"

	"streamql/executor/agg"
	"streamql/executor/flow"
	"streamql/executor/vector"
	"streamql/executor/window"
)

// writeRow writes group g of window win as row n of o.row.
func (o *aggOp) writeRow(n int, win window.Win, g *aggGroup) {
	o.writeRowTo(o.row, n, win, g)
}

// writeRowTo writes group g of window win as row n of dst, a batch of the
// aggregate row's layout (o.row's); VARCHAR results point into the
// accumulators (ownStrings copies them).
func (o *aggOp) writeRowTo(dst *vector.Batch, n int, win window.Win, g *aggGroup) {
	a := o.a
	cols := dst.Cols
	if a.Window != nil {
		for k, v := range [3]int64{win.Start, win.End, win.End - 1} {
			cols[k].I[n], cols[k].Null[n] = v, false
		}
	}
	if len(a.Keys) == 1 {
		agg.KeyTo(cols[a.KeyBase], n, a.Keys[0].Type, g.keyb)
	} else {
		rest := g.keyb
		for k := range a.Keys {
			var key []byte
			key, rest = agg.NextFramed(rest)
			agg.KeyTo(cols[a.KeyBase+k], n, a.Keys[k].Type, key)
		}
	}
	for k := range a.Calls {
		o.lay.Result(g.states, k, &a.Calls[k].Spec, cols[a.CallBase+k], n)
	}
	dst.N = n + 1
}

// chunk projects the first n rows of o.row (HAVING applied) into the next of o's chunk buffers, which the chunk's Part
// points at until the next batch, and returns it with its number of rows.
func (o *aggOp) chunk(n int) (flow.Part, int64) {
	sel := o.keep(n)
	if len(sel) == 0 {
		return flow.Part{}, 0
	}
	if o.used == len(o.bufs) {
		o.bufs = append(o.bufs, vector.NewBatch(o.outTypes))
		o.bufSel = append(o.bufSel, make([]int32, 0, vector.Cap))
	}
	dst := o.bufs[o.used]
	dsel := o.bufSel[o.used][:0]
	o.used++
	dst.Reset()
	for c, e := range o.projK {
		dst.Cols[c].CopyRows(e.Eval(o.row, sel), sel)
	}
	for k := range sel {
		dsel = append(dsel, int32(k))
	}
	dst.N = len(sel)
	return flow.Part{Output: o.br.Output, Sel: dsel, Cols: dst.Cols}, int64(len(sel))
}

// chunkPacked is chunk for the rows of a window TVF without aggregation,
// made a few per input row (one per window of the row): consecutive chunks
// share one buffer batch, each with its own range of its rows as Sel, and a
// new buffer is taken only when the current one is full. With chunk's one
// buffer of vector.Cap rows per chunk, a batch of 1,024 input rows took
// 1,024 buffers (a window join of two 20,000-row streams peaked at 107 MB
// RSS under a 64 KiB 'state.max-bytes', 30 MB without the TVFs). The chunks
// and their rows are the same as chunk's.
func (o *aggOp) chunkPacked(n int) (flow.Part, int64) {
	sel := o.keep(n)
	if len(sel) == 0 {
		return flow.Part{}, 0
	}
	if o.used == 0 || o.packedIn != o.used || o.packedN+len(sel) > vector.Cap {
		if o.used == len(o.bufs) {
			o.bufs = append(o.bufs, vector.NewBatch(o.outTypes))
			o.bufSel = append(o.bufSel, make([]int32, 0, vector.Cap))
		}
		o.bufs[o.used].Reset()
		o.used++
		o.packedIn, o.packedN = o.used, 0
	}
	dst := o.bufs[o.used-1]
	base := o.packedN
	for c, e := range o.projK {
		v := e.Eval(o.row, sel)
		for k, j := range sel {
			dst.Cols[c].SetFrom(base+k, v, int(j))
		}
	}
	idx := o.bufSel[o.used-1][:vector.Cap]
	for k := range sel {
		idx[base+k] = int32(base + k)
	}
	o.packedN += len(sel)
	dst.N = o.packedN
	return flow.Part{Output: o.br.Output, Sel: idx[base:o.packedN:o.packedN], Cols: dst.Cols}, int64(len(sel))
}

// keep returns, in o.sel, the rows among the first n of o.row that HAVING
// keeps (all of them without one).
func (o *aggOp) keep(n int) []int32 {
	sel := o.sel[:0]
	for i := 0; i < n; i++ {
		sel = append(sel, int32(i))
	}
	if h := o.havingK; h != nil {
		v := h.Eval(o.row, sel)
		kept := sel[:0]
		for _, i := range sel {
			if v.B[i] && !v.Null[i] {
				kept = append(kept, i)
			}
		}
		sel = kept
	}
	o.sel = sel
	return sel
}

// firing is one aggregate's share of a firing step (fireAll): the windows it
// fired and those of them it emits.
type firing struct {
	o              *aggOp
	fired, emitted []*winState
}

// fireItem is one group to emit in a firing whose windows are out of order
// (emitMerged sorts them): its aggregate (an index into Operator.fire),
// window and group.
type fireItem struct {
	op  int
	win window.Win
	g   *aggGroup
}

// fireStep fires, as one step, the windows a watermark of wm makes due in
// every aggregate (all: every open one, and the GROUP BY and global
// aggregates' rows, at the stream's end), their rows as chunks at ao.at1, in
// SPEC 2.4's order across the aggregates (emitMerged). It returns ao.stop: a
// flush (flushMain) ended the job in the step, or failed.
func (ao *Operator) fireStep(ctx context.Context, port flow.Port, wm int64, all bool) error {
	due := ao.fire[:0]
	for _, o := range ao.ops {
		if !all && !o.due(wm) || all && !o.a.Grouped || o.upd != nil { // (an updating aggregate emitted its changes already)
			continue
		}
		if fired, emitted, ok := o.take(wm, all); ok {
			due = append(due, firing{o, fired, emitted})
		}
	}
	ao.fire = due
	ao.emitMerged(ctx, port, due)
	for k := range due {
		due[k].o.finish(due[k].fired)
		due[k] = firing{}
	}
	return ao.stop
}

// emitRows turns the n aggregate (or windowed) rows in o.row into a Chunk at
// ao.at1, HAVING applied; the main query's rows are pushed on at once with
// flushMain, and a firing outside a batch (fireAll: the stream's end, the
// parallel aggregate's steps) pushes its chunks on every fireChunks of them,
// so that its rows out are never all made at once (issue 26 item 4: a GROUP
// BY's 77,000 rows at the end of q17 took 12 MB of chunk buffers beside its
// groups). It reports whether the operator stops (ao.stop: the LIMIT ended
// the job there, or the push failed).
func (ao *Operator) emitRows(ctx context.Context, port flow.Port, o *aggOp, n int) bool {
	var part flow.Part
	var got int64
	if o.a.Grouped {
		part, got = o.chunk(n)
	} else {
		part, got = o.chunkPacked(n)
	}
	o.rowsOut += got
	if got > 0 {
		ao.chunks = append(ao.chunks, flow.Chunk{At: ao.at1, Part: part})
		if o == ao.main && ao.flushMain || !ao.inBatch && len(ao.chunks) >= fireChunks {
			ao.flush(ctx, port)
		}
	}
	return ao.stop != nil
}

// fireChunks is the most chunks (of up to vector.Cap rows) a firing outside
// a batch holds before it pushes them on (emitRows).
const fireChunks = 4

// flush pushes on, at once, what the operator holds up to the chunks made so
// far (flushMain): in Push, the batch's rows before ao.at1 with their
// malformed rows, late rows and chunks (pushBefore); in fireAll, the chunks.
// An error (the LIMIT's end, errLimitReached, or a failure) is kept in ao.stop.
func (ao *Operator) flush(ctx context.Context, port flow.Port) {
	if ao.inBatch {
		ao.stop = ao.pushBefore(ctx, port, ao.at1, ao.at1-1)
		return
	}
	ao.stop = ao.pushFired(ctx, port)
}

// pushFired pushes the chunks made so far as a batch of chunks alone, and
// starts the next ones in the chunk buffers again.
func (ao *Operator) pushFired(ctx context.Context, port flow.Port) error {
	for _, o := range ao.ops {
		if o.rep != nil {
			o.rep.Changed() // the fired windows left the state: torn until their rows reach the sinks (the executor's replay.go)
		}
	}
	ao.fired = flow.Step{Chunks: ao.chunks, Errors: flow.ErrorPort{Name: ao.out.Errors.Name}} // (reused: the parallel aggregate fires here all along, partial.go)
	err := ao.down.Push(ctx, port, &ao.fired)
	ao.chunks = ao.chunks[:0]
	for _, o := range ao.ops {
		o.used = 0
	}
	return err
}

// fireAll fires the due windows of every operator (all of them when all) and
// pushes their rows as a batch of chunks alone.
func (ao *Operator) fireAll(ctx context.Context, port flow.Port, wm int64, all bool) error {
	ao.chunks = ao.chunks[:0]
	ao.at1, ao.inBatch, ao.stop = 0, false, nil
	for _, o := range ao.ops {
		o.used = 0
	}
	if err := ao.fireStep(ctx, port, wm, all); err != nil {
		return err
	}
	if len(ao.chunks) == 0 {
		return nil
	}
	return ao.pushFired(ctx, port)
}

// emitMerged emits the windows the aggregates fire in one step (SPEC 2.4):
// query by query in declaration order (side branches, then the main query:
// due is in ao.ops' order), each ordered by window_end, then window_start,
// then the first row of each group in its window (firstAt), each run of one
// aggregate's groups as one chunk of its rows; it stops where a flush stopped
// the operator (the main query's LIMIT, which so leaves the side rows of the
// step emitted).
func (ao *Operator) emitMerged(ctx context.Context, port flow.Port, due []firing) {
	sorted := true // (each aggregate's windows by end and start, each's groups in first-row order)
	for _, f := range due {
		for k := 1; sorted && k < len(f.emitted); k++ {
			sorted = f.emitted[k].win != f.emitted[k-1].win // (sessions of several keys may share bounds)
		}
	}
	n, cur := 0, -1
	flush := func() bool {
		if n == 0 {
			return false
		}
		o := due[cur].o
		stop := ao.emitRows(ctx, port, o, n)
		for _, c := range o.row.Cols {
			c.ResetArena()
		}
		n = 0
		return stop
	}
	// emit writes group g of window win of due[k] as the next row; false:
	// the operator stops
	emit := func(k int, win window.Win, g *aggGroup) bool {
		if k != cur {
			if flush() {
				return false
			}
			cur = k
		}
		due[cur].o.writeRow(n, win, g)
		n++
		return n < vector.Cap || !flush()
	}
	if sorted { // (in order already: no list of every group fired, issue 26 item 4)
	out:
		for k, f := range due {
			for _, ws := range f.emitted {
				for _, g := range ws.groups {
					if !emit(k, ws.win, g) {
						break out
					}
				}
			}
		}
		flush()
		return
	}
	items := ao.fireItems[:0]
	for k, f := range due {
		for _, ws := range f.emitted {
			for _, g := range ws.groups {
				items = append(items, fireItem{k, ws.win, g})
			}
		}
	}
	ao.sortItems(items)
	for _, it := range items {
		if !emit(it.op, it.win, it.g) {
			break
		}
	}
	flush()
	clear(items)
	ao.fireItems = items[:0]
}

// sortItems orders a firing's groups query by query (the aggregates in
// declaration order), then by window_end, window_start and first row (SPEC
// 2.4), stably.
func (ao *Operator) sortItems(items []fireItem) {
	slices.SortStableFunc(items, func(x, y fireItem) int {
		if c := cmp.Compare(x.op, y.op); c != 0 {
			return c
		}
		if c := cmp.Compare(x.win.End, y.win.End); c != 0 {
			return c
		}
		if c := cmp.Compare(x.win.Start, y.win.Start); c != 0 {
			return c
		}
		return cmp.Compare(x.g.firstAt, y.g.firstAt)
	})
}
