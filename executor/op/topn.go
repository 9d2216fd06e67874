package op

import (
	"context"
	"fmt"
	"hash/maphash"
	"slices"

	"streamql/catalog"
	"streamql/executor/vector"
)

// RankFunc is the ranking function of a Top-N (SPEC 2.9): ROW_NUMBER, RANK
// or DENSE_RANK.
type RankFunc uint8

// The ranking functions, as SQL names them.
const (
	RowNumber RankFunc = iota // 1, 2, 3, … whatever the ties (ties in arrival order)
	Rank                      // ties share a rank; the next rank skips (1, 1, 3)
	DenseRank                 // ties share a rank; the next does not skip (1, 1, 2)
)

// String returns the function's SQL name.
func (f RankFunc) String() string {
	switch f {
	case Rank:
		return "RANK"
	case DenseRank:
		return "DENSE_RANK"
	}
	return "ROW_NUMBER"
}

// ranking is the part of a Top-N that orders one partition's rows: a sorted
// list of stored rows whose rank is at most n (SPEC 2.9), ties in arrival
// order (or, with newerFirst, the newer row first: deduplication keeping the
// last row, as Flink's).
type ranking struct {
	ord        order
	n          int64
	fn         RankFunc
	newerFirst bool
}

// place returns where row i of b goes in list (sorted rows of rows), and
// whether its rank there is at most n.
func (rk *ranking) place(list []int32, rows *Rows, b *vector.Batch, i int) (int, bool) {
	if n := len(list); n > 0 && int64(n) >= rk.n && rk.fn != DenseRank { // a full list: most rows go after its last
		c := rk.ord.cmpIn(b, i, rows, int(list[n-1]))
		if c > 0 || c == 0 && rk.fn == RowNumber && !rk.newerFirst {
			return n, false
		}
	}
	lo, _ := slices.BinarySearchFunc(list, 0, func(k int32, _ int) int { // first row not below
		if rk.ord.cmpIn(b, i, rows, int(k)) > 0 {
			return -1
		}
		return 1
	})
	pos := lo
	if !rk.newerFirst {
		pos, _ = slices.BinarySearchFunc(list[lo:], 0, func(k int32, _ int) int { // first row above
			if rk.ord.cmpIn(b, i, rows, int(k)) >= 0 {
				return -1
			}
			return 1
		})
		pos += lo
	}
	switch rk.fn {
	case Rank:
		return pos, int64(lo)+1 <= rk.n
	case DenseRank:
		dense := int64(1) // 1 + the distinct values below the row
		for j := 0; j < lo; j++ {
			if j == 0 || rk.ord.cmp(rows, int(list[j-1]), int(list[j])) != 0 {
				dense++
			}
		}
		return pos, dense <= rk.n
	}
	return pos, int64(pos) < rk.n
}

// ranks writes the rank of each row of list into dst and returns it.
func (rk *ranking) ranks(list []int32, rows *Rows, dst []int64) []int64 {
	dst = dst[:0]
	var r int64
	for j, k := range list {
		switch {
		case j == 0:
			r = 1
		case rk.fn == RowNumber:
			r = int64(j) + 1
		case rk.ord.cmp(rows, int(list[j-1]), int(k)) != 0:
			if rk.fn == Rank {
				r = int64(j) + 1
			} else {
				r++
			}
		}
		dst = append(dst, r)
	}
	return dst
}

// cut returns how many rows of list (with their ranks) have a rank of at
// most n.
func (rk *ranking) cut(ranks []int64) int {
	n := len(ranks)
	for n > 0 && ranks[n-1] > rk.n {
		n--
	}
	return n
}

// TopNSpec describes a Top-N over an append-only input (SPEC 2.9): per
// partition (Keys, NULL one value), the rows ranked by Order whose rank by
// Func is at most N, as an updating relation.
type TopNSpec struct {
	Types []catalog.Type // the input's columns
	Keys  []int          // PARTITION BY columns (none: the whole stream)
	Order []SortKey      // ORDER BY
	N     int64          // the largest rank kept (rn <= N), at least 1
	Func  RankFunc
	// RankNumber adds the rank as a last BIGINT column; without it the
	// output has the input's columns only (Flink's no-ranking-number
	// optimisation: a row's rank changing is no change).
	RankNumber bool
	// NewerFirst ranks the newer of two rows equal in Order first
	// (deduplication keeping the last row: ORDER BY t DESC, rn = 1);
	// otherwise ties go in arrival order (SPEC 2.9).
	NewerFirst bool
	// TTL drops a partition untouched for TTL ms of processing time
	// ('table.exec.state.ttl', SPEC 2.8); 0 keeps state for ever. Now is
	// the clock in epoch ms (nil: the system's).
	TTL int64
	Now func() int64
}

