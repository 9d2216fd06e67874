package aggregate

import (
	"encoding/binary"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"time"

	"streamql/catalog"
	"streamql/executor/connector"
	"streamql/executor/flow"
	"streamql/executor/op"
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
	touch []*aggGroup   // mini-batch: the groups the batch touched (aggGroup.mark), in first-touch order
	pre   *vector.Batch // mini-batch: each touched group's row before the batch
	npre  int
	ttl   ttlState
	// idx finds the group of a single BIGINT, TIMESTAMP or VARCHAR key
	// that is not NULL (groupIndex: a flat typed table, where the window's
	// index is a Go map keyed by the key's bytes); nil for other keys.
	// Every such group of the pseudo-window is in it (updGroup, sweep,
	// reindexUpd), and the group of the NULL key is null: the window's map
	// (winState.index) holds none of them (aggOp.insert; issue 26 item 4:
	// one index per group, not two).
	idx  *groupIndex
	null *aggGroup
	// found holds, per row of the input batch the aggregate takes, the
	// group idx had for it before the batch's first change (prefind; nil:
	// none yet, found by updGroup then)
	found []*aggGroup
	warm  int64 // prefind's reads of the groups (kept, so the loads stay)
}

// prefind looks up, before the batch's changes, the groups of the rows
// taken that are in idx already, so that their loads from memory overlap
// (one lookup does not wait for the change of the row before: issue 24's
// profile, where a lookup and its group were two cache misses a row). It
// makes no group: updGroup finds or makes the others at their change, in
// order, with their state charges.
func (o *aggOp) prefind(taken []int32) {
	u := o.upd
	x := u.idx
	if x == nil {
		return
	}
	v := o.keys[0]
	for _, i := range taken { // (the index's slots first, then the groups: each pass's loads are independent of each other)
		var g *aggGroup
		if !v.Null[i] {
			if x.str {
				g = x.get(maphash.Bytes(x.seed, v.S[i]), v.S[i])
			} else {
				g = x.get(uint64(v.I[i]), nil)
			}
		}
		u.found[i] = g
	}
	var warm int64
	for _, i := range taken {
		if g := u.found[i]; g != nil { // (the group's hot fields and first accumulator: its two cache lines)
			warm += g.live + int64(g.hash)
			if len(g.states) > 0 {
				warm += g.states[0].Count()
			}
		}
	}
	u.warm += warm
}

// updGroup returns row i's group (groupFor), through the typed index for
// a single BIGINT, TIMESTAMP or VARCHAR key.
func (o *aggOp) updGroup(i int) (*aggGroup, error) {
	x := o.upd.idx
	if x == nil {
		return o.groupFor(o.pseudo(), i)
	}
	v := o.keys[0]
	if v.Null[i] {
		if g := o.upd.null; g != nil {
			if o.rep != nil && o.fromOther(g) {
				o.heldOther(g)
			}
			return g, nil
		}
		g, err := o.groupFor(o.pseudo(), i)
		o.upd.null = g
		return g, err
	}
	var k uint64
	var s []byte
	if x.str {
		s = v.S[i]
		k = maphash.Bytes(x.seed, s)
	} else {
		k = uint64(v.I[i])
	}
	if g := x.get(k, s); g != nil {
		if o.rep != nil && o.fromOther(g) {
			o.heldOther(g)
		}
		return g, nil
	}
	g, err := o.groupFor(o.pseudo(), i)
	if err != nil {
		x.put(k, g)
		return g, err
	}
	// the index's tables are charged as they grow (groupBytes counts no
	// slot of them); a flat table's doubling is checked against the limit
	// before it is made, with the old table live beside it while it fills
	pre := int64(x.Doubles()) * op.FlatSlotBytes
	if pre > 0 {
		if err := o.grow(pre); err != nil {
			return g, err // (g is left out of the index: the job stops)
		}
	}
	before := x.bytes()
	x.put(k, g)
	if d := x.bytes() - before - pre; d != 0 {
		err = o.grow(d)
	}
	return g, err
}

