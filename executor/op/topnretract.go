package op

import (
	"context"
	"slices"

	"streamql/catalog"
	"streamql/executor/vector"
)

// RetractTopN is the Top-N over an updating input (SPEC 2.8, 2.9; Flink's
// RetractableTopNFunction): a Top-N over an unbounded GROUP BY, a CDC or
// upsert stream, whose rows come as changes. A +I or +U row enters its
// partition, a -U or -D row takes back an equal row it holds (one with
// every column equal; none held: nothing, as Flink's "retract a
// non-existent record"). A row taken back from the top N lets the next
// row in, so each partition keeps every live row of its input, not only
// its top N: the state is the input's live rows (for a GROUP BY, one per
// group), charged to its Account. After each input row it emits what
// changed in the partition's top N (rank at most N by Func): without the
// rank column, -D for each row that left it and then +I for each that
// entered; with it, for each rank position whose row or rank changed, -U
// the old and +U the new (-D a position emptied, +I one filled), as
// Flink's does. spec.TTL and PosOrder are not used. It has one input
// port (0).
type RetractTopN struct {
	spec  TopNSpec
	rk    ranking
	out   Emitter
	acct  Account
	rows  liveRows
	parts map[string]int32 // partition key -> index in lists
	lists [][]int32        // per partition, in the order of their first rows: every live row, by rank
	key   []byte
	ob    *outBatch
	// scratch: a partition's top rows and their ranks before and after
	// the change of one input row
	before, after []int32
	rb, ra        []int64
	// quiet: no change is made (a bounded input's Top-N gives its Final
	// result only)
	quiet bool
}

// Quiet makes the Top-N make no change as rows come (q true): the result
// of a bounded input is given once, by Final.
func (t *RetractTopN) Quiet(q bool) { t.quiet = q }

// Final emits the result as it stands, as inserts: each partition's top
// rows by rank (with the rank column when the output has it), partitions in
// the order of their first rows, as TopN.Final does (SPEC 2.8: a bounded
// input's final table).
func (t *RetractTopN) Final(ctx context.Context) error {
	for _, list := range t.lists {
		t.after, t.ra = t.top(list, t.after, t.ra)
		for j, k := range t.after {
			if err := t.emit(ctx, k, t.ra[j], vector.Insert); err != nil {
				return err
			}
		}
	}
	return t.ob.flush(ctx, t.out)
}

// NewRetractTopN returns the Top-N of spec over an updating input, emitting
// into out, its state charged to acct (nil: none). It fails on a spec
// without ORDER BY, with N below 1, or naming a column not in spec.Types.
func NewRetractTopN(spec TopNSpec, out Emitter, acct Account) (*RetractTopN, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	if acct == nil {
		acct = noAccount{}
	}
	t := &RetractTopN{spec: spec, out: out, acct: acct, rows: newLiveRows(spec.Types), parts: map[string]int32{}}
	t.rk = ranking{ord: order{types: spec.Types, keys: spec.Order}, n: spec.N, fn: spec.Func, newerFirst: spec.NewerFirst}
	types := spec.Types
	if spec.RankNumber {
		types = append(slices.Clip(types), catalog.BigInt)
	}
	t.ob = newOutBatch(types, TopNOut, true)
	return t, nil
}

// retractRowBytes is what a held row costs besides its values: its index
// in its partition's list.
const retractRowBytes = 4

// Push implements Operator: each row of b, in order, changes its partition
// (b.Kinds: Insert when nil), and the changes of its top N are emitted.
func (t *RetractTopN) Push(ctx context.Context, _ int, b *vector.Batch) error {
	for i := 0; i < b.N; i++ {
		t.key = partKey(t.key[:0], t.spec.Types, t.spec.Keys, b, i)
		id, ok := t.parts[string(t.key)]
		retract := b.KindAt(i).Retracts()
		if !ok {
			if retract {
				continue // (nothing to take back)
			}
			id = int32(len(t.lists))
			t.parts[string(t.key)] = id
			t.lists = append(t.lists, nil)
			if err := t.acct.Grow(int64(len(t.key)) + 48); err != nil {
				return err
			}
		}
		list := t.lists[id]
		if !t.quiet {
			t.before, t.rb = t.top(list, t.before, t.rb)
		}
		gone := int32(-1)
		if retract {
			at := t.find(list, b, i)
			if at < 0 {
				continue
			}
			gone = list[at]
			list = slices.Delete(list, at, at+1)
		} else {
			at, _ := t.rk.place(list, t.rows.Rows, b, i)
			k, grew := t.rows.add(b, i)
			if err := t.acct.Grow(grew + retractRowBytes); err != nil {
				return err
			}
			list = slices.Insert(list, at, int32(k))
		}
		t.lists[id] = list
		if !t.quiet {
			t.after, t.ra = t.top(list, t.after, t.ra)
			if err := t.emitChanges(ctx); err != nil {
				return err
			}
		}
		if gone >= 0 {
			_ = t.acct.Grow(-t.rows.release(gone) - retractRowBytes)
		}
	}
	return t.ob.flush(ctx, t.out)
}