// TopNOut is a Top-N's output port.
const TopNOut = 0

// TopN is the updating Top-N operator (SPEC 2.9, 2.8): each input row that
// enters a partition's top N emits the changes it makes, as Flink's
// append-only rank function does: with the rank column, one change per rank
// that changed (-U the old row and rank, +U the new; +I a rank that was
// empty, -D one that no longer is); without it, -D for each row that left
// the top N and +I for the new row. Its state is the top rows of each
// partition (a row that leaves never comes back: the input only inserts),
// charged to its Account. It has one input port (0).
type TopN struct {
	spec  TopNSpec
	rk    ranking
	out   Emitter
	acct  Account
	rows  liveRows
	parts map[string]*topPart
	order []*topPart // the partitions in the order of their first rows
	key   []byte
	ob    *outBatch
	old   []int32
	oldR  []int64
	newR  []int64
	clock ttlClock
	swept int64
	// boundCol is the first ORDER BY column when it is BIGINT, TIMESTAMP,
	// DOUBLE or BOOLEAN (its values are copied into topPart.bound), else -1;
	// found and after are Push's look-ahead over a batch (lookAhead)
	boundCol int
	found    []*topPart
	after    []bool
	// index finds a partition by the seeded hash of its key (FlatIndex,
	// rebuilt when partitions leave: keepOrder); parts keeps them by key
	index *FlatIndex[topPart]
	seed  maphash.Seed
}

// topPart is one partition's state: its key and its ranked rows.
type topPart struct {
	key     string
	list    []int32
	touched int64
	pos     int64 // the input position (vector.Batch.Pos) of its first row, 0 without one (DropWhere)
	// full: the list holds N ranks or more, bound being its last row's
	// first ORDER BY value (TopN.boundCol; set by insert), so that a row
	// whose value is after it is out without reading the stored rows
	full  bool
	bound cell
	// short is key's bytes when they are at most len(short) (keyLen), so
	// that finding the partition compares them where its other hot fields
	// are, without reading the key's own allocation
	short  [24]byte
	keyLen int
}

// is reports whether p's key is key.
func (p *topPart) is(key []byte) bool {
	if p.keyLen != len(key) {
		return false
	}
	if len(key) <= len(p.short) {
		return string(p.short[:len(key)]) == string(key)
	}
	return p.key == string(key)
}

// NewTopN returns a Top-N that emits to out (port TopNOut, batches with
// Kinds) and charges its state to acct (nil: none). Errors: no ORDER BY, N
// below 1, a column out of range.
func NewTopN(spec TopNSpec, out Emitter, acct Account) (*TopN, error) {
	if len(spec.Order) == 0 {
		return nil, fmt.Errorf("top-n: no ORDER BY")
	}
	if spec.N < 1 {
		return nil, fmt.Errorf("top-n: N is %d, below 1", spec.N)
	}
	if err := checkCols(spec.Types, spec.Keys, spec.Order); err != nil {
		return nil, err
	}
	if acct == nil {
		acct = noAccount{}
	}
	t := &TopN{spec: spec, out: out, acct: acct, rows: newLiveRows(spec.Types), parts: map[string]*topPart{}, clock: spec.Now, boundCol: -1,
		index: NewFlatIndex[topPart](true, 0), seed: maphash.MakeSeed()}
	switch spec.Types[spec.Order[0].Col] {
	case catalog.BigInt, catalog.Timestamp, catalog.Double, catalog.Boolean:
		if spec.Func != DenseRank {
			t.boundCol = spec.Order[0].Col
		}
	}
	t.rk = ranking{ord: order{types: spec.Types, keys: spec.Order}, n: spec.N, fn: spec.Func, newerFirst: spec.NewerFirst}
	types := spec.Types
	if spec.RankNumber {
		types = append(slices.Clip(types), catalog.BigInt)
	}
	t.ob = newOutBatch(types, TopNOut, true)
	return t, nil
}

// checkCols checks that every column named is one of types.
func checkCols(types []catalog.Type, keys []int, ord []SortKey) error {
	for _, c := range keys {
		if c < 0 || c >= len(types) {
			return fmt.Errorf("partition column %d of %d", c, len(types))
		}
	}
	for _, s := range ord {
		if s.Col < 0 || s.Col >= len(types) {
			return fmt.Errorf("order column %d of %d", s.Col, len(types))
		}
	}
	return nil
}