// reindexUpd rebuilds the typed index of an updating aggregate (and its
// group of the NULL key) from its groups (after groups were freed: a TTL
// sweep, a Kafka replay's drop).
func (o *aggOp) reindexUpd() {
	u := o.upd
	if u == nil || u.idx == nil {
		return
	}
	x := u.idx
	x.reset()
	u.null = nil
	for _, ws := range o.open {
		for _, g := range ws.groups {
			if k := g.keyb; len(k) == 0 || k[0] == 0 {
				u.null = g
			} else { // (agg.Key's bytes: the NULL tag, then the value)
				if x.str {
					x.put(maphash.Bytes(x.seed, k[1:]), g)
				} else {
					x.put(binary.BigEndian.Uint64(k[1:]), g)
				}
			}
		}
	}
}

// groupIndex is an updating aggregate's index of its groups by a single
// BIGINT, TIMESTAMP or VARCHAR key that is not NULL (op.FlatIndex): the key
// word is the BIGINT's value, or the VARCHAR's seeded maphash (its bytes
// compared then). While every BIGINT key is small and non-negative (below
// denseFree, or in a table at least an eighth full: ids, buckets such as
// issue 24's ts % 10000) the groups are found in a table by the key itself
// (dense) instead: one load of 8 bytes a row, no hash, no probe, in a
// table a fraction of the flat one's size; the first key outside it moves
// them to the flat index for good. The groups freed (state TTL, a replay's
// drop) are taken out by rebuilding it (reset, reindexUpd). Like the Go map
// it replaced, it is charged to 'state.max-bytes' as its tables grow
// (bytes; updGroup), and groupBytes counts no entry of it.
type groupIndex struct {
	*op.FlatIndex[aggGroup]
	str  bool // VARCHAR
	seed maphash.Seed
	// dense holds the groups by key while isDense (BIGINT and TIMESTAMP
	// keys only); n counts them
	dense   []*aggGroup
	isDense bool
	n       int
}

// denseFree is the size of the dense table (pointers) that any number of
// groups may use; past it the table stays at least an eighth full.
const denseFree = 1 << 14

func newGroupIndex(str bool) *groupIndex {
	seed := maphash.MakeSeed()
	return &groupIndex{FlatIndex: op.NewFlatIndex[aggGroup](str, maphash.Comparable(seed, 0)), str: str, seed: seed, isDense: !str}
}

// get returns the group of key word k (and, for VARCHAR, bytes s), nil when
// there is none.
func (x *groupIndex) get(k uint64, s []byte) *aggGroup {
	if x.isDense {
		if k < uint64(len(x.dense)) {
			return x.dense[k]
		}
		return nil
	}
	mask := x.Mask()
	for p := x.Home(k) & mask; ; p = (p + 1) & mask {
		w, g := x.Slot(p)
		if g == nil {
			return nil
		}
		if w == k && (!x.str || string(g.keyb[1:]) == string(s)) {
			return g
		}
	}
}

// put adds group g of key word k (not in x): to the dense table while the
// key fits it (growing it to a power of two), else to the flat index, the
// dense table's groups moved there first.
func (x *groupIndex) put(k uint64, g *aggGroup) {
	if x.isDense {
		if k < uint64(len(x.dense)) {
			x.dense[k] = g
			x.n++
			return
		}
		if size := max(64, 1<<bits.Len64(k)); k < 1<<62 && (size <= denseFree || size <= 8*(x.n+1)) {
			x.dense = append(x.dense, make([]*aggGroup, size-len(x.dense))...)
			x.dense[k] = g
			x.n++
			return
		}
		x.isDense = false
		for w, h := range x.dense {
			if h != nil {
				x.Put(uint64(w), h)
			}
		}
		x.dense, x.n = nil, 0
	}
	x.Put(k, g)
}

// bytes is the size of x's tables (the state updGroup charges for them).
func (x *groupIndex) bytes() int64 {
	return int64(x.Slots())*op.FlatSlotBytes + int64(len(x.dense))*8
}

// reset empties x, dense again for BIGINT and TIMESTAMP keys (its tables
// kept: bytes stays).
func (x *groupIndex) reset() {
	x.Reset()
	clear(x.dense)
	x.n, x.isDense = 0, !x.str
}

