package executor

import (
	"math"
	"slices"

	"streamql/catalog"
	"streamql/executor/vector"
	"streamql/executor/window"
	"streamql/planner/plan"
)

// The updating aggregate (SPEC 2.8): GROUP BY without a window, or a global
// aggregate, over an unbounded stream or an updating relation. It keeps the
// groups and accumulators of the aggregate operator's pseudo-window (never the
// rows) and, instead of one row per group at the stream's end, emits each
// change of a group as it happens, as Flink's GroupAggFunction does:
//
//   - a group's first row: +I with its new result;
//   - a row that changes a group: -U with the old result, +U with the new;
//     nothing when the result stays the same (Flink compares them too);
//   - a retraction (-U or -D input row, from a regular outer join) that
//     leaves a group no row: -D with its old result; a retraction of a group
//     that holds no row is ignored, as Flink ignores it.
//
// Accumulators retract (executor/agg's State.Retract): counts and sums
// exactly, MIN, MAX, FIRST_VALUE, LAST_VALUE, LISTAGG and COUNT(DISTINCT)
// by keeping their values (the planner marks their specs Retracting). HAVING and the select
// list apply to both rows of a change, so a change whose old row fails HAVING
// gives +U alone and one whose new row fails gives -U alone: applying the
// changelog still gives the materialized result of SPEC 2.4's GROUP BY.
//
// By default every input row gives its change (Flink's default), right after
// that row in the output order (a Chunk at the row). With mini-batch
// ('table.exec.mini-batch.enabled', plan.Aggregate.MiniBatch) each input
// batch's changes are folded per group: one -U (the row before the batch)
// and +U (the row after it), or +I or -D, at the batch's end, groups in the
// order the batch first touched them.
//
// The changes of a batch are written into the aggregate row batch (aggOp.row)
// and projected together, so a change costs no allocation once the buffers
// have grown.

// updState is one updating aggregate's changes under construction.
type updState struct {
	kinds []vector.RowKind // per row of aggOp.row
	at    []int32          // per row of aggOp.row: the input rows before it (Chunk.At)
	n     int              // rows written in aggOp.row
	mini  bool
	batch int64         // the batch number (mini-batch marks)
	touch []*aggGroup   // mini-batch: the groups the batch touched, in first-touch order
	pre   *vector.Batch // mini-batch: each touched group's row before the batch
	npre  int
}

func newUpdState(a *plan.Aggregate) *updState {
	u := &updState{kinds: make([]vector.RowKind, vector.Cap), at: make([]int32, vector.Cap), mini: a.MiniBatch, batch: 1} // (a new group's mark is 0)
	if u.mini {
		u.pre = vector.NewBatch(a.RowTypes)
	}
	return u
}

// change applies input row i of b (taken by o's branch) to its group, adding
// or retracting by the row's kind, and writes the change it makes (change's
// doc above).
func (ao *aggOperator) change(o *aggOp, b *vector.Batch, i int) error {
	u := o.upd
	o.seq++
	o.rowAt = ao.row
	g, err := o.groupFor(o.pseudo(), i)
	if err != nil {
		return err
	}
	retract := b.KindAt(i).Retracts()
	if retract && g.live == 0 {
		return nil // nothing to take back (Flink: "retract a non-existent record")
	}
	had := g.live > 0
	if u.mini {
		if g.mark != u.batch {
			g.mark, g.had = u.batch, had
			if had {
				o.writeRow(u.n, window.Win{}, g) // (scratch: copied to pre)
				copyRow(u.pre, u.npre, o.row, u.n)
				g.pre = int32(u.npre)
				u.npre++
			}
			u.touch = append(u.touch, g)
		}
		return o.accumulate(g, i, retract)
	}
	if u.n+2 > vector.Cap {
		ao.flushOp(o)
	}
	old := -1
	if had {
		old = u.n
		o.writeRow(old, window.Win{}, g)
		ownStrings(o.row, old, o.a.CallBase)
	}
	if err := o.accumulate(g, i, retract); err != nil {
		return err
	}
	u.emit(o, g, old, int32(i+1))
	return nil
}

// accumulate adds (or, when retract, takes back) row i of the batch o
// prepared in g's accumulators, charging what they grow.
func (o *aggOp) accumulate(g *aggGroup, i int, retract bool) error {
	var grew int64
	if retract {
		g.live--
		for c := range o.a.Calls {
			grew += g.states[c].Retract(&o.a.Calls[c].Spec, o.args[c], i)
		}
	} else {
		g.live++
		for c, op := range o.callOps {
			grew += g.states[c].AddOp(op, &o.a.Calls[c].Spec, o.args[c], i, o.seq)
		}
	}
	if grew != 0 { // (negative: kept values taken back)
		return o.grow(grew)
	}
	return nil
}