// Push implements Operator.
func (t *TopN) Push(ctx context.Context, _ int, b *vector.Batch) error {
	var now int64
	if t.spec.TTL > 0 {
		now = t.clock.now()
		if err := t.expire(now); err != nil {
			return err
		}
	}
	t.lookAhead(b, now)
	for i := 0; i < b.N; i++ {
		if t.after[i] {
			continue
		}
		p := t.found[i]
		var h uint64
		if p == nil {
			t.key = partKey(t.key[:0], t.spec.Types, t.spec.Keys, b, i)
			h = maphash.Bytes(t.seed, t.key)
			p = t.part(h, t.key)
		}
		if p == nil {
			p = &topPart{key: string(t.key), keyLen: len(t.key)}
			copy(p.short[:], t.key)
			if b.Pos != nil {
				p.pos = b.Pos[i]
			}
			t.parts[p.key] = p
			t.index.Put(h, p)
			t.order = append(t.order, p)
			if err := t.acct.Grow(int64(len(p.key)) + 64); err != nil {
				return err
			}
		}
		p.touched = now
		pos, ok := t.rk.place(p.list, t.rows.Rows, b, i)
		if !ok {
			continue
		}
		if err := t.insert(ctx, p, b, i, pos); err != nil {
			return err
		}
	}
	if err := t.ob.flush(ctx, t.out); err != nil {
		return err
	}
	return t.compact()
}

// lookAhead finds, before the batch b's rows are placed, the partition of
// each row that has one already (found; nil: none yet, found or made at its
// turn), marks it touched at now, and marks the rows that are out of a full
// partition by the first ORDER BY value alone (after: the value is after
// the bound of its last row, so the row ranks after the last, above N, with
// ROW_NUMBER as with RANK). The lookups do not wait for each other's rows
// (issue 24: a row's partition and its rows were cache misses one after
// another), and a partition's bound only tightens while the batch's rows
// go in, so a row out by it at the batch's start is out at its turn.
func (t *TopN) lookAhead(b *vector.Batch, now int64) {
	if cap(t.found) < b.N {
		t.found, t.after = make([]*topPart, b.N), make([]bool, b.N)
	}
	t.found, t.after = t.found[:b.N], t.after[:b.N]
	c := t.boundCol
	var v *vector.Vec
	desc := false
	if c >= 0 {
		v, desc = b.Cols[c], t.spec.Order[0].Desc
	}
	for i := 0; i < b.N; i++ {
		t.key = partKey(t.key[:0], t.spec.Types, t.spec.Keys, b, i)
		p := t.part(maphash.Bytes(t.seed, t.key), t.key)
		t.found[i], t.after[i] = p, false
		if p == nil {
			continue
		}
		p.touched = now
		if p.full && c >= 0 {
			d := cmpCells(t.spec.Types[c], cellOf(v, i), p.bound)
			if desc {
				d = -d
			}
			t.after[i] = d > 0
		}
	}
}

// part returns the partition of key (its hash h), nil when there is none.
func (t *TopN) part(h uint64, key []byte) *topPart {
	x := t.index
	mask := x.Mask()
	for q := h & mask; ; q = (q + 1) & mask {
		w, p := x.Slot(q)
		if p == nil {
			return nil
		}
		if w == h && p.is(key) {
			return p
		}
	}
}

// setBound sets p's bound (topPart.full) after its list changed.
func (t *TopN) setBound(p *topPart) {
	p.full = t.boundCol >= 0 && len(p.list) > 0 && int64(len(p.list)) >= t.rk.n
	if p.full {
		p.bound = storedCell(t.rows.Rows, int(p.list[len(p.list)-1]), t.boundCol)
	}
}

// insert adds row i of b to p at pos and emits the changes.
func (t *TopN) insert(ctx context.Context, p *topPart, b *vector.Batch, i, pos int) error {
	t.old = append(t.old[:0], p.list...)
	if t.spec.RankNumber {
		t.oldR = t.rk.ranks(t.old, t.rows.Rows, t.oldR)
	}
	k, n := t.rows.add(b, i)
	if err := t.acct.Grow(n + 4); err != nil {
		return err
	}
	p.list = slices.Insert(p.list, pos, int32(k))
	t.newR = t.rk.ranks(p.list, t.rows.Rows, t.newR)
	keep := t.rk.cut(t.newR)
	dropped := p.list[keep:]
	p.list, t.newR = p.list[:keep], t.newR[:keep]
	t.setBound(p)
	if !t.spec.RankNumber {
		for _, d := range dropped {
			if err := t.emit(ctx, d, 0, vector.Delete); err != nil {
				return err
			}
		}
		if err := t.emit(ctx, int32(k), 0, vector.Insert); err != nil {
			return err
		}
	} else {
		for j := 0; j < max(len(t.old), keep); j++ {
			switch {
			case j >= keep:
				if err := t.emit(ctx, t.old[j], t.oldR[j], vector.Delete); err != nil {
					return err
				}
			case j >= len(t.old):
				if err := t.emit(ctx, p.list[j], t.newR[j], vector.Insert); err != nil {
					return err
				}
			case t.old[j] != p.list[j] || t.oldR[j] != t.newR[j]:
				if err := t.emit(ctx, t.old[j], t.oldR[j], vector.UpdateBefore); err != nil {
					return err
				}
				if err := t.emit(ctx, p.list[j], t.newR[j], vector.UpdateAfter); err != nil {
					return err
				}
			}
		}
	}
	for _, d := range dropped {
		t.release(d)
	}
	return nil
}