// ttlState is 'table.exec.state.ttl' of an updating aggregate (SPEC 2.8,
// plan.Aggregate.StateTTL): a group that has not changed while the clock
// advanced by ttl ms is dropped, without a change emitted, as Flink's state
// TTL drops it; a later row of its key starts it anew (+I), and a
// retraction of it is ignored. Flink's clock is processing time (a
// group's last access); with event time the clock here is the watermark, so
// the result does not depend on timing or batch sizes: a group's time is
// the watermark before the row that last changed it (for the rows before
// the first watermark, the first one the aggregate sees), a row finds its
// group expired when the watermark before it is ttl past that, and a sweep
// every ttl/2 of watermark frees the groups every later row would find
// expired. Without event time the clock is processing time, read once per
// input batch (procClock, injectable for tests) and shared by every
// aggregate of the operator, so that the branches' copies of one GROUP BY
// (plan.Job.Fanout) expire a group at the same row.
type ttlState struct {
	ttl      int64 // ms; 0: none
	event    bool  // the watermark is the clock
	proc     *procClock
	clock    int64 // the clock at the row being changed (event: math.MinInt64 before the first watermark)
	first    int64 // event: the first watermark seen (a group changed before it counts from it)
	hasFirst bool
	swept    int64
	hasSwept bool
}

// ttlNow is the processing-time clock of ttlState, epoch ms, unless
// Options.Now gives another.
func ttlNow() int64 { return time.Now().UnixMilli() }

// procClock is the processing-time clock of the updating aggregates of one
// Operator ('table.exec.state.ttl' without event time, SPEC 2.8): read once
// per input batch, by the first aggregate that changes a group in it, and
// that one reading is every aggregate's clock in the batch (Operator.New
// gives all of them one procClock). The copies of a relation's GROUP BY
// that the branches of a fanned-out job keep (plan.Job.Fanout, the
// planner's ruleFuseRankAggSides) then expire a group at the same row, as
// the relation's one aggregate would: each reading its own clock, they
// could disagree when it ticks between their readings.
type procClock struct {
	now  func() int64 // epoch ms
	at   int64        // the batch's reading
	read bool         // read for this batch
}

// reading returns the clock's reading for the batch being pushed, reading
// it first when no aggregate has yet.
func (c *procClock) reading() int64 {
	if !c.read {
		c.at, c.read = c.now(), true
	}
	return c.at
}

// noTime is a group's time before the first watermark.
const noTime = math.MinInt64

func newUpdState(a *plan.Aggregate, event bool) *updState {
	u := &updState{kinds: make([]vector.RowKind, vector.Cap), at: make([]int32, vector.Cap), mini: a.MiniBatch,
		found: make([]*aggGroup, vector.Cap)}
	if len(a.Keys) == 1 {
		switch a.Keys[0].Type {
		case catalog.BigInt, catalog.Timestamp:
			u.idx = newGroupIndex(false)
		case catalog.Varchar:
			u.idx = newGroupIndex(true)
		}
	}
	if u.mini {
		u.pre = vector.NewBatch(a.RowTypes)
	}
	u.ttl = ttlState{ttl: a.StateTTL.Milliseconds(), event: event, proc: &procClock{now: ttlNow}} // (the operator's, Operator.New)
	return u
}

// at sets the clock for a row whose CURRENT_WATERMARK is cw (cwSet false
// before the first) and returns it (noTime before the first watermark).
func (t *ttlState) at(cw int64, cwSet bool) int64 {
	switch {
	case !t.event:
		t.clock = t.proc.reading()
	case cwSet:
		t.clock = cw
		if !t.hasFirst {
			t.first, t.hasFirst = cw, true
		}
	default:
		t.clock = noTime
	}
	return t.clock
}

// expired reports whether a group last changed at touched has expired at
// the clock now.
func (t *ttlState) expired(touched, now int64) bool {
	if now == noTime {
		return false
	}
	if touched == noTime {
		if !t.hasFirst {
			return false
		}
		touched = t.first
	}
	return now >= touched && now-touched >= t.ttl
}