// top copies the rows of list whose rank is at most N into ids, and their
// ranks into ranks (ranking.ranks, stopping at the first rank above N).
func (t *RetractTopN) top(list, ids []int32, ranks []int64) ([]int32, []int64) {
	ids, ranks = ids[:0], ranks[:0]
	var r int64
	for j, k := range list {
		switch {
		case j == 0:
			r = 1
		case t.rk.fn == RowNumber:
			r = int64(j) + 1
		case t.rk.ord.cmp(t.rows.Rows, int(list[j-1]), int(k)) != 0:
			if t.rk.fn == Rank {
				r = int64(j) + 1
			} else {
				r++
			}
		}
		if r > t.spec.N {
			break
		}
		ids, ranks = append(ids, k), append(ranks, r)
	}
	return ids, ranks
}

// find returns the index in list of a held row equal to row i of b in
// every column (the first in rank order), -1 when none is.
func (t *RetractTopN) find(list []int32, b *vector.Batch, i int) int {
	lo, _ := slices.BinarySearchFunc(list, 0, func(k int32, _ int) int { // first row not below it
		if t.rk.ord.cmpIn(b, i, t.rows.Rows, int(k)) > 0 {
			return -1
		}
		return 1
	})
	for at := lo; at < len(list) && t.rk.ord.cmpIn(b, i, t.rows.Rows, int(list[at])) == 0; at++ {
		if t.same(b, i, int(list[at])) {
			return at
		}
	}
	return -1
}

// same reports whether row i of b and held row k are equal in every
// column (NULL equal to NULL; ARRAY, MAP and ROW values not compared).
func (t *RetractTopN) same(b *vector.Batch, i, k int) bool {
	for c, typ := range t.spec.Types {
		if typ.IsNested() {
			continue
		}
		if cmpCells(typ, cellOf(b.Cols[c], i), storedCell(t.rows.Rows, k, c)) != 0 {
			return false
		}
	}
	return true
}

// emitChanges emits what changed between t.before and t.after (the
// partition's top rows and ranks around one input row).
func (t *RetractTopN) emitChanges(ctx context.Context) error {
	if !t.spec.RankNumber {
		for _, k := range t.before {
			if !slices.Contains(t.after, k) {
				if err := t.emit(ctx, k, 0, vector.Delete); err != nil {
					return err
				}
			}
		}
		for _, k := range t.after {
			if !slices.Contains(t.before, k) {
				if err := t.emit(ctx, k, 0, vector.Insert); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for j := range max(len(t.before), len(t.after)) {
		switch {
		case j >= len(t.after):
			if err := t.emit(ctx, t.before[j], t.rb[j], vector.Delete); err != nil {
				return err
			}
		case j >= len(t.before):
			if err := t.emit(ctx, t.after[j], t.ra[j], vector.Insert); err != nil {
				return err
			}
		case t.before[j] != t.after[j] || t.rb[j] != t.ra[j]:
			if err := t.emit(ctx, t.before[j], t.rb[j], vector.UpdateBefore); err != nil {
				return err
			}
			if err := t.emit(ctx, t.after[j], t.ra[j], vector.UpdateAfter); err != nil {
				return err
			}
		}
	}
	return nil
}

// emit writes held row k, with rank r when the output has the rank
// column, as a change of kind.
func (t *RetractTopN) emit(ctx context.Context, k int32, r int64, kind vector.RowKind) error {
	rc := -1
	if t.spec.RankNumber {
		rc = len(t.spec.Types)
	}
	t.ob.addRanked(t.rows.Rows, int(k), kind, rc, r)
	return t.ob.full(ctx, t.out)
}

// DropWhere forgets, without a change, every held row whose input position
// (vector.Batch.Pos when it came) drop is true for: the executor's replay
// of a Kafka group source (executor/replay.go) drops the rows of a Kafka
// partition that left the process or is read again (a Top-N partition
// holds rows of one Kafka partition when the topic is partitioned by its
// PARTITION BY key, SPEC 2.5). A partition left empty keeps its key.
func (t *RetractTopN) DropWhere(drop func(pos int64) bool) {
	for id, list := range t.lists {
		kept := list[:0]
		for _, k := range list {
			if drop(t.rows.Pos(int(k))) {
				_ = t.acct.Grow(-t.rows.release(k) - retractRowBytes)
				continue
			}
			kept = append(kept, k)
		}
		t.lists[id] = kept
	}
}

// Watermark implements Operator: the Top-N has no time of its own; the
// watermark passes on.
func (t *RetractTopN) Watermark(ctx context.Context, _ int, wm int64) error {
	return t.ob.passWatermark(ctx, t.out, wm)
}

// Finish implements Operator: what is gathered is emitted.
func (t *RetractTopN) Finish(ctx context.Context, _ int) error { return t.ob.flush(ctx, t.out) }

// Partitions returns the number of partitions held (tests).
func (t *RetractTopN) Partitions() int { return len(t.parts) }