// emit writes stored row k, with rank r when the output has the rank
// column, as a change of kind.
func (t *TopN) emit(ctx context.Context, k int32, r int64, kind vector.RowKind) error {
	t.ob.addRanked(t.rows.Rows, int(k), kind, t.rankCol(), r)
	return t.ob.full(ctx, t.out)
}

// rankCol is the output's rank column, -1 when it has none.
func (t *TopN) rankCol() int {
	if t.spec.RankNumber {
		return len(t.spec.Types)
	}
	return -1
}

// release marks stored row k as no longer held.
func (t *TopN) release(k int32) {
	_ = t.acct.Grow(-t.rows.release(k) - 4)
}

// compact drops the rows no partition holds once they are most of the store.
func (t *TopN) compact() error {
	moved := t.rows.compact()
	if moved == nil {
		return nil
	}
	for _, p := range t.parts {
		for j, k := range p.list {
			p.list[j] = int32(moved[k])
		}
	}
	return nil
}

// expire drops the partitions untouched for the TTL (at most once per half
// TTL); their rows leave the result without a change (Flink's state TTL:
// expired state is forgotten, not retracted).
func (t *TopN) expire(now int64) error {
	if now-t.swept < t.spec.TTL/2 {
		return nil
	}
	t.swept = now
	for key, p := range t.parts {
		if now-p.touched >= t.spec.TTL {
			for _, k := range p.list {
				t.release(k)
			}
			delete(t.parts, key)
			_ = t.acct.Grow(-int64(len(key)) - 64)
		}
	}
	t.keepOrder()
	return nil
}

// keepOrder takes the partitions no longer held out of t.order.
func (t *TopN) keepOrder() {
	kept := t.order[:0]
	for _, p := range t.order {
		if t.parts[p.key] == p {
			kept = append(kept, p)
		}
	}
	clear(t.order[len(kept):])
	t.order = kept
	t.index.Reset()
	for _, p := range kept {
		t.index.Put(maphash.String(t.seed, p.key), p)
	}
}

// DropWhere forgets, without a change, every partition whose first row's
// input position (vector.Batch.Pos when it came; 0 without one) satisfies
// drop, as the state TTL forgets (expire). The executor's replay of a Kafka
// group source (executor/replay.go) drops the partitions of a Kafka
// partition that left the process or is read again: each Top-N partition
// holds rows of one Kafka partition only when the topic is partitioned by
// the PARTITION BY key (SPEC 2.5).
func (t *TopN) DropWhere(drop func(pos int64) bool) {
	for key, p := range t.parts {
		if !drop(p.pos) {
			continue
		}
		for _, k := range p.list {
			t.release(k)
		}
		delete(t.parts, key)
		_ = t.acct.Grow(-int64(len(key)) - 64)
	}
	t.keepOrder()
}

// Final emits the result as it stands, as inserts: each partition's rows by
// rank (with the rank column when the output has it), partitions in the
// order of their first rows. It is the materialized result of the changelog
// emitted so far (SPEC 2.8: a bounded input's final table).
func (t *TopN) Final(ctx context.Context) error {
	if err := t.ob.flush(ctx, t.out); err != nil {
		return err
	}
	for _, p := range t.order {
		t.newR = t.rk.ranks(p.list, t.rows.Rows, t.newR)
		for j, k := range p.list {
			if err := t.emit(ctx, k, t.newR[j], vector.Insert); err != nil {
				return err
			}
		}
	}
	return t.ob.flush(ctx, t.out)
}

// Watermark implements Operator: the Top-N has no time of its own; the
// watermark passes on.
func (t *TopN) Watermark(ctx context.Context, _ int, wm int64) error {
	if err := t.ob.flush(ctx, t.out); err != nil {
		return err
	}
	return t.out.EmitWatermark(ctx, wm)
}

// Finish implements Operator: what is gathered is emitted.
func (t *TopN) Finish(ctx context.Context, _ int) error { return t.ob.flush(ctx, t.out) }

// Partitions returns the number of partitions held (EXPLAIN ANALYZE, tests).
func (t *TopN) Partitions() int { return len(t.parts) }