// change applies input row i of b (taken by o's branch; cw, cwSet its
// CURRENT_WATERMARK) to its group, adding or retracting by the row's kind,
// and writes the change it makes (change's doc above).
//
// With a Kafka group source's replay (o.rep, the executor's replay.go) a group notes the
// partition, offset and watermark of its first row, so the partition's hold
// frontier stays at the first row of it that made a group: the updating
// state is never complete, so it is rebuilt by reading the partition again
// from there (the connector package doc, "Updating operators"). A row read
// again below the partition's emitted frontier (I3) goes into its group
// only: its change is in committed outputs already.
func (ao *Operator) change(o *aggOp, b *vector.Batch, i int, cw int64, cwSet bool) error {
	u := o.upd
	o.seq++
	o.rowAt = ao.row
	replayed := false
	if o.rep != nil {
		o.rowPart, o.rowOff = connector.KafkaPartitionOf(b.Pos[i])
		o.rowCw, o.rowCwSet = cw, cwSet
		replayed = o.rep.Replayed(b.Pos[i])
	}
	g := u.found[i]
	if g == nil || u.idx == nil {
		var err error
		if g, err = o.updGroup(i); err != nil {
			return err
		}
	} else if o.rep != nil && o.fromOther(g) {
		o.heldOther(g)
	}
	if u.ttl.ttl > 0 {
		now := u.ttl.at(cw, cwSet)
		if g.live > 0 && u.ttl.expired(g.x().touched, now) {
			if u.mini && g.mark {
				// the batch changed it before: its folded change comes
				// out now, at the row, and the rest of the batch makes a
				// new group of the key
				ao.emitFolded(o, g, int32(i))
				g.had = false
			}
			o.expireGroup(g) // (Flink: its state expired; the row starts it anew)
		}
		o.extOf(g).touched = now
	}
	retract := b.KindAt(i).Retracts()
	if retract && g.live == 0 {
		return nil // nothing to take back (Flink: "retract a non-existent record")
	}
	if replayed {
		return o.accumulate(g, i, retract)
	}
	had := g.live > 0
	if u.mini {
		if !g.mark {
			g.mark, g.had = true, had
			if had {
				o.writeRowTo(u.pre, u.npre, window.Win{}, g)
				o.ownStrings(u.pre, u.npre)
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
		o.ownStrings(o.row, old)
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
			grew += o.lay.Retract(g.states, c, &o.a.Calls[c].Spec, o.args[c], i)
		}
	} else {
		g.live++
		for c, op := range o.callOps {
			grew += o.lay.Add(g.states, c, op, &o.a.Calls[c].Spec, o.args[c], i, o.seq)
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
		o.ownStrings(o.row, u.n)
		u.kinds[u.n], u.at[u.n] = vector.Insert, at
		u.n++
	case old >= 0 && g.live == 0:
		u.kinds[old], u.at[old] = vector.Delete, at
		u.n = old + 1
	case old >= 0:
		o.writeRow(old+1, window.Win{}, g)
		if sameRow(o.row, old, old+1, o.a.CallBase) { // (the keys are g's in both)
			u.n = old // no change (Flink emits none)
			return
		}
		o.ownStrings(o.row, old+1)
		u.kinds[old], u.at[old] = vector.UpdateBefore, at
		u.kinds[old+1], u.at[old+1] = vector.UpdateAfter, at
		u.n = old + 2
	}
}

// flushChanges writes the changes of every updating aggregate of the batch
// (with mini-batch, folds them first), n being the batch's input rows, and
// keeps the batch's chunks in output order.
func (ao *Operator) flushChanges(n int) {
	any := false
	for _, o := range ao.ops {
		u := o.upd
		if u == nil {
			continue
		}
		any = true
		if u.mini {
			for _, g := range u.touch {
				ao.emitFolded(o, g, int32(n))
				g.mark = false
			}
			clear(u.touch)
			u.touch, u.npre = u.touch[:0], 0
			for _, c := range u.pre.Cols {
				c.ResetArena()
			}
		}
		ao.flushOp(o)
		if u.ttl.ttl > 0 {
			o.sweep()
		}
	}
	if any && !slices.IsSortedFunc(ao.chunks, func(x, y flow.Chunk) int { return x.At - y.At }) {
		slices.SortStableFunc(ao.chunks, func(x, y flow.Chunk) int { return x.At - y.At })
	}
}

// emitFolded writes the mini-batch change of g folded so far (its row
// before the batch, kept in updState.pre, against its row now) at input
// position at.
func (ao *Operator) emitFolded(o *aggOp, g *aggGroup, at int32) {
	u := o.upd
	if u.n+2 > vector.Cap {
		ao.flushOp(o)
	}
	old := -1
	if g.had {
		old = u.n
		copyRow(o.row, old, u.pre, int(g.pre))
	}
	u.emit(o, g, old, at)
}

// flushOp projects o's changes written so far (HAVING applied) and adds
// them to the batch's chunks, one per input position, with their kinds.
func (ao *Operator) flushOp(o *aggOp) {
	u := o.upd
	if u.n == 0 {
		return
	}
	var part flow.Part
	var got int64
	if o.direct != nil {
		part, got = o.passChanges(u.n)
	} else {
		part, got = o.chunk(u.n)
		if got > 0 {
			dst := o.bufs[o.used-1]
			if dst.Kinds == nil {
				dst.Kinds = make([]vector.RowKind, vector.Cap)
			}
			for k, r := range o.sel {
				dst.Kinds[k] = u.kinds[r]
			}
			part.Kinds = dst.Kinds
		}
	}
	o.rowsOut += got
	if got > 0 {
		sel := part.Sel
		// the input position of the change at chunk row i: o.row's rows are
		// the chunk's (direct), or o.chunk copied the rows HAVING kept, o.sel,
		// to rows 0, 1, …
		at := func(i int32) int32 { return u.at[i] }
		if o.direct == nil {
			at = func(i int32) int32 { return u.at[o.sel[i]] }
		}
		if ao.oneChunk { // (nothing else in the batch: one chunk at the first change's place keeps the order)
			ao.chunks = append(ao.chunks, flow.Chunk{At: int(at(sel[0])), Part: part})
			sel = nil
		}
		for a := 0; a < len(sel); {
			e := a + 1
			for e < len(sel) && at(sel[e]) == at(sel[a]) {
				e++
			}
			p := part
			p.Sel = sel[a:e:e]
			ao.chunks = append(ao.chunks, flow.Chunk{At: int(at(sel[a])), Part: p})
			a = e
		}
	}
	u.n = 0
	for _, c := range o.row.Cols {
		c.ResetArena()
	}
}

// passChanges hands the first n rows of o.row (HAVING applied) on as they
// are, when the projection only picks columns of the aggregate row
// (aggOp.direct): the Part's columns are o.row's, its Sel the rows kept and
// its Kinds the changes' kinds (updState.kinds, indexed by row), and o.row
// and the kinds change places with the next of o's chunk buffers, which the
// Part points at until the next batch. It returns the Part and its number
// of rows; nothing is copied (where chunk copies each value).
func (o *aggOp) passChanges(n int) (flow.Part, int64) {
	sel := o.keep(n)
	if len(sel) == 0 {
		return flow.Part{}, 0
	}
	k := o.used
	if k == len(o.bufs) {
		o.bufs = append(o.bufs, vector.NewBatch(o.a.RowTypes))
		o.bufSel = append(o.bufSel, make([]int32, 0, vector.Cap))
		o.bufKinds = append(o.bufKinds, make([]vector.RowKind, vector.Cap))
		o.bufCols = append(o.bufCols, make([]*vector.Vec, len(o.direct)))
	}
	o.used++
	full, u := o.row, o.upd
	o.row, o.bufs[k] = o.bufs[k], full
	u.kinds, o.bufKinds[k] = o.bufKinds[k], u.kinds
	cols := o.bufCols[k]
	for c, j := range o.direct {
		cols[c] = full.Cols[j]
	}
	sel = append(o.bufSel[k][:0], sel...)
	return flow.Part{Output: o.br.Output, Sel: sel, Cols: cols, Kinds: o.bufKinds[k]}, int64(len(sel))
}

// directCols returns, for the projection project over an aggregate row of
// types row, each output column's column of the row when every expression
// is a column of it of the same type (aggOp.direct), else nil.
func directCols(project []*plan.Expr, row []catalog.Type) []int {
	cols := make([]int, len(project))
	for c, e := range project {
		if e.Op != plan.OpCol || e.Col < 0 || e.Col >= len(row) || e.Type != row[e.Col] {
			return nil
		}
		cols[c] = e.Col
	}
	return cols
}

// sameRow reports whether rows i and j of b hold the same values in the
// columns from on (DOUBLEs bit for bit, so a change of sign of zero or of
// NaN's bits is a change).
func sameRow(b *vector.Batch, i, j, from int) bool {
	for _, v := range b.Cols[from:] {
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

// copyRow copies row j of src into row i of dst (same layout, no source
// texts: aggregate rows), strings into dst's arenas; a BIGINT, TIMESTAMP or
// DOUBLE (a mini-batch's key and counts, emitFolded) by its word, without
// SetFrom's call per value.
func copyRow(dst *vector.Batch, i int, src *vector.Batch, j int) {
	for c, s := range src.Cols {
		d := dst.Cols[c]
		switch s.Type {
		case catalog.BigInt, catalog.Timestamp:
			d.I[i], d.Null[i] = s.I[j], s.Null[j]
		case catalog.Double:
			d.F[i], d.Null[i] = s.F[j], s.Null[j]
		default:
			d.SetFrom(i, s, j)
		}
	}
	dst.N = max(dst.N, i+1)
}

// ownStrings copies row i's VARCHAR aggregate values (o.strCalls) of b, a
// batch of the aggregate row's layout, into b's own arenas, so they
// outlive the accumulators they point into (MIN, MAX, FIRST_VALUE and
// LAST_VALUE of VARCHAR overwrite their value in place).
func (o *aggOp) ownStrings(b *vector.Batch, i int) {
	for _, c := range o.strCalls {
		if v := b.Cols[c]; !v.Null[i] {
			v.SetString(i, v.S[i])
		}
	}
}

// expireGroup empties g's accumulators ('table.exec.state.ttl': its state
// expired), releasing what they held; g stays in the window.
func (o *aggOp) expireGroup(g *aggGroup) {
	var freed int64
	for c := range g.states {
		freed += g.states[c].Bytes()
		g.states[c].Reset()
	}
	g.live = 0
	o.bytes -= freed
	_ = o.acct.Grow(-freed)
}

// sweep frees the groups expired at the clock ('table.exec.state.ttl',
// ttlState), once the clock has advanced by half the TTL since the last
// sweep; it ends the batch's clock reading.
func (o *aggOp) sweep() {
	t := &o.upd.ttl
	now := t.clock
	t.proc.read = false // (every aggregate changed its rows of the batch: flushChanges)
	if now == noTime || t.hasSwept && now-t.swept < t.ttl/2 || len(o.open) == 0 {
		return
	}
	t.swept, t.hasSwept = now, true
	ws := o.open[0]
	var freed int64
	gs := ws.groups[:0]
	for _, g := range ws.groups {
		if t.expired(g.x().touched, now) {
			freed += o.groupCost(g)
			o.freeGroups = append(o.freeGroups, g)
			continue
		}
		gs = append(gs, g)
	}
	if len(gs) == len(ws.groups) {
		return
	}
	ws.keepGroups(gs, !o.byIdx())
	o.reindexUpd()
	clear(o.cache[:])
	o.lastWs = nil
	freed = min(freed, o.bytes)
	o.bytes -= freed
	_ = o.acct.Grow(-freed)
}

// keepGroups makes gs (a prefix of ws.groups' backing array, the groups
// kept in order) ws's groups, and rebuilds the index over them when
// index (false: the aggregate's typed index finds them, aggOp.byIdx).
func (ws *winState) keepGroups(gs []*aggGroup, index bool) {
	clear(ws.groups[len(gs):])
	ws.groups = gs
	clear(ws.index)
	if index && len(gs) > smallWindow {
		for _, g := range gs {
			ws.index[g.keyString()] = g
		}
	}
}