// emit writes g's change after an update into aggOp.row at u.n: old is the
// row of g's result before it (-1 when g held no row); the change goes at
// input position at.
func (u *updState) emit(o *aggOp, g *aggGroup, old int, at int32) {
	switch {
	case old < 0 && g.live > 0:
		o.writeRow(u.n, window.Win{}, g)
		ownStrings(o.row, u.n, o.a.CallBase)
		u.kinds[u.n], u.at[u.n] = vector.Insert, at
		u.n++
	case old >= 0 && g.live == 0:
		u.kinds[old], u.at[old] = vector.Delete, at
		u.n = old + 1
	case old >= 0:
		o.writeRow(old+1, window.Win{}, g)
		if sameRow(o.row, old, old+1) {
			u.n = old // no change (Flink emits none)
			return
		}
		ownStrings(o.row, old+1, o.a.CallBase)
		u.kinds[old], u.at[old] = vector.UpdateBefore, at
		u.kinds[old+1], u.at[old+1] = vector.UpdateAfter, at
		u.n = old + 2
	}
}

// flushChanges writes the changes of every updating aggregate of the batch
// (with mini-batch, folds them first), n being the batch's input rows, and
// keeps the batch's chunks in output order.
func (ao *aggOperator) flushChanges(n int) {
	any := false
	for _, o := range ao.ops {
		u := o.upd
		if u == nil {
			continue
		}
		any = true
		if u.mini {
			for _, g := range u.touch {
				if u.n+2 > vector.Cap {
					ao.flushOp(o)
				}
				old := -1
				if g.had {
					old = u.n
					copyRow(o.row, old, u.pre, int(g.pre))
				}
				u.emit(o, g, old, int32(n))
			}
			clear(u.touch)
			u.touch, u.npre = u.touch[:0], 0
			for _, c := range u.pre.Cols {
				c.ResetArena()
			}
			u.batch++
		}
		ao.flushOp(o)
	}
	if any && !slices.IsSortedFunc(ao.chunks, func(x, y Chunk) int { return x.At - y.At }) {
		slices.SortStableFunc(ao.chunks, func(x, y Chunk) int { return x.At - y.At })
	}
}

// flushOp projects o's changes written so far (HAVING applied) and adds
// them to the batch's chunks, one per input position, with their kinds.
func (ao *aggOperator) flushOp(o *aggOp) {
	u := o.upd
	if u.n == 0 {
		return
	}
	part, got := o.chunk(u.n, -1)
	o.rowsOut += got
	if got > 0 {
		dst := o.bufs[o.used-1]
		if dst.Kinds == nil {
			dst.Kinds = make([]vector.RowKind, vector.Cap)
		}
		for k, r := range o.sel {
			dst.Kinds[k] = u.kinds[r]
		}
		part.Kinds = dst.Kinds
		sel := part.Sel
		for a := 0; a < len(sel); {
			e := a + 1
			for e < len(sel) && u.at[o.sel[e]] == u.at[o.sel[a]] {
				e++
			}
			p := part
			p.Sel = sel[a:e:e]
			ao.chunks = append(ao.chunks, Chunk{At: int(u.at[o.sel[a]]), Part: p})
			a = e
		}
	}
	u.n = 0
	for _, c := range o.row.Cols {
		c.ResetArena()
	}
}

// sameRow reports whether rows i and j of b hold the same values (DOUBLEs
// bit for bit, so a change of sign of zero or of NaN's bits is a change).
func sameRow(b *vector.Batch, i, j int) bool {
	for _, v := range b.Cols {
		if v.Null[i] != v.Null[j] {
			return false
		}
		if v.Null[i] {
			continue
		}
		switch v.Type {
		case catalog.BigInt, catalog.Timestamp:
			if v.I[i] != v.I[j] {
				return false
			}
		case catalog.Double:
			if math.Float64bits(v.F[i]) != math.Float64bits(v.F[j]) {
				return false
			}
		case catalog.Boolean:
			if v.B[i] != v.B[j] {
				return false
			}
		case catalog.Varchar:
			if string(v.S[i]) != string(v.S[j]) {
				return false
			}
		}
	}
	return true
}

// copyRow copies row j of src into row i of dst (same layout), strings into
// dst's arenas.
func copyRow(dst *vector.Batch, i int, src *vector.Batch, j int) {
	for c, s := range src.Cols {
		copyValue(dst.Cols[c], i, s, j)
	}
	dst.N = max(dst.N, i+1)
}

// ownStrings copies row i's VARCHAR values of b's columns from on into b's
// own arenas, so they outlive the accumulators they point into (MIN, MAX,
// FIRST_VALUE and LAST_VALUE of VARCHAR overwrite their value in place).
func ownStrings(b *vector.Batch, i, from int) {
	for _, v := range b.Cols[from:] {
		if v.Type == catalog.Varchar && !v.Null[i] {
			v.SetString(i, v.S[i])
		}
	}
}
